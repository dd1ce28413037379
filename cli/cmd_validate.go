package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/workloads"
)

func init() {
	register("validate", "re-check a trace against its workload and platform; exit 1 on any violation", cmdValidate)
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
	t, err := trace.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	var w *workloads.Workload
	switch {
	case t.Header.WorkloadFile != "":
		w, err = workloads.ReadJSONFile(t.Header.WorkloadFile)
	case t.Header.Workload != nil:
		w, err = workloads.Generate(*t.Header.Workload)
	default:
		err = fmt.Errorf("trace header names no workload")
	}
	if err != nil {
		return err
	}
	bad := trace.Validate(t, w)
	for _, b := range bad {
		fmt.Fprintln(stdout, "violation:", b)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %d violation(s)", fs.Arg(0), len(bad))
	}
	fmt.Fprintf(stdout, "%s: valid (%d events, %d tasks, %d loads)\n", fs.Arg(0), len(t.Events), t.Result.Tasks, t.Result.Loads)
	return nil
}
