// Package scratch resizes the buffers that schedulers and the partitioner
// reuse from one call to the next, so that a hot loop allocates only when
// a buffer must grow.
package scratch

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
