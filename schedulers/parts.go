package schedulers

import (
	"iter"
	"math"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/fenwick"
	"github.com/memsched/memsched/workloads"
)

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
	w := v.Workload()
	on := v.Presence(worker)
	best, bestMissing := 0, int64(-1)
	ops, written := 0, 0
	for i := 0; i < n; i++ {
		inputs := v.TaskInputs(buffer[i])
		ops += len(inputs)
		written += writeOnly(w, buffer[i])
		missing := missingBytes(on, w, inputs, bestMissing)
		if bestMissing < 0 || missing < bestMissing {
			best, bestMissing = i, missing
			if missing == 0 {
				break
			}
		}
	}
	countStatus(v, ops, written)
	return best
}

// countStatus counts a Ready scan's status queries, and those of
// write-only buffers among them (OpStatusWritten).
func countStatus(v View, ops, written int) {
	v.CountOps(OpStatus, ops)
	if written > 0 {
		v.CountOps(OpStatusWritten, written)
	}
}

// writeOnly is the number of task t's buffers it only writes (none
// without modes: Ready's scan over read-only task sets pays one check).
func writeOnly(w *workloads.Workload, t int) int {
	n := 0
	for _, m := range w.ModesOf(t) {
		if m.Writes() && !m.Reads() {
			n++
		}
	}
	return n
}

// ReadyStarPU is Ready as StarPU's code ranks the tasks
// (fifo_queues.c _starpu_fifo_pop_first_ready_task at papers/ICPP2023,
// with _starpu_size_non_ready_buffers): among the first window buffered
// tasks (window <= 0: all), the one with the fewest bytes read and not
// valid on the worker (data being loaded count as not valid), then the
// fewest of those not even loading, then the fewest bytes not allocated
// there (any mode), then the first: what StarPU reports of each datum
// (Status: starpu_data_query_status2). The scan stops at a task that improves on every one
// before it with nothing not valid and nothing not allocated: a task whose
// inputs are all valid but one still loading, or a written tile not
// allocated yet, does not stop it.
//
// Where Ready asks one question of each input (present?), this ranking
// asks what StarPU's does: whether a copy is valid, loading, allocated
// (StatusOf); it counts one data status query per input of every task it
// scans, as Ready.
func ReadyStarPU(v View, worker int, buffer []int, window int) int {
	n := len(buffer)
	if window > 0 && window < n {
		n = window
	}
	w := v.Workload()
	st := StatusOf(v, worker)
	best := 0
	var bestReady, bestLoading, bestAlloc int64 = math.MaxInt64, math.MaxInt64, math.MaxInt64
	ops, written := 0, 0
scan:
	for i := 0; i < n; i++ {
		t := buffer[i]
		inputs := v.TaskInputs(t)
		ops += len(inputs)
		var notReady, notLoading, notAlloc int64
		for k, d := range inputs {
			b := w.Data[d].Bytes
			s := st.status[d]
			if s&StatusAllocated == 0 {
				notAlloc += b
			}
			m := w.Mode(t, k)
			if m.Writes() && !m.Reads() {
				written++
			}
			if s&StatusValid == 0 && m.Reads() {
				notReady += b
				if s&StatusLoading == 0 {
					notLoading += b
				}
			}
		}
		switch {
		case notReady < bestReady:
			best, bestReady, bestLoading, bestAlloc = i, notReady, notLoading, notAlloc
			if notReady == 0 && notAlloc == 0 {
				break scan
			}
		case notReady == bestReady && (notLoading < bestLoading || notLoading == bestLoading && notAlloc < bestAlloc):
			best, bestLoading, bestAlloc = i, notLoading, notAlloc
		}
	}
	countStatus(v, ops, written)
	return best
}

// MissingBytes is the size of the task's inputs not present (loaded or
// loading) on the worker: what Ready minimises. It asks View.Present, so a
// View made by hand for a test needs nothing more.
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

