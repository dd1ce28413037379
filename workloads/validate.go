package workloads

import (
	"fmt"
	"math"
	"strings"
)

// MaxDataBytes bounds a datum, MaxTotalBytes the data of a workload, so
// that sums of sizes (a task's inputs, a memory's use) cannot overflow.
const (
	MaxDataBytes  = 1 << 50
	MaxTotalBytes = 1 << 60
)

// Validate checks the invariants every consumer relies on: dense ids in
// order, positive data sizes, finite non-negative flops, input and
// dependency ids that exist, one valid access mode per input (or none), no
// repeated input or dependency in a task, no self-dependency, no
// dependency cycle, and no data race (two accesses to a datum, one a
// write, without a dependency path between them). It returns the first problem
// found, naming the task or data involved. Sizes and flops are bounded so
// that their totals stay finite (MaxDataBytes, MaxTotalBytes).
func (w *Workload) Validate() error {
	if w == nil {
		return fmt.Errorf("workloads: nil workload")
	}
	if len(w.Tasks) == 0 {
		return fmt.Errorf("workloads: %s has no tasks", w.label())
	}
	if w.DeviceBytes < 0 || w.DeviceBytes > MaxDataBytes {
		return fmt.Errorf("workloads: device_bytes = %d; it is the bytes held on every GPU outside the data, in [0, 2^50]", w.DeviceBytes)
	}
	var total int64
	for j, d := range w.Data {
		if d.ID != j {
			return fmt.Errorf("workloads: data[%d] has id %d; ids must be dense and in order (data[j].id == j)", j, d.ID)
		}
		if d.Bytes <= 0 {
			return fmt.Errorf("workloads: data %d has %d bytes; sizes must be positive", j, d.Bytes)
		}
		if d.Bytes > MaxDataBytes {
			return fmt.Errorf("workloads: data %d has %d bytes; a datum has at most 2^50 bytes (1 PiB)", j, d.Bytes)
		}
		if total += d.Bytes; total > MaxTotalBytes {
			return fmt.Errorf("workloads: data 0 to %d add up to more than 2^60 bytes (1 EiB); byte counts would overflow", j)
		}
	}
	nd, nt := len(w.Data), len(w.Tasks)
	for _, table := range []struct {
		name string
		n    int
	}{{"Modes", len(w.Modes)}, {"Deps", len(w.Deps)}, {"Priority", len(w.Priority)}, {"Coords", w.Coords.Len()}} {
		if table.n != 0 && table.n != nt {
			return fmt.Errorf("workloads: %s has %d entries for %d tasks; a per-task table has one entry per task, or none", table.name, table.n, nt)
		}
	}
	flops := 0.0
	seen := make([]int, nd) // seen[d] == t+1 when task t already listed d
	var seenDep []int       // the same for dependencies, made at the first one
	forward := false        // some task depends on a later one: a cycle is possible
	for i := range w.Tasks {
		t := &w.Tasks[i]
		if t.ID != i {
			return fmt.Errorf("workloads: tasks[%d] has id %d; ids must be dense and in submission order (tasks[i].id == i)", i, t.ID)
		}
		if math.IsNaN(t.Flops) || math.IsInf(t.Flops, 0) || t.Flops < 0 {
			return fmt.Errorf("workloads: task %d has flops %v; flops must be finite and non-negative", i, t.Flops)
		}
		if flops += t.Flops; math.IsInf(flops, 0) {
			return fmt.Errorf("workloads: the flops of tasks 0 to %d add up to more than %g; totals must be finite", i, math.MaxFloat64)
		}
		modes, deps := w.ModesOf(i), w.DepsOf(i)
		if len(modes) != 0 && len(modes) != len(t.Inputs) {
			return fmt.Errorf("workloads: task %d has %d modes for %d inputs; give one mode (R, W or RW) per input, or none (all R)", i, len(modes), len(t.Inputs))
		}
		for _, m := range modes {
			if m != R && m != W && m != RW {
				return fmt.Errorf("workloads: task %d has access mode %d; use R, W or RW", i, m)
			}
		}
		for k, d := range t.Inputs {
			if d < 0 || d >= nd {
				return fmt.Errorf("workloads: task %d reads data %d, which does not exist (the workload declares data 0..%d)", i, d, nd-1)
			}
			if m := w.Mode(i, k); w.Data[d].Scratch && m != W {
				return fmt.Errorf("workloads: task %d accesses scratch data %d in mode %v; a scratch datum is only written (mode W)", i, d, m)
			}
			if seen[d] == i+1 {
				return fmt.Errorf("workloads: task %d lists input %d twice; list each data once", i, d)
			}
			seen[d] = i + 1
		}
		if len(deps) > 0 && seenDep == nil {
			seenDep = make([]int, nt)
		}
		for _, d := range deps {
			forward = forward || d > i
			if d < 0 || d >= nt {
				return fmt.Errorf("workloads: task %d depends on task %d, which does not exist (the workload has tasks 0..%d)", i, d, nt-1)
			}
			if d == i {
				return fmt.Errorf("workloads: task %d depends on itself", i)
			}
			if seenDep[d] == i+1 {
				return fmt.Errorf("workloads: task %d lists dependency %d twice; list each dependency once", i, d)
			}
			seenDep[d] = i + 1
		}
	}
	// Dependencies on earlier tasks only (every generator's, in submission
	// order) cannot close a cycle.
	if forward {
		if cyc := w.findCycle(); cyc != nil {
			parts := make([]string, len(cyc))
			for k, t := range cyc {
				parts[k] = fmt.Sprint(t)
			}
			return fmt.Errorf("workloads: dependency cycle through tasks %s (each task depends on the next); dependencies must form a DAG",
				strings.Join(parts, " -> "))
		}
	}
	return w.checkRaces(forward)
}

