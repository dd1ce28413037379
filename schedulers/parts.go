package schedulers

import "iter"

// Ready is StarPU's Ready reordering (thesis Algorithm 2): among the first
// window buffered tasks (window <= 0: all), pop the first one with the fewest
// bytes of input not yet present on the worker.
func Ready(v View, worker int, buffer []int, window int) int {
	n := len(buffer)
	if window > 0 && window < n {
		n = window
	}
	best, bestMissing := 0, int64(-1)
	for i := 0; i < n; i++ {
		missing := MissingBytes(v, worker, buffer[i])
		if bestMissing < 0 || missing < bestMissing {
			best, bestMissing = i, missing
			if missing == 0 {
				break
			}
		}
	}
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
}

// NewLists takes ownership of the per-worker plans.
func NewLists(plans [][]int, steal bool) *Lists {
	l := &Lists{lists: plans, heads: make([]int, len(plans)), left: make([]int, len(plans)), Steal: steal}
	for w, lst := range plans {
		for i, t := range lst {
			l.place(t, i)
		}
		l.left[w] = len(lst)
	}
	return l
}

func (l *Lists) place(task, i int) {
	if task >= len(l.pos) {
		l.pos = append(l.pos, make([]int32, task+1-len(l.pos))...)
	}
	l.pos[task] = int32(i)
}

// Append adds a task at the tail of a worker's list.
func (l *Lists) Append(worker, task int) {
	l.place(task, len(l.lists[worker]))
	l.lists[worker] = append(l.lists[worker], task)
	l.left[worker]++
}

// Take removes a given task from a worker's remaining list.
func (l *Lists) Take(worker, task int) {
	i := int(l.pos[task])
	lst := l.lists[worker]
	if i < l.heads[worker] || i >= len(lst) || lst[i] != task {
		panic("schedulers: task not in the worker's list")
	}
	lst[i] = -1
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
	for _, t := range vl[cut:] {
		if t >= 0 {
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
