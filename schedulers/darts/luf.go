package darts

import (
	"slices"

	"github.com/memsched/memsched/schedulers"
)

// ChoosesVictims says LUF chooses; under eviction=lru nothing does.
func (d *DARTS) ChoosesVictims() bool { return d.opt.LUF }

// Victim is LUF (thesis Alg. 10) as upstream darts_victim_selector does it,
// over the engine's candidates (evictable, least recently used first):
// n_b(D) counts the worker's buffered and popped tasks reading D, n_p(D) its
// planned tasks reading D, plus, under withdraw_count=keep, the tasks LUF
// withdrew from the plan that still read D (StarPU's nb_task_in_planned_task
// keeps them until they are planned and popped again).
//
//  1. The first candidate with n_b = n_p = 0 is returned at once.
//  2. Else, among n_b = 0, the first with the strictly smallest n_p.
//  3. Else every candidate feeds a buffered task: a prefetch gets -1
//     (STARPU_DATA_NO_VICTIM: no prefetch displaces a buffered task's
//     data); a fetch gets Belady over the pipeline then the buffer, in pop
//     order: the candidate whose first use, counted in input slots, is
//     furthest.
//
// With eviction=lru DARTS makes no choice: the least recently used.
//
// It counts the selector's walk over the data on the node
// (starpu_data_get_node_data and one step per data), plus Belady's walk over
// the pulled tasks' inputs when it runs (belady_on_pulled_task).
func (d *DARTS) Victim(k int, cands []int, prefetch bool) int {
	if !d.opt.LUF {
		return cands[0]
	}
	d.v.Count(len(cands))
	d.stamp++
	if d.stamp == 0 { // wrapped: forget every old mark
		clear(d.nbMark)
		d.stamp = 1
	}
	pos := int32(0)
	var held []int
	if h := d.w[k].held; h >= 0 {
		held = []int{int(h)} // pulled by DARTS, refused by the FIFO: in pulled_task last
	}
	for _, list := range [3][]int{d.v.Pipeline(k), d.v.Buffer(k), held} {
		for _, t := range list {
			for _, x := range d.inputs(int32(t)) {
				pos++
				if d.nbMark[x] != d.stamp {
					d.nbMark[x], d.nbPos[x] = d.stamp, pos
				}
			}
		}
	}
	w := &d.w[k]
	victim := schedulers.LeastUsedVictim(cands,
		func(c int) bool { return d.nbMark[c] == d.stamp },
		func(c int) int32 { return w.planCnt[c] + w.stale[c] })
	if victim >= 0 {
		return victim
	}
	if prefetch {
		return -1
	}
	d.v.Count(len(cands) * int(pos))
	far := int32(-1)
	for _, c := range cands {
		if d.nbPos[c] > far {
			victim, far = c, d.nbPos[c]
		}
	}
	return victim
}

// Observe keeps the data counted as on each worker in step with memory (a
// data loading counts, an evicted one no longer does). On an eviction under
// LUF the planned tasks reading the victim go back to the pool first (Alg.
// 10 line "remove from plannedTasks") and the victim returns to the
// worker's list, as upstream's victim selector does before returning it;
// here rather than in Victim so that it happens once per eviction,
// including evictions the engine forces itself. Under LRU no DARTS code
// runs on an eviction: the victim stays out of the list unless lru_returns.
func (d *DARTS) Observe(kind schedulers.EventKind, k, id int) {
	x := int32(id)
	switch kind {
	case schedulers.LoadStarted, schedulers.Loaded: // loading counts as present
		if !d.w[k].has[x] {
			d.setHas(k, x, true)
		}
	case schedulers.Evicted:
		switch {
		case d.opt.LUF:
			d.withdraw(k, x)
		case d.w[k].has[x]:
			d.setHas(k, x, false)
		}
		relist := d.known[x]
		if d.opt.LUF && d.opt.Relist != "always" {
			relist = d.taskLeft[x] > 0 // pool tasks read it, the withdrawn included
		}
		if (d.opt.LUF || d.opt.LRUReturns) && relist {
			d.v.Count(d.relist(k, x))
		}
	}
}

// Observes says DARTS follows memory, not task starts and ends. A load's end
// says nothing its start did not (data counts from its load's start, and the
// engine evicts none while it loads), except on main memory, which a
// write-back validates without a load: load ends are followed only when
// workers compute from it.
func (d *DARTS) Observes(kind schedulers.EventKind) bool {
	switch kind {
	case schedulers.LoadStarted, schedulers.Evicted:
		return true
	case schedulers.Loaded:
		return d.homeWorkers
	}
	return false
}

// withdraw takes the evicted x out of worker k's data and returns k's
// planned tasks that read x to the pool's tail, in plan order: the walk
// over x's pool tasks moves their counters, the planned ones are counted
// when they enter the pool, without x.
func (d *DARTS) withdraw(k int, x int32) {
	w := &d.w[k]
	d.walk(k, x, false, w.has[x], false)
	w.has[x] = false
	ts := d.tmp[:0]
	for i := w.head; i < len(w.plan); i++ {
		if t := w.plan[i]; d.planned(k, t, i) && slices.Contains(d.inputs(t), x) {
			ts = append(ts, t)
			if d.opt.Withdraw != "all" {
				break // upstream's loop ends at the first
			}
		}
	}
	for _, t := range ts {
		d.stampSeq(t)
		w.live--
		for _, y := range d.inputs(t) {
			w.planCnt[y]--
			if !d.opt.WithdrawDrop {
				// dynamic_data_aware.c dynamic_data_aware_victim_selector:
				// the withdrawn task goes back to main_task_list with its
				// inputs' nb_task_in_planned_task unchanged.
				w.stale[y]++
			}
		}
		d.addToPool(t)
	}
	d.tmp = ts
}
