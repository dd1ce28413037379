package batch

import (
	"math/bits"
	"slices"

	"github.com/memsched/memsched/internal/bitset"
)

// nodeIndex orders the nodes by a time per core count c (t_k without
// backfilling, a lower bound of it with), so a scheduler visits nodes from
// the earliest instead of scanning all of them. For each c, the nodes whose
// time is at most now (they all have t_k = now) form a bitset in node order;
// the others are a list sorted by (time, node), which a cursor reads in
// order. Changes are lazy: touching a node marks it dirty for every c, and
// an order catches up when it is next visited, so a node changed several
// times between two visits of a core count is placed once. A planning
// changes one node, so an order usually moves one entry (a binary search
// and a short copy); many changes merge the re-sorted changed nodes into
// the rest, and a pass's reset returns to the order of the last reset
// (resetTo).
type nodeIndex struct {
	n       int
	now     int64
	keyOf   func(c, k int) int64 // the time of node k for c cores (c from 1)
	orders  []corder
	since   bitset.Set // the nodes whose running jobs changed since the last resetTo
	cur     cursor
	scratch []entry
}

// entry is a node and its time in an order, packed so that entries order
// as (time, node) when compared as integers: the time above nodeBits bits
// of node number.
type entry uint64

// nodeBits holds the node numbers (Cluster.Check allows 1<<nodeBits
// nodes); the times left are below 2^44 s.
const nodeBits = 20

func pack(t int64, k int) entry {
	if uint64(t) >= 1<<(64-nodeBits) {
		panic("batch: a time out of the node index's range")
	}
	return entry(uint64(t)<<nodeBits | uint64(k))
}

func (e entry) t() int64 { return int64(e >> nodeBits) }
func (e entry) k() int   { return int(e & (1<<nodeBits - 1)) }

// sortedNodes is a list of nodes by increasing (time, node); at keeps each
// listed node's time, to find its entry.
type sortedNodes struct {
	at  []int64 // per node
	ord []entry
}

// find is the position of e in ord, or where it would go.
func (s *sortedNodes) find(e entry) int {
	i, _ := slices.BinarySearch(s.ord, e)
	return i
}

// remove drops listed node k.
func (s *sortedNodes) remove(k int) {
	i := s.find(pack(s.at[k], k))
	s.ord = slices.Delete(s.ord, i, i+1)
}

// insert lists node k at time t.
func (s *sortedNodes) insert(k int, t int64) {
	s.at[k] = t
	e := pack(t, k)
	s.ord = slices.Insert(s.ord, s.find(e), e)
}

// move changes listed node k's time to t, shifting only the entries between
// its old and new places.
func (s *sortedNodes) move(k int, t int64) {
	i, e := s.find(pack(s.at[k], k)), pack(t, k)
	s.at[k] = t
	if j := s.find(e); j > i { // later: the entries in (i, j) move down
		copy(s.ord[i:j-1], s.ord[i+1:j])
		s.ord[j-1] = e
	} else { // earlier: those in [j, i) move up
		copy(s.ord[j+1:i+1], s.ord[j:i])
		s.ord[j] = e
	}
}

// corder is the index of one core count: the nodes with time > now are
// listed (at is the time a node had when last placed).
type corder struct {
	sortedNodes
	free   bitset.Set // the nodes with time <= now (not listed)
	dirty  bitset.Set
	ndirty int     // nodes marked in dirty
	now    int64   // the clock this order was advanced to
	base   *corder // a copy of this order at the last resetTo
}

// rebuildAbove is the number of dirty nodes from which an order is rebuilt
// rather than fixed entry by entry (each fix may copy the whole list).
const rebuildAbove = 8

const never = int64(1) << 62

func newNodeIndex(nodes, cores int, keyOf func(c, k int) int64) *nodeIndex {
	x := &nodeIndex{n: nodes, keyOf: keyOf, now: -1}
	x.orders = make([]corder, cores)
	x.since = bitset.New(nodes)
	for c := range x.orders {
		o := &x.orders[c]
		o.at = make([]int64, nodes)
		o.ord = make([]entry, 0, nodes)
		o.free = bitset.New(nodes)
		o.dirty = bitset.New(nodes)
		o.now = -1
		// No node is in ord yet: mark them all free, and dirty.
		for k := 0; k < nodes; k++ {
			o.free.Add(k)
			o.dirty.Add(k)
		}
		o.ndirty = nodes
	}
	return x
}

// touch marks node k changed for every core count.
func (x *nodeIndex) touch(k int) {
	for c := range x.orders {
		x.touchOrder(&x.orders[c], k)
	}
}

func (x *nodeIndex) touchOrder(o *corder, k int) {
	if !o.dirty.Has(k) {
		o.dirty.Add(k)
		o.ndirty++
	}
}

// advance sets the clock; orders follow when visited.
func (x *nodeIndex) advance(now int64) { x.now = now }

// runChanged notes that node k's running jobs changed.
func (x *nodeIndex) runChanged(k int) { x.since.Add(k) }

