package order

import (
	"math"
	"slices"
)

// classIndex groups, for one HFP iteration, the data of 𝕊's packages into
// classes: data held by exactly the same live packages (the rows of one
// block band of the 2D product, say). Two packages share either all of a
// class or none of it, so SharedData is a sum of whole classes, and a
// package with at most two classes X, Y has at most three values with
// anyone: b(X), b(Y), b(X)+b(Y). Whether some other package reaches each
// (the holder count of a class, of a pair of classes) and, for the memory
// test, its lightest such package answer P_i's best value without visiting
// its neighbours.
type classIndex struct {
	stamp []uint32 // per data: == round iff of[d] is this iteration's
	of    []int32  // per data: its class

	// per class
	rep     []int32 // a data of the class: pk[rep] are its holders
	bytes   []int64 // total bytes of its data
	head    []int32 // search cursor: holders before it are in Q
	next    []int32 // next class with the same hash of holders, -1
	light   []lightest
	lightOK []bool
	cmark   []uint32
	cstamp  uint32

	byHash map[uint64]int32 // hash of the holders → a class

	// per index k of 𝕊, for a package with two classes evaluated from the
	// counts: the two lightest packages holding both
	plight     []lightest
	pairsRound uint32
}

// lightest keeps the two lightest packages of a set (weight, then slot).
type lightest struct {
	w1, w2 int64
	s1, s2 int32
}

func noneLighter() lightest { return lightest{w1: math.MaxInt64, w2: math.MaxInt64, s1: -1, s2: -1} }

func (l *lightest) add(w int64, s int32) {
	switch {
	case w < l.w1:
		l.w2, l.s2 = l.w1, l.s1
		l.w1, l.s1 = w, s
	case w < l.w2:
		l.w2, l.s2 = w, s
	}
}

// without is the lightest weight of a package other than i, if any.
func (l *lightest) without(i int32) (int64, bool) {
	if l.s1 != i {
		return l.w1, l.s1 >= 0
	}
	return l.w2, l.s2 >= 0
}

func (ix *classIndex) init(nData int) {
	ix.stamp = make([]uint32, nData)
	ix.of = make([]int32, nData)
	ix.byHash = map[uint64]int32{}
}

// classify assigns the data of 𝕊's packages to classes. Its cost is one
// hash of each such data's holder list (and a comparison with the lists
// of the same hash), at most what one scan of each package would cost.
func (h *hfp) classify(S []int32) {
	ix := &h.ix
	ix.rep, ix.bytes, ix.head, ix.next = ix.rep[:0], ix.bytes[:0], ix.head[:0], ix.next[:0]
	ix.light, ix.lightOK, ix.cmark = ix.light[:0], ix.lightOK[:0], ix.cmark[:0]
	clear(ix.byHash)
	for _, i := range S {
		for _, d := range h.data[i] {
			if ix.stamp[d] == h.round {
				continue
			}
			ix.stamp[d] = h.round
			lst := h.pk[d]
			hs := uint64(len(lst))
			for _, s := range lst {
				hs = (hs ^ uint64(s)) * 0x9e3779b97f4a7c15
			}
			c, ok := ix.byHash[hs]
			for ok && c >= 0 && !slices.Equal(h.pk[ix.rep[c]], lst) {
				c = ix.next[c]
			}
			if !ok || c < 0 {
				c = int32(len(ix.rep))
				nxt := int32(-1)
				if first, had := ix.byHash[hs]; had {
					nxt = first
				}
				ix.byHash[hs] = c
				ix.rep = append(ix.rep, d)
				ix.bytes = append(ix.bytes, 0)
				ix.head = append(ix.head, 0)
				ix.next = append(ix.next, nxt)
				ix.light = append(ix.light, lightest{})
				ix.lightOK = append(ix.lightOK, false)
				ix.cmark = append(ix.cmark, 0)
			}
			ix.of[d] = c
			ix.bytes[c] += h.bytes[d]
		}
	}
}

// holders are the live packages holding class c, increasing slot.
func (h *hfp) holders(c int32) []int32 { return h.pk[h.ix.rep[c]] }

