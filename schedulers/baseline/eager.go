// Package baseline holds StarPU's schedulers that the papers compare
// against: EAGER (modular-eager-prefetching) and DMDA/DMDAR.
package baseline

import "github.com/memsched/memsched/schedulers"

func init() {
	schedulers.Register(schedulers.Spec{
		Name:    "eager",
		Version: 2,
		Doc:     "StarPU modular-eager-prefetching: one central queue in submission order; a worker pulls the head when its buffer has room; its buffer pops with Ready; LRU eviction",
		Params: []schedulers.Param{{Name: "ready", Kind: "bool", Default: "true",
			Doc: "Ready in the worker's buffer (modular_eager_prefetching.c builds its FIFOs with STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY, so STARPU_SCHED_READY defaults to 1 in modular_ez.c); false pops in order"}},
		New: func(p schedulers.Params) (schedulers.Scheduler, error) { return &Eager{Ready: p.Bool("ready")}, nil },
	})
}

// Eager is one FIFO shared by every worker; each worker's buffer pops with
// Ready, as StarPU's fifo component below the eager one does
// (component_fifo.c fifo_pull_task: _starpu_fifo_pop_first_ready_task
// when ready is set).
type Eager struct {
	Ready bool

	v     schedulers.View
	queue []int32 // every task is pushed once: sized in Init
	head  int
}

func (s *Eager) Init(v schedulers.View) error {
	s.v = v
	s.queue = make([]int32, 0, len(v.Workload().Tasks))
	return nil
}

func (s *Eager) Push(t int) { s.queue = append(s.queue, int32(t)) }

// Idle says the queue is empty.
func (s *Eager) Idle(int) bool { return s.head == len(s.queue) }

func (s *Eager) Pull(int) (int, bool) {
	if s.head == len(s.queue) {
		return 0, false
	}
	s.head++
	return int(s.queue[s.head-1]), true
}

// Pop is Ready over the worker's buffer, or its head.
func (s *Eager) Pop(worker int, buffer []int) int {
	if !s.Ready {
		return 0
	}
	return schedulers.Ready(s.v, worker, buffer, 0)
}
