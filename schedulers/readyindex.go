package schedulers

import "slices"

// ReadyIndex answers Ready's question — the first buffered task with the
// fewest bytes not present — without scanning the buffer per pop, for
// schedulers whose buffer holds thousands of tasks (dmdar queues every
// task). Per worker it groups the tasks by missing bytes, and each group
// keeps its tasks in a min-heap of arrival order; arrival order is buffer
// order, so it picks exactly what Ready picks. A load or an eviction moves
// each task reading the data to another group: a removal and an insertion
// in heaps where the task usually stays near the bottom, instead of a
// climb through one heap ordered by (missing bytes, arrival). Missing
// bytes take few values (sums of a task's input sizes), so the groups are
// few and found by a short search.
//
// The owner calls Add when a task is queued for a worker (handed to its
// buffer, or planned for it), forwards its Observer events, and takes
// Ready's choice with Next (or Pop, for a buffer).
type ReadyIndex struct {
	v       View
	missing []int64  // bytes of the task's inputs not present on its worker
	where   []int32  // worker whose buffer holds the task, -1 none
	seq     []uint64 // arrival
	pos     []int32  // index of the task in its group's heap
	next    uint64
	groups  [][]*readyGroup // per worker, by increasing missing bytes
	users   [][]int
}

// readyGroup is the tasks of one worker missing the same bytes, in a
// min-heap of arrival.
type readyGroup struct {
	missing int64
	tasks   []int
}

// NewReadyIndex prepares the index for a run.
func NewReadyIndex(v View) *ReadyIndex {
	w := v.Workload()
	n := len(w.Tasks)
	r := &ReadyIndex{v: v, missing: make([]int64, n), where: make([]int32, n),
		seq: make([]uint64, n), pos: make([]int32, n), users: w.Users(),
		groups: make([][]*readyGroup, v.Workers())}
	for i := range r.where {
		r.where[i] = -1
	}
	return r
}

// Add records that task entered worker's buffer.
func (r *ReadyIndex) Add(worker, task int) {
	r.next++
	r.missing[task], r.where[task], r.seq[task] = MissingBytes(r.v, worker, task), int32(worker), r.next
	r.push(worker, task)
}

// Observe keeps missing bytes current: data becomes present when its load
// starts and absent when evicted.
func (r *ReadyIndex) Observe(kind EventKind, worker, id int) {
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
		if int(r.where[t]) == worker {
			r.remove(worker, t)
			r.missing[t] += delta
			r.push(worker, t)
		}
	}
}

// Remove forgets a task, wherever it is queued.
func (r *ReadyIndex) Remove(task int) {
	if w := r.where[task]; w >= 0 {
		r.remove(int(w), task)
		r.where[task] = -1
	}
}

// Next returns and forgets Ready's choice among the worker's tasks.
func (r *ReadyIndex) Next(worker int) int {
	for _, g := range r.groups[worker] {
		if len(g.tasks) > 0 {
			t := g.tasks[0]
			r.remove(worker, t)
			r.where[t] = -1
			return t
		}
	}
	panic("schedulers: ReadyIndex.Next on a worker with no task")
}

// Pop returns the index in buffer of Ready's choice and forgets the task.
// buffer must hold the worker's tasks in the order they were added (a
// buffer keeps its order when tasks leave it), so the choice is found by
// binary search on arrival.
func (r *ReadyIndex) Pop(worker int, buffer []int) int {
	t := r.Next(worker)
	i, ok := slices.BinarySearchFunc(buffer, r.seq[t], func(b int, s uint64) int {
		switch {
		case r.seq[b] < s:
			return -1
		case r.seq[b] > s:
			return 1
		}
		return 0
	})
	if !ok || buffer[i] != t {
		panic("schedulers: ReadyIndex out of sync with the buffer")
	}
	return i
}

// group returns the worker's group of tasks missing m bytes, creating it.
func (r *ReadyIndex) group(worker int, m int64) *readyGroup {
	gs := r.groups[worker]
	i, ok := slices.BinarySearchFunc(gs, m, func(g *readyGroup, m int64) int {
		switch {
		case g.missing < m:
			return -1
		case g.missing > m:
			return 1
		}
		return 0
	})
	if !ok {
		gs = slices.Insert(gs, i, &readyGroup{missing: m})
		r.groups[worker] = gs
	}
	return gs[i]
}

func (r *ReadyIndex) push(worker, t int) {
	g := r.group(worker, r.missing[t])
	g.tasks = append(g.tasks, t)
	i := len(g.tasks) - 1
	r.pos[t] = int32(i)
	r.up(g, i)
}

func (r *ReadyIndex) remove(worker, t int) {
	g := r.group(worker, r.missing[t])
	i, last := int(r.pos[t]), len(g.tasks)-1
	if i != last {
		g.tasks[i] = g.tasks[last]
		r.pos[g.tasks[i]] = int32(i)
	}
	g.tasks = g.tasks[:last]
	if i != last {
		r.down(g, i)
		r.up(g, i)
	}
}

func (r *ReadyIndex) up(g *readyGroup, i int) {
	q := g.tasks
	for i > 0 {
		p := (i - 1) / 2
		if r.seq[q[p]] <= r.seq[q[i]] {
			return
		}
		q[i], q[p] = q[p], q[i]
		r.pos[q[i]], r.pos[q[p]] = int32(i), int32(p)
		i = p
	}
}

func (r *ReadyIndex) down(g *readyGroup, i int) {
	q := g.tasks
	for {
		l, m := 2*i+1, i
		if l < len(q) && r.seq[q[l]] < r.seq[q[m]] {
			m = l
		}
		if rr := l + 1; rr < len(q) && r.seq[q[rr]] < r.seq[q[m]] {
			m = rr
		}
		if m == i {
			return
		}
		q[i], q[m] = q[m], q[i]
		r.pos[q[i]], r.pos[q[m]] = int32(i), int32(m)
		i = m
	}
}
