package givenorder_test

import (
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/schedulers/givenorder"
	"github.com/memsched/memsched/workloads"
)

func unitWorkload(data int, inputs [][]int) *workloads.Workload {
	w := &workloads.Workload{Name: "toy"}
	for d := range data {
		w.Data = append(w.Data, workloads.Data{ID: d, Bytes: 1})
	}
	for i, in := range inputs {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e6, Inputs: in})
	}
	return w
}

func modelLoads(t *testing.T, w *workloads.Workload, gpus int, mem int64, params map[string]string) int {
	t.Helper()
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryBytes(mem)
	rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "given-order", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return rec.ModelLoads
}

// The papers' toy examples, counted in the model of thesis §2.2.
func TestToys(t *testing.T) {
	// Thesis Fig. 2.2 / COLOC 2021 Fig. 1 (the instance of
	// schedulers/order's TestFig22Toy): natural order, M = 3, Belady: 7.
	fig22 := unitWorkload(6, [][]int{{0, 1}, {1, 2}, {1, 3}, {0, 2, 3}, {0, 4, 5}})
	if got := modelLoads(t, fig22, 1, 3, map[string]string{"belady": "true"}); got != 7 {
		t.Errorf("Fig. 2.2: %d loads, want 7", got)
	}
	// Thesis Fig. 2.3 / IPDPS 2022 Fig. 1: the 3x3 grid on 2 PUs of 2
	// data, PU1 T1 T2 T5 T4 (5 loads), PU2 T3 T6 T9 T8 T7 (6 loads).
	var grid [][]int
	for i := range 3 {
		for j := range 3 {
			grid = append(grid, []int{i, 3 + j})
		}
	}
	if got := modelLoads(t, unitWorkload(6, grid), 2, 2, map[string]string{"order": "0 1 4 3 | 2 5 8 7 6"}); got != 11 {
		t.Errorf("Fig. 2.3: %d loads, want 11", got)
	}
}

func TestParse(t *testing.T) {
	l, err := givenorder.Parse(" 0 1,4 3 | 2 5 8 7 6")
	if err != nil || len(l) != 2 || len(l[0]) != 4 || l[1][4] != 6 {
		t.Fatalf("Parse = %v, %v", l, err)
	}
	if l, err := givenorder.Parse(" "); l != nil || err != nil {
		t.Errorf("empty order: %v, %v", l, err)
	}
	if _, err := givenorder.Parse("0 x 2"); err == nil || !strings.Contains(err.Error(), `"x" is not a task id`) {
		t.Errorf("bad id: %v", err)
	}
	// Every task must be listed exactly once.
	w := unitWorkload(2, [][]int{{0}, {1}})
	p, _ := hardware.Load("v100-gemini")
	p.GPUs = 1
	p.SetMemoryBytes(2)
	if _, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "given-order", Params: map[string]string{"order": "0"}}); err == nil {
		t.Errorf("an order missing a task ran")
	}
}
