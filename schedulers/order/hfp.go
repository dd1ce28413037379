package order

import (
	"slices"

	"github.com/memsched/memsched/workloads"
)

// HFPOptions selects the HFP variant.
type HFPOptions struct {
	// Memory is the phase-1 bound M in bytes: a package is built only while
	// the total size of its distinct inputs is <= Memory. Memory <= 0 lets
	// nothing fit, so HFP starts directly in phase 2.
	Memory int64
	// Flip enables package flipping (thesis §3.3.5, upstream ORDER_U).
	Flip bool
	// FastStart replaces the first iteration by the cheap pairing of thesis
	// §3.5.7 (upstream FASTER_FIRST_ITERATION).
	FastStart bool
	// Packages is the number of packages at which merging stops: 1 (or 0)
	// is plain HFP, K is mHFP's first step (thesis Algorithm 8).
	Packages int
	// Count, when set, is told the comparisons StarPU's implementation of
	// the same packing makes (HFP.c HFP_do_schedule at c80ea6665, October
	// 2021), once per iteration: the common-data matrix compares the sorted
	// data arrays of every pair of packages (Σ_{i<j} d_i·d_j), then after
	// each merge ("goto debut_while") the search for the maximum and the
	// merge loop walk, for every package of 𝕊, every package j, summing
	// P_i's weight and testing each data of P_j against P_i's
	// (d_i + d_i·d_j): 2·Σ_{i∈𝕊} (P·d_i + d_i·D) per merge, with P
	// packages holding D data in all.
	Count func(ops int)
}

