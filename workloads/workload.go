// Package workloads defines task sets (tasks reading shared data) and the
// generators of the papers' workloads. Everything here is pure and
// deterministic for a seed.
package workloads

// Data is one piece of input data (a StarPU handle): an id and a size.
type Data struct {
	ID    int   `json:"id"`
	Bytes int64 `json:"bytes"`
}

// Task is one kernel invocation reading its Inputs (data ids).
// Ids are dense: Tasks[i].ID == i and Data[j].ID == j.
type Task struct {
	ID       int     `json:"id"`
	Kernel   string  `json:"kernel"`
	Flops    float64 `json:"flops"`
	Inputs   []int   `json:"inputs"`
	Deps     []int   `json:"deps"`
	Coords   []int   `json:"coords,omitempty"`   // e.g. (i,j) for 2D, (i,j,k) for 3D, Cholesky (k,m,n)
	Priority int     `json:"priority,omitempty"` // bottom-level priority (Cholesky, thesis Fig. 2.4)
}

// Reads reports whether the task reads data d.
func (t *Task) Reads(d int) bool {
	for _, in := range t.Inputs {
		if in == d {
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

// WorkingSetBytes is the total size of the declared data: the papers'
// "working set" (thesis §3.4). For sparse and random-pairs sets it is the
// nominal size, as the papers plot it, even if some data are never read.
func (w *Workload) WorkingSetBytes() int64 {
	var total int64
	for _, d := range w.Data {
		total += d.Bytes
	}
	return total
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

// MaxInputBytes is the largest total input size of a single task: the
// smallest memory in which the task set can run at all.
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
