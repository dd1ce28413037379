package order

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func unitCost(int) float64 { return 1 }

func loadsOf(pkgs [][]int, cost func(int) float64) []float64 {
	l := make([]float64, len(pkgs))
	for i, p := range pkgs {
		for _, t := range p {
			l[i] += cost(t)
		}
	}
	return l
}

func TestBalanceHand(t *testing.T) {
	// Loads 6, 2, 1 (avg 3): A = min(3, 2) = 2 → tasks 4, 5 go to P_2,
	// the least loaded. Then 4, 2, 3: A = min(1, 1) → task 3 to P_1.
	in := [][]int{{0, 1, 2, 3, 4, 5}, {6, 7}, {8}}
	got := Balance(in, unitCost)
	want := [][]int{{0, 1, 2}, {6, 7, 3}, {8, 4, 5}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("Balance = %v, want %v", got, want)
		}
	}
	if len(in[0]) != 6 {
		t.Fatal("input modified")
	}
	// [5,3,3,3] (avg 3.5): A = 0.5 rounds up to one task → [4,4,3,3];
	// then moving one more task would only swap loads: stop.
	got = Balance([][]int{{0, 1, 2, 3, 4}, {5, 6, 7}, {8, 9, 10}, {11, 12, 13}}, unitCost)
	if l := loadsOf(got, unitCost); !slices.Equal(l, []float64{4, 4, 3, 3}) {
		t.Fatalf("loads %v, want [4 4 3 3] (got %v)", l, got)
	}
	// Less than half a task over: one task still moves (8 packages,
	// avg 3.25, [5,3,...] → [4,4,3,...]).
	pk := [][]int{{0, 1, 2, 3, 4}}
	for p := 1; p < 8; p++ {
		pk = append(pk, []int{5 + 3*p, 6 + 3*p, 7 + 3*p})
	}
	if l := loadsOf(Balance(pk, unitCost), unitCost); slices.Max(l)-slices.Min(l) > 1 {
		t.Fatalf("loads %v not within one task", l)
	}
	// Empty packages are filled.
	got = Balance([][]int{{0, 1, 2, 3}, {}}, unitCost)
	if !slices.Equal(got[0], []int{0, 1}) || !slices.Equal(got[1], []int{2, 3}) {
		t.Fatalf("got %v", got)
	}
}

// TestBalanceProperties: terminates, keeps a partition, unit costs end
// within one task, and weighted costs never get worse.
func TestBalanceProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for inst := 0; inst < 500; inst++ {
		k := 1 + r.IntN(6)
		pkgs := make([][]int, k)
		m := r.IntN(60)
		for task := 0; task < m; task++ {
			p := r.IntN(k)
			if r.IntN(3) == 0 {
				p = 0 // skew
			}
			pkgs[p] = append(pkgs[p], task)
		}
		costs := make([]float64, m)
		for i := range costs {
			costs[i] = 0.5 + 3*r.Float64()
		}
		weighted := func(t int) float64 { return costs[t] }
		for _, cost := range []func(int) float64{unitCost, weighted} {
			got := Balance(pkgs, cost)
			if !isPermutation(flatten(got), m) && m > 0 {
				t.Fatalf("not a partition: %v", got)
			}
			before, after := loadsOf(pkgs, cost), loadsOf(got, cost)
			avg := 0.0
			for _, l := range before {
				avg += l / float64(k)
			}
			if spread(after, avg) > spread(before, avg)+1e-9 {
				t.Fatalf("imbalance grew: %v → %v", before, after)
			}
		}
		if l := loadsOf(Balance(pkgs, unitCost), unitCost); k > 0 && slices.Max(l)-slices.Min(l) > 1 {
			t.Fatalf("unit loads %v not within one task", l)
		}
	}
}

func spread(loads []float64, avg float64) float64 {
	var s float64
	for _, l := range loads {
		s += math.Pow(l-avg, 2)
	}
	return s
}

// TestBalanceStarPUTrace is 2D N=10 on 4 GPUs of gemini-2-ipdps as StarPU's
// HFP.c (MULTIGPU=4, papers/ICPP2023) balanced it, read from an instrumented
// run: packages of 16, 24, 24, 36 tasks timed at CUDA0's 563.6051 µs, the
// average and the moves at CUDA1's 570.7416 µs. avg − t(P_0) = 14268.54 −
// 9017.68 = 5250.86 µs is crossed by the 10th task of 570.74: the last 10
// tasks of P_3 go to P_0, reversed; then P_1 (13526.52) and P_0 (14725.10):
// t(P_0) − avg = 456.56 µs is shorter than a task, so StarPU stops at 26, 24,
// 24, 26.
func TestBalanceStarPUTrace(t *testing.T) {
	var in [][]int
	next := 0
	for _, n := range []int{16, 24, 24, 36} {
		var p []int
		for range n {
			p = append(p, next)
			next++
		}
		in = append(in, p)
	}
	got := BalanceStarPU(in, func(int) float64 { return 563.6051 }, func(int) float64 { return 570.7416 })
	var want0 []int
	want0 = append(want0, in[0]...)
	for i := 99; i >= 90; i-- {
		want0 = append(want0, i)
	}
	want := [][]int{want0, in[1], in[2], in[3][:26]}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("package %d = %v, want %v", i, got[i], want[i])
		}
	}
	if len(in[3]) != 36 {
		t.Fatal("input modified")
	}
	// One cost for both: avg − 16 = 9 tasks, then 1 to P_1, 1 to P_2, all
	// at 25 (P_min = P_max: stop), as Balance.
	got = BalanceStarPU(in, unitCost, unitCost)
	if l := loadsOf(got, unitCost); !slices.Equal(l, []float64{25, 25, 25, 25}) {
		t.Fatalf("loads %v, want 25 each", l)
	}
}