// HFP runs Hierarchical Fair Packing (thesis Algorithm 5) and returns the
// packages, each an ordered task list. With Packages = 1 the single package
// is HFP's schedule.
//
// The rules, as the research notes read the thesis ([U]: as upstream
// StarPU HFP.c does where the thesis is silent):
//
//   - Packages live in a list ordered by "slot": package P_i initially holds
//     task i in slot i; a merge P_i ← P_i ++ P_j keeps slot i and frees slot
//     j ([U] the linked list keeps P_i's link).
//   - Each iteration takes 𝕊, the packages with the fewest tasks, in slot
//     order. SharedData[i][j] is the total bytes of D(P_i) ∩ D(P_j).
//   - Phase 1 (SizeLimit): MaxSharedData is the maximum over P_i ∈ 𝕊,
//     P_j ∈ 𝒫 with weight(D(P_i) ∪ D(P_j)) <= Memory. If it is 0, phase 2
//     starts in the same iteration, for good.
//   - Phase 2: MaxSharedData is the maximum over all P_i ∈ 𝕊, P_j ∈ 𝒫. If
//     it is 0 the packages of 𝕊 share nothing: they are appended, in slot
//     order, to P_nc and removed.
//   - Merging: for P_i ∈ 𝕊 in slot order, skipping packages already merged
//     this iteration (the set Q, which P_i itself may belong to), j is the
//     first slot (argmax ties → lowest slot) of 𝒫 \ Q, j ≠ i, maximising
//     SharedData[i][j] among the packages that fit with P_i (phase 1; the
//     size test is inside the argmax) or among all (phase 2). P_i and P_j
//     merge iff SharedData[i][j] equals the iteration's MaxSharedData, so
//     only globally best pairs merge.
//   - Stop: the loop runs while more than Packages packages remain, and an
//     iteration stops as soon as Packages packages remain ([U]).
//   - P_nc (tasks sharing nothing with the rest) is appended to the first
//     remaining package in slot order ([U]; with Packages = 1 it is the
//     thesis's "last package"). If no package remains, P_nc is the package.
//     If fewer than min(Packages, m) packages remain (P_nc removed some),
//     empty packages are appended so that Balance can fill them.
//   - Flip (thesis §3.3.5, [U] rules): see flip.
//   - FastStart ([U]): the first iteration merges each single-task package,
//     in slot order, with the first other single-task package (slot order)
//     sharing at least one data, without the Memory test and without
//     searching the maximum.
//
// Complexity: instead of the m×m SharedData matrix of the printed
// algorithm, each package of 𝕊 finds its neighbours by walking the packages
// that hold each of its data (an incrementally maintained data → packages
// index), so an iteration costs O(Σ_{P∈𝕊} Σ_{d∈D(P)} |packages(d)|). The
// merges are exactly those of the printed algorithm (the test file checks
// it against a straightforward implementation).
func HFP(w *workloads.Workload, opts HFPOptions) [][]int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	K := max(opts.Packages, 1)
	h := newHFP(w, opts.Memory)
	var nc []int // P_nc
	sizeLimit := true
	firstIter := true
	minSize := 1
	buckets := make([][]int32, m+1) // size → slots that reached that size
	buckets[1] = make([]int32, m)
	for i := range buckets[1] {
		buckets[1][i] = int32(i)
	}
	h.onGrow = func(i int32) {
		s := len(h.tasks[i])
		buckets[s] = append(buckets[s], i)
	}

	for h.nAlive > K {
		// 𝕊: the smallest packages, in slot order. Sizes only grow, so
		// the minimum never decreases.
		var S []int32
		for {
			b := buckets[minSize][:0]
			for _, i := range buckets[minSize] {
				if h.alive[i] && len(h.tasks[i]) == minSize {
					b = append(b, i)
				}
			}
			buckets[minSize] = b
			if len(b) > 0 {
				slices.Sort(b)
				S = b
				break
			}
			minSize++
		}

		// StarPU's cost of this iteration: its matrix now, its searches
		// once the merges are known.
		var sumD, sumD2, pAlive, searchOps int64
		if opts.Count != nil {
			for i, ok := range h.alive {
				if ok {
					d := int64(len(h.data[i]))
					sumD += d
					sumD2 += d * d
					pAlive++
				}
			}
			opts.Count(int((sumD*sumD - sumD2) / 2))
			for _, i := range S {
				d := int64(len(h.data[i]))
				searchOps += 2 * (pAlive*d + d*sumD)
			}
		}
		if firstIter && opts.FastStart {
			firstIter = false
			h.fastStart(S, K)
			continue
		}
		firstIter = false
		merged := int64(0)

		// Pass 1: every SharedData[i][·] for P_i ∈ 𝕊, keeping per i the best
		// value (and its lowest slot) among fitting pairs and among all.
		var maxFit, maxAny int64
		for _, i := range S {
			h.scan(i)
			var bf, ba int64
			cf, ca := int32(-1), int32(-1)
			for k, j := range h.touched[1:] {
				sh := h.acc[k+1]
				if sh > ba || (sh == ba && sh > 0 && j < ca) {
					ba, ca = sh, j
				}
				if (sh > bf || (sh == bf && sh > 0 && j < cf)) && h.fits(i, j, sh) {
					bf, cf = sh, j
				}
			}
			h.bestFit[i], h.candFit[i] = bf, cf
			h.bestAny[i], h.candAny[i] = ba, ca
			maxFit = max(maxFit, bf)
			maxAny = max(maxAny, ba)
		}

		var maxShared int64
		if sizeLimit {
			maxShared = maxFit
			if maxShared == 0 {
				sizeLimit = false
			}
		}
		if !sizeLimit {
			maxShared = maxAny
			if maxShared == 0 {
				for _, i := range S {
					nc = append(nc, h.tasks[i]...)
					h.remove(i)
				}
				continue
			}
		}

		// Pass 2: merges, in slot order, of pairs reaching maxShared.
		h.round++
		for _, i := range S {
			if h.inQ[i] == h.round {
				continue
			}
			best, j := h.bestFit[i], h.candFit[i]
			if !sizeLimit {
				best, j = h.bestAny[i], h.candAny[i]
			}
			if best != maxShared {
				continue // P_i's argmax over 𝒫\Q cannot exceed its pass-1 best
			}
			if h.inQ[j] == h.round {
				// The pass-1 choice was taken: rescan. Packages outside Q
				// are unchanged since pass 1, so their SharedData still hold.
				j = h.firstReaching(i, maxShared, sizeLimit)
				if j < 0 {
					continue
				}
			}
			h.inQ[i], h.inQ[j] = h.round, h.round
			h.merge(i, j, opts.Flip)
			merged++
			if h.nAlive == K {
				break
			}
		}
		if opts.Count != nil {
			opts.Count(int(max(merged, 1) * searchOps))
		}
	}

	var pkgs [][]int
	for i := range h.tasks {
		if h.alive[i] {
			pkgs = append(pkgs, h.tasks[i])
		}
	}
	if len(nc) > 0 {
		if len(pkgs) == 0 {
			pkgs = append(pkgs, nc)
		} else {
			pkgs[0] = append(pkgs[0], nc...)
		}
	}
	for len(pkgs) < min(K, m) {
		pkgs = append(pkgs, []int{})
	}
	return pkgs
}

