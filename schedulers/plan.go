package schedulers

import (
	"fmt"
	"iter"
	"runtime"
)

// collectAfterPlan is the number of tasks from which Init collects the
// planner's garbage before building the run-time parts. Below it the
// scratch is a few MB, and a forced collection in each of a sweep's many
// small runs would cost more than it frees.
const collectAfterPlan = 1 << 17

// Planned runs a static plan: per-worker ordered task lists computed once
// in Init, composed with the runtime parts the papers pair with it: work
// stealing (hMETIS+R, mHFP), Ready reordering and Belady eviction over the
// remaining plan (HFP). MST, RCM, HFP, mHFP and hMETIS+R are Planned
// schedulers with different Plan functions.
type Planned struct {
	Name  string
	Plan  func(v View) ([][]int, error)
	Steal bool
	Ready bool
	// ReadyBelow applies Ready where StarPU's modular schedulers do
	// (STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY): the plan fills each worker's
	// buffer in order, and the worker pops the buffered task Ready ranks
	// first, with StarPU's ranking (ReadyStarPU). Without it Ready picks,
	// at each Pull, among the worker's whole remaining plan (its first
	// Window tasks) and the buffer is popped in order.
	ReadyBelow bool
	Window     int // Ready looks at the first Window tasks, of the plan or the buffer (0 = all)
	Belady     bool
	// BeladyUses is where Belady reads the next uses: BeladyUsesStarPU
	// (HFP.c's next_use_tab, hfp's and mhfp's default) or, when
	// BeladyUsesRemaining or empty, the remaining order.
	BeladyUses string

	v       View
	lists   *Lists
	index   *ReadyIndex // Ready over the whole plan, when Window is 0
	belady  *belady
	uses    *nextUses // Belady with BeladyUsesStarPU
	head    []int     // scratch: the first Window planned tasks
	initial [][]int32 // the plan as computed, for ModelPlan (4 bytes a task)
}

