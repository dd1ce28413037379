package schedulers

import "container/heap"

// ReadyIndex answers Ready's question — the first buffered task with the
// fewest bytes not present — in O(log n) per change instead of a scan of the
// buffer per pop, for schedulers whose buffer holds thousands of tasks
// (dmdar queues every task). Per worker it keeps an indexed heap ordered by
// (missing bytes, arrival); arrival order is buffer order, so it picks
// exactly what Ready picks.
//
// The owner calls Add when a task is queued for a worker (handed to its
// buffer, or planned for it), forwards its Observer events, and takes
// Ready's choice with Next (or Pop, for a buffer).
type ReadyIndex struct {
	// Prio, when set, breaks ties of missing bytes by priority, higher
	// first, before arrival: StarPU's pop of the first ready task of a
	// queue sorted by priority (dmdas: fifo_queues.c
	// _starpu_fifo_pop_first_ready_task).
	Prio    []float64
	v       View
	missing []int64 // bytes of the task's inputs not present on its worker
	where   []int32 // worker whose buffer holds the task, -1 none
	seq     []uint64
	pos     []int // index of the task in its worker's heap
	next    uint64
	heaps   []*readyHeap
	users   [][]int
	inputs  []int // per worker, the inputs of its indexed tasks (what a full scan examines)
}

type readyHeap struct {
	r     *ReadyIndex
	tasks []int
}

func (h *readyHeap) Len() int { return len(h.tasks) }
func (h *readyHeap) Less(i, j int) bool {
	a, b := h.tasks[i], h.tasks[j]
	ma, mb := h.r.missing[a], h.r.missing[b]
	if ma != mb {
		return ma < mb
	}
	if p := h.r.Prio; p != nil && p[a] != p[b] {
		return p[a] > p[b]
	}
	return h.r.seq[a] < h.r.seq[b]
}
func (h *readyHeap) Swap(i, j int) {
	h.tasks[i], h.tasks[j] = h.tasks[j], h.tasks[i]
	h.r.pos[h.tasks[i]], h.r.pos[h.tasks[j]] = i, j
}
func (h *readyHeap) Push(x any) {
	t := x.(int)
	h.r.pos[t] = len(h.tasks)
	h.tasks = append(h.tasks, t)
}
func (h *readyHeap) Pop() any {
	t := h.tasks[len(h.tasks)-1]
	h.tasks = h.tasks[:len(h.tasks)-1]
	return t
}

// NewReadyIndex prepares the index for a run.
func NewReadyIndex(v View) *ReadyIndex {
	w := v.Workload()
	n := len(w.Tasks)
	r := &ReadyIndex{v: v, missing: make([]int64, n), where: make([]int32, n),
		seq: make([]uint64, n), pos: make([]int, n), users: w.Users()}
	for i := range r.where {
		r.where[i] = -1
	}
	for k := 0; k < v.Workers(); k++ {
		r.heaps = append(r.heaps, &readyHeap{r: r})
	}
	r.inputs = make([]int, v.Workers())
	return r
}

// Add records that task entered worker's buffer.
func (r *ReadyIndex) Add(worker, task int) {
	m := MissingBytes(r.v, worker, task)
	r.next++
	r.missing[task], r.where[task], r.seq[task] = m, int32(worker), r.next
	r.inputs[worker] += len(r.v.Workload().Tasks[task].Inputs)
	heap.Push(r.heaps[worker], task)
}

// Observe keeps missing bytes current: data becomes present when its load
// starts and absent when evicted, on a memory node, for the tasks queued
// to any of its workers (CPU cores share one).
func (r *ReadyIndex) Observe(kind EventKind, node, id int) {
	var delta int64
	switch kind {
	case LoadStarted:
		delta = -r.v.Workload().Data[id].Bytes
	case Evicted:
		delta = r.v.Workload().Data[id].Bytes
	default:
		return
	}
	for _, t := range r.users[id] {
		if w := int(r.where[t]); w >= 0 && r.v.WorkerNode(w) == node {
			r.missing[t] += delta
			heap.Fix(r.heaps[w], r.pos[t])
		}
	}
}

// Remove forgets a task, wherever it is queued.
func (r *ReadyIndex) Remove(task int) {
	if w := r.where[task]; w >= 0 {
		heap.Remove(r.heaps[w], r.pos[task])
		r.where[task] = -1
		r.inputs[w] -= len(r.v.Workload().Tasks[task].Inputs)
	}
}

// Next returns and forgets Ready's choice among the worker's tasks.
func (r *ReadyIndex) Next(worker int) int {
	t := heap.Pop(r.heaps[worker]).(int)
	r.where[t] = -1
	r.inputs[worker] -= len(r.v.Workload().Tasks[t].Inputs)
	return t
}

// Pop returns the index in list (the worker's indexed tasks in arrival
// order: its buffer, or its remaining plan) of Ready's choice and forgets
// the task. It counts what Ready's scan examines (see Ready): the inputs of
// the tasks up to the choice when the choice misses nothing, else of all.
func (r *ReadyIndex) Pop(worker int, list []int) int {
	all := r.inputs[worker]
	complete := r.missing[r.heaps[worker].tasks[0]] == 0
	t := r.Next(worker)
	ops := 0
	for i, b := range list {
		ops += len(r.v.Workload().Tasks[b].Inputs)
		if b == t {
			if !complete {
				ops = all
			}
			r.v.Count(ops)
			return i
		}
	}
	panic("schedulers: ReadyIndex out of sync with the list")
}
