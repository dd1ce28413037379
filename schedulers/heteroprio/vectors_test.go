package heteroprio

import (
	"math"
	"slices"
	"testing"
)

// PeerJ 2019 Table 1: memory-node selection for seven tasks on three nodes,
// with the recomputed scores (seeds_003_004.md §B.2.6) as vectors: per
// row and node (LS_SDH, LS_SDH2, LS_SDHB θ=1000, LC_SMWB), and the
// winners (several when tied). Row 5's LS_SDH is a tie of MN1 and MN2
// although the paper prints MN2.
func TestTable1(t *testing.T) {
	type datum struct {
		name  string
		write bool
		size  float64
	}
	rows := []struct {
		data    []datum
		hosts   [3]string // data on MN0, MN1, MN2
		want    [3][4]float64
		winners [4][]int
	}{
		{[]datum{{"A", false, 1}, {"B", true, 1}}, [3]string{"A", "A", "B"},
			[3][4]float64{{1, 1, 1, 1.5}, {1, 1, 1, 1.5}, {1, 1, 1000, 1}},
			[4][]int{{0, 1, 2}, {0, 1, 2}, {2}, {2}}},
		{[]datum{{"A", false, 1}, {"B", true, 1}}, [3]string{"A", "AB", "B"},
			[3][4]float64{{1, 1, 1, 1.5}, {2, 2, 1001, 0}, {1, 1, 1000, 1}},
			[4][]int{{1}, {1}, {1}, {1}}},
		{[]datum{{"A", true, 1}, {"B", true, 1}, {"C", true, 2}}, [3]string{"AB", "C", "AC"},
			[3][4]float64{{2, 2, 4000, 2}, {2, 4, 2000, 2}, {3, 5, 6000, 1}},
			[4][]int{{2}, {2}, {2}, {2}}},
		{[]datum{{"A", true, 1}, {"B", true, 1}, {"C", true, 1}}, [3]string{"AB", "AB", "AC"},
			[3][4]float64{{2, 2, 4000, 1}, {2, 2, 4000, 1}, {2, 2, 4000, 1}},
			[4][]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}}},
		{[]datum{{"A", false, 2}, {"B", false, 1}, {"C", true, 2}, {"D", true, 2}}, [3]string{"AB", "AC", "CD"},
			[3][4]float64{{3, 3, 3, 6}, {4, 6, 2002, 4}, {4, 8, 8000, 3}},
			[4][]int{{1, 2}, {2}, {2}, {2}}},
		{[]datum{{"A", true, 10}, {"B", true, 11}, {"C", true, 18}, {"D", true, 11}}, [3]string{"AD", "C", "BD"},
			[3][4]float64{{21, 221, 42000, 29}, {18, 324, 18000, 32}, {22, 242, 44000, 28}},
			[4][]int{{2}, {1}, {2}, {2}}},
		{[]datum{{"A", true, 10}, {"B", true, 11}, {"C", true, 22}, {"D", true, 11}}, [3]string{"AD", "C", "BD"},
			[3][4]float64{{21, 221, 42000, 33}, {22, 484, 22000, 32}, {22, 242, 44000, 32}},
			[4][]int{{1, 2}, {1}, {2}, {1, 2}}},
	}
	formulas := []DLAF{LSSDH, LSSDH2, LSSDHB, LCSMWB}
	for r, row := range rows {
		acc := make([]access, len(row.data))
		for i, d := range row.data {
			acc[i] = access{size: d.size, write: d.write, on: make([]bool, 3)}
			for m, h := range row.hosts {
				acc[i].on[m] = slices.Contains([]byte(h), d.name[0])
			}
		}
		for f, dl := range formulas {
			s, maximize := scores(dl, acc, 3, 1000, false, nil)
			for m := range s {
				if s[m] != row.want[m][f] {
					t.Errorf("row %d %s MN%d = %g, want %g", r+1, dl, m, s[m], row.want[m][f])
				}
			}
			if got := ties(s, maximize); !slices.Equal(got, row.winners[f]) {
				t.Errorf("row %d %s winners %v, want %v", r+1, dl, got, row.winners[f])
			}
			// StarPU ignores data present on every node in LS_SDHB: the
			// winners are the paper's all the same.
			s, maximize = scores(dl, acc, 3, 1000, dl == LSSDHB, nil)
			if got := ties(s, maximize); !slices.Equal(got, row.winners[f]) {
				t.Errorf("row %d %s (ignoring data on every node) winners %v, want %v", r+1, dl, got, row.winners[f])
			}
		}
	}
}

// Ties go to the pushing worker's node, else to the first node in StarPU's
// order (heteroprio.c get_best_mem_node).
func TestBestTieRule(t *testing.T) {
	s := []float64{3, 4, 4}
	if got := best(s, true, 2); got != 2 {
		t.Errorf("tie with the pusher's node: got MN%d, want MN2", got)
	}
	if got := best(s, true, 0); got != 1 {
		t.Errorf("tie without the pusher's node: got MN%d, want MN1", got)
	}
	if got := best([]float64{2, 1, 1}, false, -1); got != 1 {
		t.Errorf("lowest cost: got MN%d, want MN1", got)
	}
}

