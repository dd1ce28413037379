// Package scratch resizes the buffers that schedulers and the partitioner
// reuse from one call to the next, so that a hot loop allocates only when
// a buffer must grow, and grows long slices by doubling.
package scratch

import "slices"

// Resize returns s with length n, on s's array when it is large enough
// (the elements keep what they held) or on a new zeroed one.
func Resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Zeroed is Resize with every element zero.
func Zeroed[T any](s []T, n int) []T {
	s = Resize(s, n)
	clear(s)
	return s
}

// Append is append of one element, except that a full slice doubles:
// append grows a long slice by a quarter, so a million appends allocate
// about five times the final slice, and keep 1.8 times it live while
// copying.
func Append[T any](s []T, x T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 8))
	}
	return append(s, x)
}
