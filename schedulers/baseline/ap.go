package baseline

import "github.com/memsched/memsched/schedulers"

func init() {
	schedulers.Register(schedulers.Spec{
		Name: "ap", Version: 1,
		Doc: "PaRSEC AP, absolute priority (thesis §5.1.2: \"all processing units share a task-waiting queue that is sorted by priority, " +
			"and each time a processing unit becomes available, it takes for execution a task from the head\"); PaRSEC's own priorities " +
			"for Cholesky with priority=parsec (the thesis noticed no difference with bottom levels)",
		Params: apParams,
		// A worker takes a task when it has room to start it (no buffer of
		// tasks prefetched ahead beyond its pipeline).
		Buffer: 1,
		New:    apNew,
	})
}

var apParams, apNew = schedulers.Typed(func(a *schedulers.Args, o *AP) {
	a.Shared(schedulers.PriorityParam, &o.Priority)
}, func(o AP) (schedulers.Scheduler, error) { return &o, nil })

// AP is one queue sorted by priority, shared by every worker.
type AP struct {
	Priority string

	v     schedulers.View
	queue *schedulers.PrioQueue
}

func (s *AP) Init(v schedulers.View) error {
	prio, err := schedulers.Priorities(v, s.Priority)
	if err != nil {
		return err
	}
	s.v, s.queue = v, schedulers.NewPrioQueue(prio)
	s.queue.Reserve(schedulers.ReadyAtStart(v.Workload()))
	return nil
}

func (s *AP) Push(t int) { s.queue.Push(t) }

// Pull takes the head, when the worker can run it (the thesis runs AP on
// GPUs only).
// Idle says the shared queue is empty.
func (s *AP) Idle(int) bool { return s.queue.Len() == 0 }

func (s *AP) Pull(w int) (int, bool) {
	t, ok := s.queue.Head()
	if !ok || !s.v.CanRun(w, t) {
		return 0, false
	}
	s.queue.Remove(t)
	return t, true
}