// hfp is the package state of a fast HFP run; packages are indexed by slot.
type hfp struct {
	M      int64
	bytes  []int64
	tasks  [][]int   // ordered tasks of each slot's package
	split  []int     // |P_i| before P_i's last merge (flip halves)
	data   [][]int32 // D(P), increasing data id
	taskIn [][]int32 // each task's own inputs (never modified)
	alive  []bool
	nAlive int
	pk     [][]int32 // data → slots of the live packages holding it

	// pass-1 results per slot
	bestFit, bestAny []int64
	candFit, candAny []int32

	inQ   []uint32 // == round: merged this iteration (the set Q)
	round uint32

	// w[j] is the weight (bytes of D(P_j)). A scan numbers the packages
	// it meets: mark[j] = cur<<32 | k (valid iff its high half is cur)
	// gives j's place k in touched and acc, where acc[k] accumulates
	// SharedData. The per-slot array visited at random is 8 bytes a slot
	// and the sums stay in a small dense array, which keeps a scan (the
	// whole cost of HFP, one visit per shared datum) in cache.
	w       []int64
	mark    []uint64
	cur     uint32
	touched []int32
	acc     []int64

	// data marks for set operations
	dmark []uint32
	dcur  uint32

	onGrow func(slot int32)
}

func newHFP(w *workloads.Workload, memory int64) *hfp {
	m := len(w.Tasks)
	in := inputSets(w)
	h := &hfp{
		M:       memory,
		bytes:   dataBytes(w),
		tasks:   make([][]int, m),
		split:   make([]int, m),
		data:    slices.Clone(in), // merges replace entries, never the arrays
		taskIn:  in,
		alive:   make([]bool, m),
		nAlive:  m,
		pk:      readers(len(w.Data), in),
		bestFit: make([]int64, m),
		bestAny: make([]int64, m),
		candFit: make([]int32, m),
		candAny: make([]int32, m),
		inQ:     make([]uint32, m),
		w:       make([]int64, m),
		mark:    make([]uint64, m),
		dmark:   make([]uint32, len(w.Data)),
	}
	for i := range h.tasks {
		h.tasks[i] = []int{i}
		h.alive[i] = true
		for _, d := range in[i] {
			h.w[i] += h.bytes[d]
		}
	}
	return h
}

// fits is the phase-1 test weight(D(P_i) ∪ D(P_j)) <= M.
func (h *hfp) fits(i, j int32, shared int64) bool {
	return h.w[i]+h.w[j]-shared <= h.M
}