// resetTo sets the clock after the plan was reset to the running jobs,
// where the times depend only on them and the clock: each order goes back
// to its copy from the last resetTo and places again only the nodes whose
// running jobs changed since, instead of sorting every node. It runs
// before any reservation, when the times are those of the running jobs.
func (x *nodeIndex) resetTo(now int64) {
	x.now = now
	for c := range x.orders {
		o := &x.orders[c]
		if b := o.base; b != nil {
			o.at = append(o.at[:0], b.at...)
			o.ord = append(o.ord[:0], b.ord...)
			copy(o.free, b.free)
			o.now = b.now
			copy(o.dirty, x.since)
			o.ndirty = o.dirty.Count()
		} else { // the first reset: every node
			o.base = &corder{sortedNodes: sortedNodes{at: make([]int64, x.n), ord: make([]entry, 0, x.n)}, free: bitset.New(x.n)}
			for k := 0; k < x.n; k++ {
				x.touchOrder(o, k)
			}
		}
		x.sync(c)
		b := o.base
		b.at = append(b.at[:0], o.at...)
		b.ord = append(b.ord[:0], o.ord...)
		copy(b.free, o.free)
		b.now = o.now
	}
	clear(x.since)
}

func (o *corder) isFree(k int) bool { return o.free.Has(k) }

func (o *corder) setFree(k int, free bool) { o.free.Put(k, free) }

// sync brings order c (0-based) up to date with the nodes and the clock.
func (x *nodeIndex) sync(c int) *corder {
	o := &x.orders[c]
	if x.now < o.now { // the clock went back: place every node again
		for k := 0; k < x.n; k++ {
			x.touchOrder(o, k)
		}
	} else if x.now > o.now {
		// The nodes whose time is reached leave the list: a prefix.
		i := 0
		for i < len(o.ord) && o.ord[i].t() <= x.now {
			o.setFree(o.ord[i].k(), true)
			i++
		}
		o.ord = o.ord[:copy(o.ord, o.ord[i:])]
	}
	o.now = x.now
	switch {
	case o.ndirty == 0:
	case o.ndirty <= rebuildAbove:
		x.fixEach(c, o)
	default:
		x.rebuild(c, o)
	}
	return o
}

// fixEach moves the few dirty nodes of order c to their new places.
func (x *nodeIndex) fixEach(c int, o *corder) {
	for w, word := range o.dirty {
		for word != 0 {
			k := w<<6 + bits.TrailingZeros64(word)
			word &= word - 1
			v := x.keyOf(c+1, k)
			switch listed := !o.isFree(k); {
			case listed && v > x.now:
				o.move(k, v)
			case listed:
				o.remove(k)
			case v > x.now:
				o.insert(k, v)
			}
			o.at[k] = v
			o.setFree(k, v <= x.now)
		}
		o.dirty[w] = 0
	}
	o.ndirty = 0
}

// rebuild places many dirty nodes of order c: the clean entries keep their
// order, the dirty ones are sorted and merged in.
func (x *nodeIndex) rebuild(c int, o *corder) {
	kept := 0
	for _, e := range o.ord {
		if k := e.k(); !o.dirty.Has(k) {
			o.ord[kept] = e
			kept++
		}
	}
	add := x.scratch[:0]
	for w, word := range o.dirty {
		for word != 0 {
			k := w<<6 + bits.TrailingZeros64(word)
			word &= word - 1
			v := x.keyOf(c+1, k)
			o.at[k] = v
			o.setFree(k, v <= x.now)
			if v > x.now {
				add = append(add, pack(v, k))
			}
		}
		o.dirty[w] = 0
	}
	o.ndirty = 0
	slices.Sort(add)
	// Merge from the back, in place: ord has room for every node.
	i, j := kept-1, len(add)-1
	o.ord = o.ord[:kept+len(add)]
	for d := len(o.ord) - 1; j >= 0; d-- {
		if i >= 0 && o.ord[i] > add[j] {
			o.ord[d] = o.ord[i]
			i--
		} else {
			o.ord[d] = add[j]
			j--
		}
	}
	x.scratch = add
}

// cursor walks the nodes of [lo, hi) for c cores by increasing (time,
// node): first those free now in node order, then the sorted list's.
type cursor struct {
	x      *nodeIndex
	o      *corder
	lo, hi int
	w      int    // free phase: current word
	word   uint64 // free phase: bits left in it
	tree   bool   // in the sorted phase
	i      int    // sorted phase: next position in ord
	last   int64
}

// ascend starts a cursor; the index keeps one, reused.
func (x *nodeIndex) ascend(c, lo, hi int) *cursor {
	cu := &x.cur
	o := x.sync(c - 1)
	hi = min(hi, x.n)
	*cu = cursor{x: x, o: o, lo: lo, hi: hi, w: lo >> 6}
	if lo < hi {
		cu.word = o.free[cu.w] & (^uint64(0) << (lo & 63))
	} else {
		cu.tree, cu.i = true, len(o.ord)
	}
	return cu
}

func (cu *cursor) Next() (int, int64, bool) {
	o := cu.o
	for !cu.tree {
		if cu.word != 0 {
			k := cu.w<<6 + bits.TrailingZeros64(cu.word)
			cu.word &= cu.word - 1
			if k < cu.hi {
				cu.last = cu.x.now
				return k, cu.x.now, true
			}
			cu.word = 0
		}
		cu.w++
		if cu.w<<6 >= cu.hi {
			cu.tree = true
			break
		}
		cu.word = o.free[cu.w]
	}
	for cu.i < len(o.ord) {
		e := o.ord[cu.i]
		cu.i++
		if k := e.k(); k >= cu.lo && k < cu.hi {
			cu.last = e.t()
			return k, cu.last, true
		}
	}
	return 0, 0, false
}

func (cu *cursor) SkipGroup() {
	if !cu.tree {
		cu.tree = true // the free nodes all have time now
		return
	}
	o := cu.o
	for cu.i < len(o.ord) && o.ord[cu.i].t() == cu.last {
		cu.i++
	}
}

// Close ends the walk (the index was not changed).
func (cu *cursor) Close() {}
