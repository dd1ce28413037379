// Package baseline holds StarPU's schedulers that the papers compare
// against: EAGER (modular-eager-prefetching) and DMDA/DMDAR.
package baseline

import "github.com/memsched/memsched/schedulers"

func init() {
	schedulers.Register(schedulers.Spec{
		Name:    "eager",
		Version: 3,
		Doc:     "StarPU modular-eager-prefetching: one central queue in submission order, which prefetches each task when it is pushed if the workers share one memory node (one GPU); a worker's FIFO below receives one task per pop (buffer 1), so it pops in submission order; LRU eviction",
		// StarPU's eager component lets the queue above push one task each
		// time the FIFO below a worker asks for more (component_eager.c
		// eager_can_push: "make pump above push only one task", since
		// November 2020), and that FIFO asks once per pull
		// (component_fifo.c fifo_pull_task): it holds one task whenever
		// its worker pops, whatever STARPU_NTASKS_THRESHOLD.
		Buffer: 1,
		Params: eagerParams,
		New:    eagerNew,
	})
}

var eagerParams, eagerNew = schedulers.Typed(func(a *schedulers.Args, o *Eager) {
	a.Bool(&o.Ready, "ready", true, "Ready in the worker's buffer (modular_eager_prefetching.c builds its FIFOs with STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY, so STARPU_SCHED_READY defaults to 1 in modular_ez.c); it chooses only with a buffer above StarPU's 1; false pops in order")
}, func(o Eager) (schedulers.Scheduler, error) { return &o, nil })

// Eager is one FIFO shared by every worker; each worker's buffer pops with
// Ready, as StarPU's fifo component below the eager one does
// (component_fifo.c fifo_pull_task: _starpu_fifo_pop_first_ready_task
// when ready is set), which has a choice only in a buffer deeper than the
// one task StarPU's eager component lets into it (Spec.Buffer).
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

// PrefetchesAtPush says the central queue is StarPU's FIFO component above
// the eager one (modular_eager_prefetching.c: STARPU_SCHED_SIMPLE_FIFO_ABOVE),
// which prefetches each pushed task when its workers share one memory node:
// on one GPU, every task at its submission (schedulers.PushPrefetcher).
func (s *Eager) PrefetchesAtPush() bool { return true }

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