// checkRaces refuses two accesses to one datum, one of them a write, with
// no dependency path between them: which comes first would be the
// scheduler's choice, so the result would depend on it (a data race, as
// StarPU's sequential consistency never leaves one). It is decided from
// the graph, not from a schedule that happens to serialise them. In a
// topological order, a datum's accesses are race-free exactly when each
// write is reached from the previous write and from every read since,
// and each read is reached from the previous write: these are the only
// paths checked, a direct dependency first, then a search back from the
// later task among the tasks in between. Scratch data (written and
// discarded by one task) are no one's shared state.
func (w *Workload) checkRaces(forward bool) error {
	nd, nt := len(w.Data), len(w.Tasks)
	var order []int // order[i] = the i-th task; pos is its inverse
	if forward {
		order = w.TopoOrder()
	} else {
		order = make([]int, nt)
		for t := range order {
			order[t] = t
		}
	}
	// finalWrite[d]: the position of d's last write (-1: never written);
	// reads after it need no keeping.
	finalWrite := make([]int32, nd)
	for d := range finalWrite {
		finalWrite[d] = -1
	}
	pos := make([]int32, nt)
	written := false
	for i, t := range order {
		pos[t] = int32(i)
		for k, d := range w.Tasks[t].Inputs {
			if w.Mode(t, k).Writes() && !w.Data[d].Scratch {
				finalWrite[d], written = int32(i), true
			}
		}
	}
	if !written {
		return nil
	}
	lastWriter := make([]int32, nd)
	for d := range lastWriter {
		lastWriter[d] = -1
	}
	readers := make([][]int32, nd) // readers of a datum since its last write, before its final one
	paths := newPathSearch(w, pos)
	for i, t := range order {
		paths.markDirect(t)
		for k, d := range w.Tasks[t].Inputs {
			if finalWrite[d] < 0 || w.Data[d].Scratch {
				continue
			}
			last := int(lastWriter[d])
			if !w.Mode(t, k).Writes() {
				if last >= 0 && !paths.reaches(last, t) {
					return raceErr(last, t, d, "writes", "reads")
				}
				if int32(i) < finalWrite[d] {
					readers[d] = append(readers[d], int32(t))
				}
				continue
			}
			if last >= 0 && !paths.reaches(last, t) {
				return raceErr(last, t, d, "writes", "writes")
			}
			for _, r := range readers[d] {
				if !paths.reaches(int(r), t) {
					return raceErr(int(r), t, d, "reads", "writes")
				}
			}
			readers[d] = readers[d][:0]
			lastWriter[d] = int32(t)
		}
	}
	return nil
}

