package schedulers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Thesis Fig. 2.4's closed-form Cholesky priorities (and the same forms for
// LU in the thesis' xlu_implicit.c) (3N-3k, 3N-(2k+m),
// 3N-(k+2n), 3N-(k+n+m)) are the bottom levels of the task graph with unit
// weights, plus 2: the "bottom level" of the ICPP2023 code
// (PRIORITY_ATTRIBUTION=1) is the chapter's definition with w = 1.
func TestStaticCholeskyPrioritiesAreUnitBottomLevels(t *testing.T) {
	for _, n := range []int{1, 2, 3, 6, -2, -3, -6} { // negative: LU (xlu_implicit.c's "prio BL")
		kind := "cholesky"
		if n < 0 {
			kind, n = "lu", -n
		}
		w, err := workloads.Generate(workloads.Spec{Kind: kind, N: n, Deps: true})
		if err != nil {
			t.Fatal(err)
		}
		bl := schedulers.BottomLevels(w, func(*workloads.Task) float64 { return 1 })
		for i, task := range w.Tasks {
			if float64(w.PriorityOf(i)) != bl[i]+2 {
				t.Fatalf("%s N=%d task %d (%s %v): static %d, unit bottom level %g", kind, n, i, task.Kernel, w.Coords.Of(i), w.PriorityOf(i), bl[i])
			}
		}
	}
}

// Weighted bottom levels on a 3x3 Cholesky, by hand with POTRF 4, TRSM 3,
// SYRK 2, GEMM 1: the last POTRF has 4; the SYRK before it 2+4 = 6; ...
func TestBottomLevelsByHand(t *testing.T) {
	w, _ := workloads.Generate(workloads.Spec{Kind: "cholesky", N: 3, Deps: true})
	cost := map[string]float64{"potrf": 4, "trsm": 3, "syrk": 2, "gemm": 1}
	bl := schedulers.BottomLevels(w, func(t *workloads.Task) float64 { return cost[t.Kernel] })
	// Submission order: POTRF0, TRSM(1,0), TRSM(2,0), SYRK(1,0), GEMM(2,1,0),
	// SYRK(2,0), POTRF1, TRSM(2,1), SYRK(2,1), POTRF2.
	// POTRF2 = 4; SYRK(2,1) = 2+4 = 6; TRSM(2,1) = 3+6 = 9; POTRF1 = 4+9 = 13;
	// SYRK(1,0) = 2+13 = 15; GEMM(2,1,0) = 1+9 = 10 (it updates A21, read by
	// TRSM(2,1)); SYRK(2,0) = 2+6 = 8 (A22, then SYRK(2,1));
	// TRSM(1,0) = 3+max(15, 10) = 18; TRSM(2,0) = 3+max(10, 8) = 13;
	// POTRF0 = 4+18 = 22.
	want := []float64{22, 18, 13, 15, 10, 8, 13, 9, 6, 4}
	for i := range want {
		if bl[i] != want[i] {
			t.Errorf("task %d (%s %v): bottom level %g, want %g", i, w.Tasks[i].Kernel, w.Coords.Of(i), bl[i], want[i])
		}
	}
}

// BottomLevels against the definition, recursively over explicit successor
// lists, on random task graphs (a task depends on earlier ones, sometimes
// twice on the same).
func TestBottomLevelsMatchDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for inst := 0; inst < 300; inst++ {
		n := 1 + r.IntN(40)
		w := &workloads.Workload{}
		for i := range n {
			w.Tasks = append(w.Tasks, workloads.Task{ID: i, Flops: float64(r.IntN(5))})
			var deps []int
			for range r.IntN(4) {
				if i > 0 {
					deps = append(deps, r.IntN(i))
				}
			}
			w.Deps = append(w.Deps, deps)
		}
		weight := func(t *workloads.Task) float64 { return t.Flops / 3 }
		succ := make([][]int, n)
		for i, deps := range w.Deps {
			for _, d := range deps {
				succ[d] = append(succ[d], i)
			}
		}
		var bl func(i int) float64
		bl = func(i int) float64 {
			longest := 0.0
			for _, s := range succ[i] {
				longest = math.Max(longest, bl(s))
			}
			return weight(&w.Tasks[i]) + longest
		}
		got := schedulers.BottomLevels(w, weight)
		for i := range n {
			if want := bl(i); got[i] != want {
				t.Fatalf("instance %d task %d: bottom level %g, want %g", inst, i, got[i], want)
			}
		}
	}
}
