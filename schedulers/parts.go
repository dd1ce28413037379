package schedulers

import "github.com/memsched/memsched/hardware"

// Ready is StarPU's Ready reordering (thesis Algorithm 2): among the first
// window buffered tasks (window <= 0: all), pop the first one with the fewest
// bytes of input not yet present on the worker.
//
// It counts (View.Count) what StarPU's implementation examines: one data
// status query per input of every task it scans (fifo_queues.c
// _starpu_fifo_pop_first_ready_task calls _starpu_size_non_ready_buffers,
// one starpu_data_query_status2 per buffer, for each task until one has
// nothing missing).
func Ready(v View, worker int, buffer []int, window int) int {
	n := len(buffer)
	if window > 0 && window < n {
		n = window
	}
	best, bestMissing := 0, int64(-1)
	ops := 0
	for i := 0; i < n; i++ {
		ops += len(v.Workload().Tasks[buffer[i]].Inputs)
		missing := MissingBytes(v, worker, buffer[i])
		if bestMissing < 0 || missing < bestMissing {
			best, bestMissing = i, missing
			if missing == 0 {
				break
			}
		}
	}
	v.Count(ops)
	return best
}

// MissingBytes is the size of the task's inputs not present (loaded or
// loading) on the worker: what Ready minimises.
func MissingBytes(v View, worker, task int) int64 {
	w := v.Workload()
	var m int64
	for _, d := range w.Tasks[task].Inputs {
		if !v.Present(worker, d) {
			m += w.Data[d].Bytes
		}
	}
	return m
}

// Lists are per-worker planned task lists with the work stealing of
// hMETIS+R and mHFP (thesis §3.6): a worker whose list is empty steals half
// of the remaining tasks of the worker with the most, from its tail.
type Lists struct {
	lists [][]int
	heads []int
	Steal bool
	// OnSteal, when set, is told which tasks moved, for owners that index
	// the lists.
	OnSteal func(from, to int, tasks []int)
}

// NewLists takes ownership of the per-worker plans.
func NewLists(plans [][]int, steal bool) *Lists {
	return &Lists{lists: plans, heads: make([]int, len(plans)), Steal: steal}
}

// Append adds a task at the tail of a worker's list.
func (l *Lists) Append(worker, task int) { l.lists[worker] = append(l.lists[worker], task) }

// Take removes a given task from a worker's remaining list.
func (l *Lists) Take(worker, task int) {
	rem := l.Remaining(worker)
	for i, t := range rem {
		if t == task {
			l.TakeAt(worker, i)
			return
		}
	}
	panic("schedulers: task not in the worker's list")
}

// StealFor refills an empty worker by stealing, reporting whether it got tasks.
func (l *Lists) StealFor(worker int) bool {
	return l.Steal && l.heads[worker] == len(l.lists[worker]) && l.steal(worker)
}

// TakeAt removes and returns the i-th remaining task of a worker.
func (l *Lists) TakeAt(worker, i int) int {
	h := l.heads[worker]
	lst := l.lists[worker]
	t := lst[h+i]
	copy(lst[h+1:h+i+1], lst[h:h+i])
	l.heads[worker]++
	return t
}

// Remaining lists the planned tasks a worker has not yet taken.
func (l *Lists) Remaining(worker int) []int { return l.lists[worker][l.heads[worker]:] }

// Next takes the head of a worker's list, stealing when it is empty.
func (l *Lists) Next(worker int) (int, bool) {
	if l.heads[worker] == len(l.lists[worker]) {
		if !l.Steal || !l.steal(worker) {
			return 0, false
		}
	}
	t := l.lists[worker][l.heads[worker]]
	l.heads[worker]++
	return t, true
}

func (l *Lists) steal(thief int) bool {
	victim, most := -1, 0
	for w := range l.lists {
		if r := len(l.lists[w]) - l.heads[w]; r > most {
			victim, most = w, r
		}
	}
	if victim < 0 {
		return false
	}
	take := (most + 1) / 2
	vl := l.lists[victim]
	tail := vl[len(vl)-take:]
	l.lists[thief] = append(l.lists[thief][:0], tail...)
	l.heads[thief] = 0
	l.lists[victim] = vl[:len(vl)-take]
	if l.OnSteal != nil {
		l.OnSteal(victim, thief, l.lists[thief])
	}
	return true
}

// PipelineRoom says whether a worker needs a task under StarPU's drivers,
// which pop only when their pipeline has room: it holds (buffered and
// popped) fewer tasks than its pipeline depth, STARPU_CUDA_PIPELINE on a
// GPU (the platform's runtime pipeline) and one task on a CPU core
// (drivers/cpu/driver_cpu.c). Schedulers that hand tasks out only on
// demand (Heteroprio, MulTreePrio) decline a Pull otherwise.
func PipelineRoom(v View, w int) bool {
	depth := 1
	if v.WorkerKind(w) == hardware.GPU {
		depth = max(1, v.Platform().Runtime.Pipeline)
	}
	return len(v.Buffer(w))+len(v.Pipeline(w)) < depth
}
