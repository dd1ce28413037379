package schedulers

import (
	"slices"

	"github.com/memsched/memsched/internal/fenwick"
	"github.com/memsched/memsched/workloads"
)

// ReadyIndex answers Ready's question — the first buffered task with the
// fewest bytes not present — without scanning the buffer per pop, for
// schedulers whose buffer holds thousands of tasks (dmdar queues every
// task). Per worker it groups the tasks by a recorded count of missing
// bytes, and each group keeps its tasks in a min-heap of (priority, when
// Prio is set, then arrival); arrival order is buffer order, so it picks
// exactly what Ready picks.
//
// Keeping every count exact would move every queued task reading a data
// at each load and eviction (600 tasks per event on the 2D product at
// N = 600, 64 % of dmdar's time). The counts are lower bounds instead:
// a task's count is the bytes of the inputs it counts as missing, which
// were missing when counted. A load uncounts the data for the tasks that
// count it (each data lists them); an eviction does nothing, leaving the
// count low (on the memory node of the load or eviction: CPU cores share
// one). Next checks the first task of the lowest group: if its count
// is exact it is Ready's choice, since every other task's true count is
// at least its group's; if not, the task counts its missing inputs anew
// and moves up, and Next looks again. A task is thus recounted only when
// it reaches the front, and a data reloaded before that costs nothing.
//
// The owner calls Add when a task is queued for a worker (handed to its
// buffer, or planned for it), forwards its Observer events, and takes
// Ready's choice with Next (or Pop, for a buffer).
//
// It counts (View.Count) what Ready's scan examines: the inputs of the
// tasks up to the choice when the choice misses nothing, else of all; per
// worker a Fenwick tree over arrival holds the inputs of its queued tasks.
type ReadyIndex struct {
	// Prio, when set, breaks ties of missing bytes by priority, higher
	// first, before arrival: StarPU's pop of the first ready task of a
	// queue sorted by priority (dmdas: fifo_queues.c
	// _starpu_fifo_pop_first_ready_task).
	Prio    []float64
	v       View
	w       *workloads.Workload
	off     []int32         // inputs of task t are slots off[t]..off[t+1]-1 (duplicates kept, as Ready counts them)
	counted []bool          // per slot: its data is counted as missing
	missing []int64         // per task: bytes of its counted inputs, <= its missing bytes
	where   []int32         // worker whose buffer holds the task, -1 none
	seq     []int32         // arrival, per worker: position in the worker's inputs tree
	pos     []int32         // index of the task in its group's heap
	groups  [][]*readyGroup // per worker, by increasing count
	waiting [][][]int32     // per memory node and data: tasks that may count it
	inputs  []fenwick.Tree  // per worker and arrival: inputs of the task while queued
	left    []int64         // per worker: inputs of its queued tasks
}

// readyGroup is the tasks of one worker with the same count, in a
// min-heap of arrival.
type readyGroup struct {
	missing int64
	tasks   []int
}

// NewReadyIndex prepares the index for a run.
func NewReadyIndex(v View) *ReadyIndex {
	w := v.Workload()
	n := len(w.Tasks)
	r := &ReadyIndex{v: v, w: w, off: make([]int32, n+1), missing: make([]int64, n), where: make([]int32, n),
		seq: make([]int32, n), pos: make([]int32, n),
		groups: make([][]*readyGroup, v.Workers()), waiting: make([][][]int32, v.Nodes()),
		inputs: make([]fenwick.Tree, v.Workers()), left: make([]int64, v.Workers())}
	for t, task := range w.Tasks {
		r.off[t+1] = r.off[t] + int32(len(task.Inputs))
	}
	r.counted = make([]bool, r.off[n])
	for i := range r.where {
		r.where[i] = -1
	}
	for k := range r.waiting {
		r.waiting[k] = make([][]int32, len(w.Data))
	}
	return r
}

// Add records that task entered worker's buffer.
func (r *ReadyIndex) Add(worker, task int) {
	n := int64(len(r.w.Tasks[task].Inputs))
	r.where[task], r.seq[task], r.missing[task] = int32(worker), int32(r.inputs[worker].Len()), 0
	r.inputs[worker].Append(n)
	r.left[worker] += n
	r.count(worker, task)
	r.push(worker, task)
}

