package sim

import "fmt"

// CheckCandidates makes every kick and head check, until stop, that the
// node's candidates hold every worker that is not inert and every idle one
// with a popped task, and that its head is its oldest popped task, against
// a scan of its workers; report gets each violation.
func CheckCandidates(report func(string)) (stop func()) {
	check = func(e *Engine, n *node) {
		for i, w := range n.workers {
			wk := e.workers[w]
			if len(n.workers) > 1 && !e.inert(wk, n) && !n.stepping.Has(i) {
				report(fmt.Sprintf("t=%g node %d: worker %d may progress but is no candidate", e.now, n.id, w))
			}
			if len(n.workers) > 1 && !wk.busy && len(wk.pipe) > 0 && !n.starting.Has(i) {
				report(fmt.Sprintf("t=%g node %d: worker %d may start a task but is no candidate", e.now, n.id, w))
			}
		}
		if !n.headStale && n.headW != e.oldest(n) {
			report(fmt.Sprintf("t=%g node %d: head at worker %d, oldest at %d", e.now, n.id, n.headW, e.oldest(n)))
		}
	}
	return func() { check = nil }
}

// OnKick calls f at every node kick until stop.
func OnKick(f func()) (stop func()) {
	check = func(*Engine, *node) { f() }
	return func() { check = nil }
}
