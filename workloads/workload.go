// Package workloads defines task sets (tasks reading shared data) and the
// generators of the papers' workloads. Everything here is pure and
// deterministic for a seed.
package workloads

import "slices"

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

// Task is one kernel invocation accessing its Inputs (data ids). Ids are
// dense: Tasks[i].ID == i and Data[j].ID == j. Its other attributes (access
// modes, dependencies, priority, coordinates) are in the Workload's
// per-task tables, as most task sets lack some of them.
type Task struct {
	ID     int
	Kernel string
	Flops  float64
	Inputs []int
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

// Workload is a task set in submission order: Tasks[0] is submitted first.
//
// The per-task tables hold what many task sets lack. Modes, Deps and
// Priority are nil when no task has the attribute, else indexed by task id;
// Coords is one flat array. A million independent tasks then carry no empty
// slices (24 bytes each). Read them through ModesOf, Mode, DepsOf,
// PriorityOf and Coords.Of, which accept nil tables. Its JSON form (also
// through encoding/json) is WriteJSON's.
type Workload struct {
	Name  string
	Data  []Data
	Tasks []Task

	Modes    [][]Mode // per task, the mode of each input; nil or empty: all R (chapters 3-4 only read)
	Deps     [][]int  // per task, the tasks it waits for
	Priority []int    // per task, its bottom-level priority (Cholesky, thesis Fig. 2.4)
	Coords   Coords   // per task, e.g. (i,j) for 2D, (i,j,k) for 3D, Cholesky (k,m,n)

	// DeviceBytes is what the application holds on every GPU outside its
	// data, out of the memory the data may use: StarPU's xgemm.c allocates
	// for its 2D products one C tile per CUDA worker that no task accesses
	// (starpu_malloc_on_node of Cscratch when not -3d, since StarPU
	// 4a55ab954 of April 2021, "gemm2d: Just completely ignore C results";
	// counted against STARPU_LIMIT_CUDA_MEM). The engine takes it off each
	// GPU's memory cap, on real GPUs too.
	DeviceBytes int64
}

// ModesOf returns the access modes of task t's inputs, or nil when all
// are R.
func (w *Workload) ModesOf(t int) []Mode {
	if t < len(w.Modes) {
		return w.Modes[t]
	}
	return nil
}

// Mode is the access mode of task t's k-th input.
func (w *Workload) Mode(t, k int) Mode {
	if m := w.ModesOf(t); len(m) > 0 {
		return m[k]
	}
	return R
}

// Writes reports whether task t writes any of its data.
func (w *Workload) Writes(t int) bool {
	for _, m := range w.ModesOf(t) {
		if m.Writes() {
			return true
		}
	}
	return false
}

// DepsOf returns the tasks that task t waits for.
func (w *Workload) DepsOf(t int) []int {
	if t < len(w.Deps) {
		return w.Deps[t]
	}
	return nil
}

// PriorityOf is task t's own priority (0 when the set has none).
func (w *Workload) PriorityOf(t int) int {
	if t < len(w.Priority) {
		return w.Priority[t]
	}
	return 0
}

// setColumn sets task t's entry of a per-task table of the workload. A
// table stays nil until its first entry that is present (not the zero
// value); the tasks before it then get the zero value.
func setColumn[T any](table []T, t int, v T, present bool) []T {
	if table == nil && !present {
		return nil
	}
	if n := len(table); t >= n {
		table = slices.Grow(table, t+1-n)[:t+1]
		clear(table[n:])
	}
	table[t] = v
	return table
}

// Coords holds the tasks' coordinates (tile indices) in one flat array of
// int32: a 2D product's (i,j) costs 12 bytes, where two slices a task
// would cost 40.
type Coords struct {
	end  []int32 // Of(t) is flat[end[t-1]:end[t]]
	flat []int32
}

// Add appends the coordinates of the next task.
func (c *Coords) Add(xs ...int32) {
	c.flat = append(c.flat, xs...)
	c.end = append(c.end, int32(len(c.flat)))
}

// addInts is Add for the generators' int indices (tile counts far below
// 2^31: a generator's workload would not fit in memory before).
func (c *Coords) addInts(xs []int) {
	for _, x := range xs {
		c.flat = append(c.flat, int32(x))
	}
	c.end = append(c.end, int32(len(c.flat)))
}

// Grow makes room for the coordinates of n more tasks, k in all.
func (c *Coords) Grow(n, k int) {
	c.end = slices.Grow(c.end, n)
	c.flat = slices.Grow(c.flat, k)
}

// Of returns task t's coordinates (nil when it has none; shared: do not
// modify).
func (c *Coords) Of(t int) []int32 {
	if t >= len(c.end) {
		return nil
	}
	from := int32(0)
	if t > 0 {
		from = c.end[t-1]
	}
	if from == c.end[t] {
		return nil
	}
	return c.flat[from:c.end[t]:c.end[t]]
}

// Len is the number of tasks whose coordinates were added.
func (c *Coords) Len() int { return len(c.end) }

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
		for k, d := range w.Tasks[i].Inputs {
			if m := w.Mode(i, k); m.Reads() {
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
