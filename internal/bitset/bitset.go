// Package bitset is a set of small non-negative integers, a bit each: the
// nodes free or dirty in the batch simulator's orders, the tasks in DARTS's
// pool. A Set is its words, so a scan can skip 64 absent members at once.
package bitset

import "math/bits"

// Set holds the integers i whose bit i is set.
type Set []uint64

// New returns an empty set of the integers below n.
func New(n int) Set { return make(Set, (n+63)/64) }

// Has reports whether i is in s.
func (s Set) Has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// Add puts i in s.
func (s Set) Add(i int) { s[i>>6] |= 1 << (i & 63) }

// Del takes i out of s.
func (s Set) Del(i int) { s[i>>6] &^= 1 << (i & 63) }

// Put adds i to s if in, else takes it out.
func (s Set) Put(i int, in bool) {
	if in {
		s.Add(i)
	} else {
		s.Del(i)
	}
}

// Fill adds the integers below n (n at most the size s was made for).
func (s Set) Fill(n int) {
	for k := 0; k < n>>6; k++ {
		s[k] = ^uint64(0)
	}
	if n&63 != 0 {
		s[n>>6] |= 1<<(n&63) - 1
	}
}

// Next returns the least member i or above, or -1 when there is none: a
// scan in order that sees the members added behind it while it runs.
func (s Set) Next(i int) int {
	k := i >> 6
	if k >= len(s) {
		return -1
	}
	if w := s[k] >> (i & 63); w != 0 {
		return i + bits.TrailingZeros64(w)
	}
	for k++; k < len(s); k++ {
		if s[k] != 0 {
			return k<<6 + bits.TrailingZeros64(s[k])
		}
	}
	return -1
}

// Count returns the number of members.
func (s Set) Count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}
