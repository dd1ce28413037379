package dartsdag

import "github.com/memsched/memsched/schedulers"

// ChoosesVictims says LUF chooses; under eviction=lru nothing does.
func (d *DARTS) ChoosesVictims() bool { return d.opt.LUF }

// Victim is LUF (thesis Alg. 10, §5.2.3) as the chapter's code chooses
// (dynamic_data_aware_victim_selector), over the engine's candidates
// (evictable, least recently used first), with n_b(D) the tasks pulled to
// the node and not finished that read D and n_p(D) its planned tasks:
//
//  1. the first candidate with n_b = n_p = 0;
//  2. else, among n_b = 0, the first with the smallest n_p
//     (least_used_data_on_planned_task);
//  3. else a prefetch gets -1 (STARPU_DATA_NO_VICTIM) and a fetch gets
//     Belady over the pulled tasks in pull order, the candidate whose
//     first use, counted in input slots, is furthest (belady_on_pulled_task).
func (d *DARTS) Victim(node int, cands []int, prefetch bool) int {
	if !d.opt.LUF {
		return cands[0]
	}
	n := d.nodes[node]
	victim := schedulers.LeastUsedVictim(cands,
		func(c int) bool { return n.pulled[c] > 0 },
		func(c int) int32 { return n.planned[c] })
	if victim >= 0 {
		return victim
	}
	if prefetch {
		return -1
	}
	n.stampLUF++
	if n.stampLUF == 0 {
		clear(n.nb)
		n.stampLUF = 1
	}
	pos := int32(0)
	for _, t := range n.pulls {
		for _, x := range d.inputs.of(t) {
			pos++
			if n.nb[x] != n.stampLUF {
				n.nb[x], n.nbPos[x] = n.stampLUF, pos
			}
		}
	}
	far := int32(-1)
	for _, c := range cands {
		p := int32(1 << 30) // not read by a pulled task: furthest
		if n.nb[c] == n.stampLUF {
			p = n.nbPos[c]
		}
		if p > far {
			victim, far = c, p
		}
	}
	return victim
}

// evicted keeps the node's state in step with an eviction (or an
// invalidation by a write elsewhere). Under LUF the planned tasks reading
// the victim go back to readyTasks (Alg. 10 line 8), here rather than in
// Victim so that it happens once per eviction, whatever chose it. Then
// dataNotInMem (thesis §5.2.3): a victim no ready task reads leaves every
// dataNotInMem_k; otherwise it joins, at a random position
// (push_data_not_used_yet_random_spot), the dataNotInMem_k of every node
// that neither holds it nor plans to load it.
func (d *DARTS) evicted(n *node, x int32) {
	d.setOnNode(n, x, false, n.pulled[x])
	var back []int32
	if d.opt.LUF {
		for i := n.head; i < len(n.plan); i++ {
			e := n.plan[i]
			if d.alive(n, e) && readsData(d.inputs.of(e.task), x) {
				back = append(back, e.task)
				d.unplan(n, e.task)
			}
		}
	}
	d.readyUses[x] += int32(len(back)) // counted ahead: the victim's rule below sees its readers
	if d.readyUses[x] == 0 {
		for _, m := range d.nodes {
			if m != nil {
				d.dropData(m, x)
			}
		}
	} else {
		for _, m := range d.nodes {
			if m != nil && !m.list.has(x) && !m.onNode(x) && m.planned[x] == 0 {
				d.insertDataRandomly(m, x)
			}
		}
	}
	d.readyUses[x] -= int32(len(back))
	for _, t := range back {
		d.enterReady(t) // at the tail of readyTasks, as upstream pushes them back
	}
}

// unplan takes a planned task out of its plan (the entry dies).
func (d *DARTS) unplan(n *node, t int32) {
	d.state[t] = stWaiting
	n.live--
	for _, y := range d.inputs.of(t) {
		n.planned[y]--
	}
}

func readsData(in []int32, x int32) bool {
	for _, y := range in {
		if y == x {
			return true
		}
	}
	return false
}