// classesOf lists the classes of P_i's data (each once) in buf.
func (h *hfp) classesOf(i int32, buf []int32) []int32 {
	ix := &h.ix
	ix.cstamp++
	buf = buf[:0]
	for _, d := range h.data[i] {
		c := ix.of[d]
		if ix.cmark[c] != ix.cstamp {
			ix.cmark[c] = ix.cstamp
			buf = append(buf, c)
		}
	}
	return buf
}

// fromCounts: P_i, with these classes, is evaluated from the counts.
func (h *hfp) fromCounts(cls []int32) bool {
	if len(cls) > 2 {
		return false
	}
	n := 0
	for _, c := range cls {
		n += len(h.holders(c))
	}
	return n > h.pairMin
}

// bestAll sets best[i], P_i's largest SharedData with another package (that
// fits with it when fit), for every P_i of 𝕊, and returns the maximum.
func (h *hfp) bestAll(S []int32, fit bool) int64 {
	var buf []int32
	if h.ix.pairsRound != h.round {
		h.ix.pairsRound = h.round
		h.countPairs(S)
	}
	var mx int64
	for k, i := range S {
		buf = h.classesOf(i, buf)
		var b int64
		if h.fromCounts(buf) {
			b = h.bestFew(i, k, buf, fit)
		} else {
			b = h.bestScan(i, buf, fit)
		}
		h.best[i] = b
		mx = max(mx, b)
	}
	return mx
}

// anchor orders a package's two classes: the one with fewer holders first.
func (h *hfp) anchor(cls []int32) (a, o int32) {
	a, o = cls[0], cls[1]
	if len(h.holders(o)) < len(h.holders(a)) {
		a, o = o, a
	}
	return a, o
}

// countPairs finds, for each package S[k] with two classes evaluated from
// the counts, the two lightest live packages holding both (plight[k]). The packages are grouped by their class with
// fewer holders (the anchor); each anchor's holders are visited once,
// counting in a per-class scratch the other classes they hold among those
// paired with the anchor.
func (h *hfp) countPairs(S []int32) {
	ix := &h.ix
	nc := int32(len(ix.rep))
	ix.plight = slices.Grow(ix.plight[:0], len(S))[:len(S)]
	paired := func(k int, buf []int32) ([]int32, bool) {
		buf = h.classesOf(S[k], buf)
		return buf, len(buf) == 2 && h.fromCounts(buf)
	}
	// Bucket the paired packages by anchor (a counting sort).
	start := make([]int32, nc+1)
	var buf []int32
	var ok bool
	for k := range S {
		if buf, ok = paired(k, buf); ok {
			a, _ := h.anchor(buf)
			start[a+1]++
		}
	}
	for c := range nc {
		start[c+1] += start[c]
	}
	fill := slices.Clone(start[:nc])
	byAnchor := make([]int32, start[nc]) // indices into S
	for k := range S {
		if buf, ok = paired(k, buf); ok {
			a, _ := h.anchor(buf)
			byAnchor[fill[a]] = int32(k)
			fill[a]++
		}
	}
	light := make([]lightest, nc)
	partner := make([]int32, nc) // == a+1: paired with anchor a
	for a := range nc {
		group := byAnchor[start[a]:start[a+1]]
		if len(group) == 0 {
			continue
		}
		for _, k := range group {
			buf, _ = paired(int(k), buf)
			_, o := h.anchor(buf)
			partner[o] = a + 1
			light[o] = noneLighter()
		}
		for _, j := range h.holders(a) {
			ix.cstamp++
			for _, d := range h.data[j] {
				if ix.stamp[d] != h.round {
					continue
				}
				if c := ix.of[d]; partner[c] == a+1 && ix.cmark[c] != ix.cstamp {
					ix.cmark[c] = ix.cstamp
					light[c].add(h.w[j], j)
				}
			}
		}
		for _, k := range group {
			buf, _ = paired(int(k), buf)
			_, o := h.anchor(buf)
			ix.plight[k] = light[o]
		}
	}
}

// lightestOf is class c's two lightest holders (computed once an iteration).
func (h *hfp) lightestOf(c int32) *lightest {
	ix := &h.ix
	if !ix.lightOK[c] {
		ix.lightOK[c] = true
		l := noneLighter()
		for _, j := range h.holders(c) {
			l.add(h.w[j], j)
		}
		ix.light[c] = l
	}
	return &ix.light[c]
}

