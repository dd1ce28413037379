package workloads

import (
	"math"
	"slices"
	"testing"
)

// Successors reverse the dependencies, in id order, and are empty for every
// task of a set without dependencies.
func TestSuccessors(t *testing.T) {
	w := &Workload{Tasks: []Task{{ID: 0}, {ID: 1}, {ID: 2}, {ID: 3}, {ID: 4}},
		Deps: [][]int{nil, {0}, {0}, {2, 1}, nil}}
	s := w.Successors()
	for task, want := range [][]int{{1, 2}, {3}, {3}, nil, nil} {
		if got := s.Of(task); !slices.Equal(got, want) {
			t.Errorf("successors of %d: %v, want %v", task, got, want)
		}
	}
	if got := s.Of(0); cap(got) != len(got) {
		t.Errorf("an append to the successors of 0 would overwrite those of 1 (cap %d)", cap(got))
	}
	flat := &Workload{Tasks: []Task{{ID: 0}, {ID: 1}}}
	if flat.Successors().start != nil {
		t.Error("independent tasks: a table of successors was made")
	}
	if got := flat.Successors().Of(1); got != nil {
		t.Errorf("independent tasks: successors %v", got)
	}
}

// A diamond a→{b,c}→d with durations 1, 2, 5, 1: the critical path is
// a, c, d (length 7); b has 3 units of slack.
func TestCriticalPathDiamond(t *testing.T) {
	w := &Workload{Tasks: []Task{{ID: 0}, {ID: 1}, {ID: 2}, {ID: 3}},
		Deps: [][]int{nil, {0}, {0}, {1, 2}}}
	dur := []float64{1, 2, 5, 1}
	c := w.Analyse(func(i int) float64 { return dur[i] })
	if c.Length != 7 {
		t.Fatalf("length %g, want 7", c.Length)
	}
	wantEST := []float64{0, 1, 1, 6}
	wantLST := []float64{0, 4, 1, 6}
	for i := range wantEST {
		if c.EST[i] != wantEST[i] || c.LST[i] != wantLST[i] {
			t.Errorf("task %d: EST %g LST %g, want %g %g", i, c.EST[i], c.LST[i], wantEST[i], wantLST[i])
		}
	}
	for i, crit := range []bool{true, false, true, true} {
		if c.Critical(i) != crit {
			t.Errorf("task %d critical = %v", i, !crit)
		}
	}
	if got := c.Criticality(1); math.Abs(got-(1-4.0/7)) > 1e-15 {
		t.Errorf("criticality of b = %g, want 3/7", got)
	}
	if c.Criticality(0) != 1 {
		t.Errorf("the first critical task has criticality 1")
	}
}

// The tiled Cholesky DAG of N tiles with unit durations has a critical
// path of 3N−2 tasks: POTRF, TRSM, SYRK for each step but the last, then
// the last POTRF.
func TestCriticalPathCholesky(t *testing.T) {
	for _, n := range []int{1, 2, 5, 8} {
		w, err := Generate(Spec{Kind: KindCholesky, N: n, Deps: true})
		if err != nil {
			t.Fatal(err)
		}
		c := w.Analyse(func(int) float64 { return 1 })
		if want := float64(3*n - 2); c.Length != want {
			t.Errorf("N=%d: length %g, want %g", n, c.Length, want)
		}
	}
}
