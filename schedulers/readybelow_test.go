package schedulers_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/schedtest"
	"github.com/memsched/memsched/workloads"
)

// stateView is a View of one worker whose data are each valid, loading
// or absent, as set by hand (the rest of View is not used by Ready).
type stateView struct {
	schedulers.View
	w        *workloads.Workload
	resident []bool
	present  []bool
	ops      int
	written  int // OpStatusWritten, apart
}

func (s *stateView) Workload() *workloads.Workload { return s.w }
func (s *stateView) Resident(_, d int) bool        { return s.resident[d] }
func (s *stateView) Presence(int) schedulers.Presence {
	return schedulers.NewPresence(s.present)
}
func (s *stateView) Count(n int) { s.ops += n }
func (s *stateView) CountOps(k schedulers.Op, n int) {
	if k == schedulers.OpStatusWritten {
		s.written += n
		return
	}
	s.ops += n
}
func (s *stateView) TaskInputs(t int) []int32 {
	var in []int32
	for _, d := range s.w.Tasks[t].Inputs {
		in = append(in, int32(d))
	}
	return in
}

// states builds the view: "v" valid, "l" loading, "-" absent, per data.
func states(w *workloads.Workload, st string) *stateView {
	s := &stateView{w: w, resident: make([]bool, len(st)), present: make([]bool, len(st))}
	for d, c := range st {
		s.resident[d] = c == 'v'
		s.present[d] = c == 'v' || c == 'l'
	}
	return s
}

// StarPU's ranking (fifo_queues.c _starpu_fifo_pop_first_ready_task) on
// hand-set states, data of 1 byte unless said, all read unless said:
func TestReadyStarPURanking(t *testing.T) {
	data := func(n int) []workloads.Data {
		out := make([]workloads.Data, n)
		for i := range out {
			out[i] = workloads.Data{ID: i, Bytes: 1}
		}
		return out
	}
	for _, c := range []struct {
		name        string
		inputs      [][]int
		modes       [][]workloads.Mode
		state       string
		starpu, old int
	}{
		// t0 reads two data being loaded, t1 one valid and one absent.
		// Loading counts as not valid: t0 misses 2 bytes, t1 1: t1. Ready
		// on presence sees t0 missing nothing.
		{"loading is not ready", [][]int{{0, 1}, {2, 3}}, nil, "llv-", 1, 0},
		// Equal bytes not valid (1 each): the fewer not even loading wins,
		// t1 (its datum loads) over t0 (absent).
		{"then not loading", [][]int{{0, 2}, {1, 2}}, nil, "-lv", 1, 1},
		// t0 reads a valid datum and writes an absent one: nothing to
		// read, but a tile to allocate, so the scan goes on; t1 reads one
		// loading datum (1 byte not valid): t0 still ranks first. Ready on
		// presence counts t0's written tile as missing and takes t1.
		{"a written tile does not stop the scan", [][]int{{0, 1}, {2}}, [][]workloads.Mode{{workloads.R, workloads.W}, {workloads.R}}, "v-l", 0, 1},
		// t0 and t1 read valid data, t0 writes an absent tile: t1, which
		// has everything allocated, is preferred.
		{"then not allocated", [][]int{{0, 1}, {0}}, [][]workloads.Mode{{workloads.R, workloads.W}, {workloads.R}}, "v-", 1, 1},
		// Ties go to the first.
		{"ties", [][]int{{0}, {1}}, nil, "ll", 0, 0},
	} {
		w := &workloads.Workload{Data: data(len(c.state)), Modes: c.modes}
		buffer := make([]int, len(c.inputs))
		for i, in := range c.inputs {
			w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1, Inputs: in})
			buffer[i] = i
		}
		if got := schedulers.ReadyStarPU(states(w, c.state), 0, buffer, 0); got != c.starpu {
			t.Errorf("%s: StarPU's ranking pops %d, want %d", c.name, got, c.starpu)
		}
		if got := schedulers.Ready(states(w, c.state), 0, buffer, 0); got != c.old {
			t.Errorf("%s: Ready on presence pops %d, want %d", c.name, got, c.old)
		}
	}
}

// The scan stops at the first task with everything valid and allocated,
// having queried each input up to it; window bounds it.
func TestReadyStarPUStopsAndWindow(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1}, {ID: 1, Bytes: 1}}}
	for i, in := range [][]int{{1}, {0}, {1}, {0}} {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1, Inputs: in})
	}
	v := states(w, "v-")
	if got := schedulers.ReadyStarPU(v, 0, []int{0, 1, 2, 3}, 0); got != 1 || v.ops != 2 {
		t.Errorf("popped %d after %d queries, want 1 after 2", got, v.ops)
	}
	if got := schedulers.ReadyStarPU(states(w, "v-"), 0, []int{0, 2, 1}, 2); got != 0 {
		t.Errorf("window 2 popped %d, want 0 (1 is beyond it)", got)
	}
}

