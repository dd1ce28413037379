package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

func init() {
	register("workload", "generate a task set and write it as JSON (or print its summary)", cmdWorkload)
	register("schedulers", "list the registered schedulers and their parameters", cmdSchedulers)
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
	w, err := wf.build(*seed)
	if err != nil {
		return err
	}
	dst := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		dst = f
	}
	switch *format {
	case "json":
		bw := bufio.NewWriter(dst)
		if err := w.WriteJSON(bw); err != nil {
			return err
		}
		return bw.Flush()
	case "summary":
		kernels := map[string]int{}
		for _, t := range w.Tasks {
			kernels[t.Kernel]++
		}
		fmt.Fprintf(dst, "workload %s: %d tasks %v, %d data, working set %.3f MiB, %.4g GFlop, largest task inputs %.3f MiB\n",
			w.Name, len(w.Tasks), kernels, len(w.Data), w.WorkingSetMiB(), w.TotalFlops()/1e9, float64(w.MaxInputBytes())/(1<<20))
		return nil
	}
	return fmt.Errorf("--format %q: want summary or json", *format)
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
	fs := newFlags("schedulers", "", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, s := range schedulers.List() {
		fmt.Fprintf(stdout, "%s\n    %s\n", s.Name, s.Doc)
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
	return nil
}
