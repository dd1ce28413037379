package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline"
)

// Test schedulers: one that panics, one that never returns from Init until
// released (for timeouts).
var release = make(chan struct{})

type panicky struct{}

func (panicky) Init(schedulers.View) error { return nil }
func (panicky) Push(int)                   {}
func (panicky) Pull(int) (int, bool)       { panic("test scheduler fails on purpose") }

type blocking struct{}

func (blocking) Init(schedulers.View) error { <-release; return nil }
func (blocking) Push(int)                   {}
func (blocking) Pull(int) (int, bool)       { return 0, false }

func init() {
	schedulers.Register(schedulers.Spec{Name: "test-panic", Version: 1, Doc: "panics (sweep tests)",
		New: func(schedulers.Params) (schedulers.Scheduler, error) { return panicky{}, nil }})
	schedulers.Register(schedulers.Spec{Name: "test-block", Version: 1, Doc: "blocks (sweep tests)",
		New: func(schedulers.Params) (schedulers.Scheduler, error) { return blocking{}, nil }})
}

func TestMain(m *testing.M) {
	code := m.Run()
	close(release)
	os.Exit(code)
}

const base = `[suite]
name = "sweep-test"
repetitions = 2
seed = 3
[platform]
gpus = [1, 2]
memory_mb = 100
[workload]
kind = "matmul2d"
order = "random"
n = {from = 4, to = 12, step = 4}
[[scheduler]]
name = "eager"
label = "EAGER"
[[scheduler]]
name = "dmdar"
label = "DMDAR"
`

func load(t *testing.T, text string) *suite.Suite {
	t.Helper()
	s, err := suite.Parse("sweep-test.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// canon returns the records by key, without the fields that measure wall
// time (they vary from run to run), as JSON.
func canon(t *testing.T, path string) map[string]string {
	t.Helper()
	recs, truncated, err := ReadFile(path)
	if err != nil || truncated >= 0 {
		t.Fatalf("reading %s: err=%v truncated=%d", path, err, truncated)
	}
	out := map[string]string{}
	for _, r := range recs {
		if _, dup := out[r.Key]; dup {
			t.Errorf("duplicate key %s in %s", r.Key, path)
		}
		r.SimWallS, r.SchedWallS = 0, 0
		b, _ := json.Marshal(r)
		out[r.Key] = string(b)
	}
	return out
}

func sweep(t *testing.T, ctx context.Context, s *suite.Suite, opt Options) Summary {
	t.Helper()
	sum, err := Run(ctx, s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func sameRecords(t *testing.T, a, b map[string]string) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d records against %d", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Errorf("record %s differs:\n%s\n%s", k, v, b[k])
		}
	}
}

func TestDeterministicAcrossJobs(t *testing.T) {
	s := load(t, base)
	dir := t.TempDir()
	one, four := filepath.Join(dir, "j1.jsonl"), filepath.Join(dir, "j4.jsonl")
	sum := sweep(t, context.Background(), s, Options{Jobs: 1, Output: one})
	if sum.Total != 24 || sum.Done != 24 || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	sweep(t, context.Background(), s, Options{Jobs: 4, Output: four})
	sameRecords(t, canon(t, one), canon(t, four))

	// Rerunning skips everything; --only runs a subset with the same keys.
	if sum := sweep(t, context.Background(), s, Options{Jobs: 2, Output: one}); sum.Done != 0 || sum.Skipped != 24 {
		t.Errorf("rerun: %+v, want everything skipped", sum)
	}
	only := filepath.Join(dir, "only.jsonl")
	sweep(t, context.Background(), s, Options{Output: only, Only: []string{"DMDAR"}})
	full := canon(t, one)
	for k, v := range canon(t, only) {
		if full[k] != v {
			t.Errorf("--only record %s differs from the full sweep's", k)
		}
	}
	if _, err := Run(context.Background(), s, Options{Output: only, Only: []string{"DMDR"}}); err == nil || !strings.Contains(err.Error(), "no such label") {
		t.Errorf("--only with an unknown label: %v", err)
	}
}

func TestResumeAfterInterruption(t *testing.T) {
	s := load(t, base)
	dir := t.TempDir()
	want := filepath.Join(dir, "whole.jsonl")
	sweep(t, context.Background(), s, Options{Jobs: 2, Output: want})

	// Interrupt after the third run starts.
	path := filepath.Join(dir, "resumed.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	runner := func(c run.Config) (run.Record, error) {
		if calls.Add(1) == 3 {
			cancel()
		}
		return run.Run(c)
	}
	sum := sweep(t, ctx, s, Options{Jobs: 1, Output: path, Runner: runner})
	if sum.Interrupted == 0 || sum.Done == 0 || sum.Done+sum.Interrupted != sum.Total {
		t.Fatalf("interrupted sweep: %+v", sum)
	}
	// A crash in the middle of a write leaves half a line.
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	last := lines[len(lines)-1]
	cut := append(bytes.Join(lines[:len(lines)-1], nil), last[:len(last)/2]...)
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, truncated, err := ReadFile(path); err != nil || truncated < 0 {
		t.Fatalf("the cut line is not detected: truncated=%d err=%v", truncated, err)
	}
	sum = sweep(t, context.Background(), s, Options{Jobs: 3, Output: path})
	if sum.Skipped != len(lines)-1 || sum.Done != sum.Total-sum.Skipped {
		t.Errorf("resume: %+v; want %d skipped and the rest done", sum, len(lines)-1)
	}
	sameRecords(t, canon(t, want), canon(t, path))
}

// TestRealRunsOneAtATime: a suite on real GPUs runs one run at a time
// whatever -j says, since each run uses the GPUs alone.
func TestRealRunsOneAtATime(t *testing.T) {
	s := load(t, strings.Replace(base, "[suite]\n", "[suite]\nexecutor = \"cuda\"\n", 1))
	var now, most atomic.Int32
	runner := func(c run.Config) (run.Record, error) {
		if c.Executor != "cuda" {
			t.Errorf("executor %q", c.Executor)
		}
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond) // long enough for another run to start, were it allowed
		defer now.Add(-1)
		c.Executor = "sim" // no GPU here: the simulator stands in
		return run.Run(c)
	}
	var log strings.Builder
	sum := sweep(t, context.Background(), s, Options{Jobs: 4, Output: filepath.Join(t.TempDir(), "r.jsonl"), Runner: runner, Log: &log})
	if sum.Done < 2 || most.Load() != 1 {
		t.Errorf("%d runs, at most %d at once; want one at a time", sum.Done, most.Load())
	}
	if !strings.Contains(log.String(), "one run at a time") {
		t.Errorf("the log does not say why -j is ignored: %q", log.String())
	}
}