// missingBytes is MissingBytes of the inputs, read from the worker's
// Presence (no View call per input), except that it stops adding once it
// reaches bound (when bound >= 0): the task then cannot beat one that
// misses bound bytes.
func missingBytes(on Presence, w *workloads.Workload, inputs []int32, bound int64) int64 {
	var m int64
	for _, d := range inputs {
		if !on.present[d] {
			m += w.Data[d].Bytes
			if bound >= 0 && m >= bound {
				break
			}
		}
	}
	return m
}

// Lists are per-worker planned task lists with the work stealing of
// hMETIS+R and mHFP (thesis §3.6): a worker whose list is empty steals half
// of the remaining tasks of the worker with the most, from its tail.
//
// A task taken out of plan order (Ready) leaves a hole rather than shifting
// the list, so that taking any task costs O(1) and the positions of the
// others stay put (the Belady index relies on them).
type Lists struct {
	lists [][]int // per worker, its plan; -1 marks a task already taken
	heads []int   // per worker, the position of its first remaining task
	left  []int   // per worker, its remaining tasks
	pos   []int32 // per task, its position in its worker's list
	Steal bool
	// OnSteal, when set, is told which tasks moved, for owners that index
	// the lists.
	OnSteal func(from, to int, tasks []int)

	// With CountInputs: per worker, the number of inputs of the task at
	// each position (0 once taken), and of all its remaining tasks.
	wl     *workloads.Workload
	inputs []fenwick.Tree
	inLeft []int64
}

// CountInputs makes the lists keep the number of inputs of their remaining
// tasks by position, for owners that count what a walk of the remaining
// list would examine (InputsThrough, InputsLeft) without walking it.
func (l *Lists) CountInputs(w *workloads.Workload) {
	l.wl = w
	l.inputs = make([]fenwick.Tree, len(l.lists))
	l.inLeft = make([]int64, len(l.lists))
	for k, lst := range l.lists {
		l.inputs[k].Reserve(len(lst))
		for i, t := range lst {
			if t >= 0 {
				l.weigh(k, i, t)
			}
		}
	}
}

// weigh adds the inputs of task t at position i of a worker's list.
func (l *Lists) weigh(worker, i, t int) {
	if l.wl == nil {
		return
	}
	n := int64(len(l.wl.Tasks[t].Inputs))
	f := &l.inputs[worker]
	for f.Len() < i {
		f.Append(0)
	}
	if f.Len() == i { // the lists are weighed in order: no update walk
		f.Append(n)
	} else {
		f.Add(i, n)
	}
	l.inLeft[worker] += n
}

// unweigh removes the inputs at position i of a worker's list, read from
// the tree rather than from the task (a random access to the workload).
func (l *Lists) unweigh(worker, i int) {
	if l.wl == nil {
		return
	}
	f := &l.inputs[worker]
	n := f.Value(i)
	f.Add(i, -n)
	l.inLeft[worker] -= n
}

// InputsThrough is the number of inputs of a worker's remaining tasks up to
// and including position i of its list (see Pos).
func (l *Lists) InputsThrough(worker, i int) int64 { return l.inputs[worker].Prefix(i + 1) }

// InputsLeft is the number of inputs of a worker's remaining tasks.
func (l *Lists) InputsLeft(worker int) int64 { return l.inLeft[worker] }

// Pos is the position of a remaining task in its worker's list.
func (l *Lists) Pos(task int) int { return int(l.pos[task]) }

// NewLists takes ownership of the per-worker plans.
func NewLists(plans [][]int, steal bool) *Lists {
	l := &Lists{lists: plans, heads: make([]int, len(plans)), left: make([]int, len(plans)), Steal: steal}
	n := 0 // pos is sized once: grown task by task it would be copied over and over
	for _, lst := range plans {
		for _, t := range lst {
			n = max(n, t+1)
		}
	}
	l.pos = make([]int32, n)
	for w, lst := range plans {
		for i, t := range lst {
			l.place(t, i)
		}
		l.left[w] = len(lst)
	}
	return l
}

func (l *Lists) place(task, i int) { l.pos[task] = int32(i) }

