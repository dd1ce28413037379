package dartsdag

import "fmt"

// checking makes every decision and free insertion compare the incremental
// structures with a recomputation from scratch (tests turn it on).
var checking = false

// check compares a decision with upstream's scan of the whole list, and
// the list and s0set with their definitions.
func (d *DARTS) check(n *node, best candidate, ok bool) {
	for _, e := range n.list.entries {
		if n.list.live(e) && d.stale(n, e.data) {
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
