package hypergraph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// checkParts fails unless parts is a valid k-way partition with no empty
// part and the balance recursive bisection with UBfactor ub guarantees:
// along the ⌈log2 k⌉ bisections a part gets at most its share times
// (1+2ub/100) each, plus one vertex of slack per level for granularity.
func checkParts(t *testing.T, h *Hypergraph, parts []int, k int, ub float64) {
	t.Helper()
	if err := CheckPartition(h, parts, k); err != nil {
		t.Fatal(err)
	}
	load := make([]int64, k)
	count := make([]int, k)
	var total int64
	for v, p := range parts {
		load[p] += h.VertexWeight[v]
		count[p]++
		total += h.VertexWeight[v]
	}
	levels := math.Ceil(math.Log2(float64(k)))
	bound := float64(total)/float64(k)*math.Pow(1+2*ub/100, levels) + levels*float64(slices.Max(h.VertexWeight))
	for p := range k {
		if count[p] == 0 {
			t.Errorf("part %d is empty", p)
		}
		if float64(load[p]) > bound {
			t.Errorf("part %d weighs %d > bound %.1f (loads %v)", p, load[p], bound, load)
		}
	}
}

func TestPartitionErrors(t *testing.T) {
	h := matmul2D(4)
	cases := []struct {
		opt  Options
		want string
	}{
		{Options{Parts: 0}, "Parts must be >= 1"},
		{Options{Parts: 17}, "cannot split 16 vertices into 17"},
		{Options{Parts: 2, UBFactor: 50}, "UBFactor must be in (0,50)"},
		{Options{Parts: 2, UBFactor: -1}, "UBFactor"},
		{Options{Parts: 2, Runs: -1}, "Runs must be >= 0"},
		{Options{Parts: 2, VCycles: 4}, "VCycles must be"},
	}
	for _, c := range cases {
		_, err := Partition(h, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", c.opt, err, c.want)
		}
	}
	if _, err := Partition(&Hypergraph{VertexWeight: []int64{1}, Edges: [][]int{{3}}}, Options{Parts: 1}); err == nil {
		t.Error("invalid hypergraph accepted")
	}
	zero := &Hypergraph{VertexWeight: []int64{0, 0, 0}, Edges: [][]int{{0, 1, 2}}}
	if _, err := Partition(zero, Options{Parts: 2}); !errors.Is(err, ErrZeroWeight) {
		t.Errorf("zero weight: err = %v, want ErrZeroWeight", err)
	}
}

