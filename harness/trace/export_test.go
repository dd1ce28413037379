package trace_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/trace"
)

// interval is what both exports must show for one task or one copy,
// computed here from the trace's raw events, not from the Timeline.
type interval struct {
	who        string // worker name for a task; "src>dst kind" for a copy
	start, end float64
}

// expected pairs each task_start with its task_end and each copy's start
// with its end, straight from the events.
func expected(t *testing.T, tr *trace.Trace) (tasks, copies []interval) {
	type key struct{ node, data int }
	open := map[key]trace.Copy{}
	taskAt := map[int]float64{}
	names := map[int]string{} // worker -> name, GPU workers only here
	for w := range tr.Header.Platform.GPUs {
		names[w] = "GPU" + strconv.Itoa(w)
	}
	node := func(n int) string {
		if n == tr.Header.Platform.HomeNode() {
			return "ram"
		}
		return "gpu" + strconv.Itoa(n) + " memory"
	}
	for _, ev := range tr.Events {
		switch ev.Ev {
		case "task_start":
			taskAt[ev.Task] = ev.T
		case "task_end":
			tasks = append(tasks, interval{names[ev.Worker], taskAt[ev.Task], ev.T})
		case "load_start":
			open[key{ev.Node, ev.Data}] = trace.Copy{Src: ev.Src, Start: ev.T, Kind: ev.Kind}
		case "load_end":
			c := open[key{ev.Node, ev.Data}]
			copies = append(copies, interval{node(c.Src) + ">" + node(ev.Node) + " " + c.Kind, c.Start, ev.T})
		case "writeback_start", "writeback_end":
			t.Fatal("the test's runs have no write-backs; extend expected() before using one that has")
		}
	}
	return tasks, copies
}

// match finds each expected interval among got (times in ms, as printed
// with 6 decimals) and fails on any missing or extra one.
func match(t *testing.T, what string, want, got []interval) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d in the export, %d in the trace", what, len(got), len(want))
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && g.who == w.who && math.Abs(g.start-w.start*1e3) < 2e-6 && math.Abs(g.end-w.end*1e3) < 2e-6 {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Fatalf("%s: %s [%g, %g] s of the trace is not in the export", what, w.who, w.start, w.end)
		}
	}
}

func exportTrace(t *testing.T, gpus int) (*trace.Trace, *trace.Timeline) {
	b, _ := record(t, gpus, 12)
	tr, err := trace.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tl, err := trace.NewTimeline(tr)
	if err != nil {
		t.Fatal(err)
	}
	return tr, tl
}

// The Paje export, read back by pajeng's pj_dump (the reader ViTE's and
// StarVZ's pipelines use), holds every task as a computing state and every
// copy as a link, at the trace's times, and each worker's states cover
// the run without gap or overlap.
func TestPajeReadsBackWithPjDump(t *testing.T) {
	pjdump, err := exec.LookPath("pj_dump")
	if err != nil {
		t.Skip("pj_dump (Debian package pajeng) is not installed: .ci/run installs it")
	}
	tr, tl := exportTrace(t, 2)
	var buf bytes.Buffer
	if err := trace.WritePaje(&buf, tl); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.paje")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pjdump, path).CombinedOutput()
	if err != nil {
		t.Fatalf("pj_dump: %v\n%s", err, out)
	}
	var states, links []interval
	cover := map[string]float64{} // worker -> end of its last state
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ", ")
		num := func(i int) float64 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				t.Fatalf("pj_dump line %q: field %d: %v", sc.Text(), i, err)
			}
			return v
		}
		switch f[0] {
		case "State": // State, container, type, start, end, duration, imbrication, value
			if c, ok := cover[f[1]]; ok && math.Abs(c-num(3)) > 2e-6 || !ok && num(3) != 0 {
				t.Fatalf("%s: a state starts at %s ms, the previous one ended at %g ms", f[1], f[3], c)
			}
			cover[f[1]] = num(4)
			if f[7] == trace.Computing {
				states = append(states, interval{f[1], num(3), num(4)})
			}
		case "Link": // Link, container, type, start, end, duration, value, start container, end container, key
			links = append(links, interval{f[7] + ">" + f[8] + " " + f[6], num(3), num(4)})
		}
	}
	tasks, copies := expected(t, tr)
	match(t, "computing states", tasks, states)
	match(t, "transfers", copies, links)
	for w, end := range cover {
		if math.Abs(end-tl.End*1e3) > 2e-6 {
			t.Errorf("%s: states end at %g ms, the run at %g ms", w, end, tl.End*1e3)
		}
	}
	if len(cover) != 2 {
		t.Errorf("states on %d workers, want 2", len(cover))
	}
}

// The Chrome export is the Trace Event Format: a JSON object whose
// traceEvents hold one complete event per task and one async begin/end
// pair per copy, in microseconds.
func TestChromeTraceHoldsEveryTaskAndCopy(t *testing.T) {
	tr, tl := exportTrace(t, 2)
	var buf bytes.Buffer
	if err := trace.WriteChrome(&buf, tl, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Ph, Cat, ID string
			Ts                float64
			Dur               *float64
			Pid, Tid          int
			Args              map[string]any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	threads := map[[2]int]string{}
	begins := map[string]float64{}
	var states, copies []interval
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
			}
		case "X":
			if e.Cat == trace.Computing {
				states = append(states, interval{threads[[2]int{e.Pid, e.Tid}], e.Ts / 1e3, (e.Ts + *e.Dur) / 1e3})
			}
		case "b":
			begins[e.ID] = e.Ts
		case "e":
			from, to := "", threads[[2]int{e.Pid, e.Tid}]
			for _, b := range doc.TraceEvents {
				if b.Ph == "b" && b.ID == e.ID {
					from = b.Args["from"].(string)
				}
			}
			copies = append(copies, interval{from + ">" + to + " " + e.Cat, begins[e.ID] / 1e3, e.Ts / 1e3})
		}
	}
	tasks, want := expected(t, tr)
	match(t, "computing events", tasks, states)
	match(t, "copies", want, copies)
}

// A copy that ends without its start (a cut or edited trace) is refused,
// not drawn from time 0.
func TestTimelineRefusesAnUnmatchedCopy(t *testing.T) {
	tr, _ := exportTrace(t, 1)
	for i, ev := range tr.Events {
		if ev.Ev == "load_start" {
			tr.Events = append(tr.Events[:i], tr.Events[i+1:]...)
			break
		}
	}
	if _, err := trace.NewTimeline(tr); err == nil || !strings.Contains(err.Error(), "without its start") {
		t.Fatalf("got %v, want an error naming the load_end without its start", err)
	}
}
