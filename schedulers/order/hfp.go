package order

import (
	"iter"
	"slices"

	"github.com/memsched/memsched/internal/minheap"
	"github.com/memsched/memsched/internal/saturating"
	"github.com/memsched/memsched/internal/scratch"
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
	// MergeFit makes a phase-1 merge test the bound too: P_i joins the
	// first P_j that fits with it and shares MaxSharedData (the thesis's
	// Algorithm 5 as the research notes read it). Without it, as StarPU
	// does (HFP.c hierarchical_fair_packing at papers/ICPP2023), the bound
	// only limits the maximum: the merge loop joins P_i with the first P_j
	// whose matrice_donnees_commune[i][j] equals max_value_common_data_matrix,
	// whether their union fits or not.
	MergeFit bool
	// Packages is the number of packages at which merging stops: 1 (or 0)
	// is plain HFP, K is mHFP's first step (thesis Algorithm 8).
	Packages int
	// Count, when set, is told the elementary operations StarPU's
	// implementation of the same packing performs, once per iteration, as
	// Code reads them (HFPCodeNov2021 or HFPCodeOct2021: see there). Count
	// and Code change no decision.
	Count func(ops int)
	// Code is the version of StarPU's HFP.c whose work Count reports: the
	// zero value, HFPCodeNov2021, is the code of papers/ICPP2023.
	Code HFPCode
}

// HFPCode names a version of StarPU's HFP.c packing
// (hierarchical_fair_packing), for HFPOptions.Count: the code was rewritten
// on 23 November 2021, between the IPDPS 2022 campaign (October 2021) and
// the FGCS 2023 ones (November 2021, January 2022).
type HFPCode uint8

const (
	// HFPCodeNov2021 is the packing from 219ce987c (2021-11-23, "code pour
	// complexité linéaire de la comparaison") to papers/ICPP2023: each
	// iteration (and each restart without the bound) clears the P×P
	// matrix (P² writes), finds the minimum size (P), fills only the rows
	// of 𝕊 by a linear merge of the two sorted data arrays, testing the
	// maximum at each pair ((P_i, P_j), j ≠ i: d_i + d_j − c_ij, where c_ij
	// = |D(P_i) ∩ D(P_j)|: the merge stops when the list with the smaller
	// last handle is exhausted, one step before the union's end, plus the
	// test), then one merge loop that walks the P packages and, for each
	// row of 𝕊, its P entries (P + |𝕊|·P); each merge zeroes two rows and
	// two columns (4P) and merges the two sorted arrays then copies them
	// without duplicates (2(d_i + d_j)). A removal to P_nc walks the list
	// (P). The first iteration with FastStart (FASTER_FIRST_ITERATION,
	// 2021-11-24) clears the matrix, then walks, for each single-task
	// package, the list from its head (one test a link) to the first other
	// single-task package sharing a data, comparing every pair of their data
	// (d_i·d_j for each single-task package passed, up to the first equal
	// pair for the one found), and merges as above.
	HFPCodeNov2021 HFPCode = iota
	// HFPCodeOct2021 is the packing of c80ea6665 (2021-10-13, "Code utilisé
	// pour expé", the IPDPS 2022 campaign): the common-data matrix compares
	// every data of every pair of packages (Σ_{i<j} d_i·d_j, nested loops),
	// then after each merge ("goto debut_while") the search for the maximum
	// and the merge loop walk, for every package of 𝕊, every package j,
	// summing P_i's weight and testing each data of P_j against P_i's (d_i +
	// d_i·d_j): 2·Σ_{i∈𝕊} (P·d_i + d_i·D) per merge, with P packages holding
	// D data in all. Its O(P²) clears and O(P + d) merges, under 1 % of that,
	// are not counted. It had no fast start: with FastStart the first
	// iteration is charged its matrix only.
	HFPCodeOct2021
)

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
//     first slot of 𝒫 \ Q, j ≠ i, with SharedData[i][j] equal to the
//     iteration's MaxSharedData, so only globally best pairs merge. [U]
//     the size test is not repeated there: in phase 1 P_j need not fit with
//     P_i (MergeFit restricts j to the packages that fit).
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
// Complexity: the merges are exactly those of the printed algorithm (the
// test file checks them against a straightforward implementation), but no
// iteration builds SharedData. The rules above need only MaxSharedData and,
// for each P_i ∈ 𝕊 in slot order, the lowest slot j ∉ Q reaching it: the
// first pass computes each P_i's best value from the classes of its data
// (hfpindex.go: for the 2D product, its row band and its column band, so
// three candidate values, checked with per-class and per-pair counts and
// lightest holders, without visiting any neighbour); the second walks the
// holder lists, sorted by slot, from cursors past Q, of only the classes a
// package reaching the maximum must hold. A package with more than two
// classes, or few neighbours, is scanned (every holder of its classes),
// which is what every package cost before: O(Σ_{P∈𝕊} Σ_{d∈D(P)}
// |packages(d)|) per iteration, O(N³) on the 2D product, against about
// O(N²) per iteration now.
func HFP(w *workloads.Workload, opts HFPOptions) [][]int {
	return hfpRun(w, opts, defaultPairMin)
}

