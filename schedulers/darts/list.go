package darts

// dataList is one worker's list of data not used yet (gpu_data), in scan
// order, with a tournament tree that answers a full scan's question, the
// first entry of the greatest (s, task_left) with s > 0, without reading
// every entry.
//
// Entries sit in slots in list order with holes between them: erasing an
// entry leaves a hole; an insertion takes the hole at its place, or shifts
// the few entries up to the nearest hole; when none is near, or holes pile
// up, the entries are spread out again with a hole after every fourth. A
// hole holds the data id `hole`, whose counters are always zero, so that a
// scan of the slots needs no test for holes.
//
// Over blocks of 8 slots, a segment tree (heap layout: the leaf of block b
// is node blocks+b) counts the entries below each node (a position's rank
// and the slot of the i-th entry in O(log blocks + 8)) and keeps, for
// frees and for s1 (3inputs), the greatest key below each node and its
// slot, ties to the leftmost: the scan's choice is at the root. Blocks
// keep the tree small: with a leaf per slot, two trees of 65,536 nodes per
// worker on the 3D product, recomputing a leaf's ancestors was mostly
// cache misses (and blocks of 4 to 16 slots cost about the same).
//
// Keys follow the counters lazily: a counter change marks the blocks of
// the data's entries (touch), and a decision recomputes the marked leaves
// and their ancestors. Between two decisions of the 2D product a walk moves
// about half of the listed counters, and recomputing them costs more than
// a scan; so when too many leaves are marked the tree stops following
// (stale) and decisions scan the slots, until a decision sees few changes
// since the previous one and rebuilds the tree. Both answer the same.
type dataList struct {
	hole     int32
	counts   [2][]int32 // the counters ranked: frees, and s1 with 3inputs, else nil (hole's entry zero)
	taskLeft []int32    // the second key (hole's entry zero)

	slots []int32 // per slot, its data or hole
	end   int     // slots from end on are holes
	n     int     // entries
	at    []int32 // per data, the slot of its first entry; -1 when it has none
	next  []int32 // per slot, the slot of its data's next entry; -1 for the last

	shift  uint    // a leaf holds 1 << shift slots: blockShift, or 0 in tests
	blocks int     // leaves of the tree: a power of two, len(slots) >> shift
	cnt    []int32 // per node, the entries below it
	nodes  []node  // per node, the best slot below it for each counter
	mark   []bool  // per node, queued in dirty (leaves) or in flush's level
	dirty  []int32 // leaves whose key may have moved since the last decision
	stale  bool    // the keys do not follow the counters: a decision scans or rebuilds
	moved  int     // about how many keys moved since the last decision (counted by DARTS)
	exact  bool    // tests: never stale after the first rebuild, whatever the cost
	comb   bool    // one key (frees, s1, task_left) in the first tree (see DARTS.comb)
	tmp    []int32
}

// blockShift: a leaf of the tree holds 1 << blockShift slots.
const blockShift = 3

// node is a node of the tournament trees: per counter array, the greatest
// key (s << 32 | task_left, 0 when s = 0) of the slots below it and the
// leftmost slot holding it (0 with key 0). Both trees share the nodes:
// one pass over a block computes both leaves.
type node struct {
	key  [2]uint64
	slot [2]int32
}

// init gives an empty list over nd data; counts and taskLeft have nd+1
// entries, the last one the holes'. A leaf of the tree holds 1 << shift
// slots.
func (l *dataList) init(nd int, counts [2][]int32, taskLeft []int32, shift uint) {
	l.shift = shift
	l.hole = int32(nd)
	l.counts, l.taskLeft = counts, taskLeft
	l.at = make([]int32, nd)
	for x := range l.at {
		l.at[x] = -1
	}
	l.build(nil)
}