func (s *Planned) Init(v View) error {
	s.v = v
	for _, deps := range v.Workload().Deps {
		if len(deps) > 0 {
			return fmt.Errorf("%s plans a set of independent tasks; this workload has dependencies (generate it without --deps)", s.Name)
		}
	}
	plans, err := s.Plan(v)
	if err != nil {
		return err
	}
	if len(v.Workload().Tasks) >= collectAfterPlan {
		// The planner's scratch is garbage now (HFP's packages: about 150 MB
		// at a million tasks), but the collector would run only once the
		// heap doubles, and the Ready index and Belady would be allocated
		// on top of it. Collected, their memory is reused: mHFP's peak at
		// a million tasks falls from 380 to 296 MB.
		runtime.GC()
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
	s.initial = make([][]int32, len(plans)) // Lists reorders plans in place
	for w, l := range plans {
		s.initial[w] = make([]int32, len(l))
		for i, t := range l {
			s.initial[w][i] = int32(t)
		}
	}
	s.lists = NewLists(plans, s.Steal)
	if s.Ready && !s.ReadyBelow && s.Window <= 0 {
		s.index = NewReadyIndex(v)
		for w, l := range plans {
			s.index.AddAll(w, l)
		}
	}
	if s.Belady && s.BeladyUses == BeladyUsesStarPU {
		s.uses = newNextUses(v.Workload(), s.initial)
	} else if s.Belady {
		s.lists.CountInputs(v.Workload())
		s.belady = newBelady(v.Workload(), s.lists)
	}
	s.lists.OnSteal = func(from, to int, tasks []int) {
		if s.index != nil {
			for _, t := range tasks {
				s.index.Remove(t)
				s.index.Add(to, t)
			}
		}
		if s.belady != nil {
			s.belady.index(to)
		}
	}
	return nil
}

func (s *Planned) Push(int) {}

// Pull hands out the worker's next planned task. With Ready over the plan
// (not ReadyBelow) it is the planned task with the fewest bytes not
// present on the worker (the first Window of the plan, 0 = all), the
// thesis' reading of how HFP's Ready reorders "the first tasks" of its
// packages (§3.5.5) and how hMETIS+R orders each part.
func (s *Planned) Pull(worker int) (int, bool) {
	if !s.Ready || s.ReadyBelow {
		return s.lists.Next(worker)
	}
	if s.lists.Left(worker) == 0 && !s.lists.StealFor(worker) {
		return 0, false
	}
	var t int
	if s.index != nil {
		t = s.index.Next(worker)
	} else {
		s.head = s.lists.Head(worker, s.Window, s.head[:0])
		t = s.head[Ready(s.v, worker, s.head, 0)]
	}
	s.lists.Take(worker, t)
	return t, true
}

// Pop is the buffer's order, or with ReadyBelow the task StarPU's FIFO
// below the scheduler hands its worker: component_fifo.c fifo_pull_task
// calls _starpu_fifo_pop_first_ready_task on the tasks the scheduler
// pushed into it, at most STARPU_NTASKS_THRESHOLD (the buffer's depth),
// so Ready sees only those (ReadyStarPU; Window, when set, fewer).
func (s *Planned) Pop(worker int, buffer []int) int {
	if !s.Ready || !s.ReadyBelow {
		return 0
	}
	return ReadyStarPU(s.v, worker, buffer, s.Window)
}

// Observes is what the Ready index follows, and the tasks' ends for
// StarPU's next uses; nothing without them.
func (s *Planned) Observes(kind EventKind) bool {
	return (s.index != nil && s.index.Observes(kind)) || (s.uses != nil && kind == Finished)
}

// Observe keeps the Ready index current, and pops the next uses of a task
// that ended (HFP.c get_task_done_HFP).
func (s *Planned) Observe(kind EventKind, where, id int) {
	if s.uses != nil && kind == Finished {
		s.uses.ended(where, id)
	}
	if s.index != nil {
		s.index.Observe(kind, where, id)
	}
}

// ModelPlan is the plan as computed in Init (before Ready and stealing
// change it at run time) and whether it is run with Belady, for the loads of
// the abstract model (harness/run's model_loads).
func (s *Planned) ModelPlan() (plans [][]int32, belady bool) { return s.initial, s.Belady }

var _ ModelPlanner = (*Planned)(nil)

// Remaining yields the worker's plan not yet pulled, in order.
func (s *Planned) Remaining(worker int) iter.Seq[int] { return s.lists.Remaining(worker) }

// ChoosesVictims says Belady chooses, when the plan runs with it.
func (s *Planned) ChoosesVictims() bool { return s.belady != nil || s.uses != nil }

// Victim is LRU, or Belady over what the worker will run: its pipeline
// (not yet started), its buffer, then its remaining plan in plan order.
// Ready may take planned tasks out of order; Belady is not told (thesis
// §3.5.3 lists adapting Belady to Ready as future work).
func (s *Planned) Victim(worker int, candidates []int, prefetch bool) int {
	if s.uses != nil {
		victim, ops := s.uses.victim(worker, candidates)
		s.v.CountOps(OpBelady, ops)
		return victim
	}
	if s.belady == nil {
		return candidates[0]
	}
	victim, ops := s.belady.victim(worker, candidates, s.v.Pipeline(worker), s.v.Buffer(worker))
	s.v.CountOps(OpBelady, ops)
	return victim
}

// Where Planned applies Ready (parameter ready_at).
const (
	// ReadyAtBuffer is StarPU's: HFP, MST, RCM and hMETIS+R are modular
	// schedulers built with STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY
	// (modular_ez.c starpu_sched_component_initialize_simple_schedulers):
	// a FIFO per GPU below the scheduler holds at most
	// STARPU_NTASKS_THRESHOLD tasks, the scheduler's next ones in its
	// order, and Ready picks among them (Planned.ReadyBelow).
	ReadyAtBuffer = "buffer"
	// ReadyAtPlan picks among the worker's whole remaining plan at each
	// pull (the thesis' reading).
	ReadyAtPlan = "plan"
)

// ReadyAtParam declares ready_at for the Planned schedulers.
var ReadyAtParam = Param{Name: "ready_at", Kind: "string", Default: ReadyAtBuffer, Choices: []string{ReadyAtBuffer, ReadyAtPlan},
	Doc: "where Ready chooses: buffer (StarPU's FIFO below the scheduler, component_fifo.c: among the buffered tasks, at most the buffer depth = STARPU_NTASKS_THRESHOLD, ranked as fifo_queues.c _starpu_fifo_pop_first_ready_task) or plan (among the whole remaining plan at each pull, fewest bytes not present)"}
