package hypergraph

import "github.com/memsched/memsched/internal/scratch"

// gainHeap is an addressable max-heap of vertices keyed by their FM gain.
// It stands in for FM's gain buckets: edge weights here are bytes, so
// gains span ~10^10 values and an array of buckets would be mostly empty.
// Each entry carries a copy of its key, so that comparisons read the heap
// array only instead of a random gain per entry.
type gainHeap struct {
	items []heapItem
	vs    []vertexState // .pos: shared by both sides' heaps, a vertex is in at most one
}

// vertexState is what FM reads and writes of a vertex on each gain
// update, in one record: as separate arrays, one update cost up to three
// cache misses.
type vertexState struct {
	gain   int64
	pos    int32  // index of the vertex's heap entry, or -1
	locked uint32 // == fm.stamp: moved in this pass
}

type heapItem struct {
	gain int64
	v    int32
}

// up and down move the entry at i to its place, shifting the entries it
// passes by one step (as swaps would, with half the writes).
func (h *gainHeap) up(i int) {
	items, vs := h.items, h.vs
	it := items[i]
	for i > 0 {
		p := (i - 1) / 2
		if it.gain <= items[p].gain {
			break
		}
		items[i] = items[p]
		vs[items[i].v].pos = int32(i)
		i = p
	}
	items[i] = it
	vs[it.v].pos = int32(i)
}

func (h *gainHeap) down(i int) {
	items, vs := h.items, h.vs
	n := len(items)
	it := items[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		best := l
		if r := l + 1; r < n && items[r].gain > items[l].gain {
			best = r
		}
		if items[best].gain <= it.gain {
			break
		}
		items[i] = items[best]
		vs[items[i].v].pos = int32(i)
		i = best
	}
	items[i] = it
	vs[it.v].pos = int32(i)
}

// top is the vertex of highest gain; the heap must not be empty.
func (h *gainHeap) top() int32 { return h.items[0].v }

