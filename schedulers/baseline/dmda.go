package baseline

import (
	"math"

	"github.com/memsched/memsched/schedulers"
)

func init() {
	params := []schedulers.Param{
		{Name: "alpha", Kind: "float", Default: "1", Min: "0", Doc: "weight of the expected completion time (StarPU dmda alpha)"},
		{Name: "beta", Kind: "float", Default: "1", Min: "0", Doc: "weight of the data transfer penalty (StarPU dmda beta)"},
	}
	for _, ready := range []bool{false, true} {
		name, doc := "dmda", "StarPU dmda: each task, in submission order, goes to the worker minimising alpha*(expected end - best end) + beta*transfer time of its missing inputs; every queued task is prefetched"
		if ready {
			name = "dmdar"
			doc = "dmda + Ready: a worker starts the queued task with the fewest bytes still to load (thesis Alg. 2)"
		}
		schedulers.Register(schedulers.Spec{
			Name: name, Version: 2, Doc: doc, Params: append(params,
				schedulers.Param{Name: "window", Kind: "int", Default: "0", Min: "0", Doc: "Ready looks at the first window queued tasks only (0 = all); dmdar only"}),
			Buffer: -1,
			New: func(p schedulers.Params) (schedulers.Scheduler, error) {
				return &DMDA{Alpha: p.Float("alpha"), Beta: p.Float("beta"), Ready: ready, Window: p.Int("window")}, nil
			},
		})
	}
}

// DMDA allocates at push time, with StarPU's fitness (thesis Eq. 4.1 plus
// the queue term of StarPU's code, since the printed equation alone never
// balances load). Its view of memory is optimistic: data join a worker's
// set when a task reading them is allocated there and never leave it
// (thesis §3.2: DMDA does not account for the limited memory size).
type DMDA struct {
	Alpha, Beta float64
	Ready       bool
	Window      int

	v      schedulers.View
	inMem  [][]bool
	expEnd []float64
	queues *schedulers.Lists
	plans  [][]int
	ends   []float64
	index  *schedulers.ReadyIndex // Ready over the whole queue, when Window is 0
}

func (s *DMDA) Init(v schedulers.View) error {
	s.v = v
	k, nd := v.Workers(), len(v.Workload().Data)
	s.inMem = make([][]bool, k)
	for i := range s.inMem {
		s.inMem[i] = make([]bool, nd)
	}
	s.expEnd = make([]float64, k)
	s.plans = make([][]int, k)
	s.queues = schedulers.NewLists(s.plans, false)
	s.ends = make([]float64, k)
	if s.Ready && s.Window <= 0 {
		s.index = schedulers.NewReadyIndex(v)
	}
	return nil
}

func (s *DMDA) Push(t int) {
	task := s.v.Workload().Tasks[t]
	now := s.v.Now()
	best, bestFit := 0, math.Inf(1)
	ends := s.ends
	minEnd := math.Inf(1)
	for k := range ends {
		ends[k] = math.Max(now, s.expEnd[k]) + s.v.ComputeSeconds(k, t)
		minEnd = math.Min(minEnd, ends[k])
	}
	// StarPU evaluates every worker's expected end and transfer time, one
	// lookup per input (deque_modeling_policy_data_aware.c
	// compute_all_performance_predictions, starpu_task_expected_data_transfer_time).
	s.v.Count(len(ends) * (1 + len(task.Inputs)))
	for k := range ends {
		var penalty float64
		for _, d := range task.Inputs {
			if !s.inMem[k][d] {
				penalty += s.v.TransferSeconds(k, d)
			}
		}
		if fit := s.Alpha*(ends[k]-minEnd) + s.Beta*penalty; fit < bestFit {
			best, bestFit = k, fit
		}
	}
	s.expEnd[best] = ends[best]
	for _, d := range task.Inputs {
		s.inMem[best][d] = true
	}
	s.queues.Append(best, t)
}

func (s *DMDA) Pull(worker int) (int, bool) {
	t, ok := s.queues.Next(worker)
	if ok && s.index != nil {
		s.index.Add(worker, t)
	}
	return t, ok
}

// Pop is Ready for dmdar, submission order for dmda.
func (s *DMDA) Pop(worker int, buffer []int) int {
	switch {
	case !s.Ready:
		return 0
	case s.index != nil:
		return s.index.Pop(worker, buffer)
	}
	return schedulers.Ready(s.v, worker, buffer, s.Window)
}

func (s *DMDA) Observe(kind schedulers.EventKind, worker, id int) {
	if s.index != nil {
		s.index.Observe(kind, worker, id)
	}
}