// scan lists in touched[1:] every live package j ≠ i sharing a data with
// P_i, in the order met, with acc[k] = SharedData[i][touched[k]]. P_i itself
// is entry 0, so that the inner loop needs no test for it.
func (h *hfp) scan(i int32) {
	h.cur++
	stamp := uint64(h.cur) << 32
	h.touched = append(h.touched[:0], i)
	h.acc = append(h.acc[:0], 0)
	h.mark[i] = stamp
	for _, d := range h.data[i] {
		b := h.bytes[d]
		for _, j := range h.pk[d] {
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
}

// firstReaching is the lowest slot j ∉ Q, j ≠ i, with SharedData[i][j] ==
// target (and fitting with P_i in phase 1), or -1.
func (h *hfp) firstReaching(i int32, target int64, sizeLimit bool) int32 {
	h.scan(i)
	best := int32(-1)
	for k, j := range h.touched[1:] {
		sh := h.acc[k+1]
		if sh != target || h.inQ[j] == h.round || (best >= 0 && j > best) {
			continue
		}
		if sizeLimit && !h.fits(i, j, sh) {
			continue
		}
		best = j
	}
	return best
}

// fastStart pairs single-task packages (upstream FASTER_FIRST_ITERATION).
func (h *hfp) fastStart(S []int32, K int) {
	for _, i := range S {
		if !h.alive[i] || len(h.tasks[i]) != 1 {
			continue // merged earlier in this pass
		}
		j := int32(-1)
		for _, d := range h.data[i] {
			for _, c := range h.pk[d] {
				if c != i && len(h.tasks[c]) == 1 && (j < 0 || c < j) {
					j = c
				}
			}
		}
		if j < 0 {
			continue
		}
		h.merge(i, j, false) // single tasks are never flipped anyway
		if h.nAlive == K {
			return
		}
	}
}

// merge appends P_j to P_i (after the optional flip) and frees slot j.
func (h *hfp) merge(i, j int32, flip bool) {
	if flip {
		h.flip(i, j)
	}
	// Mark D(P_i) to split D(P_j) into shared and new data.
	h.dcur++
	for _, d := range h.data[i] {
		h.dmark[d] = h.dcur
	}
	var shared int64
	for _, d := range h.data[j] {
		lst := h.pk[d]
		k := slices.Index(lst, j)
		if h.dmark[d] == h.dcur {
			shared += h.bytes[d]
			lst[k] = lst[len(lst)-1]
			h.pk[d] = lst[:len(lst)-1]
		} else {
			lst[k] = i
		}
	}
	h.data[i] = unionSorted(h.data[i], h.data[j])
	h.w[i] += h.w[j] - shared
	h.split[i] = len(h.tasks[i])
	h.tasks[i] = append(h.tasks[i], h.tasks[j]...)
	h.tasks[j], h.data[j] = nil, nil
	h.alive[j] = false
	h.nAlive--
	if h.onGrow != nil {
		h.onGrow(i)
	}
}

// remove drops package i (moved to P_nc) from the index.
func (h *hfp) remove(i int32) {
	for _, d := range h.data[i] {
		lst := h.pk[d]
		k := slices.Index(lst, i)
		lst[k] = lst[len(lst)-1]
		h.pk[d] = lst[:len(lst)-1]
	}
	h.tasks[i], h.data[i] = nil, nil
	h.alive[i] = false
	h.nAlive--
}

func unionSorted(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	x, y := 0, 0
	for x < len(a) && y < len(b) {
		switch {
		case a[x] == b[y]:
			out = append(out, a[x])
			x++
			y++
		case a[x] < b[y]:
			out = append(out, a[x])
			x++
		default:
			out = append(out, b[y])
			y++
		}
	}
	out = append(out, a[x:]...)
	return append(out, b[y:]...)
}

// flip reverses P_i and/or P_j before P_i ++ P_j so that the two most
// data-sharing ends meet (thesis §3.3.5), with upstream's rules [U]:
//
//   - only when both packages hold more than one task;
//   - the start (end) of a package whose weight exceeds M is its longest
//     prefix (suffix) whose inputs weigh <= M, the first (last) task always
//     included; a package within M is split at its last merge instead (its
//     whole input set would fit, so start and end would be equal);
//   - if exactly one package exceeds M, only that one may be reversed, the
//     other counts as a whole: P_i is reversed iff its start shares strictly
//     more with P_j than its end does; P_j iff its end shares strictly more
//     with P_i than its start does;
//   - otherwise, with c(x,y) the number of distinct common data of the two
//     sub-packages and max the largest of the four: max == c(start_i,
//     end_j) reverses both, else max == c(end_i, end_j) reverses P_j, else
//     max == c(start_i, start_j) reverses P_i, else (only c(end_i, start_j)
//     is maximal) nothing is reversed.
//
// Shared data are counted, not weighed, as in the thesis text and upstream.
func (h *hfp) flip(i, j int32) {
	ti, tj := h.tasks[i], h.tasks[j]
	if len(ti) <= 1 || len(tj) <= 1 {
		return
	}
	overI, overJ := h.w[i] > h.M, h.w[j] > h.M
	switch {
	case overI && !overJ:
		a := h.common(h.endData(ti, false), h.data[j])
		b := h.common(h.endData(ti, true), h.data[j])
		if a > b {
			slices.Reverse(ti)
		}
	case !overI && overJ:
		a := h.common(h.data[i], h.endData(tj, false))
		b := h.common(h.data[i], h.endData(tj, true))
		if b > a {
			slices.Reverse(tj)
		}
	default:
		var si, ei, sj, ej []int32
		if overI {
			si, ei = h.endData(ti, false), h.endData(ti, true)
			sj, ej = h.endData(tj, false), h.endData(tj, true)
		} else {
			si, ei = h.taskData(ti[:h.split[i]]), h.taskData(ti[h.split[i]:])
			sj, ej = h.taskData(tj[:h.split[j]]), h.taskData(tj[h.split[j]:])
		}
		c11, c12 := h.common(si, sj), h.common(si, ej)
		c21, c22 := h.common(ei, sj), h.common(ei, ej)
		mx := max(c11, c12, c21, c22)
		switch mx {
		case c12:
			slices.Reverse(ti)
			slices.Reverse(tj)
		case c22:
			slices.Reverse(tj)
		case c11:
			slices.Reverse(ti)
		}
	}
}

// endData is the input set of the longest prefix (suffix when fromEnd) of
// tasks whose inputs weigh <= M; the first task is always taken and the walk
// stops at the first task that does not fit.
func (h *hfp) endData(tasks []int, fromEnd bool) []int32 {
	h.dcur++
	var set []int32
	var wsum int64
	for k := range tasks {
		t := tasks[k]
		if fromEnd {
			t = tasks[len(tasks)-1-k]
		}
		var add int64
		for _, d := range h.taskIn[t] {
			if h.dmark[d] != h.dcur {
				add += h.bytes[d]
			}
		}
		if k > 0 && wsum+add > h.M {
			break
		}
		for _, d := range h.taskIn[t] {
			if h.dmark[d] != h.dcur {
				h.dmark[d] = h.dcur
				set = append(set, d)
			}
		}
		wsum += add
	}
	return set
}

// taskData is the union of the inputs of tasks.
func (h *hfp) taskData(tasks []int) []int32 {
	h.dcur++
	var set []int32
	for _, t := range tasks {
		for _, d := range h.taskIn[t] {
			if h.dmark[d] != h.dcur {
				h.dmark[d] = h.dcur
				set = append(set, d)
			}
		}
	}
	return set
}

// common counts the data of a also in b.
func (h *hfp) common(a, b []int32) int {
	h.dcur++
	for _, d := range b {
		h.dmark[d] = h.dcur
	}
	n := 0
	for _, d := range a {
		if h.dmark[d] == h.dcur {
			n++
		}
	}
	return n
}
