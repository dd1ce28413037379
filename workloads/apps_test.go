package workloads

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func kernels(w *Workload) map[string]int {
	out := map[string]int{}
	for _, t := range w.Tasks {
		out[t.Kernel]++
	}
	return out
}

// The interaction list of the FMM holds at most 6^d − 3^d cells: 27 in 2D,
// 189 in 3D.
func TestInteractionLists(t *testing.T) {
	for dim, want := range map[int]int{2: 27, 3: 189} {
		c := cells{dim: dim}
		most := 0
		for i := 0; i < c.count(3); i++ {
			most = max(most, len(c.interactions(3, i)))
			for _, j := range c.interactions(3, i) {
				if slices.Contains(c.neighbours(3, i), j) || j == i {
					t.Fatalf("cell %d's interaction list holds a neighbour %d", i, j)
				}
			}
		}
		if most != want {
			t.Errorf("dim %d: largest interaction list %d, want %d", dim, most, want)
		}
	}
	c := cells{dim: 2}
	if got := len(c.interactions(2, c.index([]int{0, 0}))); got != 12 {
		t.Errorf("corner cell of a 4x4 grid: %d interactions, want 12", got)
	}
	if got := len(c.interactions(2, c.index([]int{1, 1}))); got != 7 {
		t.Errorf("cell (1,1) of a 4x4 grid: %d interactions, want 7", got)
	}
	for i := 0; i < 64; i++ {
		if c.index(c.coord(i)) != i {
			t.Fatalf("Morton round trip of %d", i)
		}
	}
}

// Neighbours and interaction lists against their definitions by
// coordinates, over every cell of levels 2..4 in 2D and 2..3 in 3D.
func TestCellListsByDefinition(t *testing.T) {
	for dim, top := range map[int]int{2: 4, 3: 3} {
		c := cells{dim: dim}
		for l := 2; l <= top; l++ {
			for i := 0; i < c.count(l); i++ {
				x := c.coord(i)
				var nb, far []int
				for j := 0; j < c.count(l); j++ {
					y := c.coord(j)
					near := adjacent(x, y)
					if near && j != i {
						nb = append(nb, j)
					}
					if !near && adjacent(c.coord(i/c.children()), c.coord(j/c.children())) {
						far = append(far, j)
					}
				}
				if got := c.neighbours(l, i); !slices.Equal(got, nb) {
					t.Fatalf("dim %d level %d cell %d: neighbours %v, want %v", dim, l, i, got, nb)
				}
				if got := c.interactions(l, i); !slices.Equal(got, far) {
					t.Fatalf("dim %d level %d cell %d: interactions %v, want %v", dim, l, i, got, far)
				}
			}
		}
	}
}