// defaultPairMin: a package of 𝕊 with at most two classes whose holder
// lists sum to more than this is evaluated from the class counts, a
// smaller one by scanning its neighbours (cheaper than its share of the
// per-pair counts). Tests vary it to check both ways against the reference.
const defaultPairMin = 16

func hfpRun(w *workloads.Workload, opts HFPOptions, pairMin int) [][]int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	K := max(opts.Packages, 1)
	h := newHFP(w, opts.Memory, opts.Flip)
	h.pairMin = pairMin
	var nc []int // P_nc
	sizeLimit := true
	firstIter := true
	all := make([]int32, m)
	for i := range all {
		all[i] = int32(i)
	}
	buckets := sizeBuckets{by: map[int32][]int32{1: all}, sizes: minheap.Heap[packageSize]{1}}
	h.onGrow = func(i int32) { buckets.add(h.size[i], i) }

	for h.nAlive > K {
		h.flush()
		S := buckets.smallest(h)

		// StarPU's cost of this iteration (Code): October's matrix now, its
		// searches once the merges are known; November's rows of 𝕊 once
		// per pass, its merge loop and merges after.
		var searchOps, rowOps int64
		nov := opts.Count != nil && opts.Code == HFPCodeNov2021
		P := int64(h.nAlive)
		if opts.Count != nil && !nov {
			opts.Count(int((h.sumD*h.sumD - h.sumD2) / 2))
			for _, i := range S {
				d := int64(h.sets.size(i))
				searchOps = saturating.Add(searchOps, saturating.Mul(2*d, int64(h.nAlive)+h.sumD))
			}
		}
		if firstIter && opts.FastStart {
			firstIter = false
			var count func(int64)
			if nov {
				opts.Count(int(saturating.Add(saturating.Mul(P, P), P))) // clear, delete_link
				count = func(n int64) { opts.Count(int(n)) }
			}
			h.fastStart(S, K, count)
			continue
		}
		firstIter = false
		if nov {
			rowOps = saturating.Add(saturating.Mul(P, P), P) // clear, minimum
			for _, i := range S {
				d := int64(h.sets.size(i))
				var c int64 // Σ_{j≠i} c_ij
				for _, x := range h.sets.of(i) {
					c += int64(len(h.pk[x]) - 1)
				}
				rowOps = saturating.Add(rowOps, saturating.Mul(P-1, d)+h.sumD-d-c)
			}
			opts.Count(int(rowOps))
		}

		// Pass 1: MaxSharedData, from each P_i's best value.
		h.round++
		h.classify(S)
		var maxShared int64
		if sizeLimit {
			maxShared = h.bestAll(S, true)
			if maxShared == 0 {
				sizeLimit = false
				if nov { // goto beggining_while_packaging_impossible: the pass again
					opts.Count(int(rowOps))
				}
			}
		}
		if !sizeLimit {
			maxShared = h.bestAll(S, false)
			if maxShared == 0 {
				if nov {
					opts.Count(int(P)) // the walk to 𝕊's packages
				}
				for _, i := range S {
					nc = h.appendTasks(nc, i)
					h.remove(i)
				}
				continue
			}
		}
		if nov { // the merge loop: every link, every entry of 𝕊's rows
			opts.Count(int(saturating.Add(P, saturating.Mul(int64(len(S)), P))))
		}

		// Pass 2: merges, in slot order, of pairs reaching maxShared.
		// P_i's argmax over 𝒫\Q cannot exceed its pass-1 best, and reaches
		// maxShared exactly at the lowest such slot outside Q.
		// Without MergeFit, a P_i whose best fitting value is below
		// maxShared may still reach it with a package it does not fit
		// with; its best value over all packages tells whether to search.
		merged := int64(0)
		fit := sizeLimit && opts.MergeFit
		for k, i := range S {
			if h.inQ[i] == h.round {
				continue
			}
			if h.best[i] != maxShared && (fit || !sizeLimit || h.bestOf(i, k, false) < maxShared) {
				continue
			}
			j := h.search(i, k, maxShared, fit)
			if j < 0 {
				continue
			}
			h.inQ[i], h.inQ[j] = h.round, h.round
			if nov {
				opts.Count(int(4*P + 2*int64(h.sets.size(i)+h.sets.size(j))))
			}
			h.merge(i, j, opts.Flip)
			merged++
			if h.nAlive == K {
				break
			}
		}
		if opts.Count != nil && !nov {
			opts.Count(int(saturating.Mul(max(merged, 1), searchOps)))
		}
	}

	var pkgs [][]int
	for i := range h.size {
		if h.alive(int32(i)) {
			pkgs = append(pkgs, h.appendTasks(make([]int, 0, h.size[i]), int32(i)))
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
	chains // each slot's package's ordered tasks
	// D(P), increasing data id; with flip, also which of the two
	// packages its last merge joined held each data (the halves flip
	// compares)
	sets   packageSets
	tasks  []workloads.Task
	ends   [4][]int32 // endData's results, reused
	nAlive int        // packages alive (see alive)
	w      []int64    // weight: bytes of D(P_i)

	// pk[d] holds the slots of the live packages holding d, increasing.
	// Merges reach it at the next iteration's flush: within an iteration
	// only the packages of Q change, and every search skips them.
	pk      [][]int32
	owner   []int32 // the slot a package merged into; itself while alive, -1 in P_nc
	dirty   []int32 // data whose holders changed since the last flush
	isDirty []bool

	// Σ|D(P)| and Σ|D(P)|² over the live packages, for Count
	sumD, sumD2 int64

	inQ   []uint32 // == round: merged this iteration (the set Q)
	round uint32
	best  []int64 // per slot of 𝕊: its best SharedData this iteration

	// A scan numbers the packages it meets: mark[j] = k is j's place in
	// touched and acc, where acc[k] accumulates SharedData, valid iff
	// touched[k] == j (a sparse set: nothing to clear between scans). The
	// per-slot array visited at random is 4 bytes a slot; the rest is
	// small and dense.
	mark    []int32
	touched []int32
	acc     []int64

	// data marks for set operations
	dmark []uint32
	dhalf []uint8 // halvesCommon's: per data marked, its half in P_j
	dcur  uint32

	ix      classIndex
	pairMin int
	sbuf    []int32 // search's classes
	pos     []int32 // search's cursors

	onGrow func(slot int32)
}

func newHFP(w *workloads.Workload, memory int64, flip bool) *hfp {
	m := len(w.Tasks)
	in := inputCSR(w)
	h := &hfp{
		M:       memory,
		bytes:   dataBytes(w),
		sets:    newPackageSets(in, flip),
		tasks:   w.Tasks,
		nAlive:  m,
		pk:      readersOf(len(w.Data), m, in.row),
		owner:   make([]int32, m),
		isDirty: make([]bool, len(w.Data)),
		best:    make([]int64, m),
		inQ:     make([]uint32, m),
		w:       make([]int64, m),
		mark:    make([]int32, m),
		dmark:   make([]uint32, len(w.Data)),
		dhalf:   make([]uint8, len(w.Data)),
	}
	h.ix.init(len(w.Data))
	h.chains.init(m)
	for i := range int32(m) {
		h.owner[i] = i
		d := int64(h.sets.size(i))
		h.sumD += d
		h.sumD2 += d * d
		for _, d := range h.sets.of(i) {
			h.w[i] += h.bytes[d]
		}
	}
	return h
}

// alive tells whether slot i holds a package: one merged into another or
// removed to P_nc has no task left.
func (h *hfp) alive(i int32) bool { return h.size[i] > 0 }

// fits is the phase-1 test weight(D(P_i) ∪ D(P_j)) <= M.
func (h *hfp) fits(i, j int32, shared int64) bool {
	return h.w[i]+h.w[j]-shared <= h.M
}

// flush applies the last iteration's merges and removals to the holder
// lists of the data they touched: a merged slot becomes the slot it merged
// into, a removed one disappears, and the list is sorted again.
func (h *hfp) flush() {
	for _, d := range h.dirty {
		h.isDirty[d] = false
		lst := h.pk[d]
		out := lst[:0]
		for _, s := range lst {
			if o := h.owner[s]; o >= 0 {
				out = append(out, o)
			}
		}
		slices.Sort(out)
		h.pk[d] = slices.Compact(out)
	}
	h.dirty = h.dirty[:0]
}

func (h *hfp) touch(data []int32) {
	for _, d := range data {
		if !h.isDirty[d] {
			h.isDirty[d] = true
			h.dirty = append(h.dirty, d)
		}
	}
}

// fastStart pairs single-task packages (upstream FASTER_FIRST_ITERATION):
// each P_i with the lowest other single-task slot sharing a data. The
// holder lists are sorted, so the first single-task holder after a cursor
// is each list's candidate; a package that grew never is one again, so the
// cursors pass them for good.
//
// count, when set, is told HFPCodeNov2021's work (see there): the first
// iteration has every slot alive, so StarPU's link of slot s is the s-th
// and a walk from the head to j tests j+1 links; the single-task packages
// it passes are summed with a Fenwick tree over the slots.
func (h *hfp) fastStart(S []int32, K int, count func(int64)) {
	single := func(c int32) bool { return h.size[c] == 1 }
	var fw fenwick
	var singles int64        // Σ d over the single-task packages
	links := int64(h.nAlive) // StarPU's list, merged links included, until HFP_delete_link
	if count != nil {
		fw = make(fenwick, len(h.size)+1)
		for _, i := range S {
			if h.alive(i) && single(i) {
				d := int64(h.sets.size(i))
				fw.add(i, d)
				singles += d
			}
		}
	}
	head := make([]int32, len(h.pk))
	for _, i := range S {
		if count != nil {
			count(1) // the link's size test
		}
		if !h.alive(i) || !single(i) {
			continue // merged earlier in this pass
		}
		j := int32(-1)
		for _, d := range h.sets.of(i) {
			lst := h.pk[d]
			p := head[d]
			for int(p) < len(lst) && !single(lst[p]) {
				p++
			}
			head[d] = p
			for int(p) < len(lst) && (lst[p] == i || !single(lst[p])) {
				p++
			}
			if int(p) < len(lst) && (j < 0 || lst[p] < j) {
				j = lst[p]
			}
		}
		if count != nil {
			di := int64(h.sets.size(i))
			if j < 0 { // the whole list, every other single-task package
				count(saturating.Add(links, saturating.Mul(di, singles-di)))
			} else {
				passed := fw.prefix(j) // single-task slots below j
				if i < j {
					passed -= di
				}
				count(saturating.Add(int64(j)+1+firstCommon(h.sets.of(i), h.sets.of(j)), saturating.Mul(di, passed)))
				dj := int64(h.sets.size(j))
				count(2 * (di + dj)) // the arrays' merge and copy
				fw.add(i, -di)
				fw.add(j, -dj)
				singles -= di + dj
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

// firstCommon is the number of comparisons StarPU's nested loops (every
// data of a, for each every data of b) make up to the first equal pair.
func firstCommon(a, b []int32) int64 {
	for x, u := range a {
		for y, v := range b {
			if u == v {
				return int64(x*len(b) + y + 1)
			}
		}
	}
	return int64(len(a) * len(b))
}

// fenwick sums int64 weights over slots (1-based inside).
type fenwick []int64

func (f fenwick) add(slot int32, v int64) {
	for k := int(slot) + 1; k < len(f); k += k & -k {
		f[k] += v
	}
}

// prefix is the sum over the slots below slot.
func (f fenwick) prefix(slot int32) int64 {
	var s int64
	for k := int(slot); k > 0; k -= k & -k {
		s += f[k]
	}
	return s
}

// merge appends P_j to P_i (after the optional flip) and frees slot j.
func (h *hfp) merge(i, j int32, flip bool) {
	if flip {
		h.flip(i, j)
	}
	// Mark D(P_i) to weigh the data D(P_j) shares with it.
	h.dcur++
	for _, d := range h.sets.of(i) {
		h.dmark[d] = h.dcur
	}
	var shared int64
	for _, d := range h.sets.of(j) {
		if h.dmark[d] == h.dcur {
			shared += h.bytes[d]
		}
	}
	h.touch(h.sets.of(j))
	h.uncount(i)
	h.uncount(j)
	h.w[i] += h.w[j] - shared
	h.sets.union(i, j)
	h.count(i)
	h.concat(i, j)
	h.owner[j] = i
	h.nAlive--
	if h.onGrow != nil {
		h.onGrow(i)
	}
}

// remove drops package i (moved to P_nc).
func (h *hfp) remove(i int32) {
	h.touch(h.sets.of(i))
	h.uncount(i)
	h.sets.drop(i)
	h.size[i] = 0
	h.owner[i] = -1
	h.nAlive--
}

func (h *hfp) count(i int32) {
	d := int64(h.sets.size(i))
	h.sumD += d
	h.sumD2 += d * d
}

func (h *hfp) uncount(i int32) {
	d := int64(h.sets.size(i))
	h.sumD -= d
	h.sumD2 -= d * d
}

// sizeBuckets files the slots by the size their package reached, to find
// 𝕊, the smallest live packages: a slot's entry is stale once its package
// grew or died, and sizes only grow, so the minimum never decreases.
type sizeBuckets struct {
	by    map[int32][]int32 // size → slots whose package reached it
	sizes minheap.Heap[packageSize]
}

type packageSize int32

func (a packageSize) Before(b packageSize) bool { return a < b }

func (b *sizeBuckets) add(size, slot int32) {
	lst, ok := b.by[size]
	if !ok {
		b.sizes.Push(packageSize(size))
	}
	b.by[size] = scratch.Append(lst, slot)
}

// smallest returns 𝕊 in slot order (the package count must be positive).
func (b *sizeBuckets) smallest(h *hfp) []int32 {
	for {
		size := int32(b.sizes[0])
		live := b.by[size][:0]
		for _, i := range b.by[size] {
			if h.size[i] == size { // alive (sizes are at least 1) and not grown since
				live = append(live, i)
			}
		}
		if len(live) > 0 {
			b.by[size] = live
			slices.Sort(live)
			return live
		}
		delete(b.by, size)
		b.sizes.Pop()
	}
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
//
// A package's order is the one its last merge built, so a package within M
// splits into the two packages that merge joined (its halves). Packages
// within M were within M at their last merge too (weights only grow),
// when their sets recorded their halves.
func (h *hfp) flip(i, j int32) {
	if h.size[i] <= 1 || h.size[j] <= 1 {
		return
	}
	overI, overJ := h.w[i] > h.M, h.w[j] > h.M
	switch {
	case overI && !overJ:
		a := h.common(h.endData(i, false, 0), h.sets.of(j))
		b := h.common(h.endData(i, true, 0), h.sets.of(j))
		if a > b {
			h.reverse(i)
		}
	case !overI && overJ:
		a := h.common(h.sets.of(i), h.endData(j, false, 0))
		b := h.common(h.sets.of(i), h.endData(j, true, 0))
		if b > a {
			h.reverse(j)
		}
	default:
		var c11, c12, c21, c22 int
		if overI {
			si, ei := h.endData(i, false, 0), h.endData(i, true, 1)
			sj, ej := h.endData(j, false, 2), h.endData(j, true, 3)
			c11, c12 = h.common(si, sj), h.common(si, ej)
			c21, c22 = h.common(ei, sj), h.common(ei, ej)
		} else {
			c11, c12, c21, c22 = h.halvesCommon(i, j)
		}
		mx := max(c11, c12, c21, c22)
		switch mx {
		case c12:
			h.reverse(i)
			h.reverse(j)
		case c22:
			h.reverse(j)
		case c11:
			h.reverse(i)
		}
	}
}

// endData is the input set of the longest prefix (suffix when fromEnd) of
// P_i's tasks whose inputs weigh <= M; the first task is always taken and
// the walk stops at the first task that does not fit. It is written in
// ends[buf], valid until the next call with buf.
func (h *hfp) endData(i int32, fromEnd bool, buf int) []int32 {
	h.dcur++
	set := h.ends[buf][:0]
	var wsum int64
	k := 0
	for t := range h.walk(i, fromEnd) {
		var add int64
		in := h.tasks[t].Inputs
		for x, d := range in {
			if h.dmark[d] != h.dcur && !slices.Contains(in[:x], d) { // a task may read a data twice
				add += h.bytes[d]
			}
		}
		if k > 0 && wsum+add > h.M {
			break
		}
		for _, d := range in {
			if h.dmark[d] != h.dcur {
				h.dmark[d] = h.dcur
				set = append(set, int32(d))
			}
		}
		wsum += add
		k++
	}
	h.ends[buf] = set
	return set
}

// halvesCommon counts the data common to each half of P_i (its start
// s_i, its end e_i) and each half of P_j: c11 = |s_i ∩ s_j|, c12 = |s_i ∩
// e_j|, c21 = |e_i ∩ s_j|, c22 = |e_i ∩ e_j|.
func (h *hfp) halvesCommon(i, j int32) (c11, c12, c21, c22 int) {
	h.dcur++
	hj := h.sets.halfOf(j)
	for k, d := range h.sets.of(j) {
		h.dmark[d] = h.dcur
		h.dhalf[d] = hj[k]
	}
	hi := h.sets.halfOf(i)
	for k, d := range h.sets.of(i) {
		if h.dmark[d] != h.dcur {
			continue
		}
		a, b := hi[k], h.dhalf[d]
		c11 += b2i(a&inFirst != 0 && b&inFirst != 0)
		c12 += b2i(a&inFirst != 0 && b&inSecond != 0)
		c21 += b2i(a&inSecond != 0 && b&inFirst != 0)
		c22 += b2i(a&inSecond != 0 && b&inSecond != 0)
	}
	return c11, c12, c21, c22
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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

// chains hold each slot's package as a doubly linked list of tasks whose
// links are unordered (nb[t] holds t's neighbours, -1 at an end), so that
// reversing a package swaps its ends and P_i ++ P_j links two ends, both
// in O(1) however long the packages.
type chains struct {
	nb         [][2]int32 // per task
	head, tail []int32    // per slot: its package's first and last task
	size       []int32    // per slot: its package's task count
}

func (c *chains) init(m int) {
	c.nb = make([][2]int32, m)
	c.head = make([]int32, m)
	c.tail = make([]int32, m)
	c.size = make([]int32, m)
	for t := range int32(m) {
		c.nb[t] = [2]int32{-1, -1}
		c.head[t], c.tail[t], c.size[t] = t, t, 1
	}
}

func (c *chains) reverse(i int32) { c.head[i], c.tail[i] = c.tail[i], c.head[i] }

// concat appends P_j's tasks to P_i's.
func (c *chains) concat(i, j int32) {
	c.link(c.tail[i], c.head[j])
	c.link(c.head[j], c.tail[i])
	c.tail[i] = c.tail[j]
	c.size[i] += c.size[j]
	c.size[j] = 0
}

// link sets a free end of task a's links to b.
func (c *chains) link(a, b int32) {
	if c.nb[a][0] < 0 {
		c.nb[a][0] = b
	} else {
		c.nb[a][1] = b
	}
}

// walk yields P_i's tasks from its first (last when fromEnd).
func (c *chains) walk(i int32, fromEnd bool) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		prev, t := int32(-1), c.head[i]
		if fromEnd {
			t = c.tail[i]
		}
		for t >= 0 && yield(t) {
			next := c.nb[t][0]
			if next == prev {
				next = c.nb[t][1]
			}
			prev, t = t, next
		}
	}
}

func (c *chains) appendTasks(out []int, i int32) []int {
	for t := range c.walk(i, false) {
		out = append(out, int(t))
	}
	return out
}
