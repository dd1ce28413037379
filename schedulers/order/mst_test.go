package order

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memsched/memsched/workloads"
)

// handGraph is a small hand-drawn task graph (sizes in bytes):
//
//	T0 —a(4)— T3
//	T0 —b(1)— T1 —c(2)— T3
//	T1 —d(3)— T4 —e(1)— T2
//	T5 alone (private f, 5 bytes)
//
// Weighted degrees: T0 5, T1 6, T2 1, T3 6, T4 4, T5 0.
func handGraph() (sizes []int64, inputs [][]int) {
	return []int64{4, 1, 2, 3, 1, 5}, [][]int{
		{0, 1},    // T0: a b
		{1, 2, 3}, // T1: b c d
		{4},       // T2: e
		{0, 2},    // T3: a c
		{3, 4},    // T4: d e
		{5},       // T5: f
	}
}

func TestMSTHand(t *testing.T) {
	// From T0: T3 (edge 4); T3 raises T1 to 2; T1 (2) brings T4 (3); T4
	// brings T2 (1); T5 starts a new component.
	w := build(handGraph())
	if got, want := MST(w), []int{0, 3, 1, 4, 2, 5}; !slices.Equal(got, want) {
		t.Errorf("MST = %v, want %v", got, want)
	}
	// 2×2 grid, unit sizes: every key is 1, ties go to the lowest id.
	if got, want := MST(grid2D(2, 1)), []int{0, 1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("MST 2x2 = %v, want %v", got, want)
	}
}

func TestCuthillMcKeeHand(t *testing.T) {
	// CM: start at T5 (degree 0), which has no neighbour; restart at T2
	// (degree 1) → T4 → T1 → {T0 (5), T3 (6)}.
	w := build(handGraph())
	if got, want := CuthillMcKee(w, false), []int{5, 2, 4, 1, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("CM = %v, want %v", got, want)
	}
	if got, want := CuthillMcKee(w, true), []int{3, 0, 1, 4, 2, 5}; !slices.Equal(got, want) {
		t.Errorf("RCM = %v, want %v", got, want)
	}
	// 2×2 grid: equal degrees, ties by id: 0, then its neighbours 1, 2,
	// then 3.
	if got, want := CuthillMcKee(grid2D(2, 1), false), []int{0, 1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("CM 2x2 = %v, want %v", got, want)
	}
}

// TestOrdersArePermutations on random instances, and MST against a
// quadratic Prim.
func TestOrdersArePermutations(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for inst := 0; inst < 200; inst++ {
		w := randomInstance(r, inst%2 == 1)
		m := len(w.Tasks)
		for name, o := range map[string][]int{
			"MST": MST(w), "CM": CuthillMcKee(w, false), "RCM": CuthillMcKee(w, true),
		} {
			if !isPermutation(o, m) {
				t.Fatalf("%s order %v is not a permutation of %d tasks", name, o, m)
			}
		}
		if got, want := MST(w), naivePrim(w); !slices.Equal(got, want) {
			t.Fatalf("instance %d: MST %v, naive %v", inst, got, want)
		}
		if got, want := CuthillMcKee(w, false), naiveCM(w); !slices.Equal(got, want) {
			t.Fatalf("instance %d: CM %v, naive %v", inst, got, want)
		}
	}
}

// weightMatrix is G^T as an explicit m×m matrix; adj marks tasks sharing
// any data (even zero-byte data).
func weightMatrix(w *workloads.Workload) (wt [][]int64, adj [][]bool) {
	m := len(w.Tasks)
	wt = make([][]int64, m)
	adj = make([][]bool, m)
	for i := range wt {
		wt[i] = make([]int64, m)
		adj[i] = make([]bool, m)
		for j := range wt[i] {
			if i == j {
				continue
			}
			seen := map[int]bool{}
			for _, d := range w.Tasks[i].Inputs {
				if !seen[d] && slices.Contains(w.Tasks[j].Inputs, d) {
					wt[i][j] += w.Data[d].Bytes
					adj[i][j] = true
				}
				seen[d] = true
			}
		}
	}
	return wt, adj
}

// naiveCM is Algorithm 3 (not reversed) on the explicit matrix.
func naiveCM(w *workloads.Workload) []int {
	m := len(w.Tasks)
	wt, adj := weightMatrix(w)
	deg := make([]int64, m)
	for i := range wt {
		for _, x := range wt[i] {
			deg[i] += x
		}
	}
	byDeg := func(a, b int) int {
		if deg[a] != deg[b] {
			return int(deg[a] - deg[b])
		}
		return a - b
	}
	var order []int
	in := make([]bool, m)
	for i := 0; len(order) < m; i++ {
		if i == len(order) {
			var rest []int
			for v := range m {
				if !in[v] {
					rest = append(rest, v)
				}
			}
			slices.SortFunc(rest, byDeg)
			in[rest[0]] = true
			order = append(order, rest[0])
		}
		var nb []int
		for u := range m {
			if adj[order[i]][u] && !in[u] {
				nb = append(nb, u)
				in[u] = true
			}
		}
		slices.SortStableFunc(nb, byDeg)
		order = append(order, nb...)
	}
	return order
}

// naivePrim is Algorithm 4 with an explicit weight matrix.
func naivePrim(w *workloads.Workload) []int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	wt, _ := weightMatrix(w)
	key := make([]int64, m)
	key[0] = 1
	in := make([]bool, m)
	var order []int
	for len(order) < m {
		v := -1
		for u := 0; u < m; u++ {
			if !in[u] && (v < 0 || key[u] > key[v]) {
				v = u
			}
		}
		in[v] = true
		order = append(order, v)
		for u := 0; u < m; u++ {
			if !in[u] && wt[v][u] > key[u] {
				key[u] = wt[v][u]
			}
		}
	}
	return order
}
