package workloads

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustGen(t *testing.T, s Spec) *Workload {
	t.Helper()
	w, err := Generate(s)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", s, err)
	}
	return w
}

func TestMatmul2DN15(t *testing.T) {
	w := mustGen(t, Spec{Kind: "matmul2d", N: 15})
	if w.Name != "matmul2d-n15" {
		t.Errorf("name %q, want matmul2d-n15", w.Name)
	}
	if len(w.Data) != 30 || len(w.Tasks) != 225 {
		t.Fatalf("got %d data, %d tasks; want 30, 225", len(w.Data), len(w.Tasks))
	}
	for _, d := range w.Data {
		if d.Bytes != 14_745_600 { // 960·3840·4
			t.Fatalf("data %d: %d bytes, want 14745600", d.ID, d.Bytes)
		}
	}
	// Fig 3.9: N = 15 is the 422 MB point; exactly 30·14745600 B.
	if w.WorkingSetBytes() != 442_368_000 || w.WorkingSetMiB() != 421.875 {
		t.Errorf("working set %d B = %v MiB, want 442368000 B = 421.875 MiB", w.WorkingSetBytes(), w.WorkingSetMiB())
	}
	// Row by row: consecutive tasks share A_i; inputs in xgemm.c's handle
	// order (the inner loop's block B_j first).
	for _, c := range []struct{ id, i, j int }{{0, 0, 0}, {1, 0, 1}, {14, 0, 14}, {15, 1, 0}, {16, 1, 1}, {224, 14, 14}} {
		tk := w.Tasks[c.id]
		if !slices.Equal(tk.Inputs, []int{15 + c.j, c.i}) || !slices.Equal(w.Coords.Of(tk.ID), []int32{int32(c.i), int32(c.j)}) {
			t.Errorf("task %d: inputs %v coords %v, want [%d %d] [%d %d]", c.id, tk.Inputs, w.Coords.Of(tk.ID), 15+c.j, c.i, c.i, c.j)
		}
		if tk.Kernel != "gemm" || tk.Flops != 7_077_888_000 || w.DepsOf(tk.ID) != nil {
			t.Errorf("task %d: kernel %q flops %v deps %v", c.id, tk.Kernel, tk.Flops, w.DepsOf(tk.ID))
		}
	}
	if w.MaxInputBytes() != 2*14_745_600 {
		t.Errorf("MaxInputBytes %d", w.MaxInputBytes())
	}
	// Deps would add nothing to a 2D kind: it is refused, not ignored.
	if _, err := Generate(Spec{Kind: "matmul2d", N: 15, Deps: true}); err == nil || !strings.Contains(err.Error(), "matmul2d does not read deps") {
		t.Errorf("Deps on matmul2d: %v", err)
	}
}

