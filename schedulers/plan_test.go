package schedulers_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/schedtest"
	"github.com/memsched/memsched/workloads"
)

// The Ready index over a plan makes exactly Ready's choices: a run with it
// (window 0) equals a run scanning the whole plan (a window wider than any
// plan), on random instances with stealing across GPUs.
func TestReadyIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for it := 0; it < 120; it++ {
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
		run := func(window int) string {
			s := &schedulers.Planned{Name: "test", Ready: true, Window: window, Steal: true, Belady: it%2 == 0,
				Plan: func(schedulers.View) ([][]int, error) {
					out := make([][]int, len(plans))
					for i := range plans {
						out[i] = append([]int(nil), plans[i]...)
					}
					return out, nil
				}}
			var trace []event.Event
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 1 + it%3, Pipeline: 1 + it%2,
				Trace: func(e event.Event) { trace = append(trace, e) }})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(*st, trace)
		}
		if a, b := run(0), run(1<<30); a != b {
			t.Fatalf("instance %d: the Ready index and the scan disagree", it)
		}
	}
}

// scanBelady is Planned with Belady's rule computed the plain way, by
// walking what the worker will run until every candidate is found, and
// counting what the walk examines as StarPU's belady_victim_selector does.
type scanBelady struct {
	*schedulers.Planned
	v schedulers.View
}

func (s *scanBelady) Init(v schedulers.View) error { s.v = v; return s.Planned.Init(v) }

func (s *scanBelady) Victim(worker int, cands []int, prefetch bool) int {
	w := s.v.Workload()
	pending := map[int]bool{}
	for _, c := range cands {
		pending[c] = true
	}
	last := -1
	ops := len(cands)
	defer func() { s.v.CountOps(schedulers.OpBelady, ops) }()
	visit := func(t int) bool {
		ops += len(w.Tasks[t].Inputs)
		for _, d := range w.Tasks[t].Inputs {
			if pending[d] {
				delete(pending, d)
				last = d
				if len(pending) == 0 {
					return false
				}
			}
		}
		return true
	}
	done := false
	for _, seq := range [][]int{s.v.Pipeline(worker), s.v.Buffer(worker)} {
		for _, t := range seq {
			if !done && !visit(t) {
				done = true
			}
		}
	}
	if !done {
		for t := range s.Remaining(worker) {
			if !visit(t) {
				break
			}
		}
	}
	for _, c := range cands {
		if pending[c] {
			return c
		}
	}
	return last
}

// The Belady index makes exactly the choices of a scan of the pipeline,
// the buffer and the remaining plan, on random instances with Ready taking
// tasks out of order and stealing across GPUs.
func TestBeladyIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 150; it++ {
		w := schedtest.TaskSet(r, 80, 4, func(t *workloads.Task) []int {
			if r.IntN(8) == 0 {
				t.Inputs = append(t.Inputs, t.Inputs[0]) // a duplicate input
			}
			return nil
		})
		gpus := 1 + r.IntN(3)
		plans := make([][]int, gpus)
		for _, t := range r.Perm(len(w.Tasks)) {
			g := r.IntN(gpus)
			plans[g] = append(plans[g], t)
		}
		p, _ := hardware.Load("v100-gemini")
		p.GPUs = gpus
		p.SetMemoryBytes(int64(12 + r.IntN(6)))
		ready, window := it%3 != 0, []int{0, 2}[it%2]
		run := func(scan bool) string {
			pl := &schedulers.Planned{Name: "test", Ready: ready, Window: window, Steal: it%4 != 3, Belady: true,
				Plan: func(schedulers.View) ([][]int, error) {
					out := make([][]int, len(plans))
					for i := range plans {
						out[i] = append([]int(nil), plans[i]...)
					}
					return out, nil
				}}
			var s schedulers.Scheduler = pl
			if scan {
				s = &scanBelady{Planned: pl}
			}
			var trace []event.Event
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 1 + it%3, Pipeline: 1 + it%2,
				Trace: func(e event.Event) { trace = append(trace, e) }})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(*st, trace)
		}
		if a, b := run(false), run(true); a != b {
			t.Fatalf("instance %d: the Belady index and the scan disagree", it)
		}
	}
}