// build lays out entries (in list order) afresh, a hole after every fourth,
// with room to grow at the end; the keys will be rebuilt by the next
// decision.
func (l *dataList) build(entries []int32) {
	l.goStale()
	for _, x := range entries {
		l.at[x] = -1
	}
	n := len(entries)
	end := n + n/4
	size := 32
	for size < end+n/4+16 {
		size *= 2
	}
	if size != len(l.slots) {
		l.blocks = size >> l.shift
		l.slots = make([]int32, size)
		l.next = make([]int32, size)
		l.cnt = make([]int32, 2*l.blocks)
		l.mark = make([]bool, 2*l.blocks)
		l.nodes = nil // allocated by the first rebuild
	} else {
		clear(l.cnt)
	}
	for p := range l.slots {
		l.slots[p] = l.hole
	}
	// Backwards, so that each data's chain of entries comes out in order.
	for j := n - 1; j >= 0; j-- {
		p, x := j+j/4, entries[j]
		l.slots[p] = x
		l.next[p] = l.at[x]
		l.at[x] = int32(p)
		l.cnt[l.blocks+p>>l.shift]++
	}
	for i := l.blocks - 1; i > 0; i-- {
		l.cnt[i] = l.cnt[2*i] + l.cnt[2*i+1]
	}
	l.n = n
	l.end = 0
	if n > 0 {
		l.end = n - 1 + (n-1)/4 + 1
	}
}

// entries appends the list's entries, in order, to dst.
func (l *dataList) entries(dst []int32) []int32 {
	for _, x := range l.slots[:l.end] {
		if x != l.hole {
			dst = append(dst, x)
		}
	}
	return dst
}

// rank returns the number of entries before slot p.
func (l *dataList) rank(p int32) int {
	r := 0
	for i := l.blocks + int(p)>>l.shift; i > 1; i >>= 1 {
		if i&1 == 1 {
			r += int(l.cnt[i-1])
		}
	}
	for _, x := range l.slots[int(p)>>l.shift<<l.shift : p] {
		if x != l.hole {
			r++
		}
	}
	return r
}

// find returns the slot of the i-th entry (0-based, i < n).
func (l *dataList) find(i int) int {
	node, rem := 1, int32(i)
	for node < l.blocks {
		if c := l.cnt[2*node]; c > rem {
			node = 2 * node
		} else {
			rem -= c
			node = 2*node + 1
		}
	}
	p := (node - l.blocks) << l.shift
	for ; ; p++ {
		if l.slots[p] != l.hole {
			if rem == 0 {
				return p
			}
			rem--
		}
	}
}

// count adds delta to the entries of slot p's ancestors.
func (l *dataList) count(p int, delta int32) {
	for i := l.blocks + p>>l.shift; i > 0; i >>= 1 {
		l.cnt[i] += delta
	}
}

// remove erases the entry at slot p, leaving a hole.
func (l *dataList) remove(p int32) {
	x := l.slots[p]
	l.relink(x, p, l.next[p])
	l.slots[p] = l.hole
	l.count(int(p), -1)
	l.n--
	l.touchSlot(p)
	for l.end > 0 && l.slots[l.end-1] == l.hole {
		l.end--
	}
	if l.end > 2*l.n+64 { // holes pile up: scans would read more holes than entries
		l.tmp = l.entries(l.tmp[:0])
		l.build(l.tmp)
	}
}

// relink makes whatever pointed to x's entry at slot from point to slot to.
func (l *dataList) relink(x, from, to int32) {
	if l.at[x] == from {
		l.at[x] = to
		return
	}
	q := l.at[x]
	for l.next[q] != from {
		q = l.next[q]
	}
	l.next[q] = to
}

// put writes an entry of x at hole p, linked in x's chain of entries in
// slot order.
func (l *dataList) put(p, x int32) {
	l.slots[p] = x
	if q := l.at[x]; q < 0 || q > p {
		l.next[p], l.at[x] = q, p
	} else {
		for l.next[q] >= 0 && l.next[q] < p {
			q = l.next[q]
		}
		l.next[p], l.next[q] = l.next[q], p
	}
	l.touchSlot(p)
	if int(p) >= l.end {
		l.end = int(p) + 1
	}
}

// move moves the entry at slot from to the hole next to it, to.
func (l *dataList) move(from, to int32) {
	x := l.slots[from]
	l.relink(x, from, to)
	l.next[to] = l.next[from]
	l.slots[to], l.slots[from] = x, l.hole
	l.touchSlot(to)
	l.touchSlot(from)
	if int(to) >= l.end {
		l.end = int(to) + 1
	}
}

// shiftWindow is how far an insertion looks for a hole before the entries
// are spread out again.
const shiftWindow = 32

