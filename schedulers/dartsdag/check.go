package dartsdag

import (
	"fmt"
	"math"
	"slices"
)

// checking makes every decision and free insertion compare the incremental
// structures with a recomputation from scratch (tests turn it on).
var checking = false

// check compares a decision with upstream's scan of the whole list, and
// the list and the S_0/S_1 counts with their definitions.
func (d *DARTS) check(n *node, best candidate, ok bool) {
	for _, e := range n.list.entries {
		// With a threshold the decision scans the head of the list and
		// drops nothing: stale data further down are expected.
		if d.opt.Threshold == 0 && n.list.live(e) && d.stale(n, e.data) {
			panic(fmt.Sprintf("darts-dag: data %d stale in node %d's list after dropStale", e.data, n.id))
		}
	}
	var prev uint64
	for _, e := range n.list.entries {
		if !n.list.live(e) {
			continue
		}
		if e.key <= prev || n.list.keyOf[e.data] != e.key {
			panic(fmt.Sprintf("darts-dag: node %d's list keys out of order at data %d", n.id, e.data))
		}
		prev = e.key
	}
	checkCounts(n, &n.s0, "s0")
	checkCounts(n, &n.s1, "s1")
	d.checkRecount(n)
	if ok {
		if ref := d.scan(n); outcome(ref) != outcome(best) {
			panic(fmt.Sprintf("darts-dag: node %d chose data %d, the scan %d", n.id, outcome(best), outcome(ref)))
		}
	}
}

// outcome is the data a decision loads: none (-1) when it frees no task
// and brings none one load from free (decide then plans the highest-priority
// ready task, whichever data scan kept).
func outcome(c candidate) int32 {
	if c.data >= 0 && (c.nfree > 0 || c.n1 > 0) {
		return c.data
	}
	return -1
}

// checkCounts compares a counts' members with its positive counts.
func checkCounts(n *node, c *counts, name string) {
	in := 0
	for x, k := range c.n {
		if (k > 0) != (c.at[x] > 0) || k > 0 && c.members[c.at[x]-1] != int32(x) {
			panic(fmt.Sprintf("darts-dag: node %d: %s members wrong for data %d", n.id, name, x))
		}
		if k > 0 {
			in++
		}
	}
	if in != len(c.members) {
		panic(fmt.Sprintf("darts-dag: node %d: %s has %d members, %d with a positive count", n.id, name, len(c.members), in))
	}
}

// checkFreePrefix compares freePrefix with a search from the plan's head.
func (d *DARTS) checkFreePrefix(n *node, got int) {
	want := len(n.plan)
	for i := n.head; i < len(n.plan); i++ {
		if e := n.plan[i]; d.alive(n, e) && !d.allOnNode(n, e.task) {
			want = i
			break
		}
	}
	if got != want {
		panic(fmt.Sprintf("darts-dag: node %d: free prefix ends at %d, the search says %d", n.id, got, want))
	}
}

// checkRecount recomputes from the tasks' states the ready readers of every
// data and the node's counters of missing inputs, S_0 and S_1.
func (d *DARTS) checkRecount(n *node) {
	nd := len(n.present)
	of := make([][]int32, nd)
	s0, s1 := make([]int32, nd), make([]int32, nd)
	s0w := make([]int64, nd)
	for t, st := range d.state {
		if st != stReady {
			continue
		}
		var missing []int32
		for _, x := range d.inputs.of(int32(t)) {
			of[x] = append(of[x], int32(t))
			if !n.onNode(x) {
				missing = append(missing, x)
			}
		}
		if n.dur[t] < 0 {
			continue
		}
		xor := int32(0)
		for _, x := range missing {
			xor ^= x
		}
		if m := n.miss[t]; int(m.n()) != len(missing) || m.xor() != xor {
			panic(fmt.Sprintf("darts-dag: node %d: task %d misses %d inputs (XOR %d), counted %d (%d)", n.id, t, len(missing), xor, m.n(), m.xor()))
		}
		switch len(missing) {
		case 1:
			s0[missing[0]]++
			s0w[missing[0]] += n.dur[t]
		case 2:
			s1[missing[0]]++
			s1[missing[1]]++
		}
	}
	for x := range nd {
		got := slices.Sorted(slices.Values(d.readers.of[x]))
		if !slices.Equal(got, of[x]) {
			panic(fmt.Sprintf("darts-dag: ready readers of data %d: %v, want %v", x, got, of[x]))
		}
		if n.s0.n[x] != s0[x] || n.s1.n[x] != s1[x] || n.s0w[x] != s0w[x] {
			panic(fmt.Sprintf("darts-dag: node %d, data %d: S_0 %d (%d ps), S_1 %d; recount %d (%d ps), %d",
				n.id, x, n.s0.n[x], n.s0w[x], n.s1.n[x], s0[x], s0w[x], s1[x]))
		}
	}
}

// checkPriority compares max_prio with a scan of all the data's ready
// readers, without fillPriority's stop at the data's highest priority.
func (d *DARTS) checkPriority(n *node, x int32, want uint8, got float64) {
	prio := math.Inf(-1)
	for _, t := range d.readers.of[x] {
		if n.dur[t] >= 0 && n.miss[t].n() == want {
			prio = max(prio, d.prio[t])
		}
	}
	if prio != got {
		panic(fmt.Sprintf("darts-dag: node %d: max_prio of data %d is %g, the full scan says %g", n.id, x, got, prio))
	}
}
