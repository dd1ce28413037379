package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/schedtest"
	"github.com/memsched/memsched/workloads"
)

// dmdar's Ready index makes exactly Ready's choices, with StarPU's ranking
// (ReadyStarPU) and with the thesis' (Ready): a run with it (window 0)
// equals a run scanning the whole queue (a window wider than any queue),
// operations counted included, on random instances, with and without
// dependencies.
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
		for _, present := range []bool{false, true} {
			run := func(window int) string {
				s := &DMDA{Alpha: 1, Beta: 1, Ready: true, Window: window, RankPresent: present}
				var trace []event.Event
				st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: -1, Pipeline: 1 + it%3, Seed: uint64(it),
					Trace: func(e event.Event) { trace = append(trace, e) }})
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprint(*st, trace)
			}
			if a, b := run(0), run(1<<30); a != b {
				t.Fatalf("instance %d, rank present %v: the Ready index and the scan disagree", it, present)
			}
		}
	}
}

// scanDMDAS is dmdas popping by a scan of the whole buffer: the first task
// with the fewest bytes missing (with StarPU's ranking: not valid, then
// not loading, then not allocated), then the highest priority, counting
// what the index counts (the inputs of the tasks up to the choice when it
// misses nothing, else of all; with StarPU's ranking, up to the choice
// when it is the first task with nothing not valid and has nothing
// unallocated).
type scanDMDAS struct {
	*DMDA
	prio []float64
}

// starpuKey is a task's StarPU ranking: bytes read and not valid, of those
// not loading, bytes not allocated.
func starpuKey(v schedulers.View, worker, t int) [3]int64 {
	w := v.Workload()
	st := schedulers.StatusOf(v, worker)
	var k [3]int64
	for i, d := range w.Tasks[t].Inputs {
		b, s := w.Data[d].Bytes, st.Of(d)
		if s&schedulers.StatusAllocated == 0 {
			k[2] += b
		}
		if w.Mode(t, i).Reads() && s&schedulers.StatusValid == 0 {
			k[0] += b
			if s&schedulers.StatusLoading == 0 {
				k[1] += b
			}
		}
	}
	return k
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
	if !s.RankPresent {
		best, ops, all, firstReady := -1, 0, 0, -1
		var bestKey [3]int64
		for i, t := range buffer {
			all += len(w.Tasks[t].Inputs)
			k := starpuKey(s.v, worker, t)
			if k[0] == 0 && firstReady < 0 {
				firstReady = i
			}
			if best < 0 || k[0] < bestKey[0] || k[0] == bestKey[0] && (k[1] < bestKey[1] || k[1] == bestKey[1] &&
				(k[2] < bestKey[2] || k[2] == bestKey[2] && s.prio[t] > s.prio[buffer[best]])) {
				best, bestKey, ops = i, k, all
			}
		}
		if bestKey[0] > 0 || bestKey[2] > 0 || firstReady != best {
			ops = all
		}
		s.v.CountOps(schedulers.OpStatus, ops)
		return best
	}
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
	s.v.CountOps(schedulers.OpStatus, ops)
	return best
}

// dmdas's Ready index with priorities makes exactly the choices of a scan
// of the buffer, with either ranking, on random task graphs whose bottom
// levels tie often.
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
			var trace []event.Event
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: -1, Pipeline: 1 + it%3, Seed: uint64(it),
				Trace: func(e event.Event) { trace = append(trace, e) }})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(*st, trace)
		}
		for _, present := range []bool{false, true} {
			dmdas := func(window int) *DMDA {
				return &DMDA{Alpha: 1, Beta: 1, Ready: true, Sorted: true, Window: window, RankPresent: present, Penalty: PenaltyExpected, Priority: schedulers.PriorityBottomLevel}
			}
			if a, b := run(dmdas(0)), run(&scanDMDAS{DMDA: dmdas(1 << 30)}); a != b {
				t.Fatalf("instance %d, rank present %v: the Ready index and the scan disagree", it, present)
			}
		}
	}
}
