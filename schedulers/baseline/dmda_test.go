package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/schedtest"
	"github.com/memsched/memsched/workloads"
)

// dmdar's Ready index makes exactly Ready's choices: a run with it (window
// 0) equals a run scanning the whole queue (a window wider than any queue),
// on random instances, with and without dependencies.
func TestDMDARIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for it := 0; it < 120; it++ {
		w := schedtest.TaskSet(r, 80, 4, func(t *workloads.Task) []int {
			if it%2 == 1 && t.ID > 0 && r.IntN(3) == 0 {
				return []int{r.IntN(t.ID)}
			}
			return nil
		})
		p, err := schedtest.TightV100(r, 1+r.IntN(3))
		if err != nil {
			t.Fatal(err)
		}
		run := func(window int) string {
			s := &DMDA{Alpha: 1, Beta: 1, Ready: true, Window: window}
			var trace []sim.Event
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: -1, Pipeline: 1 + it%3, Seed: uint64(it),
				Trace: func(e sim.Event) { trace = append(trace, e) }})
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

// scanDMDAS is dmdas popping by a scan of the whole buffer: the first task
// with the fewest bytes missing, then the highest priority, counting what
// the index counts (the inputs of the tasks up to the choice when it
// misses nothing, else of all).
type scanDMDAS struct {
	*DMDA
	prio []float64
}

func (s *scanDMDAS) Init(v schedulers.View) error {
	p, err := schedulers.Priorities(v, s.Priority)
	s.prio = p
	if err != nil {
		return err
	}
	return s.DMDA.Init(v)
}

func (s *scanDMDAS) Pop(worker int, buffer []int) int {
	w := s.v.Workload()
	best, bestMissing, ops, all := -1, int64(0), 0, 0
	for i, t := range buffer {
		all += len(w.Tasks[t].Inputs)
		m := schedulers.MissingBytes(s.v, worker, t)
		if best < 0 || m < bestMissing || (m == bestMissing && s.prio[t] > s.prio[buffer[best]]) {
			best, bestMissing, ops = i, m, all
		}
	}
	if bestMissing > 0 {
		ops = all
	}
	s.v.Count(ops)
	return best
}

// dmdas's Ready index with priorities makes exactly the choices of a scan
// of the buffer, on random task graphs whose bottom levels tie often.
func TestDMDASIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for it := 0; it < 120; it++ {
		w := schedtest.TaskSet(r, 80, 2, func(t *workloads.Task) []int {
			if t.ID > 0 && r.IntN(2) == 0 {
				return []int{r.IntN(t.ID)}
			}
			return nil
		})
		p, err := schedtest.TightV100(r, 1+r.IntN(3))
		if err != nil {
			t.Fatal(err)
		}
		run := func(s schedulers.Scheduler) string {
			var trace []sim.Event
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: -1, Pipeline: 1 + it%3, Seed: uint64(it),
				Trace: func(e sim.Event) { trace = append(trace, e) }})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(*st, trace)
		}
		dmdas := func(window int) *DMDA {
			return &DMDA{Alpha: 1, Beta: 1, Ready: true, Sorted: true, Window: window, Penalty: PenaltyExpected, Priority: schedulers.PriorityBottomLevel}
		}
		if a, b := run(dmdas(0)), run(&scanDMDAS{DMDA: dmdas(1 << 30)}); a != b {
			t.Fatalf("instance %d: the Ready index and the scan disagree", it)
		}
	}
}