// insert puts an entry of x before the i-th entry (after the last when
// i = n).
func (l *dataList) insert(i int, x int32) {
	var b int // the slot of the i-th entry, or end
	if i < l.n {
		b = l.find(i)
	} else {
		b = l.end
		if b < len(l.slots) { // room after the last entry
			l.place(int32(b), x)
			return
		}
	}
	if b > 0 && l.slots[b-1] == l.hole { // a hole right before it
		l.place(int32(b-1), x)
		return
	}
	// Shift the entries between b and the nearest hole h by one slot: h
	// takes an entry, and x the slot freed at the place.
	for h := b + 1; h < min(len(l.slots), b+shiftWindow); h++ {
		if l.slots[h] == l.hole {
			for q := h; q > b; q-- {
				l.move(int32(q-1), int32(q))
			}
			l.put(int32(b), x)
			l.count(h, 1)
			l.n++
			return
		}
	}
	for h := b - 2; h >= max(0, b-shiftWindow); h-- {
		if l.slots[h] == l.hole {
			for q := h; q < b-1; q++ {
				l.move(int32(q+1), int32(q))
			}
			l.put(int32(b-1), x)
			l.count(h, 1)
			l.n++
			return
		}
	}
	// No hole near: spread the entries out again.
	es := l.entries(l.tmp[:0])
	es = append(es, 0)
	copy(es[i+1:], es[i:])
	es[i] = x
	l.build(es)
	l.tmp = es
}

// place puts an entry of x in hole p and counts it.
func (l *dataList) place(p, x int32) {
	l.put(p, x)
	l.count(int(p), 1)
	l.n++
}

// touch records that a counter of x moved: the keys of its entries. It
// costs one test while the tree is stale (inlined).
func (l *dataList) touch(x int32) {
	if !l.stale {
		l.touchEntries(x)
	}
}

// touchEntries is kept out of line so that touch, called for every
// counter a walk moves, inlines to one test.
//
//go:noinline
func (l *dataList) touchEntries(x int32) {
	for p := l.at[x]; p >= 0; p = l.next[p] {
		l.touchSlot(p)
	}
}

// touchSlot queues slot p's leaf for the next decision.
func (l *dataList) touchSlot(p int32) {
	if l.stale {
		return
	}
	i := int32(l.blocks) + p>>l.shift
	if l.mark[i] {
		return
	}
	l.mark[i] = true
	l.dirty = append(l.dirty, i)
	if !l.exact && len(l.dirty) > l.n>>l.shift+4 {
		// Recomputing these leaves and their ancestors would cost more
		// than a scan.
		l.goStale()
		l.moved = l.n // and so would this decision's
	}
}

// goStale stops following the counters until the next rebuild.
func (l *dataList) goStale() {
	for _, i := range l.dirty {
		l.mark[i] = false
	}
	l.dirty = l.dirty[:0]
	l.stale = true
}

// choose returns the first entry of the greatest (s, task_left) with s > 0
// over the whole list, as a scan from its head finds it, for s in the
// first counter array, and failing that (b[0].s = 0) in the second.
func (l *dataList) choose() (b [2]best) {
	moved := l.moved
	l.moved = 0
	switch {
	case !l.stale:
		l.flush()
	case moved > l.n/16 && !l.exact && l.comb:
		b[0] = scanComb(l.counts[0], l.counts[1], l.taskLeft, l.slots[:l.end])
		return b
	case moved > l.n/16 && !l.exact: // many keys moved since the last decision: scan
		for i, c := range l.counts {
			if c == nil {
				break
			}
			if b[i] = scanFirst(c, l.taskLeft, l.slots[:l.end]); b[i].s > 0 {
				break
			}
		}
		return b
	default:
		l.rebuild()
	}
	root := l.nodes[1]
	if l.comb {
		if k := root.key[0]; k > 0 {
			x := l.slots[root.slot[0]]
			b[0] = best{data: x, s: l.counts[0][x], one: l.counts[1][x], tl: l.taskLeft[x], ties: 1, populated: true}
		}
		return b
	}
	for i, k := range root.key {
		if k>>32 > 0 {
			b[i] = best{data: l.slots[root.slot[i]], s: int32(k >> 32), tl: int32(uint32(k)), ties: 1, populated: true}
			break
		}
	}
	return b
}

