package sim

import "slices"

// buffer is a worker's task buffer (shared by a node's workers with
// Config.NodeBuffer): the tasks the scheduler gave it, in order. dmda
// gives every task at once, so its buffers hold tens of thousands of tasks,
// and Ready takes one a few thousand deep; shifting the tasks behind it was
// most of a million-task run. With a scheduler that names the task it pops
// (schedulers.TaskPopper), taking a task leaves a hole instead, found
// through the task's slot; the holes are squeezed out when they are half the
// buffer or when a dense list is needed (View.Buffer).
type buffer struct {
	tasks []int   // in arrival order; -1 where a task was taken
	holes int     // taken slots in tasks
	slot  []int32 // per task, its index in tasks while it is there; nil: no holes are ever made
}

// len is the number of tasks in the buffer.
func (b *buffer) len() int { return len(b.tasks) - b.holes }

func (b *buffer) add(task int) {
	if b.slot != nil {
		b.slot[task] = int32(len(b.tasks))
	}
	if len(b.tasks) == cap(b.tasks) {
		// Double: append grows a long buffer by a quarter, and dmda's,
		// holding every task, would allocate five times its size.
		b.tasks = slices.Grow(b.tasks, len(b.tasks))
	}
	b.tasks = append(b.tasks, task)
}

// dense lists the tasks in order, squeezing out the holes.
func (b *buffer) dense() []int {
	if b.holes > 0 {
		b.squeeze()
	}
	return b.tasks
}

func (b *buffer) squeeze() {
	n := 0
	for _, t := range b.tasks {
		if t >= 0 {
			b.slot[t] = int32(n)
			b.tasks[n] = t
			n++
		}
	}
	b.tasks, b.holes = b.tasks[:n], 0
}

// take removes a task named by the scheduler, reporting whether it was
// there.
func (b *buffer) take(task int) bool {
	if task < 0 || task >= len(b.slot) {
		return false
	}
	i := int(b.slot[task])
	if i >= len(b.tasks) || b.tasks[i] != task {
		return false
	}
	b.tasks[i] = -1
	b.holes++
	for n := len(b.tasks); n > 0 && b.tasks[n-1] < 0; n-- { // a hole at the end is no hole
		b.tasks, b.holes = b.tasks[:n-1], b.holes-1
	}
	if b.holes > 0 && 2*b.holes >= len(b.tasks) {
		b.squeeze()
	}
	return true
}

// removeAt removes the i-th task keeping the order (a buffer without
// holes), moving the shorter side: Ready mostly takes a task near the
// front. Moving the front gives up a slot of capacity, so a short buffer,
// cheap to shift, keeps its tail moving: else each few pops reallocate it
// (16 MB of garbage over a million tasks).
func (b *buffer) removeAt(i int) int {
	t := b.tasks[i]
	if i < len(b.tasks)/2 && len(b.tasks) > 64 {
		copy(b.tasks[1:i+1], b.tasks[:i])
		b.tasks = b.tasks[1:]
	} else {
		b.tasks = append(b.tasks[:i], b.tasks[i+1:]...)
	}
	return t
}

// each calls f on the tasks in order.
func (b *buffer) each(f func(task int) bool) {
	for _, t := range b.tasks {
		if t >= 0 && !f(t) {
			return
		}
	}
}
