package order

import (
	"cmp"
	"slices"

	"github.com/memsched/memsched/internal/scratch"
)

// packageSets holds every package's data set D(P), increasing, in one
// arena. A slice per package would cost 24 bytes a slot (a million at the
// start) and a new array at each merge; here a merge writes the union at
// the arena's end, and when the arena is full the live sets slide down
// over the dead ones, in place, or move to a larger arena.
//
// With halves (HFP's flip), each entry also tells which of the two sets
// the union joined held it: a byte, where a copy of both sets beside
// D(P) tripled the arena.
type packageSets struct {
	arena    []int32
	halves   bool
	half     []uint8 // with halves, beside arena once it moved: inFirst | inSecond
	sp       []span  // per slot: D(P_i) is arena[at : at+n]
	used     int     // entries in the live sets
	borrowed bool    // the arena is still the csr's array, not to be written
	order    []int32 // reserve's scratch
}

// span places one set in the arena (both ends in one cache line).
type span struct{ at, n int32 }

// Which set of its package's last merge an entry came from.
const (
	inFirst  uint8 = 1
	inSecond uint8 = 2
)

// newPackageSets starts each slot's set as its task's inputs, the rows of
// in, whose array the arena borrows until its first growth: in stays
// unmodified.
func newPackageSets(in csr, halves bool) packageSets {
	m := len(in.off) - 1
	s := packageSets{arena: in.flat[:len(in.flat):len(in.flat)], sp: make([]span, m), used: len(in.flat), borrowed: true,
		halves: halves} // a single task's set is no union: its halves are never read
	for i := range m {
		s.sp[i] = span{in.off[i], in.off[i+1] - in.off[i]}
	}
	return s
}

// of returns D(P_i), valid until the next union.
func (s *packageSets) of(i int32) []int32 {
	sp := s.sp[i]
	return s.arena[sp.at : sp.at+sp.n : sp.at+sp.n]
}

// size is |D(P_i)|.
func (s *packageSets) size(i int32) int32 { return s.sp[i].n }

// halfOf returns, beside D(P_i), which of the two sets its last merge
// joined held each data (with halves; valid until the next union).
func (s *packageSets) halfOf(i int32) []uint8 {
	sp := s.sp[i]
	if sp.n == 0 {
		return nil
	}
	return s.half[sp.at : sp.at+sp.n]
}

// union sets D(P_i) to D(P_i) ∪ D(P_j) and empties slot j.
func (s *packageSets) union(i, j int32) {
	a, b := s.sp[i].n, s.sp[j].n
	s.reserve(int(a + b)) // may move the sets: slices are taken after
	at := int32(len(s.arena))
	var half []uint8
	if s.halves && a+b > 0 { // the arena has moved: a borrowed one is full
		half = s.half[at : at+a+b]
	}
	u := unionInto(s.arena[at:at+a+b], half, s.of(i), s.of(j))
	s.arena = s.arena[:int(at)+u]
	s.used += u - int(a+b)
	s.sp[i], s.sp[j] = span{at, int32(u)}, span{}
}

// drop empties slot i.
func (s *packageSets) drop(i int32) {
	s.used -= int(s.sp[i].n)
	s.sp[i] = span{}
}

// reserve makes room for need more entries at the arena's end. The live
// sets slide down in place when a third of the arena is then free; else
// (or while the arena is borrowed) they move, packed, to an arena half as
// large again as they need. A union frees at least what it writes, so
// sliding is the usual case.
func (s *packageSets) reserve(need int) {
	if len(s.arena)+need <= cap(s.arena) {
		return
	}
	if s.borrowed || 3*(s.used+need) > 2*cap(s.arena) {
		size := (s.used+need)*3/2 + 1
		dst := make([]int32, 0, size)
		var half []uint8
		if s.halves {
			half = make([]uint8, size)
		}
		for i := range s.sp {
			dst = s.move(int32(i), dst, half)
		}
		s.arena, s.half, s.borrowed = dst, half, false
		return
	}
	// In place, in arena order: each set moves down, over space already
	// copied or dead, never over a set not yet moved.
	live := 0
	for i := range s.sp {
		if s.sp[i].n > 0 {
			live++
		}
	}
	s.order = scratch.Resize(s.order, live)[:0] // sized once: appended to, it would be copied over and over
	for i := range s.sp {
		if s.sp[i].n > 0 {
			s.order = append(s.order, int32(i))
		}
	}
	slices.SortFunc(s.order, func(x, y int32) int { return cmp.Compare(s.sp[x].at, s.sp[y].at) })
	dst := s.arena[:0]
	for _, i := range s.order {
		dst = s.move(i, dst, s.half)
	}
	s.arena = dst
}

// move appends slot i's set to dst (its half tags to half, at the same
// place, when kept) and points the slot at it.
func (s *packageSets) move(i int32, dst []int32, half []uint8) []int32 {
	sp := &s.sp[i]
	if sp.n == 0 { // empty: an empty set anywhere in the arena
		sp.at = 0
		return dst
	}
	at := int32(len(dst))
	dst = append(dst, s.arena[sp.at:sp.at+sp.n]...)
	if half != nil && !s.borrowed {
		copy(half[at:], s.half[sp.at:sp.at+sp.n])
	}
	sp.at = at
	return dst
}

// unionInto writes the union of increasing a and b into out (room for
// both) and returns its length; half, if not nil, gets beside each data
// which of a and b held it.
func unionInto(out []int32, half []uint8, a, b []int32) int {
	k, x, y := 0, 0, 0
	for x < len(a) || y < len(b) {
		var from uint8
		switch {
		case y == len(b) || x < len(a) && a[x] < b[y]:
			out[k], from = a[x], inFirst
			x++
		case x == len(a) || b[y] < a[x]:
			out[k], from = b[y], inSecond
			y++
		default:
			out[k], from = a[x], inFirst|inSecond
			x++
			y++
		}
		if half != nil {
			half[k] = from
		}
		k++
	}
	return k
}