// TestExecutorNotReady: where the executor cannot run (no GPU), a sweep
// stops before it runs anything or removes a record, --fresh included.
func TestExecutorNotReady(t *testing.T) {
	real := load(t, strings.Replace(base, "[suite]\n", "[suite]\nexecutor = \"cuda\"\n", 1))
	path := filepath.Join(t.TempDir(), "real.jsonl")
	sim := func(c run.Config) (run.Record, error) { c.Executor = "sim"; return run.Run(c) }
	sweep(t, context.Background(), real, Options{Output: path, Runner: sim, Only: []string{"EAGER"}})
	before, _ := os.ReadFile(path)
	run.RegisterProbe("cuda", func() error { return errors.New("no GPU here") })
	defer run.RegisterProbe("cuda", nil)
	for _, fresh := range []bool{false, true} {
		_, err := Run(context.Background(), real, Options{Output: path, Runner: sim, Fresh: fresh})
		if err == nil || !strings.Contains(err.Error(), "no GPU here") || !strings.Contains(err.Error(), "nothing was run or removed") {
			t.Errorf("fresh %v: %v", fresh, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) || len(before) == 0 {
			t.Errorf("fresh %v: the results file changed (%d bytes before, %d after)", fresh, len(before), len(after))
		}
	}
	// Nothing to do: no probe needed.
	if _, err := Run(context.Background(), real, Options{Output: path, Runner: sim, Only: []string{"EAGER"}}); err != nil {
		t.Errorf("all runs present: %v", err)
	}
}

func TestCorruptLineIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(path, []byte("{\"key\":\"a\",\"makespan_s\":1,\"gflops\":1}\nnot json\n{\"key\":\"b\"}\n"), 0o644)
	_, _, err := ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Errorf("err = %v; want one naming line 2", err)
	}
}

func TestFailureIsolation(t *testing.T) {
	text := base + "[[scheduler]]\nname = \"test-panic\"\nlabel = \"BROKEN\"\n"
	s := load(t, text)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	sum := sweep(t, context.Background(), s, Options{Jobs: 2, Output: path})
	if sum.Total != 36 || sum.Done != 36 || sum.Failed != 12 {
		t.Fatalf("summary %+v; want 36 done of which 12 failed", sum)
	}
	recs, _, _ := ReadFile(path)
	for _, r := range recs {
		broken := r.Label == "BROKEN"
		if broken != (r.Error != "") {
			t.Errorf("%s: error %q", r.Label, r.Error)
		}
		if broken && (!strings.Contains(r.Error, "panicked") || r.Key == "" || r.Point == nil || r.Scheduler != "test-panic") {
			t.Errorf("error row lacks the run's identity or cause: %+v", r)
		}
	}
	// Error rows are skipped on resume, and redone with RetryErrors.
	if sum := sweep(t, context.Background(), s, Options{Output: path}); sum.Done != 0 {
		t.Errorf("resume redid %d runs", sum.Done)
	}
	if sum := sweep(t, context.Background(), s, Options{Output: path, RetryErrors: true}); sum.Done != 12 {
		t.Errorf("retry redid %d runs, want 12", sum.Done)
	}
	if got := len(canon(t, path)); got != 36 {
		t.Errorf("%d records after the retry, want 36", got)
	}
}

func TestTimeout(t *testing.T) {
	text := strings.Replace(base, "repetitions = 2", "repetitions = 1", 1) + "[[scheduler]]\nname = \"test-block\"\nlabel = \"STUCK\"\n"
	s := load(t, text)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var mu sync.Mutex
	var log bytes.Buffer
	sum := sweep(t, context.Background(), s, Options{Jobs: 2, Output: path, Timeout: 1, Only: []string{"STUCK"}, Log: writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return log.Write(b)
	})})
	recs, _, _ := ReadFile(path)
	stuck := 0
	for _, r := range recs {
		if r.Label == "STUCK" {
			stuck++
			if r.Error != "timeout after 1ns" {
				t.Errorf("stuck run recorded %q", r.Error)
			}
		}
	}
	if stuck != 6 || sum.TimedOut != 6 || !strings.Contains(log.String(), "FAILED STUCK") {
		t.Errorf("stuck=%d summary=%+v log=%q", stuck, sum, log.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestSummaryString(t *testing.T) {
	s := Summary{Total: 10, Done: 6, Skipped: 2, Failed: 1, TimedOut: 1, Interrupted: 2}
	got := s.String()
	for _, want := range []string{"10 runs", "6 done", "2 already present", "1 failed (1 timed out)", "2 left"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