// combKey is x's rank under comb: frees, then s1, then task_left, 21 bits
// each (larger counts saturate: 2,097,151 pool tasks reading one data); 0
// when x frees no task and brings none one load from free.
func combKey(f, one, tl int32) uint64 {
	if f <= 0 && one <= 0 {
		return 0
	}
	const m = 1<<21 - 1
	return uint64(min(f, m))<<42 | uint64(min(one, m))<<21 | uint64(min(max(tl, 0), m))
}

// scanComb is scanFirst under comb.
func scanComb(frees, s1, taskLeft []int32, list []int32) best {
	var bk uint64
	bx := int32(-1)
	for _, x := range list {
		if k := combKey(frees[x], s1[x], taskLeft[x]); k > bk {
			bk, bx = k, x
		}
	}
	if bx < 0 {
		return best{}
	}
	return best{data: bx, s: frees[bx], one: s1[bx], tl: taskLeft[bx], ties: 1, populated: true}
}

// scanFirst is the scan with ties kept first and without opti, in one
// tight loop: the first data of the greatest (s, task_left) with s > 0, s
// read from counts (the tasks a data would free, or for 3inputs those it
// would bring one load from free).
func scanFirst(counts, taskLeft []int32, list []int32) best {
	bs, btl, bx := int32(0), int32(0), int32(-1)
	for _, x := range list {
		if s := counts[x]; s > 0 && s >= bs {
			if tl := taskLeft[x]; s > bs || tl > btl {
				bs, btl, bx = s, tl, x
			}
		}
	}
	if bx < 0 {
		return best{}
	}
	return best{data: bx, s: bs, tl: btl, ties: 1, populated: true}
}

// leaf computes the node of block b.
func (l *dataList) leaf(b int) (n node) {
	p0 := b << l.shift
	frees, s1, taskLeft := l.counts[0], l.counts[1], l.taskLeft
	if l.comb {
		for p, x := range l.slots[p0 : p0+1<<l.shift] {
			if k := combKey(frees[x], s1[x], taskLeft[x]); k > n.key[0] {
				n.key[0], n.slot[0] = k, int32(p0+p)
			}
		}
		return n
	}
	for p, x := range l.slots[p0 : p0+1<<l.shift] {
		if s := frees[x]; s > 0 {
			if k := uint64(s)<<32 | uint64(uint32(taskLeft[x])); k > n.key[0] {
				n.key[0], n.slot[0] = k, int32(p0+p)
			}
		}
		if s1 != nil {
			if s := s1[x]; s > 0 {
				if k := uint64(s)<<32 | uint64(uint32(taskLeft[x])); k > n.key[1] {
					n.key[1], n.slot[1] = k, int32(p0+p)
				}
			}
		}
	}
	return n
}

// join is the parent of two adjacent nodes: per tree, the greater key,
// the left one's on ties.
func join(a, b node) node {
	for i := range a.key {
		if b.key[i] > a.key[i] {
			a.key[i], a.slot[i] = b.key[i], b.slot[i]
		}
	}
	return a
}

// rebuild recomputes every node: the tree follows the counters again.
func (l *dataList) rebuild() {
	if len(l.nodes) != 2*l.blocks {
		l.nodes = make([]node, 2*l.blocks)
	}
	t := l.nodes
	for b := range l.blocks {
		t[l.blocks+b] = l.leaf(b)
	}
	for j := l.blocks - 1; j > 0; j-- {
		t[j] = join(t[2*j], t[2*j+1])
	}
	l.stale = false
}

// flush recomputes the queued leaves, then level by level the parents of
// the nodes that changed (the leaves are all at the same depth, so each
// level's parents are): most counter changes do not move their block's
// best, and stop there.
func (l *dataList) flush() {
	t, level := l.nodes, l.dirty
	for leaves := true; len(level) > 0; leaves = false {
		up := level[:0] // each node read is written at most once before it
		for _, j := range level {
			l.mark[j] = false
			var a node
			if leaves {
				a = l.leaf(int(j) - l.blocks)
			} else {
				a = join(t[2*j], t[2*j+1])
			}
			if a == t[j] {
				continue
			}
			t[j] = a
			if p := j >> 1; p > 0 && !l.mark[p] {
				l.mark[p] = true
				up = append(up, p)
			}
		}
		level = up
	}
	l.dirty = l.dirty[:0]
}
