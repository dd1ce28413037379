package batch

import "math/bits"

// nodeIndex orders the nodes by a time per core count c (t_k without
// backfilling, a lower bound of it with), so a scheduler visits nodes from
// the earliest instead of scanning all of them. For each c, the nodes whose
// time is at most now (they all have t_k = now) form a bitset in node order;
// the others are in a segment tree giving the (time, node) minimum over any
// node range. Changes are lazy: touching a node marks it dirty in every
// tree, and a tree catches up when it is next visited, so a node changed
// several times between two visits of a core count is fixed once.
type nodeIndex struct {
	n, size int
	now     int64
	keyOf   func(c, k int) int64 // the time of node k for c cores (c from 1)
	trees   []ctree
	cur     cursor
}

type ctree struct {
	val   []int64 // per tree node: the subtree's minimum time (never: none)
	idx   []int32 // per tree node: its node
	free  []uint64
	dirty []uint64
	now   int64 // the clock this tree was advanced to
	stale bool  // some node is dirty
}

const never = int64(1) << 62

func newNodeIndex(nodes, cores int, keyOf func(c, k int) int64) *nodeIndex {
	size := 1
	for size < nodes {
		size <<= 1
	}
	x := &nodeIndex{n: nodes, size: size, keyOf: keyOf, now: -1}
	x.trees = make([]ctree, cores)
	words := (size + 63) / 64
	for c := range x.trees {
		t := &x.trees[c]
		t.val = make([]int64, 2*size)
		t.idx = make([]int32, 2*size)
		t.free = make([]uint64, words)
		t.dirty = make([]uint64, words)
		t.now = -1
		for i := range t.val {
			t.val[i] = never
		}
		for i := 0; i < size; i++ {
			t.idx[size+i] = int32(i)
		}
		for i := size - 1; i >= 1; i-- {
			t.idx[i] = t.idx[2*i]
		}
		for k := 0; k < nodes; k++ {
			t.dirty[k>>6] |= 1 << (k & 63)
		}
		t.stale = true
	}
	return x
}

// touch marks node k changed for every core count.
func (x *nodeIndex) touch(k int) {
	w, b := k>>6, uint64(1)<<(k&63)
	for c := range x.trees {
		x.trees[c].dirty[w] |= b
		x.trees[c].stale = true
	}
}

// advance sets the clock; trees follow when visited.
func (x *nodeIndex) advance(now int64) { x.now = now }

func (t *ctree) fix(size, k int) {
	for i := (size + k) >> 1; i >= 1; i >>= 1 {
		l, r := 2*i, 2*i+1
		if t.val[r] < t.val[l] || t.val[r] == t.val[l] && t.idx[r] < t.idx[l] {
			t.val[i], t.idx[i] = t.val[r], t.idx[r]
		} else {
			t.val[i], t.idx[i] = t.val[l], t.idx[l]
		}
	}
}

// leaf puts node k with time v in the tree or the free set.
func (x *nodeIndex) leaf(t *ctree, k int, v int64) {
	w, b := k>>6, uint64(1)<<(k&63)
	if v <= x.now {
		t.free[w] |= b
		v = never
	} else {
		t.free[w] &^= b
	}
	if t.val[x.size+k] != v {
		t.val[x.size+k] = v
		t.fix(x.size, k)
	}
}

// sync brings tree c (0-based) up to date with the nodes and the clock.
func (x *nodeIndex) sync(c int) *ctree {
	t := &x.trees[c]
	if t.stale {
		for w, word := range t.dirty {
			for word != 0 {
				k := w<<6 + bits.TrailingZeros64(word)
				word &= word - 1
				x.leaf(t, k, x.keyOf(c+1, k))
			}
			t.dirty[w] = 0
		}
		t.stale = false
	}
	if t.now != x.now {
		t.now = x.now
		for t.val[1] <= x.now {
			k := int(t.idx[1])
			x.leaf(t, k, x.keyOf(c+1, k))
		}
	}
	return t
}

// cursor walks the nodes of [lo, hi) for c cores by increasing (time,
// node): first those free now in node order, then the tree's by a
// best-first search of the segment tree (a small heap of subtrees ordered by
// their minimum), which leaves the tree untouched.
type cursor struct {
	x      *nodeIndex
	t      *ctree
	c      int // cores
	lo, hi int
	w      int    // free phase: current word
	word   uint64 // free phase: bits left in it
	tree   bool   // in the tree phase
	seeded bool   // the heap holds the range's subtrees
	skip   int64  // tree phase: time of the group to pass over
	last   int64
	heap   []int32
}

// ascend starts a cursor; the index keeps one, reused.
func (x *nodeIndex) ascend(c, lo, hi int) *cursor {
	cu := &x.cur
	t := x.sync(c - 1)
	hi = min(hi, x.n)
	*cu = cursor{x: x, t: t, c: c, lo: lo, hi: hi, w: lo >> 6, skip: never, heap: cu.heap[:0]}
	if lo < hi {
		cu.word = t.free[cu.w] & (^uint64(0) << (lo & 63))
	} else {
		cu.tree, cu.seeded = true, true
	}
	return cu
}

func (cu *cursor) less(a, b int32) bool {
	t := cu.t
	return t.val[a] < t.val[b] || t.val[a] == t.val[b] && t.idx[a] < t.idx[b]
}

func (cu *cursor) push(i int32) {
	if cu.t.val[i] >= never {
		return
	}
	h := append(cu.heap, i)
	for j := len(h) - 1; j > 0; {
		p := (j - 1) / 2
		if !cu.less(h[j], h[p]) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
	cu.heap = h
}

func (cu *cursor) pop() int32 {
	h := cu.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for j := 0; ; {
		l, m := 2*j+1, j
		if l < n && cu.less(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < n && cu.less(h[r], h[m]) {
			m = r
		}
		if m == j {
			break
		}
		h[j], h[m] = h[m], h[j]
		j = m
	}
	cu.heap = h
	return top
}

func (cu *cursor) Next() (int, int64, bool) {
	x, t := cu.x, cu.t
	for !cu.tree {
		if cu.word != 0 {
			k := cu.w<<6 + bits.TrailingZeros64(cu.word)
			cu.word &= cu.word - 1
			if k < cu.hi {
				cu.last = x.now
				return k, x.now, true
			}
			cu.word = 0
		}
		cu.w++
		if cu.w<<6 >= cu.hi {
			cu.tree = true
			break
		}
		cu.word = t.free[cu.w]
	}
	if !cu.seeded {
		cu.seeded = true
		for l, r := cu.lo+x.size, cu.hi+x.size; l < r; l, r = l>>1, r>>1 {
			if l&1 == 1 {
				cu.push(int32(l))
				l++
			}
			if r&1 == 1 {
				r--
				cu.push(int32(r))
			}
		}
	}
	for len(cu.heap) > 0 {
		i := cu.pop()
		if int(i) < x.size {
			cu.push(2 * i)
			cu.push(2*i + 1)
			continue
		}
		if kt := t.val[i]; kt != cu.skip {
			cu.last = kt
			return int(i) - x.size, kt, true
		}
	}
	return 0, 0, false
}

func (cu *cursor) SkipGroup() {
	if cu.tree {
		cu.skip = cu.last
	} else {
		cu.tree = true // the free nodes all have time now
	}
}

// Close ends the walk (the tree was not changed).
func (cu *cursor) Close() {}
