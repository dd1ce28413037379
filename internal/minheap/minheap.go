// Package minheap is a binary min-heap of values. Unlike container/heap it
// boxes nothing, so pushes and pops in hot loops (the simulator's event
// queue, Prim's keys) allocate only when the slice grows.
package minheap

import (
	"slices"

	"github.com/memsched/memsched/internal/scratch"
)

// Ordered is a value that knows whether it comes before another.
type Ordered[T any] interface {
	Before(T) bool
}

// Heap holds values with the smallest (by Before) at index 0.
type Heap[T Ordered[T]] []T

// Push adds x. A full heap doubles its capacity (scratch.Append).
func (h *Heap[T]) Push(x T) {
	*h = scratch.Append(*h, x)
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

// Grow makes room for n more values, so that a heap whose size is known
// ahead is allocated once rather than doubled up to it.
func (h *Heap[T]) Grow(n int) { *h = slices.Grow(*h, n) }

// Pop removes and returns the smallest value; the heap must not be empty.
func (h *Heap[T]) Pop() T {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	q.down(0)
	*h = q
	return top
}

// Init orders values placed in the slice by hand (e.g. after filtering a
// heap's entries in place) into a heap, in O(n).
func (h Heap[T]) Init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down moves the value at i down to its place.
func (h Heap[T]) down(i int) {
	n := len(h)
	for {
		l, m := 2*i+1, i
		if l < n && h[l].Before(h[m]) {
			m = l
		}
		if r := l + 1; r < n && h[r].Before(h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