// count counts every missing input of a task that is not counted yet.
func (r *ReadyIndex) count(worker, task int) {
	node := r.v.WorkerNode(worker)
	for i, d := range r.w.Tasks[task].Inputs {
		s := int(r.off[task]) + i
		if !r.counted[s] && !r.v.Present(worker, d) {
			r.counted[s] = true
			r.missing[task] += r.w.Data[d].Bytes
			r.waiting[node][d] = append(r.waiting[node][d], int32(task))
		}
	}
}

// Observe keeps the counts lower bounds: a data starting to load is no
// longer missing for the tasks counting it; an eviction changes nothing
// until the task reaches the front (see Next).
func (r *ReadyIndex) Observe(kind EventKind, node, id int) {
	if kind != LoadStarted {
		return
	}
	ws := r.waiting[node][id]
	b := r.w.Data[id].Bytes
	for _, t32 := range ws {
		t := int(t32)
		worker := int(r.where[t])
		if worker < 0 || r.v.WorkerNode(worker) != node {
			continue // left the buffer, or queued elsewhere now
		}
		var drop int64
		for i, d := range r.w.Tasks[t].Inputs {
			if s := int(r.off[t]) + i; d == id && r.counted[s] {
				r.counted[s] = false
				drop += b
			}
		}
		if drop > 0 {
			r.remove(worker, t)
			r.missing[t] -= drop
			r.push(worker, t)
		}
	}
	r.waiting[node][id] = ws[:0]
}

// Remove forgets a task, wherever it is queued.
func (r *ReadyIndex) Remove(task int) {
	if w := r.where[task]; w >= 0 {
		r.forget(int(w), task)
	}
}

func (r *ReadyIndex) forget(worker, task int) {
	r.remove(worker, task)
	r.unqueue(worker, task)
	r.where[task] = -1
	clear(r.counted[r.off[task]:r.off[task+1]])
}

// Next returns and forgets Ready's choice among the worker's tasks: the
// first task of the lowest group whose count is exact.
func (r *ReadyIndex) Next(worker int) int {
	for {
		var t int = -1
		for _, g := range r.groups[worker] {
			if len(g.tasks) > 0 {
				t = g.tasks[0]
				break
			}
		}
		if t < 0 {
			panic("schedulers: ReadyIndex.Next on a worker with no task")
		}
		before := r.missing[t]
		r.remove(worker, t)
		r.count(worker, t)
		if r.missing[t] == before {
			ops := r.left[worker] // the scan found no complete task: it saw all
			if r.missing[t] == 0 {
				ops = r.inputs[worker].Prefix(int(r.seq[t]) + 1)
			}
			r.v.Count(int(ops))
			r.unqueue(worker, t)
			r.where[t] = -1
			clear(r.counted[r.off[t]:r.off[t+1]])
			return t
		}
		r.push(worker, t) // its count was low: it moves up
	}
}

// unqueue takes a task's inputs out of its worker's count.
func (r *ReadyIndex) unqueue(worker, task int) {
	n := int64(len(r.w.Tasks[task].Inputs))
	r.inputs[worker].Add(int(r.seq[task]), -n)
	r.left[worker] -= n
}

// Pop returns the index in buffer of Ready's choice and forgets the task.
// buffer must hold the worker's tasks in the order they were added (a
// buffer keeps its order when tasks leave it), so the choice is found by
// binary search on arrival.
func (r *ReadyIndex) Pop(worker int, buffer []int) int {
	t := r.Next(worker)
	i, ok := slices.BinarySearchFunc(buffer, r.seq[t], func(b int, s int32) int {
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
		if !r.before(q[i], q[p]) {
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
		if l < len(q) && r.before(q[l], q[m]) {
			m = l
		}
		if rr := l + 1; rr < len(q) && r.before(q[rr], q[m]) {
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

// before orders the tasks of a group: higher priority first (with Prio),
// then arrival.
func (r *ReadyIndex) before(a, b int) bool {
	if p := r.Prio; p != nil && p[a] != p[b] {
		return p[a] > p[b]
	}
	return r.seq[a] < r.seq[b]
}