// PeerJ 2019 Table 2: priority distances between access arrays.
func TestTable2PriorityDistance(t *testing.T) {
	cases := []struct {
		i, j []int
		frac float64
	}{
		{[]int{0, 1, 2}, []int{2, 1, 0}, 4.0 / 10},
		{[]int{0, 1, 2}, []int{0, 1}, 2.0 / 10},
		{[]int{0, 1, 2}, []int{0, 1, 2}, 0},
		{[]int{3, 1, 2, 0}, []int{1, 2, 3}, 4.0 / 15},
		{[]int{3, 1, 2, 0}, []int{1, 3, 2}, 4.0 / 15},
		{[]int{3, 1, 2, 0}, []int{3, 2, 1}, 2.0 / 15},
	}
	for _, c := range cases {
		if got := priorityFraction(c.i, c.j); math.Abs(got-c.frac) > 1e-12 {
			t.Errorf("%v vs %v: fraction %g, want %g", c.i, c.j, got, c.frac)
		}
	}
	// The paper prints 1−0.26 and 1−0.13 for 4/15 and 2/15.
	if d := 1 - priorityFraction([]int{3, 1, 2, 0}, []int{3, 2, 1}); math.Abs(d-(1-0.13)) > 0.01 {
		t.Errorf("distance_priority %g, want 1−0.13", d)
	}
}

// PeerJ 2019 Table 3: one CPU and two GPUs, 4 buckets (bucket 0 CPU-only),
// the GPUs visiting buckets 3, 2, 1; S = 2 for the CPU, 1 for the GPUs;
// l = 2. The tables give each list's visit index.
func TestTable3AccessOrders(t *testing.T) {
	const cpu, gpu0, gpu1 = 0, 1, 2
	dist := [][]float64{{0, 0.5, 1}, {0.5, 0, 1}, {0.5, 1, 0}} // Table 3(A)
	cpuOrder := []int{0, 1, 2, 3}
	gpuOrder := []int{3, 2, 1}
	visits := func(g int, order []int, others []int, l, s int) map[[2]int]int {
		out := map[[2]int]int{}
		for i, it := range accessOrder(g, len(order), others, l, s) {
			out[[2]int{order[it.prio], it.group}] = i
		}
		return out
	}
	// (C) and (D): the GPUs' orders follow from the distance matrix.
	wantC := map[[2]int]int{{1, cpu}: 5, {1, gpu0}: 4, {1, gpu1}: 8, {2, cpu}: 3, {2, gpu0}: 1, {2, gpu1}: 7, {3, cpu}: 2, {3, gpu0}: 0, {3, gpu1}: 6}
	wantD := map[[2]int]int{{1, cpu}: 5, {1, gpu0}: 8, {1, gpu1}: 4, {2, cpu}: 3, {2, gpu0}: 7, {2, gpu1}: 1, {3, cpu}: 2, {3, gpu0}: 6, {3, gpu1}: 0}
	for _, c := range []struct {
		g    int
		want map[[2]int]int
	}{{gpu0, wantC}, {gpu1, wantD}} {
		got := visits(c.g, gpuOrder, byDistance(c.g, dist[c.g]), 2, 1)
		if len(got) != len(c.want) {
			t.Fatalf("GPU-%d: %d lists visited, want %d", c.g-1, len(got), len(c.want))
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("GPU-%d workers: G(%d,%d) visited %d-th, want %d", c.g-1, k[0], k[1], got[k], v)
			}
		}
	}
	// (B) holds only with GPU-1 before GPU-0 among the CPU's neighbours,
	// which contradicts row CPU of (A): the paper's inconsistency.
	wantB := map[[2]int]int{{3, cpu}: 7, {3, gpu0}: 11, {3, gpu1}: 10, {2, cpu}: 6, {2, gpu0}: 9, {2, gpu1}: 8,
		{1, cpu}: 1, {1, gpu0}: 5, {1, gpu1}: 4, {0, cpu}: 0, {0, gpu0}: 3, {0, gpu1}: 2}
	got := visits(cpu, cpuOrder, []int{gpu1, gpu0}, 2, 2)
	for k, v := range wantB {
		if got[k] != v {
			t.Errorf("CPU workers: G(%d,%d) visited %d-th, want %d", k[0], k[1], got[k], v)
		}
	}
	if d := byDistance(cpu, dist[cpu]); !slices.Equal(d, []int{gpu0, gpu1}) {
		t.Errorf("CPU neighbours by distance %v", d)
	}
}

// PeerJ 2019 §Speedup factors: three GPU workers, GPUs twice as fast: a
// CPU worker takes a task only when six or more are available.
func TestSpeedupFactorExample(t *testing.T) {
	for n := 0; n <= 10; n++ {
		if got, want := SlowWorkerMayTake(n, 3, 2), n >= 6; got != want {
			t.Errorf("%d tasks: may take = %v, want %v", n, got, want)
		}
	}
}
