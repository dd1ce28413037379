package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/trace"
)

func init() {
	register("validate", "re-check a trace against its workload and platform (or a batch trace: cores, files, reservations); exit 1 on any violation", cmdValidate)
}

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", "TRACE.jsonl", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("give one trace file (written by memsched run --trace FILE), got %d arguments", fs.NArg())
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if first, _ := br.Peek(4096); batch.IsTrace(firstLine(first)) {
		return validateBatch(fs.Arg(0), br, stdout)
	}
	t, err := trace.Read(br)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	w, err := traceWorkload(t)
	if err != nil {
		return err
	}
	bad := trace.Validate(t, w)
	for _, b := range bad {
		fmt.Fprintln(stdout, "violation:", b)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %d violation(s), the first: %s", fs.Arg(0), len(bad), bad[0])
	}
	fmt.Fprintf(stdout, "%s: valid (%d events, %d tasks, %d loads)\n", fs.Arg(0), len(t.Events), t.Result.Tasks, t.Result.Loads)
	return nil
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// validateBatch checks a batch trace (memsched batch --trace).
func validateBatch(name string, r io.Reader, stdout io.Writer) error {
	h, evs, err := batch.ReadTrace(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	bad := batch.Validate(h, evs)
	for _, b := range bad {
		fmt.Fprintln(stdout, "violation:", b)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %d violation(s), the first: %s", name, len(bad), bad[0])
	}
	starts, plans := 0, 0
	for _, e := range evs {
		switch e.Kind {
		case batch.EvStart:
			starts++
		case batch.EvPlan:
			plans++
		}
	}
	fmt.Fprintf(stdout, "%s: valid batch trace (%d events, %d job starts, %d reservations checked)\n", name, len(evs), starts, plans)
	return nil
}
