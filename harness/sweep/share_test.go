package sweep

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memsched/memsched/harness/run"

	"github.com/memsched/memsched/workloads"
)

// The runs of a point share one generated workload, and the sweep lets it
// go after the last of them.
func TestRunsOfAPointShareItsWorkload(t *testing.T) {
	// 3 sizes × 2 repetitions (a random order each) × 2 GPU counts × 2 schedulers.
	runs := load(t, base).Runs()
	shared := shareWorkloads(runs)
	if len(shared.entries) != 6 {
		t.Fatalf("%d workloads for 3 sizes × 2 orders", len(shared.entries))
	}
	bySpec := map[string]*workloads.Workload{}
	users := map[*workloads.Workload]int{}
	for _, r := range runs {
		cfg, err := shared.config(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := bySpec[specKey(r)]; ok && w != cfg.Workload {
			t.Errorf("%s: a run got another copy of the workload", r.Spec.Name())
		}
		bySpec[specKey(r)] = cfg.Workload
		users[cfg.Workload]++
	}
	for w, n := range users {
		if n != 4 {
			t.Errorf("%s is shared by %d runs, not 4", w.Name, n)
		}
	}
	for i, r := range runs {
		shared.release(r)
		if left := len(shared.entries); i < len(runs)-1 && left == 0 || i == len(runs)-1 && left != 0 {
			t.Fatalf("after %d of %d releases, %d workloads are held", i+1, len(runs), left)
		}
	}
}

// Three runs of one point: the first two compute a shared value that needs
// the third to have run. With two slots, the run waiting for the value
// must lend its slot, or the sweep would never end; the value is computed
// once.
func TestWaitingRunLendsItsSlot(t *testing.T) {
	s := load(t, lendSuite("", "dmdar", "dmdas", "eager"))
	thirdRan := make(chan struct{})
	var computed atomic.Int32
	runner := func(cfg run.Config) (run.Record, error) {
		if cfg.Scheduler == "eager" {
			close(thirdRan)
			return run.Record{MakespanS: 1}, nil
		}
		v, err := cfg.Share("k", func() (any, error) {
			computed.Add(1)
			<-thirdRan
			return 42, nil
		})
		if v != 42 || err != nil {
			t.Errorf("%s shares %v, %v", cfg.Scheduler, v, err)
		}
		return run.Record{MakespanS: 1}, nil
	}
	done := make(chan Summary)
	go func() {
		sum, err := Run(context.Background(), s, Options{Jobs: 2, Output: filepath.Join(t.TempDir(), "r.jsonl"), Runner: runner})
		if err != nil {
			t.Error(err)
		}
		done <- sum
	}()
	select {
	case sum := <-done:
		if sum.Done != 3 || computed.Load() != 1 {
			t.Errorf("%d runs done, the value computed %d times", sum.Done, computed.Load())
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiting run kept its slot: the third run never started")
	}
}

// A run's timeout counts its own time, not the time it waited for another
// run's computation: the run computing for 3 s times out at 2 s, the one
// that waited for it does not.
func TestWaitingIsNotCountedInTheTimeout(t *testing.T) {
	s := load(t, lendSuite(`timeout = "2s"`, "dmdar", "dmdas"))
	runner := func(cfg run.Config) (run.Record, error) {
		cfg.Share("k", func() (any, error) {
			time.Sleep(3 * time.Second)
			return nil, nil
		})
		return run.Record{MakespanS: 1}, nil
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if _, err := Run(context.Background(), s, Options{Jobs: 2, Output: path, Runner: runner}); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	timeouts := 0
	for _, r := range recs {
		if strings.Contains(r.Error, "timeout") {
			timeouts++
		}
	}
	if len(recs) != 2 || timeouts != 1 {
		t.Errorf("%d records, %d timeouts; want 2 records and the computing run's timeout only", len(recs), timeouts)
	}
}

// lendSuite is a suite of one point (one workload) run by the schedulers.
func lendSuite(suiteKeys string, schedulers ...string) string {
	text := "[suite]\nname = \"lend\"\nseed = 1\n" + suiteKeys +
		"\n[platform]\ngpus = 1\nmemory_mb = 100\n[workload]\nkind = \"matmul2d\"\nn = 4\n"
	for _, name := range schedulers {
		text += "[[scheduler]]\nname = \"" + name + "\"\n"
	}
	return text
}