// bestFew is bestScan for a package with one or two classes: a value is
// reached iff some other package holds the classes summing to it (and,
// when fit, the lightest such package fits; a package holding more of
// P_i's classes than that fits with the larger value too, so the maximum
// over the values is exact).
func (h *hfp) bestFew(i int32, k int, cls []int32, fit bool) int64 {
	ix := &h.ix
	ok := func(l *lightest, shared int64) bool {
		w, some := l.without(i)
		return some && (!fit || h.w[i]+w-shared <= h.M)
	}
	var best int64
	for _, c := range cls {
		// Without the memory test, a second holder is enough.
		if b := ix.bytes[c]; b > best && len(h.holders(c)) >= 2 && (!fit || ok(h.lightestOf(c), b)) {
			best = b
		}
	}
	if len(cls) == 2 {
		if b := ix.bytes[cls[0]] + ix.bytes[cls[1]]; b > best && ok(&ix.plight[k], b) {
			best = b
		}
	}
	return best
}

// bestScan accumulates SharedData[i][j] over every holder j of P_i's
// classes and returns the largest (among those fitting with P_i when fit).
func (h *hfp) bestScan(i int32, cls []int32, fit bool) int64 {
	h.cur++
	stamp := uint64(h.cur) << 32
	// P_i itself is entry 0, so that the inner loop needs no test for it.
	h.touched = append(h.touched[:0], i)
	h.acc = append(h.acc[:0], 0)
	h.mark[i] = stamp
	for _, c := range cls {
		b := h.ix.bytes[c]
		for _, j := range h.holders(c) {
			m := h.mark[j]
			if m&^0xffffffff != stamp {
				h.mark[j] = stamp | uint64(len(h.touched))
				h.touched = append(h.touched, j)
				h.acc = append(h.acc, b)
				continue
			}
			h.acc[uint32(m)] += b
		}
	}
	var best int64
	for k, j := range h.touched[1:] {
		if sh := h.acc[k+1]; sh > best && (!fit || h.fits(i, j, sh)) {
			best = sh
		}
	}
	return best
}

// search returns the lowest slot j ∉ Q, j ≠ i, with SharedData[i][j] ==
// target (fitting with P_i when fit), or -1. A package sharing target
// bytes with P_i holds one of P_i's classes outside the longest-listed
// ones whose bytes stay below target, so only those classes' holders are
// walked, merged in slot order from cursors that skip Q.
func (h *hfp) search(i int32, target int64, fit bool) int32 {
	ix := &h.ix
	cls := h.classesOf(i, nil)
	slices.SortFunc(cls, func(a, b int32) int { return len(h.holders(b)) - len(h.holders(a)) })
	var excluded int64
	walk := cls[:0]
	for _, c := range cls {
		if excluded+ix.bytes[c] < target {
			excluded += ix.bytes[c]
		} else {
			walk = append(walk, c)
		}
	}
	h.dcur++
	for _, d := range h.data[i] {
		h.dmark[d] = h.dcur
	}
	pos := make([]int32, len(walk))
	skipQ := func(lst []int32, p int32) int32 {
		for int(p) < len(lst) && h.inQ[lst[p]] == h.round {
			p++
		}
		return p
	}
	for k, c := range walk {
		ix.head[c] = skipQ(h.holders(c), ix.head[c])
		pos[k] = ix.head[c]
	}
	for {
		j := int32(math.MaxInt32)
		for k, c := range walk {
			if lst := h.holders(c); int(pos[k]) < len(lst) && lst[pos[k]] < j {
				j = lst[pos[k]]
			}
		}
		if j == math.MaxInt32 {
			return -1
		}
		for k, c := range walk {
			if lst := h.holders(c); int(pos[k]) < len(lst) && lst[pos[k]] == j {
				pos[k] = skipQ(lst, pos[k]+1)
			}
		}
		if j == i {
			continue
		}
		var sh int64
		for _, d := range h.data[j] {
			if h.dmark[d] == h.dcur {
				sh += h.bytes[d]
			}
		}
		if sh == target && (!fit || h.fits(i, j, sh)) {
			return j
		}
	}
}
