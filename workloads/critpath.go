package workloads

import "slices"

// CriticalPath is the two-pass critical-path analysis of a task graph with
// given durations (MulTreePrio, COMPAS 2022 §3.3): a forward pass gives each
// task's earliest start (EST), a backward pass its latest start (LST)
// without delaying the end; Length is the makespan with unlimited workers.
type CriticalPath struct {
	EST, LST []float64
	Length   float64
}

// Criticality is the paper's degree of criticality, 1 − LST/length: 1 for
// the tasks that start the critical path, smaller for tasks with slack.
func (c *CriticalPath) Criticality(task int) float64 {
	if c.Length <= 0 {
		return 1
	}
	return 1 - c.LST[task]/c.Length
}

// Critical reports whether a task has no slack (EST = LST).
func (c *CriticalPath) Critical(task int) bool {
	const eps = 1e-12
	d := c.LST[task] - c.EST[task]
	return d <= eps*max(1, c.Length)
}

// Successors lists, per task, the tasks that depend on it (the reverse of
// Deps), in increasing id order. They are kept in two flat arrays, as a
// [][]int costs 24 bytes a task even where it is empty; a task set without
// dependencies has none.
type Successors struct {
	start []int // Of(t) is to[start[t]:start[t+1]]; nil without dependencies
	to    []int
}

// Of returns the tasks that depend on t (shared: do not modify).
func (s *Successors) Of(t int) []int {
	if s.start == nil {
		return nil
	}
	return s.to[s.start[t]:s.start[t+1]:s.start[t+1]]
}

// Successors computes the reverse of the dependencies.
func (w *Workload) Successors() *Successors {
	n, edges := len(w.Tasks), 0
	for _, deps := range w.Deps {
		edges += len(deps)
	}
	s := &Successors{}
	if edges == 0 {
		return s
	}
	s.start = make([]int, n+1)
	for _, deps := range w.Deps {
		for _, d := range deps {
			s.start[d+1]++
		}
	}
	for t := range n {
		s.start[t+1] += s.start[t]
	}
	s.to = make([]int, edges)
	next := slices.Clone(s.start[:n])
	for i, deps := range w.Deps {
		for _, d := range deps {
			s.to[next[d]] = i
			next[d]++
		}
	}
	return s
}

// TopoOrder returns the tasks in an order where every task comes after its
// dependencies (Kahn's algorithm, smallest id first among the ready ones
// when dependencies point backwards, as generated workloads' do).
func (w *Workload) TopoOrder() []int { return w.topoOrder(w.Successors()) }

func (w *Workload) topoOrder(succ *Successors) []int {
	n := len(w.Tasks)
	indeg := make([]int32, n)
	order := make([]int, 0, n)
	for i := range w.Tasks {
		indeg[i] = int32(len(w.DepsOf(i)))
		if indeg[i] == 0 {
			order = append(order, i)
		}
	}
	for head := 0; head < len(order); head++ {
		for _, s := range succ.Of(order[head]) {
			if indeg[s]--; indeg[s] == 0 {
				order = append(order, s)
			}
		}
	}
	return order
}

// Analyse computes the critical path for durations dur(task) ≥ 0. The
// workload must be acyclic (Validate checks it).
func (w *Workload) Analyse(dur func(task int) float64) *CriticalPath {
	n := len(w.Tasks)
	c := &CriticalPath{EST: make([]float64, n), LST: make([]float64, n)}
	succ := w.Successors()
	order := w.topoOrder(succ)
	d := make([]float64, n)
	for i := range d {
		d[i] = dur(i)
	}
	for _, t := range order {
		for _, p := range w.DepsOf(t) {
			c.EST[t] = max(c.EST[t], c.EST[p]+d[p])
		}
		c.Length = max(c.Length, c.EST[t]+d[t])
	}
	for i := len(order) - 1; i >= 0; i-- {
		t := order[i]
		lft := c.Length
		for _, s := range succ.Of(t) {
			lft = min(lft, c.LST[s])
		}
		c.LST[t] = lft - d[t]
	}
	return c
}