func TestMatmul3D(t *testing.T) {
	const n = 3
	w := mustGen(t, Spec{Kind: "matmul3d", N: n, NZ: 4, Deps: true})
	if w.Name != "matmul3d-n3-nz4-deps" {
		t.Errorf("name %q", w.Name)
	}
	if len(w.Data) != 8*n+n*n || len(w.Tasks) != n*n*4 {
		t.Fatalf("got %d data, %d tasks; want %d, %d", len(w.Data), len(w.Tasks), 8*n+n*n, n*n*4)
	}
	if w.Data[0].Bytes != 3_686_400 || w.WorkingSetBytes() != 33*3_686_400 {
		t.Errorf("tile %d B, working set %d B", w.Data[0].Bytes, w.WorkingSetBytes())
	}
	// k innermost: T(0,0,0..3) are ids 0..3, T(0,1,0) is 4, T(0,1,1) is 5.
	// A(i,k)=i·4+k, B(k,j)=12+k·3+j, C(i,j)=24+i·3+j, read B, A, C (xgemm.c -3d's handle order).
	cases := []struct {
		id     int
		coords []int32
		inputs []int
		deps   []int
	}{
		{0, []int32{0, 0, 0}, []int{12, 0, 24}, nil},
		{3, []int32{0, 0, 3}, []int{21, 3, 24}, []int{2}},
		{4, []int32{0, 1, 0}, []int{13, 0, 25}, nil},
		{5, []int32{0, 1, 1}, []int{16, 1, 25}, []int{4}},
		{35, []int32{2, 2, 3}, []int{23, 11, 32}, []int{34}},
	}
	for _, c := range cases {
		tk := w.Tasks[c.id]
		if !slices.Equal(w.Coords.Of(tk.ID), c.coords) || !slices.Equal(tk.Inputs, c.inputs) || !slices.Equal(w.DepsOf(tk.ID), c.deps) {
			t.Errorf("task %d: coords %v inputs %v deps %v; want %v %v %v", c.id, w.Coords.Of(tk.ID), tk.Inputs, w.DepsOf(tk.ID), c.coords, c.inputs, c.deps)
		}
		if tk.Flops != 2*960*960*960 {
			t.Errorf("task %d flops %v", c.id, tk.Flops)
		}
	}
	if e := edgeCount(w); e != n*n*3 {
		t.Errorf("%d dependency edges, want N²(NZ-1) = %d", e, n*n*3)
	}
	// NZ defaults to N: 3N² tiles (thesis §5), N³ tasks.
	w = mustGen(t, Spec{Kind: "matmul3d", N: 5})
	if len(w.Data) != 75 || len(w.Tasks) != 125 || edgeCount(w) != 0 {
		t.Errorf("N=5: %d data %d tasks %d edges, want 75 125 0", len(w.Data), len(w.Tasks), edgeCount(w))
	}
	w = mustGen(t, Spec{Kind: "matmul3d", N: 10, NZ: 4})
	if len(w.Data) != 8*10+100 {
		t.Errorf("N=10 NZ=4: %d data, want 180", len(w.Data))
	}
}

func TestCholeskyN3ByHand(t *testing.T) {
	w := mustGen(t, Spec{Kind: "cholesky", N: 3, Deps: true})
	// Tile ids: A00=0 A10=1 A11=2 A20=3 A21=4 A22=5.
	want := []struct {
		kernel string
		coords []int32
		inputs []int
		prio   int
		deps   []int
	}{
		{"potrf", []int32{0, 0, 0}, []int{0}, 9, nil},
		{"trsm", []int32{0, 1, 0}, []int{0, 1}, 8, []int{0}},
		{"trsm", []int32{0, 2, 0}, []int{0, 3}, 7, []int{0}},
		{"syrk", []int32{0, 1, 1}, []int{1, 2}, 7, []int{1}},
		{"gemm", []int32{0, 2, 1}, []int{3, 1, 4}, 6, []int{1, 2}},
		{"syrk", []int32{0, 2, 2}, []int{3, 5}, 5, []int{2}},
		{"potrf", []int32{1, 1, 1}, []int{2}, 6, []int{3}},
		{"trsm", []int32{1, 2, 1}, []int{2, 4}, 5, []int{4, 6}},
		{"syrk", []int32{1, 2, 2}, []int{4, 5}, 4, []int{5, 7}},
		{"potrf", []int32{2, 2, 2}, []int{5}, 3, []int{8}},
	}
	if len(w.Tasks) != len(want) || len(w.Data) != 6 {
		t.Fatalf("%d tasks %d data, want %d 6", len(w.Tasks), len(w.Data), len(want))
	}
	for i, c := range want {
		tk := w.Tasks[i]
		if tk.Kernel != c.kernel || !slices.Equal(w.Coords.Of(tk.ID), c.coords) || !slices.Equal(tk.Inputs, c.inputs) ||
			w.PriorityOf(tk.ID) != c.prio || !slices.Equal(w.DepsOf(tk.ID), c.deps) {
			t.Errorf("task %d = %s %v in %v prio %d deps %v; want %s %v in %v prio %d deps %v", i,
				tk.Kernel, w.Coords.Of(tk.ID), tk.Inputs, w.PriorityOf(tk.ID), w.DepsOf(tk.ID), c.kernel, c.coords, c.inputs, c.prio, c.deps)
		}
	}
	if e := edgeCount(w); e != 12 {
		t.Errorf("%d edges, want 12", e)
	}
	const t3 = 960.0 * 960 * 960
	if got := w.TotalFlops(); math.Abs(got-9*t3) > 1 { // 3·t³/3 + 3t³ + 3t³ + 2t³
		t.Errorf("total flops %v, want %v", got, 9*t3)
	}
	// Without Deps: same tasks, no edges (the papers' independent task set).
	wi := mustGen(t, Spec{Kind: "cholesky", N: 3})
	if edgeCount(wi) != 0 || len(wi.Tasks) != 10 || wi.Name != "cholesky-n3" {
		t.Errorf("independent set: %d edges %d tasks name %q", edgeCount(wi), len(wi.Tasks), wi.Name)
	}
}