func TestPartitionTrivial(t *testing.T) {
	h := matmul2D(3)
	parts, err := Partition(h, Options{Parts: 1})
	if err != nil || !slices.Equal(parts, make([]int, 9)) {
		t.Fatalf("K=1: %v, %v", parts, err)
	}
	// As many parts as vertices: each vertex alone.
	parts, err = Partition(h, Options{Parts: 9})
	if err != nil {
		t.Fatal(err)
	}
	checkParts(t, h, parts, 9, 1)
	// No edge at all (only single pins): still balanced.
	lone := &Hypergraph{VertexWeight: []int64{1, 1, 1, 1, 1}, Edges: [][]int{{0}, {3, 3}}}
	parts, err = Partition(lone, Options{Parts: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkParts(t, lone, parts, 2, 1)
}

// TestGridOptimum checks the N×N grid of 2D-product tasks (row edges and
// column edges, weight w) against its hand-known optima. Bisection: cutting
// fewer than N edges leaves a row and a column uncut, which pins every
// uncut row and column to one side X; the other side then lies within the
// cut rows × cut columns, at most ((N−1)/2)² < 49% of the tasks. So the
// optimum is N·w, reached by splitting the rows in halves, which UBfactor 1
// allows for even N and for N >= 50 (odd N needs N+1 <= 1.02·N). Four
// parts: the quadrants put every row and column in exactly two parts, 2N·w.
func TestGridOptimum(t *testing.T) {
	for _, n := range []int{8, 16, 40, 71} {
		if n > 40 && testing.Short() {
			continue // the paper's size; -race makes it slow
		}
		h := matmul2D(n)
		w := h.EdgeWeight[0]
		for k, want := range map[int]int64{2: int64(n) * w, 4: 2 * int64(n) * w} {
			t.Run(fmt.Sprintf("N=%d/K=%d", n, k), func(t *testing.T) {
				parts, err := Partition(h, Options{Parts: k, Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				checkParts(t, h, parts, k, 1)
				got := Connectivity(h, parts)
				if got > want {
					t.Errorf("connectivity−1 = %d data, want <= %d", got/w, want/w)
				}
				if k == 2 && got != want {
					t.Errorf("bisection connectivity−1 = %d data, above the proven optimum %d", got/w, want/w)
				}
			})
		}
	}
}

// randomBalanced is the baseline: a uniformly random balanced partition.
func randomBalanced(n, k int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 1))
	parts := make([]int, n)
	for i, v := range r.Perm(n) {
		parts[v] = i % k
	}
	return parts
}

func TestRandomHypergraphsBeatBaseline(t *testing.T) {
	for _, k := range []int{2, 4, 5} {
		h := randomHypergraph(600, 500, 6, uint64(k))
		parts, err := Partition(h, Options{Parts: k, Seed: 3, Runs: 8})
		if err != nil {
			t.Fatal(err)
		}
		checkParts(t, h, parts, k, 1)
		ours := Connectivity(h, parts)
		var base int64
		for s := range uint64(5) {
			base += Connectivity(h, randomBalanced(h.NumVertices(), k, s))
		}
		base /= 5
		t.Logf("K=%d: connectivity−1 ours %d, random balanced %d (%.0f%%)", k, ours, base, 100*float64(ours)/float64(base))
		if float64(ours) > 0.5*float64(base) {
			t.Errorf("K=%d: ours %d is not below half of random %d", k, ours, base)
		}
	}
}

func TestWeightedBalance(t *testing.T) {
	h := cholesky(12) // POTRF 1, TRSM/SYRK 3, GEMM 6
	for _, k := range []int{2, 3, 4, 7, 8} {
		for _, ub := range []float64{1, 5} {
			parts, err := Partition(h, Options{Parts: k, UBFactor: ub, Seed: 1, Runs: 4})
			if err != nil {
				t.Fatal(err)
			}
			checkParts(t, h, parts, k, ub)
		}
	}
}

func TestZeroWeightVerticesAndDuplicates(t *testing.T) {
	h := randomHypergraph(300, 300, 5, 4)
	for v := 0; v < 300; v += 3 {
		h.VertexWeight[v] = 0
	}
	h.Edges[0] = append(h.Edges[0], h.Edges[0]...) // duplicate pins
	h.Edges = append(h.Edges, []int{5})            // single pin
	h.EdgeWeight = append(h.EdgeWeight, 1000)
	parts, err := Partition(h, Options{Parts: 4, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkParts(t, h, parts, 4, 1)
}

func TestDeterministic(t *testing.T) {
	h := randomHypergraph(500, 400, 6, 11)
	opt := Options{Parts: 4, Seed: 42, Runs: 8}
	a, err := Partition(h, opt)
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	b, err := Partition(h, opt)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Error("same seed, different partitions (GOMAXPROCS 1 vs default)")
	}
	differ := false
	for seed := uint64(43); seed < 48 && !differ; seed++ {
		c, err := Partition(h, Options{Parts: 4, Seed: seed, Runs: 8})
		if err != nil {
			t.Fatal(err)
		}
		differ = !slices.Equal(a, c)
	}
	if !differ {
		t.Error("five other seeds all gave the same partition")
	}
}

func TestVCycleModes(t *testing.T) {
	h := randomHypergraph(600, 500, 6, 5)
	var cuts []int64
	for _, vc := range []int{NoVCycle, 1, 2, 3} {
		parts, err := Partition(h, Options{Parts: 2, Seed: 9, Runs: 6, VCycles: vc})
		if err != nil {
			t.Fatal(err)
		}
		checkParts(t, h, parts, 2, 1)
		cuts = append(cuts, Connectivity(h, parts))
	}
	// The runs are the same in every mode and V-cycles never worsen a
	// bisection, so mode 3 (all runs) is at least as good as no V-cycle.
	if cuts[3] > cuts[0] {
		t.Errorf("V-cycles on every run made the cut worse: %v", cuts)
	}
	t.Logf("connectivity−1 for Vcycle none/1/2/3: %v", cuts)
}