// Tree-based method, quadtree of height 2: 16 leaves, 5 inner cells.
func TestTreeCounts(t *testing.T) {
	w, err := Generate(Spec{Kind: KindTree, N: 2, Opts: "dim=2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kernels(w), map[string]int{"p2c": 16, "n2n": 5, "incell": 16, "c2p": 16}; !reflect.DeepEqual(got, want) {
		t.Fatalf("kernels %v, want %v", got, want)
	}
	for _, tk := range w.Tasks {
		switch tk.Kernel {
		case "n2n":
			if len(w.DepsOf(tk.ID)) != 4 {
				t.Errorf("N2N %v depends on %d tasks, want its 4 children", w.Coords.Of(tk.ID), len(w.DepsOf(tk.ID)))
			}
		case "c2p":
			// after its leaf's In-Cell (same forces, RW) and the P2C of
			// the cells it reads.
			if len(w.DepsOf(tk.ID)) != len(tk.Inputs) {
				t.Errorf("C2P %v: %d deps for %d inputs", w.Coords.Of(tk.ID), len(w.DepsOf(tk.ID)), len(tk.Inputs))
			}
		}
	}
}

func TestFMMCounts(t *testing.T) {
	// A quadtree of height 3, groups of 8 cells: levels 2 and 3 hold 2 and
	// 8 groups (a group of 4 would be 4 siblings, all adjacent: no M2L
	// inside it).
	w, err := Generate(Spec{Kind: KindFMM, N: 3, Opts: "dim=2,group=8"})
	if err != nil {
		t.Fatal(err)
	}
	k := kernels(w)
	for name, want := range map[string]int{"p2m": 8, "m2m": 2, "l2l": 8, "l2p": 8, "p2p": 8} {
		if k[name] != want {
			t.Errorf("%s: %d tasks, want %d", name, k[name], want)
		}
	}
	if k["m2l_outer"] == 0 || k["p2p_outer"] == 0 || k["m2l"] == 0 {
		t.Errorf("no inter-group tasks: %v", k)
	}
	// The FMM's DAG is shallow: every path is short next to the task count.
	c := w.Analyse(func(int) float64 { return 1 })
	if c.Length > 20 {
		t.Errorf("critical path of %g tasks", c.Length)
	}
}

// A chain of two fronts (depth 1, one child, shrink 1): the leaf has 4
// columns, eliminates 2 and has 6 rows (aspect 1.5); its tiled QR has
// Σ_k 1 + (n−k−1) + (m−k−1)(1 + n−k−1) tasks.
func TestQRMumpsFronts(t *testing.T) {
	w, err := Generate(Spec{Kind: KindQRMumps, N: 1, Tile: 64, Opts: "root_cols=4,branching=1,shrink=1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(kernels(w)) != 4 {
		t.Fatalf("kernels %v, want the four qr_mumps types", kernels(w))
	}
	m, n, p := 6, 4, 2
	want := 0
	for k := 0; k < p; k++ {
		want += 1 + (n - k - 1) + (m-k-1)*(1+n-k-1)
	}
	leaf := 0
	for _, tk := range w.Tasks {
		if w.Coords.Of(tk.ID)[0] == 1 {
			leaf++
		}
	}
	if leaf != want {
		t.Errorf("leaf front: %d tasks, want %d", leaf, want)
	}
	// The root reads the leaf's contribution block: some root task depends
	// on a leaf task.
	crosses := false
	for _, tk := range w.Tasks {
		if w.Coords.Of(tk.ID)[0] != 0 {
			continue
		}
		for _, d := range w.DepsOf(tk.ID) {
			crosses = crosses || w.Coords.Of(d)[0] == 1
		}
	}
	if !crosses {
		t.Error("the root front does not wait for its child's contribution block")
	}
}

func TestSpLDLT(t *testing.T) {
	w, err := Generate(Spec{Kind: KindSpLDLT, N: 20})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Generate(Spec{Kind: KindCholesky, N: 20, Deps: true})
	if len(w.Tasks) != len(c.Tasks) {
		t.Fatalf("%d tasks, want the tiled Cholesky's %d", len(w.Tasks), len(c.Tasks))
	}
	if w.Data[0].Bytes != 1000*1000*8 {
		t.Errorf("tile of %d bytes, want 1000² doubles", w.Data[0].Bytes)
	}
	for i := range w.Tasks {
		if !slices.Equal(w.DepsOf(i), c.DepsOf(i)) {
			t.Fatalf("task %d: deps %v, want the Cholesky graph's %v", i, w.DepsOf(i), c.DepsOf(i))
		}
	}
	if got := kernels(w); got["ldlt_update"] != 20*19*18/6 || got["ldlt_factor"] != 20 {
		t.Errorf("kernels %v", got)
	}
}

// Stencil: n blocks × iterations updates; update(z, i) waits for its own
// and its two neighbours' updates of i−1.
func TestStencil(t *testing.T) {
	w, err := Generate(Spec{Kind: KindStencil, N: 4, Opts: "iterations=3,size=16"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Tasks) != 12 || len(kernels(w)) != 1 {
		t.Fatalf("%d tasks of %v", len(w.Tasks), kernels(w))
	}
	id := func(it, z int) int { return (it-1)*4 + z }
	for z := 0; z < 4; z++ {
		tk := w.Tasks[id(2, z)]
		for _, need := range []int{id(1, z), id(1, (z+1)%4), id(1, (z+3)%4)} {
			if !slices.Contains(w.DepsOf(tk.ID), need) {
				t.Errorf("update(z=%d, it=2) deps %v lack %d", z, w.DepsOf(tk.ID), need)
			}
		}
	}
	if w.Tasks[0].Flops != 16*16*4 {
		t.Errorf("flops %g, want the block's cells", w.Tasks[0].Flops)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: KindFMM, N: 2, Opts: "grup=4"}, `did you mean "group"`},
		{Spec{Kind: KindFMM, N: 2, Opts: "dim=4"}, "use 2 or 3"},
		{Spec{Kind: KindCholesky, N: 2, Opts: "dim=2"}, "has no options"},
		{Spec{Kind: KindTree, N: 2, Opts: "dim"}, "want name=number"},
		{Spec{Kind: KindStencil, N: 2, Opts: "size=-1"}, "positive"},
	} {
		_, err := Generate(c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.s, err, c.want)
		}
	}
	if FormatOpts(map[string]float64{"group": 4, "dim": 2}) != "dim=2,group=4" {
		t.Error("FormatOpts is not sorted")
	}
	a, _ := Generate(Spec{Kind: KindFMM, N: 3, Opts: "dim=2"})
	b, _ := Generate(Spec{Kind: KindFMM, N: 3, Opts: "dim=2"})
	if !reflect.DeepEqual(a, b) {
		t.Error("generation is not deterministic")
	}
	if a.Name != "fmm-n3-dim2" {
		t.Errorf("name %q", a.Name)
	}
}