func TestCholeskyN50(t *testing.T) {
	w := mustGen(t, Spec{Kind: "cholesky", N: 50, Deps: true})
	if len(w.Tasks) != 22_100 || len(w.Data) != 1275 {
		t.Fatalf("%d tasks %d data, want 22100 1275", len(w.Tasks), len(w.Data))
	}
	count := map[string]int{}
	for _, tk := range w.Tasks {
		count[tk.Kernel]++
	}
	want := map[string]int{"potrf": 50, "trsm": 1225, "syrk": 1225, "gemm": 19600}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("kernel counts %v, want %v", count, want)
	}
}

func TestLUN3ByHand(t *testing.T) {
	w := mustGen(t, Spec{Kind: "lu", N: 3, Deps: true})
	// Tile ids A[m][n] = 3m+n.
	want := []struct {
		kernel string
		inputs []int
		deps   []int
	}{
		{"getrf", []int{0}, nil},
		{"trsm", []int{0, 1}, []int{0}}, // row and column panels alternate (xlu_implicit.c)
		{"trsm", []int{0, 3}, []int{0}},
		{"trsm", []int{0, 2}, []int{0}},
		{"trsm", []int{0, 6}, []int{0}},
		{"gemm", []int{3, 1, 4}, []int{1, 2}},
		{"gemm", []int{3, 2, 5}, []int{2, 3}},
		{"gemm", []int{6, 1, 7}, []int{1, 4}},
		{"gemm", []int{6, 2, 8}, []int{3, 4}},
		{"getrf", []int{4}, []int{5}},
		{"trsm", []int{4, 5}, []int{6, 9}},
		{"trsm", []int{4, 7}, []int{7, 9}},
		{"gemm", []int{7, 5, 8}, []int{8, 10, 11}},
		{"getrf", []int{8}, []int{12}},
	}
	if len(w.Tasks) != len(want) || len(w.Data) != 9 {
		t.Fatalf("%d tasks %d data, want %d 9", len(w.Tasks), len(w.Data), len(want))
	}
	for i, c := range want {
		tk := w.Tasks[i]
		if tk.Kernel != c.kernel || !slices.Equal(tk.Inputs, c.inputs) || !slices.Equal(w.DepsOf(tk.ID), c.deps) {
			t.Errorf("task %d = %s in %v deps %v; want %s in %v deps %v", i, tk.Kernel, tk.Inputs, w.DepsOf(tk.ID), c.kernel, c.inputs, c.deps)
		}
	}
	if e := edgeCount(w); e != 21 {
		t.Errorf("%d edges, want 21", e)
	}
	// Total flops of tiled LU equal the dense 2n³/3 with n = N·t.
	w = mustGen(t, Spec{Kind: "lu", N: 6, Tile: 10})
	if want := 2 * math.Pow(60, 3) / 3; math.Abs(w.TotalFlops()-want) > 1e-6 {
		t.Errorf("LU flops %v, want %v", w.TotalFlops(), want)
	}
}

