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

// Count returns the number of members.
func (s Set) Count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}
