// Package minheap is a binary min-heap of values. Unlike container/heap it
// boxes nothing, so pushes and pops in hot loops (the simulator's event
// queue, Prim's keys) allocate only when the slice grows.
package minheap

// Ordered is a value that knows whether it comes before another.
type Ordered[T any] interface {
	Before(T) bool
}

// Heap holds values with the smallest (by Before) at index 0.
type Heap[T Ordered[T]] []T

// Push adds x.
func (h *Heap[T]) Push(x T) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].Before(q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// Pop removes and returns the smallest value; the heap must not be empty.
func (h *Heap[T]) Pop() T {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && q[l].Before(q[m]) {
			m = l
		}
		if r := l + 1; r < n && q[r].Before(q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}
