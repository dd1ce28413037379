// Package greedy is a complete memsched scheduler written outside memsched's
// module: the Go twin of examples/python/greedy.py. It is linked into a
// memsched binary of its own by ../cmd/memsched-greedy and checked by
// memsched's conformance suite in greedy_test.go.
//
// A worker asking for work gets the waiting task with the fewest input bytes
// not present on its memory (loaded or being loaded), ties to the earliest
// submitted: the criterion of StarPU's Ready (thesis Algorithm 2), applied
// to the shared queue when the task is handed out rather than only to the
// worker's buffer. The buffer is then popped with memsched's Ready part, and
// eviction is memsched's LRU.
package greedy

import "github.com/memsched/memsched/schedulers"

// Spec is what a binary registers: cli.WithScheduler(greedy.Spec).
var Spec = schedulers.Spec{
	Name:    "greedy",
	Version: 1, // bump when a change alters a decision: it enters result keys
	Doc:     "locality-aware greedy (Go example from another module): a worker pulls the waiting task with the fewest input bytes missing from its memory, ties to the earliest submitted; Ready pops",
	Params: []schedulers.Param{
		{Name: "window", Kind: "int", Default: "0", Min: "0",
			Doc: "waiting tasks examined per pull, oldest first (0 = all)"},
		{Name: "ready", Kind: "bool", Default: "true",
			Doc: "start the buffered task with the fewest missing bytes (StarPU's Ready), else the oldest"},
	},
	New: func(p schedulers.Params) (schedulers.Scheduler, error) {
		return &Greedy{window: p.Int("window"), ready: p.Bool("ready")}, nil
	},
}

// Greedy holds the tasks pushed and not yet handed out, in push order.
type Greedy struct {
	window int
	ready  bool
	v      schedulers.View
	queue  []int
}

func (g *Greedy) Init(v schedulers.View) error {
	g.v = v
	return nil
}

func (g *Greedy) Push(task int) { g.queue = append(g.queue, task) }

// Pull scans the oldest window waiting tasks the worker can run and hands
// out the one missing the fewest bytes there.
func (g *Greedy) Pull(worker int) (int, bool) {
	n := len(g.queue)
	if g.window > 0 && g.window < n {
		n = g.window
	}
	best, bestMissing, examined := -1, int64(-1), 0
	for i, t := range g.queue[:n] {
		examined++
		if !g.v.CanRun(worker, t) {
			continue
		}
		if m := schedulers.MissingBytes(g.v, worker, t); bestMissing < 0 || m < bestMissing {
			best, bestMissing = i, m
			if m == 0 {
				break
			}
		}
	}
	g.v.Count(examined) // for sched_cost = "model"
	if best < 0 {
		return 0, false
	}
	task := g.queue[best]
	g.queue = append(g.queue[:best], g.queue[best+1:]...)
	return task, true
}

// Pop starts the buffered task with the fewest missing bytes (Ready), or
// the oldest.
func (g *Greedy) Pop(worker int, buffer []int) int {
	if !g.ready {
		return 0
	}
	g.v.Count(len(buffer))
	return schedulers.Ready(g.v, worker, buffer, 0)
}
