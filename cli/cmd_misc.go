package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

func init() {
	register("workload", "generate a task set and write it as JSON (or print its summary)", cmdWorkload)
	register("schedulers", "list the registered schedulers and their parameters (or those named: exec:PATH)", cmdSchedulers)
}

func cmdWorkload(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("workload", "[flags]\n\nOptions of the application kinds (--opt name=value; invented = not stated by the paper):\n"+kindOptionsText(), stderr)
	var wf workloadFlags
	wf.register(fs, false)
	seed := fs.Uint64("seed", 1, "random seed")
	format := fs.String("format", "summary", "summary or json")
	out := fs.String("o", "", "write to this file instead of stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	if *format != "json" && *format != "summary" {
		return fmt.Errorf("--format %q: want summary or json", *format)
	}
	w, err := wf.build(fs, *seed)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if *format == "json" {
		if err := w.WriteJSON(&buf); err != nil {
			return err
		}
	} else {
		kernels := map[string]int{}
		for _, t := range w.Tasks {
			kernels[t.Kernel]++
		}
		fmt.Fprintf(&buf, "workload %s: %d tasks %v, %d data, working set %.3f MiB, %.4g GFlop, largest task inputs %.3f MiB\n",
			w.Name, len(w.Tasks), kernels, len(w.Data), w.WorkingSetMiB(), w.TotalFlops()/1e9, float64(w.MaxInputBytes())/(1<<20))
	}
	if st := wf.starpuRead; st != nil {
		fmt.Fprintln(stderr, st.Summary())
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	return writeFile(*out, buf.Bytes())
}

// writeFile writes a whole output file through a temporary file renamed
// over it: a failed write or close (a full disk) is an error and leaves
// the old file, never a cut one.
func writeFile(path string, data []byte) error {
	return atomicfile.WriteFile(path, data, 0o644)
}

// kindOptionsText lists every kind's options for the usage text.
func kindOptionsText() string {
	var b strings.Builder
	for _, k := range workloads.Kinds() {
		for _, o := range workloads.KindOptions(k) {
			inv := ""
			if o.Invented {
				inv = ", invented"
			}
			fmt.Fprintf(&b, "  %s: %s (default %g%s): %s\n", k, o.Name, o.Default, inv, o.Doc)
		}
	}
	return b.String()
}

func cmdSchedulers(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schedulers", "[NAME ...]", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	specs := schedulers.List()
	if fs.NArg() > 0 { // e.g. memsched schedulers exec:prog.py
		specs = nil
		for _, name := range fs.Args() {
			s, err := schedulers.Lookup(name)
			if err != nil {
				return err
			}
			specs = append(specs, s)
		}
	}
	for _, s := range specs {
		fmt.Fprintf(stdout, "%s (v%d)\n    %s\n", s.Name, s.Version, s.Doc)
		if a := schedulers.StarPUAliases(s.Name); len(a) > 0 {
			fmt.Fprintf(stdout, "    StarPU's name: %s (accepted as the scheduler's name)\n", strings.Join(a, ", "))
		}
		switch {
		case s.Buffer < 0:
			fmt.Fprintf(stdout, "    buffer: unbounded by default (every allocated task is prefetched)\n")
		case s.Buffer > 0:
			fmt.Fprintf(stdout, "    buffer: %d by default\n", s.Buffer)
		}
		for _, p := range append(s.Params, schedulers.BufferParam) {
			choices := ""
			if len(p.Choices) > 0 {
				choices = " {" + strings.Join(p.Choices, "|") + "}"
			}
			fmt.Fprintf(stdout, "    --param %s=<%s>%s (default %s): %s\n", p.Name, p.Kind, choices, p.Default, p.Doc)
		}
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stdout, "exec:PATH\n    an external program speaking docs/protocol.md; memsched schedulers exec:PATH lists its parameters\n")
	}
	return nil
}
