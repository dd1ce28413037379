package baseline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/baseline"
	"github.com/memsched/memsched/workloads"
)

// cholesky3 is the 3x3 tiled Cholesky task graph. Task ids (submission
// order, thesis Fig. 2.4): 0 POTRF0, 1 TRSM(1,0), 2 TRSM(2,0), 3 SYRK(1,0),
// 4 GEMM(2,1,0), 5 SYRK(2,0), 6 POTRF1, 7 TRSM(2,1), 8 SYRK(2,1), 9 POTRF2.
// With the v100-gemini-1920 kernels (POTRF 0.85, TRSM 1.64, SYRK and GEMM
// 1.02 ms) the bottom levels are, in ms: 0 7.87, 1 7.02, 2 6.17, 3 5.38,
// 4 4.53, 5 2.89, 6 4.36, 7 3.51, 8 1.87, 9 0.85.
func cholesky3(t *testing.T) *workloads.Workload {
	w, err := workloads.Generate(workloads.Spec{Kind: "cholesky", N: 3, Tile: 1920, Deps: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func gemini(t *testing.T, gpus int) *hardware.Platform {
	p, err := hardware.Load("v100-gemini-1920")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	return p
}

// starts runs a scheduler with a buffer and a pipeline of one task and
// returns the order tasks start in, as "worker:task".
func starts(t *testing.T, name string, params map[string]string, w *workloads.Workload, p *hardware.Platform) string {
	return startsRun(t, name, params, w, p, 1, 1)
}

func startsPipe(t *testing.T, name string, params map[string]string, w *workloads.Workload, p *hardware.Platform, pipeline int) string {
	return startsRun(t, name, params, w, p, 1, pipeline)
}

func startsRun(t *testing.T, name string, params map[string]string, w *workloads.Workload, p *hardware.Platform, buffer, pipeline int) string {
	t.Helper()
	s, _, _, err := schedulers.Build(name, params)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	_, err = sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buffer, Pipeline: pipeline, Seed: 1,
		Trace: func(e event.Event) {
			if e.Ev == "task_start" {
				out = append(out, fmt.Sprintf("%d:%d", e.Worker, e.Task))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

// On one GPU (a buffer of one task: the next is pulled while the previous
// computes) EAGER runs the tasks in release order: 5 (released by 2) before
// 6 (released by 3).
func TestEagerCholesky3(t *testing.T) {
	if got, want := starts(t, "eager", nil, cholesky3(t), gemini(t, 1)), "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 0:8 0:9"; got != want {
		t.Errorf("eager: %s, want %s", got, want)
	}
}

// LWS and AP on one GPU pull the highest bottom level: when 4 starts, the
// queue holds 5 (2.89) and, released by 3, 6 (4.36): 6 goes first.
func TestPriorityQueuesCholesky3(t *testing.T) {
	want := "0:0 0:1 0:2 0:3 0:4 0:6 0:5 0:7 0:8 0:9"
	for _, s := range []string{"lws", "ap"} {
		if got := starts(t, s, nil, cholesky3(t), gemini(t, 1)); got != want {
			t.Errorf("%s: %s, want %s", s, got, want)
		}
	}
	// Without priorities the queue is FIFO: EAGER's order.
	if got := starts(t, "ap", map[string]string{"priority": "none"}, cholesky3(t), gemini(t, 1)); got != "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 0:8 0:9" {
		t.Errorf("ap without priorities: %s", got)
	}
}

// LWS on two GPUs with a pipeline of two tasks. POTRF0 is submitted: it
// goes round-robin to worker 1 (StarPU advances the cursor first); worker 0
// may not steal it (a victim must be busy, lws_select_victim). Worker 1
// releases TRSM 1 and 2 into its own queue and pops both (2 once 1's data
// arrived). When 1 ends it releases SYRK 3 into its own queue and, as the
// releasing worker returns to its driver loop first (the engine's rule
// since model 3), pulls it while it still computes 2; 4 and 5, released by
// 2, follow. Idle worker 0 then steals 6 (released by 3, the highest
// bottom level) and owns what 6 releases: TRSM(2,1) 7, then the chain.
func TestLWSStealsCholesky3(t *testing.T) {
	want := "1:0 1:1 1:2 1:3 1:4 0:6 1:5 0:7 0:8 0:9"
	for _, params := range []map[string]string{nil, {"steal": "0", "steal_from": "back-highest"}} {
		if got := startsPipe(t, "lws", params, cholesky3(t), gemini(t, 2), 2); got != want {
			t.Errorf("lws %v on 2 GPUs: %s, want %s", params, got, want)
		}
	}
}

// Proximity: on the gemini mesh, GPU 0's nearest are its two-link
// neighbours 3 and 4, then its one-link neighbours 1 and 2, then GPU 5..7
// without NVLink (all three on the other NUMA node, in number order); GPU 5's are 1 and
// 6 (two links), 4 and 7 (one), then 0, 2, 3.
func TestProximityOnTheMesh(t *testing.T) {
	v, err := sim.New(sim.Config{Workload: cholesky3(t), Platform: gemini(t, 8), Scheduler: &baseline.Eager{}})
	if err != nil {
		t.Fatal(err)
	}
	prox := baseline.Proximity(v)
	if got := fmt.Sprint(prox[0]); got != "[3 4 1 2 5 6 7]" {
		t.Errorf("GPU 0's victims in order %s, want [3 4 1 2 5 6 7]", got)
	}
	if got := fmt.Sprint(prox[5]); got != "[1 6 4 7 0 2 3]" {
		t.Errorf("GPU 5's victims in order %s", got)
	}
}

// DMDAS on one GPU (every task queued and prefetched, a pipeline of one):
// Ready picks among the tasks with the fewest bytes to load, ties by
// priority. With StarPU's ranking (rank = starpu) a datum still loading is
// not ready: when SYRK 3 ends, GEMM 4 waits for its tile A21, still being
// prefetched, while POTRF 6 (released by 3) has all its data: 6 first, in
// both. DMDAS then runs 4 and TRSM 7 (released by 6, 3.51 ms) before 5
// (2.89 ms); DMDAR takes 4, 5, 7 by arrival. With the thesis' ranking
// (rank = present) a loading datum counts as there: 4 has nothing to load
// and goes first; then 6 (4.36 ms) before 5 (2.89 ms) and 7 before 5 again
// in DMDAS, arrival order in DMDAR.
func TestDMDASCholesky3(t *testing.T) {
	for _, c := range []struct{ name, rank, want string }{
		{"dmdas", "starpu", "0:0 0:1 0:2 0:3 0:6 0:4 0:7 0:5 0:8 0:9"},
		{"dmdar", "starpu", "0:0 0:1 0:2 0:3 0:6 0:4 0:5 0:7 0:8 0:9"},
		{"dmdas", "present", "0:0 0:1 0:2 0:3 0:4 0:6 0:7 0:5 0:8 0:9"},
		{"dmdar", "present", "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 0:8 0:9"},
	} {
		if got := startsRun(t, c.name, map[string]string{"rank": c.rank}, cholesky3(t), gemini(t, 1), -1, 1); got != c.want {
			t.Errorf("%s rank=%s: %s, want %s", c.name, c.rank, got, c.want)
		}
	}
}

// LWS steals as the thesis' StarPU does, from the back of the victim's
// highest priority (prio_deque.c _starpu_prio_deque_deque_task_for_worker),
// not from the lowest-priority end the prose describes: the default is
// back-highest, and on a 6x6 Cholesky on 4 GPUs the two rules differ.
func TestLWSStealsFromTheBackOfTheHighestPriority(t *testing.T) {
	spec, err := schedulers.Lookup("lws")
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String("steal_from"); got != baseline.StealBackHighest {
		t.Fatalf("lws steals from %q by default, want %q", got, baseline.StealBackHighest)
	}
	w, err := workloads.Generate(workloads.Spec{Kind: "cholesky", N: 6, Tile: 1920, Deps: true})
	if err != nil {
		t.Fatal(err)
	}
	def := startsPipe(t, "lws", nil, w, gemini(t, 4), 2)
	if back := startsPipe(t, "lws", map[string]string{"steal_from": "back-highest"}, w, gemini(t, 4), 2); def != back {
		t.Errorf("default and back-highest differ:\n%s\n%s", def, back)
	}
	if tail := startsPipe(t, "lws", map[string]string{"steal_from": "tail"}, w, gemini(t, 4), 2); def == tail {
		t.Errorf("tail and back-highest give the same order; the test shows nothing")
	}
}
