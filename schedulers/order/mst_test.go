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

// StarPU's mst (mst_policy.c) on the hand graph: its list is in reverse
// submission order, T5 T4 T3 T2 T1 T0 (indices 0..5), and a task raises
// only the tasks after it in that list (submitted before it), each shared
// handle counting 1. T5 first (key 1), sharing nothing: every key is 0, so
// the lowest index, T4, which raises T2 (e) and T1 (d). T2 (index 3)
// before T1 (index 4); T2 raises nobody (T4 is in). T1 raises T0 (b) but
// not T3 (c), which comes before it in the list: T0 (key 1) before T3
// (key 0), last.
func TestMSTStarPUHand(t *testing.T) {
	w := build(handGraph())
	if got, want := MSTStarPU(w), []int{5, 4, 2, 1, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("MSTStarPU = %v, want %v", got, want)
	}
	// A 2D product: every task shares a handle with one submitted before
	// it, so all keys are 1 and the order is the reverse of submission.
	if got, want := MSTStarPU(grid2D(3, 1)), []int{8, 7, 6, 5, 4, 3, 2, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("MSTStarPU 3x3 = %v, want %v", got, want)
	}
}

// starpuMST is mst_policy.c's mst() written out: the list in reverse
// submission order, the one-sided adjacency matrix counting equal handle
// pairs, Prim with key[0] = 1 and the first maximum, the last vertex put
// last.
func starpuMST(w *workloads.Workload) []int {
	n := len(w.Tasks)
	if n == 0 {
		return nil
	}
	list := make([]int, n)
	for i := range list {
		list[i] = n - 1 - i
	}
	adj := make([][]int, n)
	for i := range adj {
		adj[i] = make([]int, n)
		for j := i + 1; j < n; j++ {
			for _, a := range w.Tasks[list[i]].Inputs {
				for _, b := range w.Tasks[list[j]].Inputs {
					if a == b {
						adj[i][j]++
					}
				}
			}
		}
	}
	key, in := make([]int, n), make([]bool, n)
	key[0] = 1
	var sigma []int
	for count := 0; count < n-1; count++ {
		best, at := -1, 0
		for v := range n {
			if !in[v] && key[v] > best {
				best, at = key[v], v
			}
		}
		in[at] = true
		sigma = append(sigma, at)
		for v := range n {
			if adj[at][v] != 0 && !in[v] && adj[at][v] > key[v] {
				key[v] = adj[at][v]
			}
		}
	}
	for i := range n {
		if !in[i] {
			sigma = append(sigma, i)
		}
	}
	out := make([]int, n)
	for i, x := range sigma {
		out[i] = list[x]
	}
	return out
}

// MSTStarPU is mst_policy.c's order on random instances: 2D subsets,
// tasks sharing several data, tasks reading a data twice.
func TestMSTStarPUMatchesTheCode(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for inst := 0; inst < 300; inst++ {
		var w *workloads.Workload
		switch inst % 3 {
		case 0:
			w = random2DSubset(r, 2+r.IntN(6), 0.7, false)
		default:
			w = randomInstance(r, inst%2 == 1)
			if inst%3 == 2 {
				for i := range w.Tasks {
					if in := w.Tasks[i].Inputs; len(in) > 0 && r.IntN(4) == 0 {
						w.Tasks[i].Inputs = append(slices.Clone(in), in[r.IntN(len(in))])
					}
				}
			}
		}
		if got, want := MSTStarPU(w), starpuMST(w); !slices.Equal(got, want) {
			t.Fatalf("instance %d: MSTStarPU %v, mst_policy.c %v", inst, got, want)
		}
	}
}
