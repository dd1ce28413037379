package schedulers

import (
	"fmt"
	"slices"

	"github.com/memsched/memsched/workloads"
)

// Belady returns the candidate whose next use in the upcoming tasks is the
// furthest (thesis Theorem 1: optimal for a fixed order with unit sizes).
// Candidates never used again come first, least recently used first (the
// candidates' order). upcoming yields task ids in the order they will run.
func Belady(w *workloads.Workload, candidates []int, upcoming func(yield func(task int) bool)) int {
	if len(candidates) == 0 {
		return -1
	}
	pending := make(map[int]bool, len(candidates))
	for _, c := range candidates {
		pending[c] = true
	}
	last := -1
	upcoming(func(t int) bool {
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
	})
	for _, c := range candidates {
		if pending[c] {
			return c
		}
	}
	return last
}

// Planned runs a static plan: per-worker ordered task lists computed once
// in Init, composed with the runtime parts the papers pair with it: work
// stealing (hMETIS+R, mHFP), Ready reordering and Belady eviction over the
// remaining plan (HFP). MST, RCM, HFP, mHFP and hMETIS+R are Planned
// schedulers with different Plan functions.
type Planned struct {
	Name   string
	Plan   func(v View) ([][]int, error)
	Steal  bool
	Ready  bool
	Window int // Ready looks at the first Window buffered tasks (0 = all)
	Belady bool

	v       View
	lists   *Lists
	index   *ReadyIndex // Ready over the whole plan, when Window is 0
	initial [][]int     // the plan as computed, for ModelPlan
}

func (s *Planned) Init(v View) error {
	s.v = v
	for _, t := range v.Workload().Tasks {
		if len(t.Deps) > 0 {
			return fmt.Errorf("%s plans a set of independent tasks; this workload has dependencies (generate it without --deps)", s.Name)
		}
	}
	plans, err := s.Plan(v)
	if err != nil {
		return err
	}
	if len(plans) != v.Workers() {
		return fmt.Errorf("%s planned %d lists for %d workers", s.Name, len(plans), v.Workers())
	}
	seen := make([]bool, len(v.Workload().Tasks))
	n := 0
	for _, l := range plans {
		for _, t := range l {
			if t < 0 || t >= len(seen) || seen[t] {
				return fmt.Errorf("%s planned task %d twice or out of range", s.Name, t)
			}
			seen[t] = true
			n++
		}
	}
	if n != len(seen) {
		return fmt.Errorf("%s planned %d of %d tasks", s.Name, n, len(seen))
	}
	s.initial = make([][]int, len(plans)) // Lists reorders plans in place
	for w, l := range plans {
		s.initial[w] = slices.Clone(l)
	}
	s.lists = NewLists(plans, s.Steal)
	if s.Ready && s.Window <= 0 {
		s.index = NewReadyIndex(v)
		for w, l := range plans {
			for _, t := range l {
				s.index.Add(w, t)
			}
		}
		s.lists.OnSteal = func(from, to int, tasks []int) {
			for _, t := range tasks {
				s.index.Remove(t)
				s.index.Add(to, t)
			}
		}
	}
	return nil
}

func (s *Planned) Push(int) {}

// Pull hands out the worker's next planned task. With Ready it is the
// planned task with the fewest bytes not present on the worker (the first
// Window of the plan, 0 = all): StarPU applies Ready to the scheduler's
// per-GPU list, which is how HFP's Ready reorders "the first tasks" of its
// packages (thesis §3.5.5) and how hMETIS+R orders each part.
func (s *Planned) Pull(worker int) (int, bool) {
	if !s.Ready {
		return s.lists.Next(worker)
	}
	if len(s.lists.Remaining(worker)) == 0 && !s.lists.StealFor(worker) {
		return 0, false
	}
	if s.index != nil {
		return s.lists.TakeAt(worker, s.index.Pop(worker, s.lists.Remaining(worker))), true
	}
	rem := s.lists.Remaining(worker)
	return s.lists.TakeAt(worker, Ready(s.v, worker, rem, s.Window)), true
}

// Observe keeps the Ready index current.
func (s *Planned) Observe(kind EventKind, worker, id int) {
	if s.index != nil {
		s.index.Observe(kind, worker, id)
	}
}

// ModelPlan is the plan as computed in Init (before Ready and stealing
// change it at run time) and whether it is run with Belady, for the loads of
// the abstract model (harness/run's model_loads).
func (s *Planned) ModelPlan() (plans [][]int, belady bool) { return s.initial, s.Belady }

// Remaining is the worker's plan not yet pulled.
func (s *Planned) Remaining(worker int) []int { return s.lists.Remaining(worker) }

// Victim is LRU, or Belady over what the worker will run: its pipeline
// (not yet started), its buffer, then its remaining plan in plan order.
// Ready may take planned tasks out of order; Belady is not told (thesis
// §3.5.3 lists adapting Belady to Ready as future work).
func (s *Planned) Victim(worker int, candidates []int, prefetch bool) int {
	if !s.Belady {
		return candidates[0]
	}
	// StarPU's belady_victim_selector (HFP.c) walks the worker's upcoming
	// tasks for the next use of each data on the node: count the inputs of
	// the tasks walked.
	ops := len(candidates)
	defer func() { s.v.Count(ops) }()
	return Belady(s.v.Workload(), candidates, func(yield func(int) bool) {
		for _, seq := range [][]int{s.v.Pipeline(worker), s.v.Buffer(worker), s.lists.Remaining(worker)} {
			for _, t := range seq {
				ops += len(s.v.Workload().Tasks[t].Inputs)
				if !yield(t) {
					return
				}
			}
		}
	})
}
