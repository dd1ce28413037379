package baseline

import (
	"math"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Transfer penalty models of the dmda family.
const (
	// PenaltyInMem: the thesis' Alg. 6 view, optimistic: data join a
	// worker's set when a task reading them is allocated there and never
	// leave it.
	PenaltyInMem = "inmem"
	// PenaltyExpected: StarPU's starpu_task_expected_data_transfer_time_for
	// (perfmodel.c starpu_data_expected_transfer_time): nothing for data
	// present or requested on the worker's memory or only written, else the
	// transfer from the copy the runtime would use. Data move in task
	// graphs (written tiles invalidate other copies), which InMem ignores.
	PenaltyExpected = "expected"
)

// Transfer time predictions of the dmda family (parameter transfer_predict).
const (
	// PredictStarPU is StarPU's bus model at papers/ICPP2023:
	// perfmodel_bus.c starpu_transfer_predict returns
	// latency + size/bandwidth*2*ngpus, ngpus the CUDA and OpenCL devices
	// in use (topology->ndevices), a crude allowance for the GPUs sharing
	// the host's bus. Every transfer is priced at 2 x the number of GPUs
	// times its uncontended time.
	PredictStarPU = "starpu"
	// PredictUncontended prices a transfer at its uncontended time (the
	// thesis' Alg. 6 reading of dmda).
	PredictUncontended = "uncontended"
)

// Ready rankings of dmdar and dmdas (parameter rank).
const (
	// RankStarPU: StarPU's (fifo_queues.c _starpu_fifo_pop_first_ready_task
	// at papers/ICPP2023, dmda_pop_ready_task): the queued task with the
	// fewest bytes read and not valid on the worker, then the fewest of
	// those not even loading, then the fewest bytes not allocated, then
	// (dmdas) the highest priority, then the first (schedulers.ReadyStarPU).
	RankStarPU = "starpu"
	// RankPresent: the thesis' Ready (Alg. 2): the fewest bytes not loaded
	// or loading, then the first.
	RankPresent = "present"
)

// Expected ends of the dmda family (parameter expected_end).
const (
	// EndStarPU: StarPU's dmda (deque_modeling_policy_data_aware.c,
	// papers/ICPP2023) starts the task on a worker at the later of the
	// end of its queue and now + the transfer penalty
	// (compute_all_performance_predictions, task_starting_time), and the
	// queue grows by the transfer time left past its end
	// (push_task_on_best_worker adds it to fifo->exp_len).
	EndStarPU = "starpu"
	// EndQueue: the task starts at its queue's end (thesis Eq. 4.1).
	EndQueue = "queue"
)

// dmdaArgs binds the parameters every dmda variant has; ready variants add
// Ready's window and ranking, dmdas its priorities.
func dmdaArgs(a *schedulers.Args, o *DMDA) {
	a.Float(&o.Alpha, "alpha", 1, "weight of the expected completion time (StarPU dmda alpha)").Min(0)
	a.Float(&o.Beta, "beta", 1, "weight of the data transfer penalty (StarPU dmda beta)").Min(0)
	a.String(&o.Predict, "transfer_predict", PredictStarPU, []string{PredictStarPU, PredictUncontended},
		"transfer time in the penalty: starpu (StarPU's perfmodel_bus.c starpu_transfer_predict: size/bandwidth x 2 x the number of GPUs) or uncontended (size/bandwidth)")
	a.Choice(&o.EndStarPU, EndStarPU, "expected_end", EndStarPU, []string{EndStarPU, EndQueue},
		"a worker's expected end for the task: starpu (StarPU's compute_all_performance_predictions: the task starts at max(queue end, now + transfer penalty)) or queue (at the queue's end, thesis Eq. 4.1)")
	// 5 (dmda), 6 (dmdar): StarPU's transfer penalty by default (penalty =
	// expected, the code the papers ran: dmda's
	// compute_all_performance_predictions calls
	// starpu_task_expected_data_transfer_time_for); the thesis' Alg. 6
	// reading is penalty = inmem.
	a.String(&o.Penalty, "penalty", PenaltyExpected, []string{PenaltyInMem, PenaltyExpected},
		"transfer penalty: inmem (thesis Alg. 6: data once allocated to a worker count as there forever) or expected (StarPU's code: data present or requested on the worker cost nothing, others their transfer time from the fastest valid copy)")
}

func rankArg(a *schedulers.Args, o *DMDA) {
	a.Choice(&o.RankPresent, RankPresent, "rank", RankStarPU, []string{RankStarPU, RankPresent},
		"how Ready ranks the queued tasks (dmdar, dmdas): starpu (StarPU's fifo_queues.c _starpu_fifo_pop_first_ready_task: fewest bytes not valid, then not loading, then not allocated, as starpu_data_query_status2 reports them) or present (thesis Alg. 2: fewest bytes not loaded or loading)")
}

func init() {
	for _, ready := range []bool{false, true} {
		name, doc, version := "dmda", "StarPU dmda: each task, in submission order, goes to the worker minimising alpha*(expected end - best end) + beta*transfer time of its missing inputs; every queued task is prefetched", 5
		if ready {
			// 5: StarPU's Ready ranking (rank = starpu).
			name, version = "dmdar", 6
			doc = "dmda + Ready: a worker starts the queued task with the fewest bytes still to load (StarPU's dmda_pop_ready_task: not valid, then not loading, then not allocated; thesis Alg. 2 with rank = present)"
		}
		params, build := schedulers.Typed(func(a *schedulers.Args, o *DMDA) {
			dmdaArgs(a, o)
			a.Int(&o.Window, "window", 0, "Ready looks at the first window queued tasks only (0 = all); dmdar only").Min(0)
			rankArg(a, o)
		}, func(o DMDA) (schedulers.Scheduler, error) { o.Ready = ready; return &o, nil })
		schedulers.Register(schedulers.Spec{Name: name, Version: version, Doc: doc, Params: params, Buffer: -1, New: build})
	}
	params, build := schedulers.Typed(func(a *schedulers.Args, o *DMDA) {
		dmdaArgs(a, o)
		a.Shared(schedulers.PriorityParam, &o.Priority)
		rankArg(a, o)
	}, func(o DMDA) (schedulers.Scheduler, error) { o.Ready, o.Sorted = true, true; return &o, nil })
	schedulers.Register(schedulers.Spec{
		Name: "dmdas", Version: 3, // 3: StarPU's Ready ranking (rank = starpu)
		Doc: "StarPU dmdas (deque_modeling_policy_data_aware.c: dmda_push_sorted_task, dmda_pop_ready_task): dmda whose worker queues are sorted by priority, " +
			"popped with Ready (fewest bytes to load, ranked as StarPU's _starpu_fifo_pop_first_ready_task, then highest priority; thesis §5.1); the transfer penalty is StarPU's expected transfer time",
		Params: params,
		Buffer: -1,
		New:    build,
	})
}

// DMDA allocates at push time, with StarPU's fitness (thesis Eq. 4.1 plus
// the queue term of StarPU's code, since the printed equation alone never
// balances load). Its view of memory is the thesis' optimistic InMem
// (thesis §3.2: DMDA does not account for the limited memory size) or
// StarPU's expected transfer time (Penalty).
type DMDA struct {
	Alpha, Beta float64
	Ready       bool
	Window      int
	// RankPresent ranks with the thesis' Ready (fewest bytes not present);
	// false: StarPU's (schedulers.ReadyStarPU).
	RankPresent bool
	// Sorted pops ties of Ready by priority (dmdas).
	Sorted   bool
	Penalty  string
	Priority string
	// Predict is how a transfer is priced (PredictStarPU or
	// PredictUncontended; "" is uncontended).
	Predict string
	// EndStarPU starts a task's expected execution no earlier than its
	// transfers' predicted end (StarPU's dmda); without it, at its queue's
	// end (thesis Eq. 4.1).
	EndStarPU bool

	v           schedulers.View
	inMem       [][]bool
	requested   [][]int32 // per memory node and data: allocated tasks there not finished that access it
	expEnd      []float64
	queues      *schedulers.Queues
	ends        []float64
	pens        []float64              // per worker: the transfer penalty of the task being pushed
	index       *schedulers.ReadyIndex // Ready over the whole queue, when Window is 0
	pushes      int
	penaltyAt   []int     // per memory node: the push whose expected penalty nodePenalty holds
	nodePenalty []float64 // per memory node
	scale       float64   // what Predict multiplies an uncontended transfer time by
}

func (s *DMDA) Init(v schedulers.View) error {
	s.v = v
	k, nd := v.Workers(), len(v.Workload().Data)
	s.scale = 1
	if s.Predict == PredictStarPU {
		// perfmodel_bus.c starpu_transfer_predict (StarPU papers/ICPP2023):
		// latency + size/bandwidth*2*ngpus, ngpus =
		// topology->ndevices[STARPU_CUDA_WORKER] + [STARPU_OPENCL_WORKER],
		// the GPUs in use. The memsched view's transfer time has no latency.
		gpus := 0
		for w := range k {
			if v.WorkerKind(w) == hardware.GPU {
				gpus++
			}
		}
		s.scale = float64(2 * gpus)
	}
	if s.Penalty == PenaltyExpected {
		s.penaltyAt, s.nodePenalty = make([]int, v.Nodes()), make([]float64, v.Nodes())
		s.requested = make([][]int32, v.Nodes())
		for i := range s.requested {
			s.requested[i] = make([]int32, nd)
		}
	} else {
		s.inMem = make([][]bool, k)
		for i := range s.inMem {
			s.inMem[i] = make([]bool, nd)
		}
	}
	s.expEnd = make([]float64, k)
	s.queues = schedulers.NewQueues(k, len(v.Workload().Tasks))
	s.ends, s.pens = make([]float64, k), make([]float64, k)
	if s.Ready && s.Window <= 0 {
		if s.RankPresent {
			s.index = schedulers.NewReadyIndex(v)
		} else {
			s.index = schedulers.NewStarPUReadyIndex(v)
		}
		if s.Sorted {
			prio, err := schedulers.Priorities(v, s.Priority)
			if err != nil {
				return err
			}
			s.index.Prio = prio
		}
	}
	return nil
}

func (s *DMDA) Push(t int) {
	task := &s.v.Workload().Tasks[t]
	s.pushes++ // from 1: a new stamp for the penalties of this push
	now := s.v.Now()
	best, bestFit := -1, math.Inf(1)
	ends, pens := s.ends, s.pens
	minEnd := math.Inf(1)
	for k := range ends {
		start := math.Max(now, s.expEnd[k])
		c := s.v.ComputeSeconds(k, t)
		if math.IsNaN(c) {
			ends[k] = c // it cannot run there
			continue
		}
		pens[k] = s.penaltyFor(k, task)
		if s.EndStarPU {
			// deque_modeling_policy_data_aware.c
			// compute_all_performance_predictions: task_starting_time =
			// max(exp_start + prev_exp_len, now + local_data_penalty).
			start = math.Max(start, now+pens[k])
		}
		ends[k] = start + c
		minEnd = math.Min(minEnd, ends[k])
	}
	// StarPU evaluates every worker's expected end and transfer time, one
	// lookup per input (deque_modeling_policy_data_aware.c
	// compute_all_performance_predictions, starpu_task_expected_data_transfer_time).
	s.v.CountOps(schedulers.OpPredict, len(ends)*(1+len(task.Inputs)))
	for k := range ends {
		if math.IsNaN(ends[k]) {
			continue
		}
		if fit := s.Alpha*(ends[k]-minEnd) + s.Beta*pens[k]; fit < bestFit {
			best, bestFit = k, fit
		}
	}
	// With EndStarPU the queue grows by the transfer time left after its
	// current end, as push_task_on_best_worker adds to fifo->exp_len the
	// part of predicted_transfer beyond fifo->exp_end, then the task's
	// length: its new end is ends[best] either way.
	s.expEnd[best] = ends[best]
	for _, d := range task.Inputs {
		if s.inMem != nil {
			s.inMem[best][d] = true
		} else {
			s.requested[s.v.WorkerNode(best)][d]++
		}
	}
	s.queues.Push(best, t)
}

// penaltyFor is penalty, computed once per memory node for the expected
// penalty, which depends only on the worker's node (the 48 cores of a CPU
// platform share one).
func (s *DMDA) penaltyFor(k int, task *workloads.Task) float64 {
	if s.inMem != nil {
		return s.penalty(k, task)
	}
	n := s.v.WorkerNode(k)
	if s.penaltyAt[n] != s.pushes {
		s.penaltyAt[n], s.nodePenalty[n] = s.pushes, s.penalty(k, task)
	}
	return s.nodePenalty[n]
}

// penalty is the time to bring the task's missing inputs to worker k.
func (s *DMDA) penalty(k int, task *workloads.Task) float64 {
	var p float64
	w := s.v.Workload()
	node := s.v.WorkerNode(k)
	for i, d := range task.Inputs {
		switch {
		case s.inMem != nil:
			if !s.inMem[k][d] {
				p += s.scale * s.v.TransferSeconds(k, d)
			}
		case !w.Mode(task.ID, i).Reads(), s.requested[node][d] > 0, s.v.Present(k, d):
		default:
			p += s.scale * s.v.TransferSeconds(k, d)
		}
	}
	return p
}

// Idle says the worker's queue is empty (dmda does not steal).
func (s *DMDA) Idle(worker int) bool { return s.queues.Idle(worker) }

func (s *DMDA) Pull(worker int) (int, bool) {
	if s.index != nil {
		s.index.Reserve(worker, s.queues.Len(worker)) // each queued task arrives there in turn
	}
	t, ok := s.queues.Pop(worker)
	if ok && s.index != nil {
		s.index.Add(worker, t)
	}
	return t, ok
}

// PopsTasks says the choice can be named without the buffer: with Ready's
// index (dmdar and dmdas over the whole queue).
func (s *DMDA) PopsTasks() bool { return s.index != nil }

// PopTask is Pop when PopsTasks.
func (s *DMDA) PopTask(worker int) int { return s.index.Next(worker) }

// Pop is Ready for dmdar and dmdas, submission order for dmda.
func (s *DMDA) Pop(worker int, buffer []int) int {
	switch {
	case !s.Ready:
		return 0
	case s.index != nil:
		return s.index.Pop(worker, buffer)
	}
	if !s.RankPresent {
		return schedulers.ReadyStarPU(s.v, worker, buffer, s.Window)
	}
	return schedulers.Ready(s.v, worker, buffer, s.Window)
}

// Observes is what the Ready index follows, and task ends when DMDA counts
// requested data.
func (s *DMDA) Observes(kind schedulers.EventKind) bool {
	return (s.index != nil && s.index.Observes(kind)) || (kind == schedulers.Finished && s.requested != nil)
}

func (s *DMDA) Observe(kind schedulers.EventKind, where, id int) {
	if s.index != nil {
		s.index.Observe(kind, where, id)
	}
	if kind == schedulers.Finished && s.requested != nil {
		node := s.v.WorkerNode(where)
		for _, d := range s.v.Workload().Tasks[id].Inputs {
			s.requested[node][d]--
		}
	}
}