// bruteDeps restates sequential consistency independently: task j depends
// on i < j when i is the last writer before j of a tile j accesses, or j
// writes a tile that i read after its last write before j.
func bruteDeps(w *Workload) [][]int {
	written := func(t int) int { return w.Tasks[t].Inputs[len(w.Tasks[t].Inputs)-1] } // last input is RW
	deps := make([][]int, len(w.Tasks))
	for j := range w.Tasks {
		for i := j - 1; i >= 0; i-- {
			for _, d := range w.Tasks[j].Inputs {
				lastW := -1
				for x := j - 1; x >= 0; x-- {
					if written(x) == d {
						lastW = x
						break
					}
				}
				if i == lastW || (d == written(j) && i > lastW && slices.Contains(w.Tasks[i].Inputs, d) && written(i) != d) {
					deps[j] = append(deps[j], i)
					break
				}
			}
		}
		slices.Sort(deps[j])
	}
	return deps
}

func TestDepsMatchBruteForce(t *testing.T) {
	for _, s := range []Spec{
		{Kind: "cholesky", N: 6, Deps: true},
		{Kind: "lu", N: 5, Deps: true},
		{Kind: "matmul3d", N: 3, NZ: 3, Deps: true},
	} {
		w := mustGen(t, s)
		want := bruteDeps(w)
		for i, tk := range w.Tasks {
			if !slices.Equal(w.DepsOf(tk.ID), want[i]) {
				t.Errorf("%s task %d: deps %v, want %v", w.Name, i, w.DepsOf(tk.ID), want[i])
			}
		}
	}
}

func TestCholeskyCountsFormula(t *testing.T) {
	for n := 1; n <= 12; n++ {
		w := mustGen(t, Spec{Kind: "cholesky", N: n})
		want := n + n*(n-1) + n*(n-1)*(n-2)/6
		if len(w.Tasks) != want || len(w.Data) != n*(n+1)/2 {
			t.Errorf("N=%d: %d tasks %d data, want %d %d", n, len(w.Tasks), len(w.Data), want, n*(n+1)/2)
		}
	}
}

func TestRandomOrder(t *testing.T) {
	base := mustGen(t, Spec{Kind: "matmul2d", N: 10})
	a := mustGen(t, Spec{Kind: "matmul2d", N: 10, Order: "random", Seed: 1})
	b := mustGen(t, Spec{Kind: "matmul2d", N: 10, Order: "random", Seed: 1})
	c := mustGen(t, Spec{Kind: "matmul2d", N: 10, Order: "random", Seed: 2})
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different workloads")
	}
	if a.Name != "matmul2d-n10-random-s1" {
		t.Errorf("name %q", a.Name)
	}
	if reflect.DeepEqual(a.Tasks, c.Tasks) || reflect.DeepEqual(a.Tasks, base.Tasks) {
		t.Error("random order equals another seed's order or the submission order")
	}
	// Same multiset of tasks; coords keep the tile identity, ids are dense.
	key := func(w *Workload) []string {
		var ks []string
		for _, tk := range w.Tasks {
			ks = append(ks, fmt.Sprint(w.Coords.Of(tk.ID), tk.Inputs))
		}
		slices.Sort(ks)
		return ks
	}
	if !slices.Equal(key(a), key(base)) {
		t.Error("random order is not a permutation of the submission order")
	}
	for _, tk := range a.Tasks {
		if !slices.Equal(tk.Inputs, []int{10 + int(a.Coords.Of(tk.ID)[1]), int(a.Coords.Of(tk.ID)[0])}) {
			t.Fatalf("task %d: coords %v do not match inputs %v", tk.ID, a.Coords.Of(tk.ID), tk.Inputs)
		}
	}
}

