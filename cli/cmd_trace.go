package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memsched/memsched/harness/report"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/internal/suggest"
	"github.com/memsched/memsched/workloads"
)

func init() {
	register("trace", "convert a run's trace (memsched run --trace) for timeline viewers: trace export --format paje|chrome|png|svg|pdf", cmdTrace)
}

// exportFormats are the formats trace export writes; the picture formats
// share one writer, which reads the extension.
var exportFormats = []string{"paje", "chrome", "png", "svg", "pdf"}

func cmdTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "export" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			args = []string{"export", "-h"}
		} else {
			return fmt.Errorf("memsched trace has one subcommand: export (memsched trace export -h)")
		}
	}
	fs := newFlags("trace export", "[flags] TRACE.jsonl\n\nConverts a trace: paje (ViTE, StarVZ, pj_dump; times in ms as StarPU's paje.trace), chrome (the Trace Event Format that Perfetto and chrome://tracing open), or a Gantt picture (png, svg, pdf)", stderr)
	format := fs.String("format", "", "paje, chrome, png, svg or pdf; omitted = from -o's extension (.paje/.trace, .json, .png, .svg, .pdf)")
	out := fs.String("o", "", "output file; omitted = standard output (paje and chrome only)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("give one trace file (written by memsched run --trace FILE), got %d arguments", fs.NArg())
	}
	f := *format
	if f == "" {
		switch f = exportFormat(*out); {
		case *out == "":
			return fmt.Errorf("give --format (%s) or an -o file whose extension says it", strings.Join(exportFormats, ", "))
		case f == "":
			return fmt.Errorf("-o %s: extension %q says no format; give --format (%s)", *out, filepath.Ext(*out), strings.Join(exportFormats, ", "))
		}
	}
	picture := f == "png" || f == "svg" || f == "pdf"
	switch {
	case !picture && f != "paje" && f != "chrome":
		return fmt.Errorf("--format %q: not a format (%s)%s", f, strings.Join(exportFormats, ", "), suggest.Closest(f, exportFormats))
	case picture && *out == "":
		return fmt.Errorf("--format %s writes a picture: give -o FILE.%s", f, f)
	case picture && strings.ToLower(filepath.Ext(*out)) != "."+f:
		return fmt.Errorf("-o %s: a %s picture needs the extension .%s", *out, f, f)
	}
	t, err := readTraceFile(fs.Arg(0))
	if err != nil {
		return err
	}
	if err := exportTrace(t, f, *out, stdout); err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	return nil
}

// exportFormat is the export format an output file's extension names, ""
// for any other (a JSON Lines trace: .jsonl).
func exportFormat(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".paje", ".trace":
		return "paje"
	case ".json":
		return "chrome"
	case ".png", ".svg", ".pdf":
		return ext[1:]
	}
	return ""
}

// exportTrace writes a trace in format f to out (stdout when "", paje and
// chrome only): the one conversion trace export and run --trace share.
func exportTrace(t *trace.Trace, f, out string, stdout io.Writer) error {
	tl, err := trace.NewTimeline(t)
	if err != nil {
		return err
	}
	if f == "png" || f == "svg" || f == "pdf" {
		h := t.Header
		title := fmt.Sprintf("%s on %d GPU(s), %s", h.Scheduler, h.Platform.GPUs, h.Platform.Name)
		if h.Workload != nil {
			title = fmt.Sprintf("%s, %s", title, h.Workload.Name())
		}
		return report.TimelinePlot(tl, title, out)
	}
	return writeOut(out, stdout, func(w io.Writer) error {
		if f == "paje" {
			return trace.WritePaje(w, tl)
		}
		return trace.WriteChrome(w, tl, taskNamer(t))
	})
}

// readTraceFile reads a whole trace; a truncated one is an error here
// (a timeline of half a run would look like a finished one).
func readTraceFile(path string) (*trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := trace.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// traceWorkload rebuilds the workload a trace's header names.
func traceWorkload(t *trace.Trace) (*workloads.Workload, error) {
	switch {
	case t.Header.WorkloadFile != "":
		return workloads.ReadJSONFile(t.Header.WorkloadFile)
	case t.Header.Workload != nil:
		return workloads.Generate(*t.Header.Workload)
	case t.Header.StarPUTasks != nil:
		st, err := workloads.ReadStarPUTasksFile(t.Header.StarPUTasks.File, t.Header.StarPUTasks.StarPUTasksOptions)
		if err != nil {
			return nil, err
		}
		return st.Workload, nil
	}
	return nil, fmt.Errorf("trace header names no workload")
}

// taskNamer names tasks by kernel and number when the trace's workload
// can be rebuilt, or leaves them numbered.
func taskNamer(t *trace.Trace) func(int) string {
	w, err := traceWorkload(t)
	if err != nil {
		return nil
	}
	return func(i int) string {
		if i >= 0 && i < len(w.Tasks) {
			return fmt.Sprintf("%s %d", w.Tasks[i].Kernel, i)
		}
		return fmt.Sprintf("task %d", i)
	}
}
