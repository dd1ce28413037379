package schedulers

import (
	"slices"

	"github.com/memsched/memsched/workloads"
)

// belady is Belady's rule over a plan (thesis Theorem 1): evict the
// candidate whose next use, in the order the worker will run its tasks
// (pipeline, buffer, then its remaining plan), is the furthest; candidates
// never used again come first, least recently used first (the candidates'
// order). Among candidates first used by the same task, the one that comes
// later in its inputs is the further.
//
// Rather than walking the remaining plan at every eviction, it keeps per
// worker and data the positions in the worker's list of the tasks reading
// the data, ascending, with a cursor past those already taken: taking tasks
// only moves cursors forward, so an eviction costs the pipeline and buffer
// plus amortised O(1) per candidate.
type belady struct {
	w     *workloads.Workload
	lists *Lists
	occ   [][][]int32 // per worker, per data: positions of the tasks reading it
	cur   [][]int32   // per worker, per data: first entry of occ that may remain
	gen   [][]uint32  // per worker, per data: the list generation occ describes
	epoch []uint32    // per worker: its list generation (a steal replaces the list)
	mark  []uint32    // per data: == stamp when a candidate of this eviction
	count []int32     // per data: index's scratch
	first []use       // per candidate data: its first use
	seq   []int32     // index's scratch, shared by the workers' first indexes (newBelady drops it)
	stamp uint32
}

// use is a position in the worker's upcoming task sequence: the task's
// rank and the index of the data among its inputs.
type use struct{ rank, input int }

func (a use) after(b use) bool { return a.rank > b.rank || (a.rank == b.rank && a.input > b.input) }

func newBelady(w *workloads.Workload, lists *Lists) *belady {
	k, nd := len(lists.lists), len(w.Data)
	b := &belady{w: w, lists: lists, occ: make([][][]int32, k), cur: make([][]int32, k), gen: make([][]uint32, k),
		epoch: make([]uint32, k), mark: make([]uint32, nd), count: make([]int32, nd), first: make([]use, nd)}
	for wk := range k {
		b.occ[wk] = make([][]int32, nd)
		b.cur[wk] = make([]int32, nd)
		b.gen[wk] = make([]uint32, nd)
		b.index(wk)
	}
	b.seq = nil
	return b
}

// index records the positions of a worker's list, forgetting the previous
// list (after a steal gave it a new one). The positions are counted first,
// then cut from one array: appended one by one, a million tasks' would
// leave copies twice their size. The tasks' records, read at random in
// plan order (cache misses), are read once: that pass lists each
// position (complemented) followed by its distinct inputs, and the second
// pass reads the list.
func (b *belady) index(wk int) {
	b.epoch[wk]++
	count := b.count
	clear(count)
	lst := b.lists.lists[wk]
	seq := slices.Grow(b.seq[:0], len(lst)+int(b.lists.InputsLeft(wk))) // a bound: each task, then its inputs
	total := 0
	for i, t := range lst {
		if t < 0 {
			continue
		}
		seq = append(seq, ^int32(i))
		in := b.w.Tasks[t].Inputs
		for j, d := range in {
			if firstIndex(in, d) == j { // not a duplicate input
				seq = append(seq, int32(d))
				count[d]++
				total++
			}
		}
	}
	backing := make([]int32, total)
	occ, cur, gen, epoch := b.occ[wk], b.cur[wk], b.gen[wk], b.epoch[wk]
	var i int32
	for _, e := range seq {
		if e < 0 {
			i = ^e
			continue
		}
		if gen[e] != epoch {
			gen[e] = epoch
			occ[e], backing = backing[:0:count[e]], backing[count[e]:]
			cur[e] = 0
		}
		occ[e] = append(occ[e], i)
	}
	b.seq = seq
}

func firstIndex(s []int, x int) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

// next returns the position in the worker's list of the first remaining
// task reading d, or -1.
func (b *belady) next(wk, d int) int {
	if b.gen[wk][d] != b.epoch[wk] {
		return -1
	}
	occ, lst := b.occ[wk][d], b.lists.lists[wk]
	c := b.cur[wk][d]
	for ; int(c) < len(occ); c++ {
		i := occ[c]
		if int(i) >= len(lst) {
			break // stolen: the list ends before
		}
		if lst[i] >= 0 {
			break
		}
	}
	b.cur[wk][d] = c
	if int(c) < len(occ) && int(occ[c]) < len(lst) {
		return int(occ[c])
	}
	return -1
}

// victim applies the rule to the candidates (LRU order) of worker wk,
// whose popped and buffered tasks are pipe and buf. ops is what StarPU's
// belady_victim_selector (HFP.c) examines walking the upcoming tasks for
// the candidates' next uses: one step per candidate and the inputs of every
// task walked, up to the victim's next use (all of them when a candidate
// is never used again); the lists count the inputs of the plan's tasks.
func (b *belady) victim(wk int, cands, pipe, buf []int) (victim, ops int) {
	if len(cands) == 0 {
		return -1, 0
	}
	// inputs of the first n tasks of pipe then buf
	inputs := func(n int) int {
		s := 0
		for _, seq := range [2][]int{pipe, buf} {
			for _, t := range seq {
				if n == 0 {
					return s
				}
				s += len(b.w.Tasks[t].Inputs)
				n--
			}
		}
		return s
	}
	b.stamp++
	if b.stamp == 0 { // wrapped: forget every old mark
		clear(b.mark)
		b.stamp = 1
	}
	for _, c := range cands {
		b.mark[c] = b.stamp
		b.first[c] = use{rank: -1}
	}
	rank := 0
	for _, seq := range [2][]int{pipe, buf} {
		for _, t := range seq {
			for j, d := range b.w.Tasks[t].Inputs {
				if b.mark[d] == b.stamp && b.first[d].rank < 0 {
					b.first[d] = use{rank, j}
				}
			}
			rank++
		}
	}
	victim = -1
	for _, c := range cands {
		if b.first[c].rank < 0 {
			i := b.next(wk, c)
			if i < 0 { // never used again: the walk went through everything
				return c, len(cands) + inputs(rank) + int(b.lists.InputsLeft(wk))
			}
			t := b.lists.lists[wk][i]
			b.first[c] = use{rank + i, firstIndex(b.w.Tasks[t].Inputs, c)}
		}
		if victim < 0 || b.first[c].after(b.first[victim]) {
			victim = c
		}
	}
	if r := b.first[victim].rank; r < rank {
		return victim, len(cands) + inputs(r+1)
	}
	return victim, len(cands) + inputs(rank) + int(b.lists.InputsThrough(wk, b.first[victim].rank-rank))
}