// With Deps, a random order is a random topological order: deps still
// point backwards and, mapped back through coords, equal the natural DAG.
func TestRandomOrderWithDeps(t *testing.T) {
	nat := mustGen(t, Spec{Kind: "cholesky", N: 6, Deps: true})
	rnd := mustGen(t, Spec{Kind: "cholesky", N: 6, Deps: true, Order: "random", Seed: 7})
	if reflect.DeepEqual(nat.Tasks, rnd.Tasks) {
		t.Fatal("random order did not change the order")
	}
	byCoords := func(w *Workload) map[string][]string {
		m := map[string][]string{}
		for _, tk := range w.Tasks {
			var ds []string
			for _, d := range w.DepsOf(tk.ID) {
				if d >= tk.ID {
					t.Fatalf("task %d depends on later task %d", tk.ID, d)
				}
				ds = append(ds, fmt.Sprint(w.Coords.Of(d)))
			}
			slices.Sort(ds)
			m[fmt.Sprint(w.Coords.Of(tk.ID))] = ds
		}
		return m
	}
	if !reflect.DeepEqual(byCoords(nat), byCoords(rnd)) {
		t.Error("remapped DAG differs from the natural DAG")
	}
}

func TestSparse2D(t *testing.T) {
	a := mustGen(t, Spec{Kind: "sparse2d", N: 20, Seed: 3})
	b := mustGen(t, Spec{Kind: "sparse2d", N: 20, Seed: 3})
	c := mustGen(t, Spec{Kind: "sparse2d", N: 20, Seed: 4})
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different workloads")
	}
	if reflect.DeepEqual(a.Tasks, c.Tasks) {
		t.Error("seeds 3 and 4 gave the same sparse set")
	}
	if a.Name != "sparse2d-n20-keep0.1-s3" {
		t.Errorf("name %q", a.Name)
	}
	// Binomial(400, 0.1): mean 40, sd 6; all 2N data stay declared.
	if n := len(a.Tasks); n < 10 || n > 80 || len(a.Data) != 40 {
		t.Errorf("%d tasks (want about 40), %d data (want 40)", n, len(a.Data))
	}
	// Kept tasks follow the matmul2d order.
	for i := 1; i < len(a.Tasks); i++ {
		p, q := a.Coords.Of(i-1), a.Coords.Of(i)
		if p[0]*20+p[1] >= q[0]*20+q[1] {
			t.Fatalf("tasks %d,%d out of row-by-row order: %v %v", i-1, i, p, q)
		}
	}
	// The sparse mask does not depend on Order.
	r := mustGen(t, Spec{Kind: "sparse2d", N: 20, Seed: 3, Order: "random"})
	if len(r.Tasks) != len(a.Tasks) {
		t.Errorf("random order changed the kept count: %d vs %d", len(r.Tasks), len(a.Tasks))
	}
	if w := mustGen(t, Spec{Kind: "sparse2d", N: 5, Keep: 1}); len(w.Tasks) != 25 {
		t.Errorf("Keep=1: %d tasks, want 25", len(w.Tasks))
	}
	if w := mustGen(t, Spec{Kind: "sparse2d", N: 2, Keep: 1e-12}); len(w.Tasks) != 1 || len(w.Data) != 4 {
		t.Errorf("Keep≈0: %d tasks %d data, want 1 (never empty) and 4", len(w.Tasks), len(w.Data))
	}
}