func raceErr(a, b, d int, aDoes, bDoes string) error {
	return fmt.Errorf("workloads: task %d %s data %d and task %d %s it, with no dependency path between them: a race, whose outcome would be the scheduler's choice; add a dependency (task %d on task %d, or the other way round)",
		a, aDoes, d, b, bDoes, b, a)
}

func (w *Workload) label() string {
	if w.Name == "" {
		return "workload"
	}
	return fmt.Sprintf("workload %q", w.Name)
}

// findCycle returns one dependency cycle as task ids [a, b, ..., a], where
// each task depends on the next, or nil. Iterative DFS: deep chains (e.g.
// 3D accumulation) must not overflow the goroutine stack.
func (w *Workload) findCycle() []int {
	const (
		white = iota
		grey
		black
	)
	n := len(w.Tasks)
	color := make([]uint8, n)
	parent := make([]int, n)
	next := make([]int, n) // next dep index to explore
	for root := range n {
		if color[root] != white {
			continue
		}
		color[root] = grey
		parent[root] = -1
		stack := []int{root}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			deps := w.DepsOf(u)
			if next[u] == len(deps) {
				color[u] = black
				stack = stack[:len(stack)-1]
				continue
			}
			v := deps[next[u]]
			next[u]++
			switch color[v] {
			case white:
				color[v] = grey
				parent[v] = u
				stack = append(stack, v)
			case grey: // back edge u -> v closes a cycle v -> ... -> u -> v
				cyc := []int{u}
				for x := u; x != v; {
					x = parent[x]
					cyc = append(cyc, x)
				}
				// cyc is u, parent(u), ..., v: reverse to follow dep edges.
				for a, b := 0, len(cyc)-1; a < b; a, b = a+1, b-1 {
					cyc[a], cyc[b] = cyc[b], cyc[a]
				}
				return append(cyc, v)
			}
		}
	}
	return nil
}

// pathSearch answers whether a dependency path u -> ... -> t exists
// between two tasks of a topological order (pos: each task's place in
// it), walking back from t only through tasks after u. The caller marks
// t's direct dependencies first (direct(t)), which answers most queries
// at once; the search marks are reused by generation, so a query
// allocates nothing.
type pathSearch struct {
	w      *Workload
	pos    []int32
	direct []int32 // direct[u] == t+1: t depends on u
	seen   []int32 // search marks, by generation
	gen    int32
	stack  []int
}

func newPathSearch(w *Workload, pos []int32) *pathSearch {
	n := len(w.Tasks)
	return &pathSearch{w: w, pos: pos, direct: make([]int32, n), seen: make([]int32, n)}
}

// markDirect records t's direct dependencies, before queries about t.
func (p *pathSearch) markDirect(t int) {
	for _, u := range p.w.DepsOf(t) {
		p.direct[u] = int32(t) + 1
	}
}

// reaches reports a dependency path u -> ... -> t (pos[u] < pos[t]).
func (p *pathSearch) reaches(u, t int) bool {
	if p.direct[u] == int32(t)+1 {
		return true
	}
	p.gen++
	p.stack = append(p.stack[:0], t)
	for len(p.stack) > 0 {
		x := p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
		for _, y := range p.w.DepsOf(x) {
			if y == u {
				return true
			}
			if p.pos[y] > p.pos[u] && p.seen[y] != p.gen {
				p.seen[y] = p.gen
				p.stack = append(p.stack, y)
			}
		}
	}
	return false
}