// A task with nothing to read but a written tile not allocated does not
// stop StarPU's scan, and no later task stops it either: the break of
// _starpu_fifo_pop_first_ready_task is in the branch of a strictly fewer
// bytes not valid, so once a task has none, the scan queries every buffer
// of every queued task (issue 34: the write-only C tile of xgemm.c's
// cl_gemm0, IPDPS 2022's random order). t0 reads valid 0 and writes absent
// 1, t1 reads 0 and writes allocated 2, t2 reads 0: the scan takes t1
// after 2+2+1 queries; without t0 it stops at t1, after 2.
func TestReadyStarPUWrittenTileScansAll(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1}, {ID: 1, Bytes: 1}, {ID: 2, Bytes: 1}},
		Modes: [][]workloads.Mode{{workloads.R, workloads.W}, {workloads.R, workloads.W}, {workloads.R}}}
	for i, in := range [][]int{{0, 1}, {0, 2}, {0}} {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1, Inputs: in})
	}
	v := states(w, "v-v")
	if got := schedulers.ReadyStarPU(v, 0, []int{0, 1, 2}, 0); got != 1 || v.ops != 5 || v.written != 2 {
		t.Errorf("popped %d after %d queries (%d of written tiles), want 1 after 5 (2)", got, v.ops, v.written)
	}
	v = states(w, "v-v")
	if got := schedulers.ReadyStarPU(v, 0, []int{1, 2}, 0); got != 0 || v.ops != 2 {
		t.Errorf("without t0 popped %d after %d queries, want 0 after 2", got, v.ops)
	}
}

// plannedStarts runs a one-GPU plan with Ready where StarPU applies it
// (below, in the buffer) or over the whole plan, and returns the order
// tasks start in.
func plannedStarts(t *testing.T, w *workloads.Workload, plan []int, below bool, buffer int) string {
	t.Helper()
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.Runtime.DurationCV = 0
	s := &schedulers.Planned{Name: "test", Ready: true, ReadyBelow: below,
		Plan: func(schedulers.View) ([][]int, error) { return [][]int{append([]int(nil), plan...)}, nil }}
	var out []string
	if _, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buffer, Pipeline: 1,
		Trace: func(e event.Event) {
			if e.Ev == "task_start" {
				out = append(out, fmt.Sprint(e.Task))
			}
		}}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

// Ready below the scheduler chooses when the worker pops, among the
// buffered tasks (StarPU's FIFO holds the next STARPU_NTASKS_THRESHOLD
// planned tasks, here 2); over the plan it chooses at each pull, and the
// buffer pops in order. The plan is t0 {a}, t1 {b}, t2 {c}, t3 {a}, 100 MB
// each (8.3 ms a load, one at a time), tasks of 0.08 ms, a pipeline of
// one. Both start t0 (a fetched), then t1 (b, prefetched next). Over the
// plan, the pull made as t0 was popped saw nothing loaded yet and took t2;
// the next, as t1 was popped, took t3 (a is there): t3 waits behind t2,
// whose c loads until 25 ms. Below, the buffer then holds t2 (c loading)
// and t3 (a valid): StarPU's Ready starts t3 at once, then t2.
func TestReadyBelowChoosesAtPop(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1e8}, {ID: 1, Bytes: 1e8}, {ID: 2, Bytes: 1e8}}}
	for i, in := range [][]int{{0}, {1}, {2}, {0}} {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e9, Inputs: in})
	}
	plan := []int{0, 1, 2, 3}
	if got, want := plannedStarts(t, w, plan, false, 2), "0 1 2 3"; got != want {
		t.Errorf("Ready over the plan: starts %s, want %s", got, want)
	}
	if got, want := plannedStarts(t, w, plan, true, 2), "0 1 3 2"; got != want {
		t.Errorf("Ready below: starts %s, want %s", got, want)
	}
}

// Planned with Ready below runs random plans on tight memory to the end,
// with stealing and Belady (the conformance suite checks the defaults).
func TestReadyBelowRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 60; it++ {
		w := schedtest.TaskSet(r, 60, 4, nil)
		gpus := 1 + r.IntN(3)
		plans := make([][]int, gpus)
		for _, t := range r.Perm(len(w.Tasks)) {
			g := r.IntN(gpus)
			plans[g] = append(plans[g], t)
		}
		p, err := schedtest.TightV100(r, gpus)
		if err != nil {
			t.Fatal(err)
		}
		s := &schedulers.Planned{Name: "test", Ready: true, ReadyBelow: true, Window: it % 3, Steal: true, Belady: it%2 == 0,
			Plan: func(schedulers.View) ([][]int, error) { return plans, nil }}
		st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 1 + it%4, Pipeline: 1 + it%2})
		if err != nil {
			t.Fatal(err)
		}
		if st.Tasks != len(w.Tasks) {
			t.Fatalf("instance %d: %d of %d tasks ran", it, st.Tasks, len(w.Tasks))
		}
	}
}