func TestRandomPairs(t *testing.T) {
	a := mustGen(t, Spec{Kind: "randompairs", N: 10, Seed: 5})
	b := mustGen(t, Spec{Kind: "randompairs", N: 10, Seed: 5})
	c := mustGen(t, Spec{Kind: "randompairs", N: 10, Seed: 6})
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different workloads")
	}
	if reflect.DeepEqual(a.Tasks, c.Tasks) {
		t.Error("seeds 5 and 6 gave the same pairs")
	}
	if len(a.Tasks) != 100 || len(a.Data) != 20 || a.WorkingSetBytes() != 20*14_745_600 {
		t.Errorf("%d tasks %d data %d B", len(a.Tasks), len(a.Data), a.WorkingSetBytes())
	}
	distinct := map[[2]int]bool{}
	for _, tk := range a.Tasks {
		i, j := int(a.Coords.Of(tk.ID)[0]), int(a.Coords.Of(tk.ID)[1])
		if !slices.Equal(tk.Inputs, []int{10 + j, i}) {
			t.Fatalf("task %d: coords %v inputs %v", tk.ID, a.Coords.Of(tk.ID), tk.Inputs)
		}
		distinct[[2]int{i, j}] = true
	}
	// 100 draws over 100 pairs with replacement: about 63 distinct.
	if len(distinct) == 100 || len(distinct) < 40 {
		t.Errorf("%d distinct pairs; expected repeats (about 63)", len(distinct))
	}
}

// smallOpts keep the application kinds' graphs small in tests.
var smallOpts = map[string]string{KindTree: "dim=2", KindFMM: "dim=2,group=4", KindQRMumps: "root_cols=4", KindStencil: "iterations=3,size=16"}

func TestAllKindsValidate(t *testing.T) {
	for _, k := range Kinds() {
		for n := 1; n <= 4; n++ {
			for _, order := range []string{"", "submission", "random"} {
				for _, deps := range []bool{false, true} {
					if deps && !Reads(k, FieldDeps) {
						continue
					}
					s := Spec{Kind: k, N: n, Order: order, Deps: deps, Seed: 9, Opts: smallOpts[k]}
					w, err := Generate(s)
					if err != nil {
						t.Fatalf("%+v: %v", s, err)
					}
					if err := w.Validate(); err != nil {
						t.Fatalf("%+v: %v", s, err)
					}
				}
			}
		}
	}
}

func TestSpecErrors(t *testing.T) {
	cases := []struct {
		s    Spec
		want []string
	}{
		{Spec{Kind: "cholesy", N: 3}, []string{`unknown kind "cholesy"`, `did you mean "cholesky"`, "matmul2d"}},
		{Spec{Kind: "Matmul2D", N: 3}, []string{`did you mean "matmul2d"`}},
		{Spec{Kind: "", N: 3}, []string{"Kind is empty"}},
		{Spec{Kind: "matmul2d", N: 0}, []string{"N = 0", "must be in [1,"}},
		{Spec{Kind: "matmul2d", N: -2}, []string{"N = -2"}},
		{Spec{Kind: "matmul2d", N: 3, Tile: -1}, []string{"Tile = -1"}},
		{Spec{Kind: "matmul2d", N: 3, Z: -1}, []string{"Z = -1"}},
		{Spec{Kind: "matmul3d", N: 3, NZ: -1}, []string{"NZ = -1"}},
		{Spec{Kind: "sparse2d", N: 3, Keep: 1.5}, []string{"Keep = 1.5 is outside (0,1]"}},
		{Spec{Kind: "sparse2d", N: 3, Keep: -0.1}, []string{"Keep = -0.1"}},
		{Spec{Kind: "sparse2d", N: 3, Keep: math.NaN()}, []string{"Keep = NaN"}},
		{Spec{Kind: "matmul2d", N: 3, Order: "randm"}, []string{`unknown Spec.Order "randm"`, `did you mean "random"`}},
		{Spec{Kind: "matmul3d", N: 1000}, []string{"would have 1000000000 tasks", "reduce N"}},
	}
	for _, c := range cases {
		_, err := Generate(c.s)
		if err == nil {
			t.Errorf("%+v: no error", c.s)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q lacks %q", c.s, err, w)
			}
		}
	}
}

func TestWithDefaults(t *testing.T) {
	got := Spec{Kind: "matmul3d", N: 7}.WithDefaults()
	want := Spec{Kind: "matmul3d", N: 7, Tile: 960, Z: 3840, NZ: 7, Keep: 0.1}
	if got != want {
		t.Errorf("WithDefaults = %+v, want %+v", got, want)
	}
	if got := (Spec{N: 2, Tile: 8, Z: 9, NZ: 3, Keep: 0.5}).WithDefaults(); got.Tile != 8 || got.Z != 9 || got.NZ != 3 || got.Keep != 0.5 {
		t.Errorf("WithDefaults overrode set fields: %+v", got)
	}
}