// Take removes a given task from a worker's remaining list.
func (l *Lists) Take(worker, task int) {
	i := int(l.pos[task])
	lst := l.lists[worker]
	if i < l.heads[worker] || i >= len(lst) || lst[i] != task {
		panic("schedulers: task not in the worker's list")
	}
	lst[i] = -1
	l.unweigh(worker, i)
	l.left[worker]--
	l.skip(worker)
}

// skip moves a worker's head past taken tasks.
func (l *Lists) skip(worker int) {
	h, lst := l.heads[worker], l.lists[worker]
	for h < len(lst) && lst[h] < 0 {
		h++
	}
	l.heads[worker] = h
}

// StealFor refills an empty worker by stealing, reporting whether it got tasks.
func (l *Lists) StealFor(worker int) bool {
	return l.Steal && l.left[worker] == 0 && l.steal(worker)
}

// Left is the number of tasks a worker has not yet taken.
func (l *Lists) Left(worker int) int { return l.left[worker] }

// Head appends to buf the first n remaining tasks of a worker (n <= 0:
// all), in plan order.
func (l *Lists) Head(worker, n int, buf []int) []int {
	lst, want := l.lists[worker], len(buf)+n
	for i := l.heads[worker]; i < len(lst) && (n <= 0 || len(buf) < want); i++ {
		if lst[i] >= 0 {
			buf = append(buf, lst[i])
		}
	}
	return buf
}

// Remaining yields the planned tasks a worker has not yet taken, in order.
func (l *Lists) Remaining(worker int) iter.Seq[int] {
	return func(yield func(int) bool) {
		lst := l.lists[worker]
		for i := l.heads[worker]; i < len(lst); i++ {
			if lst[i] >= 0 && !yield(lst[i]) {
				return
			}
		}
	}
}

// Next takes the head of a worker's list, stealing when it is empty.
func (l *Lists) Next(worker int) (int, bool) {
	if l.left[worker] == 0 {
		if !l.Steal || !l.steal(worker) {
			return 0, false
		}
	}
	lst := l.lists[worker]
	h := l.heads[worker]
	t := lst[h]
	lst[h] = -1
	l.unweigh(worker, h)
	l.left[worker]--
	l.skip(worker)
	return t, true
}

func (l *Lists) steal(thief int) bool {
	victim, most := -1, 0
	for w := range l.lists {
		if r := l.left[w]; r > most {
			victim, most = w, r
		}
	}
	if victim < 0 {
		return false
	}
	take := (most + 1) / 2
	vl := l.lists[victim]
	cut := len(vl)
	for n := 0; n < take; {
		cut--
		if vl[cut] >= 0 {
			n++
		}
	}
	tail := l.lists[thief][:0]
	if l.wl != nil {
		l.inputs[thief].Reset() // every task of the thief was taken: all zero
	}
	for i, t := range vl[cut:] {
		if t >= 0 {
			l.unweigh(victim, cut+i)
			l.weigh(thief, len(tail), t)
			l.place(t, len(tail))
			tail = append(tail, t)
		}
	}
	l.lists[thief], l.heads[thief], l.left[thief] = tail, 0, take
	l.lists[victim] = vl[:cut]
	l.left[victim] -= take
	if l.OnSteal != nil {
		l.OnSteal(victim, thief, tail)
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

// LeastUsedVictim is the first two rules of LUF (thesis Alg. 10; StarPU's
// dynamic_data_aware_victim_selector, least_used_data_on_planned_task), shared
// by DARTS and DARTS with dependencies, which keep n_b and n_p their own way:
// among the candidates (least recently used first) no buffered task reads
// (buffered), the first one no planned task reads, else the first with the
// fewest planned readers (planned). -1 when buffered tasks read every one.
func LeastUsedVictim(cands []int, buffered func(c int) bool, planned func(c int) int32) int {
	victim, least := -1, int32(0)
	for _, c := range cands {
		if buffered(c) {
			continue
		}
		np := planned(c)
		if np == 0 {
			return c
		}
		if victim < 0 || np < least {
			victim, least = c, np
		}
	}
	return victim
}
