package baseline

import (
	"sort"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/schedulers"
)

// Ends of a victim's queue a steal takes from.
const (
	// StealTail: the lowest priority, latest pushed: the thesis' prose, "steals
	// tasks from the end of their queue" (§5.1.1).
	StealTail = "tail"
	// StealBackHighest: the latest pushed task of the highest priority, what
	// the thesis' StarPU does (the default): work_stealing_policy.c
	// ws_pick_task takes from another worker's queue with
	// src/sched_policies/prio_deque.c _starpu_prio_deque_deque_task_for_worker,
	// "From the back of the list for the highest priority" (list_back_highest,
	// list_prev_highest; StarPU papers/ICPP2023, 673878e09).
	StealBackHighest = "back-highest"
)

func init() {
	schedulers.Register(schedulers.Spec{
		// Version 2: steal_from defaults to back-highest, StarPU's rule.
		Name: "lws", Version: 2,
		Doc: "StarPU lws, locality work stealing (thesis §5.1.1; work_stealing_policy.c ws_push_task, ws_pop_task, lws_select_victim): " +
			"one queue per worker sorted by priority; a released task goes to the worker that released it (submitted ones round-robin); " +
			"a worker pops its head (prio_deque.c _starpu_prio_deque_pop_task_for_worker), and when empty steals from the nearest busy worker (NVLink neighbours first) " +
			"the latest pushed task of its highest priority (prio_deque.c _starpu_prio_deque_deque_task_for_worker)",
		Params: lwsParams,
		// StarPU's lws is not a modular scheduler: the driver pops a task
		// when its pipeline has room and fetches it then (no task buffer
		// prefetched ahead).
		Buffer: 1,
		New:    lwsNew,
	})
}

var lwsParams, lwsNew = schedulers.Typed(func(a *schedulers.Args, o *LWS) {
	a.Shared(schedulers.PriorityParam, &o.Priority)
	a.Int(&o.Steal, "steal", 1, "tasks a steal takes from the victim (StarPU's ws_pick_task: 1); 0 = half of the victim's queue").Min(0)
	a.String(&o.StealFrom, "steal_from", StealBackHighest, []string{StealBackHighest, StealTail},
		"back-highest: the latest pushed task of the highest priority, as the thesis' StarPU (src/sched_policies/prio_deque.c _starpu_prio_deque_deque_task_for_worker, called by work_stealing_policy.c ws_pick_task); tail: the lowest-priority end (the thesis' prose: 'steals tasks from the end of their queue')")
}, func(o LWS) (schedulers.Scheduler, error) { return &o, nil })

// LWS is StarPU's locality work stealing.
type LWS struct {
	Priority  string
	Steal     int
	StealFrom string

	v      schedulers.View
	queues []*schedulers.PrioQueue
	prox   [][]int // per worker, the others nearest first
	last   int     // round-robin cursor for submitted tasks
	queued int     // tasks in all the queues
}

func (s *LWS) Init(v schedulers.View) error {
	s.v = v
	prio, err := schedulers.Priorities(v, s.Priority)
	if err != nil {
		return err
	}
	k := v.Workers()
	s.queues = schedulers.NewPrioQueues(prio, k) // a task is in one queue at most
	s.prox = Proximity(v)
	s.last = 0
	return nil
}

// Push queues a task on the worker whose task released it, or, for a
// submitted task (or one that worker cannot run), round-robin from worker
// 1 (select_worker_round_robin advances before choosing).
func (s *LWS) Push(t int) {
	w := s.v.CurrentWorker()
	if w < 0 || !s.v.CanRun(w, t) {
		for i := 1; i <= len(s.queues); i++ {
			c := (s.last + i) % len(s.queues)
			if s.v.CanRun(c, t) {
				w = c
				break
			}
		}
		s.last = w
	}
	s.queues[w].Push(t)
	s.queued++
}

// Idle says no queue holds a task: there is nothing to take or steal.
func (s *LWS) Idle(int) bool { return s.queued == 0 }

func (s *LWS) Pull(w int) (int, bool) {
	if t, ok := s.queues[w].PopHead(); ok {
		s.queued--
		return t, true
	}
	for _, victim := range s.prox[w] {
		q := s.queues[victim]
		if q.Len() == 0 || len(s.v.Pipeline(victim)) == 0 {
			continue // lws_select_victim: only a busy worker with tasks is a victim
		}
		n := s.Steal
		if n == 0 {
			n = (q.Len() + 1) / 2
		}
		var stolen []int
		for len(stolen) < n {
			t, ok := s.take(q)
			if !ok {
				break
			}
			if !s.v.CanRun(w, t) {
				q.Push(t) // back to the victim (it joins its priority's end)
				break
			}
			stolen = append(stolen, t)
		}
		if len(stolen) == 0 {
			continue
		}
		for _, t := range stolen[1:] {
			s.queues[w].Push(t)
		}
		s.queued--
		return stolen[0], true
	}
	return 0, false
}

// take steals one task from a victim's queue: by default from the back of
// its highest priority (src/sched_policies/prio_deque.c
// _starpu_prio_deque_deque_task_for_worker, what ws_pick_task calls when the
// queue is another worker's); steal_from = tail takes the lowest priority.
func (s *LWS) take(q *schedulers.PrioQueue) (int, bool) {
	if s.StealFrom == StealTail {
		return q.PopTail()
	}
	return q.PopBackHighest()
}

// Proximity orders, for every worker, the other workers nearest first, the
// order in which lws looks for a victim (StarPU builds it from the hwloc
// tree, lws_add_workers). GPUs: the NVLink neighbours by bandwidth, then
// the GPUs of the same PCIe switch, of the same NUMA node, the others;
// CPU cores: by distance of core number. Ties by worker number; workers of
// another kind last.
func Proximity(v schedulers.View) [][]int {
	p := v.Platform()
	k := v.Workers()
	gpus := p.GPUs
	dist := func(a, b int) float64 {
		ka, kb := v.WorkerKind(a), v.WorkerKind(b)
		switch {
		case ka != kb:
			return 1e9
		case ka == hardware.CPU:
			d := a - b
			if d < 0 {
				d = -d
			}
			return float64(d)
		}
		// GPU a is worker a and memory node a.
		if n := p.NVLinks(a, b); n > 0 && a < gpus && b < gpus {
			return -float64(n)
		}
		t := p.Topology
		switch {
		case t.GPUsPerSwitch > 0 && a/t.GPUsPerSwitch == b/t.GPUsPerSwitch:
			return 1
		case t.GPUsPerNUMA > 0 && a/t.GPUsPerNUMA == b/t.GPUsPerNUMA:
			return 2
		}
		return 3
	}
	out := make([][]int, k)
	for a := range k {
		for b := range k {
			if b != a {
				out[a] = append(out[a], b)
			}
		}
		sort.SliceStable(out[a], func(i, j int) bool { return dist(a, out[a][i]) < dist(a, out[a][j]) })
	}
	return out
}