func (h *gainHeap) push(v int32, gain int64) {
	h.items = append(h.items, heapItem{gain, v})
	h.vs[v].pos = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

func (h *gainHeap) remove(v int32) {
	i := int(h.vs[v].pos)
	last := len(h.items) - 1
	h.vs[v].pos = -1
	if i != last {
		// The last entry fills the hole and moves to its place.
		h.items[i] = h.items[last]
		h.items = h.items[:last]
		h.down(i)
		h.up(i)
		return
	}
	h.items = h.items[:last]
}

// fix sets the key of v. A key that grew can only move up and one that
// shrank only down, so only that direction is tried (the other would
// compare and not move).
func (h *gainHeap) fix(v int32, gain int64) {
	i := int(h.vs[v].pos)
	old := h.items[i].gain
	h.items[i].gain = gain
	if gain > old {
		h.up(i)
	} else {
		h.down(i)
	}
}

func (h *gainHeap) clear() {
	for _, it := range h.items {
		h.vs[it.v].pos = -1
	}
	h.items = h.items[:0]
}

// fm refines a bisection with Fiduccia–Mattheyses passes on the cut-net
// metric, which within one bisection equals connectivity−1. Each pass moves
// boundary vertices by decreasing gain, each at most once, under the
// balance bounds, stops early after a run of fruitless moves, and rolls
// back to the best prefix, comparing scores (overload, cut, strict
// overload) so that an infeasible partition is first made feasible.
type fm struct {
	g       *hg
	part    []int8
	cnt     [][2]int32 // cnt[e][s]: pins of edge e on side s
	pw      [2]int64
	lmax    [2]int64 // bounds of this level
	strict  [2]int64 // bounds of the finest level, to break ties
	cutW    int64
	vs      []vertexState
	incW    []int64 // incW[v]: the weight of v's edges (an interior vertex's gain, negated)
	stamp   uint32
	heaps   [2]gainHeap
	heapBuf []heapItem // the heaps' entries: side 0's, then side 1's
	moves   []int32
	kcnt    []int32 // completionGain scratch, all zero between calls
	touched []int32
	cands   []edgeCand // completeEdges scratch
	sorted  []edgeCand
	bucket  []int32
}

// reset binds the refiner to g and part (which it modifies in place).
func (f *fm) reset(g *hg, part []int8, lmax, strict [2]int64) {
	n, m := g.n(), g.m()
	f.g, f.part, f.lmax, f.strict = g, part, lmax, strict
	f.cnt = scratch.Zeroed(f.cnt, m)
	f.vs = scratch.Resize(f.vs, n)
	for i := range f.vs {
		f.vs[i] = vertexState{pos: -1}
	}
	f.stamp = 0
	f.heapBuf = scratch.Resize(f.heapBuf, n)
	for s := range f.heaps {
		f.heaps[s].items = f.heapBuf[:0:0]
		f.heaps[s].vs = f.vs
	}
	f.pw = [2]int64{}
	for v, s := range part {
		f.pw[s] += g.vw[v]
	}
	f.cutW = 0
	f.incW = scratch.Zeroed(f.incW, n)
	cnt, incW := f.cnt, f.incW
	for e, w := range g.ew {
		c := &cnt[e]
		for _, p := range g.edgePins(int32(e)) {
			c[part[p]&1]++
			incW[p] += w
		}
		if c[0] > 0 && c[1] > 0 {
			f.cutW += w
		}
	}
}

func (f *fm) overload() int64 {
	return excess(f.pw, f.lmax)
}

func excess(pw, lmax [2]int64) int64 {
	return max(0, pw[0]-lmax[0]) + max(0, pw[1]-lmax[1])
}

// score orders bisections: feasibility first, then cut, then balance
// against the final bounds, so that a coarse level with relaxed bounds
// still prefers, among equal cuts, what the finest level will accept.
type score struct{ over, cut, strict int64 }

func (a score) less(b score) bool {
	if a.over != b.over {
		return a.over < b.over
	}
	if a.cut != b.cut {
		return a.cut < b.cut
	}
	return a.strict < b.strict
}

func (f *fm) score() score {
	return score{f.overload(), f.cutW, excess(f.pw, f.strict)}
}

// startPass unlocks every vertex and fills the heaps with the boundary
// vertices (all vertices of side all, if all >= 0, for rebalancing).
//
// Gains are summed over the cut edges only: an uncut edge adds −w(e) to
// the gain of each of its pins, a cut one 0, or w(e) to a lone pin on its
// side, so a vertex's gain is −f.incW[v] plus, per cut edge, w(e) or
// 2·w(e); it is on the boundary iff its gain exceeds −f.incW[v] (every
// edge weighs more than 0). Walking the pins of the cut edges costs less
// than walking every vertex's edges, even where most edges are cut.
func (f *fm) startPass(all int8) {
	f.stamp++
	f.moves = f.moves[:0]
	f.heaps[0].clear()
	f.heaps[1].clear()
	// A heap holds vertices of its side at the start of the pass only
	// (a moved vertex is locked), so one array of n entries holds both.
	n0 := 0
	for _, s := range f.part {
		n0 += int(1 - s)
	}
	f.heaps[0].items = f.heapBuf[:0:n0]
	f.heaps[1].items = f.heapBuf[n0:n0:len(f.part)]
	g := f.g
	cnt, part, vs, incW := f.cnt, f.part, f.vs, f.incW
	for v, w := range incW {
		vs[v].gain = -w
	}
	for e, w := range g.ew {
		c := cnt[e]
		if c[0] == 0 || c[1] == 0 {
			continue
		}
		for _, p := range g.edgePins(int32(e)) {
			if c[part[p]] == 1 {
				vs[p].gain += 2 * w
			} else {
				vs[p].gain += w
			}
		}
	}
	for v := range part {
		if gv := vs[v].gain; gv > -incW[v] || part[v] == all {
			f.heaps[part[v]].push(int32(v), gv)
		}
	}
}

// adjust changes the gain of a free vertex and keeps the heaps in step;
// a free vertex outside the heaps has just become a boundary vertex.
func (f *fm) adjust(p int32, delta int64) { f.adjustAll([]int32{p}, delta) }

// adjustAll adjusts the gains of the free pins ps by delta, as adjust
// does one by one, in one loop (the moved vertex, locked, is skipped like
// any locked one).
func (f *fm) adjustAll(ps []int32, delta int64) {
	vs, part, stamp := f.vs, f.part, f.stamp
	for _, p := range ps {
		st := &vs[p]
		if st.locked == stamp {
			continue
		}
		st.gain += delta
		if h := &f.heaps[part[p]&1]; st.pos >= 0 {
			h.fix(p, st.gain)
		} else {
			h.push(p, st.gain)
		}
	}
}

// move moves v to the other side, locks it and updates the gains of its
// neighbours with the classic FM delta rules on the pin counts.
func (f *fm) move(v int32) {
	from := int32(f.part[v])
	to := 1 - from
	if f.vs[v].pos >= 0 {
		f.heaps[from].remove(v)
	}
	f.vs[v].locked = f.stamp
	f.cutW -= f.vs[v].gain
	f.part[v] = int8(to)
	f.pw[from] -= f.g.vw[v]
	f.pw[to] += f.g.vw[v]
	f.moves = append(f.moves, v)
	g := f.g
	for _, e := range g.vertexEdges(v) {
		c := &f.cnt[e]
		cf, ct := c[from], c[to]
		c[from], c[to] = cf-1, ct+1
		if ct >= 2 && cf >= 3 {
			continue // no pin's gain changes (the rules below need ct < 2 or cf-1 < 2)
		}
		w, ps := g.ew[e], g.edgePins(e)
		switch ct {
		case 0: // e becomes cut: leaving no longer cuts it for the other pins
			f.adjustAll(ps, w)
		case 1: // the lone pin on side to no longer uncuts e by leaving
			for _, p := range ps {
				if p != v && int32(f.part[p]) == to {
					f.adjust(p, -w)
					break
				}
			}
		}
		switch cf - 1 {
		case 0: // e is now uncut: leaving would cut it again
			f.adjustAll(ps, -w)
		case 1: // the lone pin left on side from would uncut e by leaving
			for _, p := range ps {
				if int32(f.part[p]) == from {
					f.adjust(p, w)
					break
				}
			}
		}
	}
}

// undo moves v back without gain bookkeeping (gains are recomputed at the
// start of each pass).
func (f *fm) undo(v int32) {
	from := int32(f.part[v])
	to := 1 - from
	f.part[v] = int8(to)
	f.pw[from] -= f.g.vw[v]
	f.pw[to] += f.g.vw[v]
	for _, e := range f.g.vertexEdges(v) {
		c := &f.cnt[e]
		c[from]--
		c[to]++
	}
}

// feasible tells whether moving v off side from keeps the balance, or
// relieves an overloaded side without overloading the other more.
func (f *fm) feasible(v int32, from int8) bool {
	to := 1 - from
	nw := f.pw[to] + f.g.vw[v]
	return nw <= f.lmax[to] || (f.pw[from] > f.lmax[from] && nw-f.lmax[to] < f.pw[from]-f.lmax[from])
}

// pass runs one FM pass and reports whether it improved the score.
func (f *fm) pass(fruitlessLimit int) bool {
	f.startPass(-1)
	start := f.score()
	best, bestLen := start, 0
	fruitless := 0
	for fruitless < fruitlessLimit {
		v, ok := f.pick()
		if !ok {
			break
		}
		f.move(v)
		if sc := f.score(); sc.less(best) {
			best, bestLen = sc, len(f.moves)
			fruitless = 0
		} else {
			fruitless++
		}
	}
	f.rollback(bestLen)
	f.cutW = best.cut
	return best.less(start)
}

func (f *fm) rollback(keep int) {
	for i := len(f.moves) - 1; i >= keep; i-- {
		f.undo(f.moves[i])
	}
	f.moves = f.moves[:keep]
}

// pick returns the feasible heap top of highest gain; on a tie, it moves
// off the heavier side.
func (f *fm) pick() (int32, bool) {
	var cand [2]int32
	var ok [2]bool
	for s := int8(0); s < 2; s++ {
		h := &f.heaps[s]
		if len(h.items) > 0 && f.feasible(h.top(), s) {
			cand[s], ok[s] = h.top(), true
		}
	}
	switch {
	case ok[0] && ok[1]:
		g0, g1 := f.vs[cand[0]].gain, f.vs[cand[1]].gain
		if g0 > g1 || (g0 == g1 && f.pw[0]-f.lmax[0] >= f.pw[1]-f.lmax[1]) {
			return cand[0], true
		}
		return cand[1], true
	case ok[0]:
		return cand[0], true
	case ok[1]:
		return cand[1], true
	}
	return 0, false
}

// rebalance moves the vertices of smallest loss off an overloaded side
// until it fits, skipping those the other side cannot take.
func (f *fm) rebalance() {
	for s := int8(0); s < 2; s++ {
		if f.pw[s] <= f.lmax[s] {
			continue
		}
		f.startPass(s)
		h := &f.heaps[s]
		for f.pw[s] > f.lmax[s] && len(h.items) > 0 {
			v := h.top()
			if f.pw[1-s]+f.g.vw[v] > f.lmax[1-s] {
				h.remove(v)
				continue
			}
			f.move(v)
		}
		f.moves = f.moves[:0]
	}
}

// refine rebalances if needed, then alternates FM passes (while they
// improve) with edge-completion sweeps (while they improve).
func (f *fm) refine(maxPasses int, complete bool) {
	f.rebalance()
	limit := fruitlessMoves(f.g.n())
	for {
		for i := 0; i < maxPasses; i++ {
			if !f.pass(limit) {
				break
			}
		}
		if !complete || !f.completeEdges() {
			return
		}
	}
}

// completeEdges tries, for each cut edge from the smallest remainder up,
// to move all its pins on the minority side across at once, keeping the
// move if the score improves. It catches what single-vertex FM
// cannot: on large edges (a block-row of 71 tasks) each of the first
// moves has gain 0 and FM's tie-breaking scatters them over many edges.
func (f *fm) completeEdges() bool {
	g := f.g
	f.cands = f.cands[:0]
	maxCount := int32(0)
	for e := int32(0); int(e) < g.m(); e++ {
		c0, c1 := f.cnt[e][0], f.cnt[e][1]
		if c0 == 0 || c1 == 0 {
			continue
		}
		c := edgeCand{e, 1, c1}
		if c0 <= c1 {
			c = edgeCand{e, 0, c0}
		}
		f.cands = append(f.cands, c)
		maxCount = max(maxCount, c.count)
	}
	cands := f.sortByCount(maxCount)
	improved := false
	f.kcnt = scratch.Resize(f.kcnt, g.m())
	for _, c := range cands {
		side := int32(c.side)
		if f.cnt[c.e][side] == 0 || f.cnt[c.e][1-side] == 0 {
			continue // no longer cut
		}
		// Balance first: it is cheap and decides most rejections.
		var ws int64
		part, vw := f.part, g.vw // locals: not reloaded on every pin
		for _, p := range g.edgePins(c.e) {
			if int32(part[p]) == side {
				ws += vw[p]
			}
		}
		pw := f.pw
		pw[side] -= ws
		pw[1-side] += ws
		cur := f.score()
		next := score{over: excess(pw, f.lmax), cut: cur.cut, strict: excess(pw, f.strict)}
		if next.over > cur.over {
			continue
		}
		if next.over == cur.over {
			next.cut -= f.completionGain(c.e, side)
			if !next.less(cur) {
				continue
			}
		}
		for _, p := range g.edgePins(c.e) {
			if int32(f.part[p]) == side {
				f.moveLight(p)
			}
		}
		improved = true
	}
	f.moves = f.moves[:0]
	return improved
}

// edgeCand is a cut edge and its minority side, for completeEdges.
type edgeCand struct {
	e     int32
	side  int8
	count int32 // pins of e on side
}

// sortByCount orders f.cands by count, stably (so by edge within a
// count), with a counting sort: counts are bounded by the edge sizes, and
// the comparison sort this replaces was a tenth of the refinement's time.
func (f *fm) sortByCount(maxCount int32) []edgeCand {
	f.bucket = scratch.Zeroed(f.bucket, int(maxCount)+2)
	for _, c := range f.cands {
		f.bucket[c.count+1]++
	}
	for i := 1; i < len(f.bucket); i++ {
		f.bucket[i] += f.bucket[i-1]
	}
	f.sorted = scratch.Resize(f.sorted, len(f.cands))
	for _, c := range f.cands {
		f.sorted[f.bucket[c.count]] = c
		f.bucket[c.count]++
	}
	return f.sorted
}

// completionGain is the cut decrease if the pins of e on side s all moved:
// an edge e' holding k of them stops being cut if it holds no other pin
// on s, and becomes cut if it had none on the other side.
func (f *fm) completionGain(e, s int32) int64 {
	g := f.g
	// Locals, not fields, as in bestNeighbour.
	kcnt, touched, part := f.kcnt, f.touched[:0], f.part
	for _, p := range g.edgePins(e) {
		if int32(part[p]) != s {
			continue
		}
		for _, e2 := range g.vertexEdges(p) {
			if kcnt[e2] == 0 {
				touched = append(touched, e2)
			}
			kcnt[e2]++
		}
	}
	var gain int64
	cnt, ew, own, other := f.cnt, g.ew, s&1, (1-s)&1 // &1: no bounds checks on cnt[e2]
	for _, e2 := range touched {
		if cnt[e2][other] == 0 {
			gain -= ew[e2]
		}
		if cnt[e2][own] == kcnt[e2] {
			gain += ew[e2]
		}
		kcnt[e2] = 0
	}
	f.touched = touched
	return gain
}

// moveLight moves v keeping pin counts, weights and the cut exact but not
// the gains (startPass recomputes them).
func (f *fm) moveLight(v int32) {
	from := int32(f.part[v])
	to := 1 - from
	f.part[v] = int8(to)
	f.pw[from] -= f.g.vw[v]
	f.pw[to] += f.g.vw[v]
	f.moves = append(f.moves, v)
	for _, e := range f.g.vertexEdges(v) {
		if f.cnt[e][to] == 0 {
			f.cutW += f.g.ew[e]
		}
		f.cnt[e][from]--
		f.cnt[e][to]++
		if f.cnt[e][from] == 0 {
			f.cutW -= f.g.ew[e]
		}
	}
}

// fruitlessMoves is the early-exit threshold of a pass: long enough to
// climb out of the plateaus that large edges (a whole block-row of tasks)
// create, short enough that a pass on 20,000 vertices stays cheap.
func fruitlessMoves(n int) int {
	return max(100, min(n/4, 1000))
}