func edgeCount(w *Workload) int {
	n := 0
	for _, tk := range w.Tasks {
		n += len(w.DepsOf(tk.ID))
	}
	return n
}

// StarPU's xgemm.c holds, for its 2D products, one C tile per GPU that no
// task accesses (Cscratch, starpu_malloc_on_node, since StarPU 4a55ab954):
// the 2D kinds say so in DeviceBytes (960² floats), unless their tasks
// write their C tiles (WriteC, the xgemm before it) or NoScratch leaves it
// out (named so); 3D tiles C and holds none.
func TestXgemmScratch(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want int64
		name string
	}{
		{Spec{Kind: "matmul2d", N: 4}, 960 * 960 * 4, "matmul2d-n4"},
		{Spec{Kind: "sparse2d", N: 4, Keep: 0.5}, 960 * 960 * 4, ""},
		{Spec{Kind: "randompairs", N: 4}, 960 * 960 * 4, ""},
		{Spec{Kind: "matmul2d", N: 4, Tile: 480}, 480 * 480 * 4, ""},
		{Spec{Kind: "matmul2d", N: 4, WriteC: true}, 0, "matmul2d-n4-c"},
		{Spec{Kind: "matmul2d", N: 4, NoScratch: true}, 0, "matmul2d-n4-noscratch"},
		{Spec{Kind: "matmul3d", N: 4}, 0, "matmul3d-n4"},
	} {
		w := mustGen(t, c.spec)
		if w.DeviceBytes != c.want || (c.name != "" && w.Name != c.name) {
			t.Errorf("%+v: %s holds %d bytes per GPU, want %s, %d", c.spec, w.Name, w.DeviceBytes, c.name, c.want)
		}
	}
	if _, err := Generate(Spec{Kind: "matmul3d", N: 4, NoScratch: true}); err == nil {
		t.Error("NoScratch accepted on matmul3d")
	}
}

// A field a kind does not read is refused, not ignored: it would change
// the workload's name (the run's key and seed) and nothing else. Each
// field, set to a non-default value on every kind: Generate accepts it
// exactly where Reads says the kind reads it.
func TestFieldsAKindDoesNotReadAreRefused(t *testing.T) {
	set := map[string]func(*Spec){
		FieldTile: func(s *Spec) { s.Tile = 480 },
		FieldZ:    func(s *Spec) { s.Z = 960 },
		FieldNZ:   func(s *Spec) { s.NZ = 3 },
		FieldKeep: func(s *Spec) { s.Keep = 0.5 },
		FieldDeps: func(s *Spec) { s.Deps = true },
	}
	for _, k := range Kinds() {
		for field, f := range set {
			s := Spec{Kind: k, N: 2, Opts: smallOpts[k]}
			f(&s)
			_, err := Generate(s)
			switch {
			case Reads(k, field) && err != nil:
				t.Errorf("%s with %s: %v", k, field, err)
			case !Reads(k, field) && (err == nil || !strings.Contains(err.Error(), k+" does not read "+field)):
				t.Errorf("%s with %s (not read): %v", k, field, err)
			}
		}
		// The defaults WithDefaults fills are accepted on every kind.
		if _, err := Generate(Spec{Kind: k, N: 2, Opts: smallOpts[k]}.WithDefaults()); err != nil {
			t.Errorf("%s with its defaults: %v", k, err)
		}
	}
	if err := CheckGiven(KindMatmul2D, []string{FieldNZ}, func(f string) string { return "--" + f }); err == nil ||
		err.Error() != "--nz applies only to workload kind matmul3d, not to matmul2d: remove it" {
		t.Errorf("CheckGiven: %v", err)
	}
}
