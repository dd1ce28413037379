// Package workloads defines task sets (tasks reading shared data) and the
// generators of the papers' workloads. Everything here is pure and
// deterministic for a seed.
package workloads

// Data is one piece of data (a StarPU handle): an id and a size. A
// scratch datum is an output whose value nobody needs: each task writing it
// (mode W) gets a fresh allocation, discarded when the task ends, never
// written back (StarPU's starpu_data_invalidate_submit after the task).
// A strided datum is a sub-block of a larger matrix in main memory whose
// rows are not contiguous there: its copies between main memory and a GPU
// go row by row (StarPU's matrix interface uses cudaMemcpy2DAsync when the
// leading dimension exceeds the row), at the platform's strided rate.
type Data struct {
	ID      int   `json:"id"`
	Bytes   int64 `json:"bytes"`
	Scratch bool  `json:"scratch,omitempty"`
	Strided bool  `json:"strided,omitempty"`
}

// Task is one kernel invocation accessing its Inputs (data ids), each in
// the mode of the same index in Modes (all R when Modes is empty: the task
// sets of chapters 3-4 only read). Ids are dense: Tasks[i].ID == i and
// Data[j].ID == j.
type Task struct {
	ID       int     `json:"id"`
	Kernel   string  `json:"kernel"`
	Flops    float64 `json:"flops"`
	Inputs   []int   `json:"inputs"`
	Modes    []Mode  `json:"modes,omitempty"`
	Deps     []int   `json:"deps"`
	Coords   []int   `json:"coords,omitempty"`   // e.g. (i,j) for 2D, (i,j,k) for 3D, Cholesky (k,m,n)
	Priority int     `json:"priority,omitempty"` // bottom-level priority (Cholesky, thesis Fig. 2.4)
}

// Reads reports whether the task accesses data d (in any mode: the data
// must be on the worker while the task runs).
func (t *Task) Reads(d int) bool {
	for _, in := range t.Inputs {
		if in == d {
			return true
		}
	}
	return false
}

// Mode is the access mode of the task's i-th input.
func (t *Task) Mode(i int) Mode {
	if len(t.Modes) == 0 {
		return R
	}
	return t.Modes[i]
}

// Writes reports whether the task writes any of its data.
func (t *Task) Writes() bool {
	for _, m := range t.Modes {
		if m.Writes() {
			return true
		}
	}
	return false
}

// Workload is a task set in submission order: Tasks[0] is submitted first.
type Workload struct {
	Name  string `json:"name,omitempty"`
	Data  []Data `json:"data"`
	Tasks []Task `json:"tasks"`
}

// WorkingSetBytes is the total size of the declared data that are inputs:
// the papers' "working set" (thesis §3.4). Outputs only ever written (mode
// W, such as the C tiles of the random-order sgemm) are not counted, as the
// papers plot the input matrices. For sparse and random-pairs sets it is
// the nominal size, as the papers plot it, even if some data are never read.
func (w *Workload) WorkingSetBytes() int64 {
	writeOnly := w.writeOnly()
	var total int64
	for _, d := range w.Data {
		if !writeOnly[d.ID] {
			total += d.Bytes
		}
	}
	return total
}

// writeOnly marks the data some task writes in mode W and no task reads.
func (w *Workload) writeOnly() []bool {
	out := make([]bool, len(w.Data))
	read := make([]bool, len(w.Data))
	for i := range w.Tasks {
		t := &w.Tasks[i]
		for k, d := range t.Inputs {
			if m := t.Mode(k); m.Reads() {
				read[d] = true
			} else {
				out[d] = true
			}
		}
	}
	for d := range out {
		out[d] = out[d] && !read[d]
	}
	return out
}

// WorkingSetMiB is WorkingSetBytes in MiB (the papers' "MB").
func (w *Workload) WorkingSetMiB() float64 { return float64(w.WorkingSetBytes()) / (1 << 20) }

// TotalFlops sums the flops of every task.
func (w *Workload) TotalFlops() float64 {
	var f float64
	for _, t := range w.Tasks {
		f += t.Flops
	}
	return f
}

// MaxInputBytes is the largest total size of the data of a single task
// (inputs and outputs: all must be allocated while it runs): the smallest
// memory in which the task set can run at all.
func (w *Workload) MaxInputBytes() int64 {
	var max int64
	for _, t := range w.Tasks {
		var s int64
		for _, d := range t.Inputs {
			s += w.Data[d].Bytes
		}
		if s > max {
			max = s
		}
	}
	return max
}

// Users returns, for each data, the ids of the tasks reading it, in
// submission order.
func (w *Workload) Users() [][]int {
	users := make([][]int, len(w.Data))
	for _, t := range w.Tasks {
		for _, d := range t.Inputs {
			users[d] = append(users[d], t.ID)
		}
	}
	return users
}
