// Package fenwick is a Fenwick (binary indexed) tree of int64 sums that
// grows at its end: prefix sums and point updates in O(log n). The
// schedulers use it to count, as StarPU's code walks them, the inputs of
// the tasks before a given one in a list they no longer walk. The standard
// library and the project's dependencies have none.
package fenwick

import "slices"

// Tree holds values at positions 0..Len()-1, all zero at first.
type Tree struct {
	t []int64 // 1-based: t[i] sums positions (i-lowbit(i), i]
}

// Len is the number of positions.
func (f *Tree) Len() int { return len(f.t) }

// Reset empties the tree, keeping its memory.
func (f *Tree) Reset() { f.t = f.t[:0] }

// Reserve makes room for n more positions, so that appending them copies
// nothing (a million Appends would otherwise leave copies several times
// the tree's size).
func (f *Tree) Reserve(n int) { f.t = slices.Grow(f.t, n) }

// Append adds a position at the end holding v.
func (f *Tree) Append(v int64) {
	i := len(f.t) + 1 // 1-based index of the new node
	// The node sums (i-lowbit(i), i]: v and the nodes covering the
	// positions before it in that range.
	s := v
	for j := i - 1; j > i-(i&-i); j -= j & -j {
		s += f.t[j-1]
	}
	f.t = append(f.t, s)
}

// Add adds v at position p (< Len()).
func (f *Tree) Add(p int, v int64) {
	for i := p + 1; i <= len(f.t); i += i & -i {
		f.t[i-1] += v
	}
}

// Value is the value at position p (< Len()): its node less the nodes
// covering the positions before it in its range, all near it in the
// array (a prefix difference would walk to the front).
func (f *Tree) Value(p int) int64 {
	i := p + 1
	v := f.t[i-1]
	for j := i - 1; j > i-(i&-i); j -= j & -j {
		v -= f.t[j-1]
	}
	return v
}

// Prefix is the sum of positions 0..n-1 (n <= Len()).
func (f *Tree) Prefix(n int) int64 {
	var s int64
	for i := n; i > 0; i -= i & -i {
		s += f.t[i-1]
	}
	return s
}
