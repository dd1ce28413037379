//go:build unix

package external

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline" // eager, to compare with
	"github.com/memsched/memsched/workloads"
)

// The test binary doubles as a minimal external scheduler in Go (a FIFO
// handling every request), for the protocol's own cost.
func TestMain(m *testing.M) {
	if os.Getenv("MEMSCHED_TEST_FIFO") == "1" {
		fifo()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fifo() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	var queue []int
	for in.Scan() {
		var req struct {
			Op     string `json:"op"`
			Events []struct {
				Ev   string `json:"ev"`
				Task int    `json:"task"`
			} `json:"events"`
			Candidates []int `json:"candidates"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			os.Exit(2)
		}
		for _, e := range req.Events {
			if e.Ev == "push" {
				queue = append(queue, e.Task)
			}
		}
		switch req.Op {
		case "describe":
			out.WriteString(`{"doc":"fifo","handles":["pop","victim","events"]}`)
		case "init":
			out.WriteString(`{"ok":true}`)
		case "pull":
			if len(queue) == 0 {
				out.WriteString(`{"task":null}`)
			} else {
				out.WriteString(`{"task":` + strconv.Itoa(queue[0]) + `}`)
				queue = queue[1:]
			}
		case "pop":
			out.WriteString(`{"index":0}`)
		case "victim":
			out.WriteString(`{"data":` + strconv.Itoa(req.Candidates[0]) + `}`)
		}
		out.WriteByte('\n')
		if os.Getenv("MEMSCHED_TEST_FIFO_TWICE") == req.Op { // a second answer, in the same write
			out.WriteString(`{"ok":true}` + "\n")
		}
		out.Flush()
	}
	if os.Getenv("MEMSCHED_TEST_FIFO_TWICE") == "end" { // an answer to no request, after the last one
		out.WriteString(`{"task":null}` + "\n")
		out.Flush()
	}
}

func fifoSpec(t testing.TB) schedulers.Spec {
	t.Setenv("MEMSCHED_TEST_FIFO", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Lookup(exe)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func python(t testing.TB) string {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIP: python3 is not on PATH; the Python example scheduler is not run")
	}
	p, _ := filepath.Abs("../../examples/python/greedy.py")
	return p
}

func config(t testing.TB, w *workloads.Workload, gpus int, memMiB float64) run.Config {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryMiB(memMiB)
	return run.Config{Workload: w, Platform: p, Seed: 1, Params: map[string]string{}}
}

func generate(t testing.TB, s workloads.Spec) *workloads.Workload {
	w, err := workloads.Generate(s.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The Python example runs through the protocol and its schedule is valid:
// every task once, inputs resident, memory within the cap.
func TestPythonGreedyRunsAValidSchedule(t *testing.T) {
	prog := python(t)
	w := generate(t, workloads.Spec{Kind: "matmul2d", N: 12})
	cfg := config(t, w, 2, 200)
	cfg.Scheduler = "exec:" + prog
	var events []event.Event
	cfg.Trace = func(e event.Event) { events = append(events, e) }
	rec, err := run.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{Header: trace.Header{Platform: cfg.Platform}, Events: events, Result: &rec}
	if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Fatalf("invalid schedule: %v", bad)
	}
	if rec.SchedulerCode == nil || rec.SchedulerCode.Path != prog || len(rec.SchedulerCode.SHA256) != 64 {
		t.Errorf("record's scheduler code = %+v; want the program's path and SHA-256", rec.SchedulerCode)
	}
	// Locality-aware: fewer loads than EAGER's FIFO on the same instance.
	cfg.Scheduler, cfg.Trace = "eager", nil
	eager, err := run.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Loads >= eager.Loads {
		t.Errorf("greedy loads %d, EAGER %d: the locality-aware choice should load less", rec.Loads, eager.Loads)
	}
}

func TestDescribeGivesTypedParameters(t *testing.T) {
	s, err := Lookup(python(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(map[string]string{"eviction": "lfu"}); err == nil || !strings.Contains(err.Error(), "must be one of luf, lru") {
		t.Errorf("eviction=lfu: %v; want the closest choice suggested", err)
	}
	if _, err := s.Resolve(map[string]string{"timeout": "5", "ready": "false"}); err != nil {
		t.Errorf("timeout and ready: %v", err)
	}
}

// script writes a program that answers describe and init, then behaves as
// given; it records its pid so the test can check it was reaped.
func script(t *testing.T, handles, afterInit string) (path, pidFile string) {
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "pid")
	path = filepath.Join(dir, "prog.sh")
	text := "#!/bin/sh\nread -r line\n" +
		"case \"$line\" in *describe*) echo '{\"doc\":\"test\",\"handles\":" + handles + "}'; exit 0;; esac\n" +
		"echo $$ > " + pidFile + "\necho '{\"ok\":true}'\n" + afterInit + "\n"
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, pidFile
}

func TestProtocolErrorsEndTheRunClearly(t *testing.T) {
	cases := []struct {
		name, handles, body string
		want                []string
	}{
		{"bad JSON", `[]`, `read -r line; echo 'hello'`, []string{"pull: the answer is not JSON", `"hello"`}},
		{"unknown task", `[]`, `read -r line; echo '{"task":999}'`, []string{"pull answered unknown task 999 (tasks are 0 to 8)"}},
		{"task given twice", `[]`, `read -r line; echo '{"task":0}'; read -r line; echo '{"task":0}'`, []string{"task 0, which an earlier pull already gave"}},
		{"wrong answer type", `[]`, `read -r line; echo '{"index":0}'`, []string{`pull wants {"task": <id>} or {"task": null}; got "{\"index\":0}"`}},
		{"not an integer", `[]`, `read -r line; echo '{"task":"a"}'`, []string{`pull wants {"task": <id>}`}},
		{"pop out of range", `["pop"]`, `read -r line; echo '{"task":0}'; read -r line; echo '{"index":3}'`, []string{"pop answered index 3 of a buffer of 1 tasks"}},
		{"program error", `[]`, `read -r line; echo '{"error":"I give up"}'`, []string{"pull: the program says: I give up"}},
		{"process dies", `[]`, `read -r line; echo 'Traceback: boom' >&2; exit 3`, []string{"pull: the program exited (exit status 3) without answering", "its stderr ends:\n    Traceback: boom"}},
		{"timeout", `[]`, `read -r line; exec sleep 30`, []string{"no answer to pull within 200ms"}},
	}
	w := generate(t, workloads.Spec{Kind: "matmul2d", N: 3})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog, pidFile := script(t, c.handles, c.body)
			cfg := config(t, w, 1, 100)
			cfg.Scheduler, cfg.Params = "exec:"+prog, map[string]string{"timeout": "0.2", "buffer": "1"}
			_, err := run.Run(cfg)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			if run.IsPanic(err) {
				t.Errorf("a protocol error is reported as a crash: %v", err)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\ndoes not say %q", err, want)
				}
			}
			if !strings.Contains(err.Error(), "exec:"+prog+": ") {
				t.Errorf("error %q does not start with the scheduler's name", err)
			}
			reaped(t, pidFile)
		})
	}
}

// reaped checks that the program's process no longer exists (a zombie
// would still accept signal 0).
func reaped(t *testing.T, pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still exists after the run (kill 0: %v)", pid, err)
	}
}

func TestInitRefusalIsTheRunsError(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "static.sh")
	os.WriteFile(prog, []byte("#!/bin/sh\nread -r l\ncase \"$l\" in *describe*) echo '{\"doc\":\"static\"}'; exit 0;; esac\necho '{\"error\":\"a static plan needs an independent task set\"}'\nread -r l\n"), 0o755)
	w := generate(t, workloads.Spec{Kind: "cholesky", N: 3, Deps: true})
	cfg := config(t, w, 1, 100)
	cfg.Scheduler = "exec:" + prog
	_, err := run.Run(cfg)
	if err == nil || !strings.Contains(err.Error(), "init: the program refuses: a static plan needs an independent task set") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadProgramsAreRejectedAtLookup(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), mode)
		return p
	}
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "missing.py"), "no such file"},
		{write("noexec.py", "print()", 0o644), "chmod +x"},
		{write("silent.sh", "#!/bin/sh\nexit 0\n", 0o755), "describe: the program exited (exit status 0)"},
		{write("garbage.sh", "#!/bin/sh\nread -r l; echo '{\"doc\":1}'\n", 0o755), "describe: want {"},
		{write("reserved.sh", "#!/bin/sh\nread -r l; echo '{\"params\":[{\"name\":\"timeout\",\"kind\":\"int\",\"default\":\"1\"}]}'\n", 0o755), "reserved"},
		{write("handles.sh", "#!/bin/sh\nread -r l; echo '{\"handles\":[\"victims\"]}'\n", 0o755), `did you mean "victim"`},
		{write("default.sh", "#!/bin/sh\nread -r l; echo '{\"params\":[{\"name\":\"k\",\"kind\":\"int\",\"default\":\"x\"}]}'\n", 0o755), "a default is not valid"},
	}
	for _, c := range cases {
		_, err := schedulers.Lookup("exec:" + c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want it to say %q", filepath.Base(c.path), err, c.want)
		}
	}
}

// What a program sends is bounded: an answer without end fails at 1 MiB,
// the describe answer is awaited for the run's timeout parameter (not a
// fixed 60 s), and a timeout that would overflow a duration is refused.
func TestProgramAnswersAreBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o755)
		return p
	}
	endless := write("endless.sh", "#!/bin/sh\nread -r l; yes | tr -d '\\n'\n")
	silent := write("silent.sh", "#!/bin/sh\nread -r l; sleep 30\n")
	for _, c := range []struct {
		path    string
		timeout string
		want    string
	}{
		{endless, "20", "describe: the answer is longer than 1048576 bytes without a newline"},
		{silent, "0.3", "no answer to describe within 300ms (the timeout parameter sets the limit)"},
		{silent, "1e300", "timeout = 1e300; give a positive number of seconds, at most 1e+06"},
		{silent, "0", "timeout = 0; give a positive number of seconds"},
		{silent, "NaN", "timeout = NaN; give a positive number of seconds"},
	} {
		t0 := time.Now()
		_, err := schedulers.LookupWith("exec:"+c.path, map[string]string{"timeout": c.timeout})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, timeout %s: %v; want it to say %q", filepath.Base(c.path), c.timeout, err, c.want)
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("%s, timeout %s: %s to fail", filepath.Base(c.path), c.timeout, d)
		}
	}
	// A run's timeout above the bound is refused when it is built, not
	// turned into a negative duration.
	spec := fifoSpec(t)
	if _, err := spec.Resolve(map[string]string{"timeout": "1e300"}); err == nil || !strings.Contains(err.Error(), "want a number <= 1e6") {
		t.Errorf("timeout=1e300: %v", err)
	}
}

// A changed program is a different scheduler code, so its runs get new keys.
func TestChangedProgramChangesItsCode(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.sh")
	os.WriteFile(prog, []byte("#!/bin/sh\nread -r l; echo '{\"doc\":\"one\"}'\n"), 0o755)
	a, err := Lookup(prog)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(prog, []byte("#!/bin/sh\nread -r l; echo '{\"doc\":\"two\"}'\n"), 0o755)
	b, err := Lookup(prog)
	if err != nil {
		t.Fatal(err)
	}
	if a.Code.Key() == b.Code.Key() || !strings.Contains(b.Doc, "two") {
		t.Errorf("codes %q and %q, doc %q: a changed program must be described and keyed anew", a.Code.Key(), b.Code.Key(), b.Doc)
	}
}

// In a suite, exec:PATH is relative to the suite file, and the program's
// hash is part of every run key.
func TestSuiteKeysCoverTheProgram(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "progs"), 0o755)
	prog := filepath.Join(dir, "progs", "p.sh")
	write := func(doc string) {
		os.WriteFile(prog, []byte("#!/bin/sh\nread -r l; echo '{\"doc\":\""+doc+"\"}'\n"), 0o755)
	}
	file := filepath.Join(dir, "s.toml")
	os.WriteFile(file, []byte(`[suite]
name = "t"
[platform]
memory_mb = 100
[workload]
kind = "matmul2d"
n = 3
[[scheduler]]
name = "exec:progs/p.sh"
label = "P"
`), 0o644)
	keys := func() string {
		s, err := suite.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if s.Schedulers[0].Name != "exec:"+prog {
			t.Errorf("scheduler name %q; want exec:%s (relative to the suite file)", s.Schedulers[0].Name, prog)
		}
		r := s.Runs()[0]
		if rec := r.Record(); rec.SchedulerCode == nil || rec.SchedulerCode.Path != prog {
			t.Errorf("error rows lack the program: %+v", rec.SchedulerCode)
		}
		return r.Key
	}
	write("one")
	a := keys()
	write("two")
	if b := keys(); a == b {
		t.Errorf("key %s unchanged after the program changed", a)
	}
}

// BenchmarkDecision measures one decision through the protocol: a pop
// request (worker, time, a buffer of 10 tasks) and its answer, one round
// trip between the processes; decisions/s is its inverse.
func BenchmarkDecision(b *testing.B) {
	bench := func(b *testing.B, spec schedulers.Spec) {
		w := generate(b, workloads.Spec{Kind: "matmul2d", N: 10})
		cfg := config(b, w, 1, 500)
		params, _ := spec.Resolve(nil)
		sch, err := spec.New(params)
		if err != nil {
			b.Fatal(err)
		}
		s := sch.(*Scheduler)
		e, err := sim.New(sim.Config{Workload: w, Platform: cfg.Platform, Scheduler: s, Buffer: 10, Pipeline: 1, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Init(e); err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		buffer := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s.Pop(0, buffer)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	}
	b.Run("go-fifo", func(b *testing.B) { bench(b, fifoSpec(b)) })
	b.Run("python-greedy", func(b *testing.B) {
		s, err := Lookup(python(b))
		if err != nil {
			b.Fatal(err)
		}
		bench(b, s)
	})
}

// BenchmarkRun is a whole simulated run through the protocol (2D N=40, 2
// GPUs, 500 MiB: 1,600 tasks), process start included.
func BenchmarkRun(b *testing.B) {
	w := generate(b, workloads.Spec{Kind: "matmul2d", N: 40})
	bench := func(b *testing.B, spec schedulers.Spec) {
		var decisions, tasks int
		for i := 0; i < b.N; i++ {
			cfg := config(b, w, 2, 500)
			params, _ := spec.Resolve(nil)
			sch, err := spec.New(params)
			if err != nil {
				b.Fatal(err)
			}
			s := sch.(*Scheduler)
			_, err = sim.Run(sim.Config{Workload: w, Platform: cfg.Platform, Scheduler: s,
				Buffer: spec.BufferDepth(params, cfg.Platform.Runtime.Buffer), Pipeline: cfg.Platform.Runtime.Pipeline, Seed: 1})
			s.Close()
			if err != nil {
				b.Fatal(err)
			}
			decisions += s.p.requests - 1 // not init
			tasks += len(w.Tasks)
		}
		b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
		b.ReportMetric(float64(tasks)/b.Elapsed().Seconds(), "tasks/s")
	}
	b.Run("go-fifo", func(b *testing.B) { bench(b, fifoSpec(b)) })
	b.Run("python-greedy", func(b *testing.B) {
		s, err := Lookup(python(b))
		if err != nil {
			b.Fatal(err)
		}
		bench(b, s)
	})
}

// Exactly one answer per request: a program writing two answers to one
// request fails the run (its later answers would be taken for the next
// requests'), whether the extra line is already there at the next request
// or comes after the last answer; so does a second answer to describe.
func TestTwoAnswersToOneRequestFailTheRun(t *testing.T) {
	spec := fifoSpec(t)
	w := generate(t, workloads.Spec{Kind: "matmul2d", N: 3})
	cfg := config(t, w, 1, 100)
	cfg.Scheduler = spec.Name
	if _, err := run.Run(cfg); err != nil {
		t.Fatalf("the FIFO program: %v", err)
	}
	for twice, want := range map[string]string{
		"init": `pull: before this request, the program wrote "{\"ok\":true}", which answers no request (two answers to one request?`,
		"pull": "which answers no request (two answers to one request?",
		"end":  `after its last answer (to request `,
	} {
		t.Setenv("MEMSCHED_TEST_FIFO_TWICE", twice)
		_, err := run.Run(cfg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("two answers to %s: %v; want it to say %q", twice, err, want)
		}
	}
	prog := filepath.Join(t.TempDir(), "twice.sh")
	os.WriteFile(prog, []byte("#!/bin/sh\nread -r l; printf '{\"doc\":\"a\"}\\n{\"doc\":\"b\"}\\n'\n"), 0o755)
	if _, err := Lookup(prog); err == nil || !strings.Contains(err.Error(), `after its last answer (to request 1), the program wrote "{\"doc\":\"b\"}", which answers no request`) {
		t.Errorf("two answers to describe: %v", err)
	}
}
