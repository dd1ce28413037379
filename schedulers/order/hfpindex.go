package order

import (
	"math"
	"slices"

	"github.com/memsched/memsched/internal/scratch"
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

	// per index k of 𝕊: its classes cls[start[k]:start[k+1]], and whether
	// it is evaluated from the counts (then a pair is ordered anchor first)
	start   []int32
	cls     []int32
	counted []bool

	// per index k of 𝕊, for a package with two classes evaluated from the
	// counts: the weight of the lightest other package holding both
	// (MaxInt64 if none)
	pairLight  []int64
	pairsRound uint32
	pair       pairScratch // countPairs' arrays, kept between its calls
}

// pairScratch is what countPairs sorts and counts with, per class; it is
// reused (it was garbage of the class count at every call).
type pairScratch struct {
	start, fill, byAnchor, partner []int32
	light                          []lightest
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

// other is without's weight, for a set known to hold another package.
func (l *lightest) other(i int32) int64 {
	w, _ := l.without(i)
	return w
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
		for _, d := range h.sets.of(i) {
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
	// Each package's classes, once; a pair evaluated from the counts is
	// ordered anchor (fewer holders) first.
	// Sized once: the first iteration's 𝕊 is every task.
	nd := 0
	for _, i := range S {
		nd += int(h.sets.size(i))
	}
	ix.start = append(slices.Grow(ix.start[:0], len(S)+1), 0)
	ix.cls = slices.Grow(ix.cls[:0], nd)
	ix.counted = slices.Grow(ix.counted[:0], len(S))
	for _, i := range S {
		ix.cstamp++
		first := len(ix.cls)
		for _, d := range h.sets.of(i) {
			if c := ix.of[d]; ix.cmark[c] != ix.cstamp {
				ix.cmark[c] = ix.cstamp
				ix.cls = append(ix.cls, c)
			}
		}
		own := ix.cls[first:]
		counted := false
		if len(own) <= 2 {
			n := 0
			for _, c := range own {
				n += len(h.holders(c))
			}
			counted = n > h.pairMin
		}
		if counted && len(own) == 2 && len(h.holders(own[1])) < len(h.holders(own[0])) {
			own[0], own[1] = own[1], own[0]
		}
		ix.counted = append(ix.counted, counted)
		ix.start = append(ix.start, int32(len(ix.cls)))
	}
}

// classesOf lists the classes of S[k]'s data, each once.
func (ix *classIndex) classesOf(k int) []int32 { return ix.cls[ix.start[k]:ix.start[k+1]] }

// holders are the live packages holding class c, increasing slot.
func (h *hfp) holders(c int32) []int32 { return h.pk[h.ix.rep[c]] }

// bestAll sets best[i], P_i's largest SharedData with another package (that
// fits with it when fit), for every P_i of 𝕊, and returns the maximum.
func (h *hfp) bestAll(S []int32, fit bool) int64 {
	ix := &h.ix
	if ix.pairsRound != h.round {
		ix.pairsRound = h.round
		h.countPairs(S)
	}
	var mx int64
	for k, i := range S {
		b := h.bestOf(i, k, fit)
		h.best[i] = b
		mx = max(mx, b)
	}
	return mx
}

// bestOf is P_i's (S[k]'s) best value as bestAll computes it, alone. In
// pass 2 it may count packages merged earlier in the iteration (their
// holder lists are flushed at the next one), which only raises it.
func (h *hfp) bestOf(i int32, k int, fit bool) int64 {
	if h.ix.counted[k] {
		return h.bestFew(i, k, fit)
	}
	return h.bestScan(i, h.ix.classesOf(k), fit)
}

// countPairs finds, for each package S[k] with two classes evaluated from
// the counts, the lightest other live package holding both (pairLight[k]). The
// packages are grouped by their class with fewer holders (the anchor, its
// first); each anchor's holders are visited once, keeping in a per-class
// scratch the lightest of those holding each class paired with the anchor.
func (h *hfp) countPairs(S []int32) {
	ix := &h.ix
	nc := int32(len(ix.rep))
	ix.pairLight = scratch.Resize(ix.pairLight, len(S))
	paired := func(k int) bool { return ix.counted[k] && ix.start[k+1]-ix.start[k] == 2 }
	// Bucket the paired packages by anchor (a counting sort).
	sc := &ix.pair
	sc.start = scratch.Zeroed(sc.start, int(nc)+1)
	start := sc.start
	for k := range S {
		if paired(k) {
			start[ix.classesOf(k)[0]+1]++
		}
	}
	for c := range nc {
		start[c+1] += start[c]
	}
	sc.fill = append(sc.fill[:0], start[:nc]...)
	fill := sc.fill
	sc.byAnchor = scratch.Resize(sc.byAnchor, int(start[nc])) // indices into S
	byAnchor := sc.byAnchor
	for k := range S {
		if paired(k) {
			a := ix.classesOf(k)[0]
			byAnchor[fill[a]] = int32(k)
			fill[a]++
		}
	}
	sc.light = scratch.Resize(sc.light, int(nc)) // set for a group's partners before use
	sc.partner = scratch.Zeroed(sc.partner, int(nc))
	light, partner := sc.light, sc.partner // partner[c] == a+1: paired with anchor a
	for a := range nc {
		group := byAnchor[start[a]:start[a+1]]
		if len(group) == 0 {
			continue
		}
		for _, k := range group {
			o := ix.classesOf(int(k))[1]
			partner[o] = a + 1
			light[o] = noneLighter()
		}
		for _, j := range h.holders(a) {
			ix.cstamp++
			for _, d := range h.sets.of(j) {
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
			l := light[ix.classesOf(int(k))[1]]
			w, ok := l.without(S[k])
			if !ok {
				w = math.MaxInt64
			}
			ix.pairLight[k] = w
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
func (h *hfp) bestFew(i int32, k int, fit bool) int64 {
	ix := &h.ix
	cls := ix.classesOf(k)
	fits := func(w, shared int64) bool { return !fit || h.w[i]+w-shared <= h.M }
	var best int64
	for _, c := range cls {
		// Without the memory test, a second holder is enough.
		if b := ix.bytes[c]; b > best && len(h.holders(c)) >= 2 && (!fit || fits(h.lightestOf(c).other(i), b)) {
			best = b
		}
	}
	if len(cls) == 2 {
		if b := ix.bytes[cls[0]] + ix.bytes[cls[1]]; b > best && ix.pairLight[k] != math.MaxInt64 && fits(ix.pairLight[k], b) {
			best = b
		}
	}
	return best
}

// bestScan accumulates SharedData[i][j] over every holder j of P_i's
// classes and returns the largest (among those fitting with P_i when fit).
func (h *hfp) bestScan(i int32, cls []int32, fit bool) int64 {
	// P_i itself is entry 0, so that the inner loop needs no test for it.
	h.touched = append(h.touched[:0], i)
	h.acc = append(h.acc[:0], 0)
	h.mark[i] = 0
	for _, c := range cls {
		b := h.ix.bytes[c]
		for _, j := range h.holders(c) {
			if k := h.mark[j]; int(k) < len(h.touched) && h.touched[k] == j {
				h.acc[k] += b
				continue
			}
			h.mark[j] = int32(len(h.touched))
			h.touched = append(h.touched, j)
			h.acc = append(h.acc, b)
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
func (h *hfp) search(i int32, k int, target int64, fit bool) int32 {
	ix := &h.ix
	cls := append(h.sbuf[:0], ix.classesOf(k)...)
	h.sbuf = cls
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
	for _, d := range h.sets.of(i) {
		h.dmark[d] = h.dcur
	}
	pos := scratch.Resize(h.pos, len(walk))
	h.pos = pos
	skipQ := func(lst []int32, p int32) int32 {
		for int(p) < len(lst) && h.inQ[lst[p]] == h.round {
			p++
		}
		return p
	}
	for x, c := range walk {
		ix.head[c] = skipQ(h.holders(c), ix.head[c])
		pos[x] = ix.head[c]
	}
	for {
		j := int32(math.MaxInt32)
		for x, c := range walk {
			if lst := h.holders(c); int(pos[x]) < len(lst) && lst[pos[x]] < j {
				j = lst[pos[x]]
			}
		}
		if j == math.MaxInt32 {
			return -1
		}
		for x, c := range walk {
			if lst := h.holders(c); int(pos[x]) < len(lst) && lst[pos[x]] == j {
				pos[x] = skipQ(lst, pos[x]+1)
			}
		}
		if j == i {
			continue
		}
		var sh int64
		for _, d := range h.sets.of(j) {
			if h.dmark[d] == h.dcur {
				sh += h.bytes[d]
			}
		}
		if sh == target && (!fit || h.fits(i, j, sh)) {
			return j
		}
	}
}
