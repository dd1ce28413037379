package static

import (
	"testing"

	"github.com/memsched/memsched/workloads"
)

// scanLiterally runs HFP.c hmetis()'s hypergraph scan as the C code does
// (c80ea6665, lines 2469-2519), counting each handle comparison and each
// list step.
func scanLiterally(w *workloads.Workload) int64 {
	tasks := w.Tasks
	var ops int64
	for t1 := range tasks {
		ops++ // task_1 = starpu_task_list_next(task_1)
		for _, h := range tasks[t1].Inputs {
			counted := false
			for t3 := 0; t3 < t1 && !counted; t3++ {
				for _, h3 := range tasks[t3].Inputs {
					ops++
					if h3 == h {
						counted = true
						break
					}
				}
				if !counted {
					ops++ // task_3 = starpu_task_list_next(task_3)
				}
			}
			if !counted {
				for t2 := t1 + 1; t2 < len(tasks); t2++ {
					ops += int64(len(tasks[t2].Inputs)) + 1
				}
			}
		}
	}
	return ops
}

func TestHMETISScanOps(t *testing.T) {
	// Two tasks sharing a: the outer walk (2), a's and b's first uses in
	// task 0 (a forward walk over task 1: 2 comparisons and a step each),
	// a found in task 0 at its first comparison (1), c's first use in task
	// 1 (a walk back over task 0: 2 comparisons and a step).
	pair := &workloads.Workload{Data: make([]workloads.Data, 3), Tasks: []workloads.Task{{Inputs: []int{0, 1}}, {Inputs: []int{0, 2}}}}
	if got := hmetisScanOps(pair); got != 12 {
		t.Errorf("two tasks: %d operations, want 12 (counted by hand)", got)
	}
	for _, s := range []workloads.Spec{
		{Kind: "matmul2d", N: 10},
		{Kind: "matmul2d", N: 7, Order: "random", Seed: 3},
		{Kind: "sparse2d", N: 30, Keep: 0.1, Seed: 2},
		{Kind: "cholesky", N: 6},
	} {
		w, err := workloads.Generate(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := hmetisScanOps(w), scanLiterally(w); got != want {
			t.Errorf("%s: %d operations, the C loop makes %d", w.Name, got, want)
		}
	}
}
