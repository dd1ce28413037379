package workloads

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// The emulated applications of COMPAS 2022 (MulTreePrio: the tree-based
// method and the fast multipole method; its Cholesky is KindCholesky with
// Deps) and of PeerJ CS 2019 (LAHeteroprio: QrMumps, SpLDLT, StarPU's
// stencil). Neither paper describes its task graphs beyond the task types,
// which of them a GPU runs and the test case: every structure and size
// below that the papers do not state is an Option marked invented, and
// suites set them in the open. Their tasks always carry access modes and
// the dependencies they imply (StarPU's sequential consistency, as with
// Deps); Deps adds nothing to them.
const (
	KindTree     = "tree"
	KindFMM      = "fmm"
	KindQRMumps  = "qrmumps"
	KindSpLDLT   = "spldlt"
	KindStencil  = "stencil"
	doubleBytes  = 8
	nominalBytes = 1 << 20 // data of the communication-free applications: sizes play no part there
)

// Option is a named parameter of a generator kind (Spec.Opts).
type Option struct {
	Name     string
	Default  float64
	Doc      string
	Invented bool // not stated by the paper: a choice of this project
	// Range is an invented option's plausible range [lo, hi], declared
	// beside it: the claims on its kind are run at both ends (the
	// sensitive_to and sensitivity fields of paper/*.toml record what
	// moved). Zero for the options the papers state.
	Range [2]float64
}

var kindOptions = map[string][]Option{
	KindTree: {
		{"dim", 3, "space dimension of the n-body domain: 3 (octree) or 2 (quadtree); n is the height of the tree (leaves at level n)", true, [2]float64{2, 3}}, // plausible: a quadtree (2D) to an octree (3D): the n-body methods
	},
	KindFMM: {
		{"dim", 3, "space dimension: 3 (octree) or 2 (quadtree); n is the height of the tree (leaves at level n; far field from level 2)", true, [2]float64{2, 3}},                                                                            // plausible: 2D to 3D FMM
		{"group", 64, "cells per group of the group-tree FMM (consecutive Morton cells of one level; ScalFMM's task-based FMM works on groups): M2L and P2P act inside a group, M2L' and P2P' between two groups", true, [2]float64{16, 256}}, // plausible: ScalFMM's group sizes in its task-based papers' experiments span tens to hundreds of cells
	},
	KindQRMumps: {
		{"branching", 2, "children per front of the emulated assembly tree (n is its depth; the TF18 matrix's tree is not modelled)", true, [2]float64{2, 4}}, // plausible: binary to 4-ary assembly trees (nested dissection gives 2)
		{"root_cols", 12, "columns of the root front, in tiles", true, [2]float64{8, 16}},                                                                     // plausible: a root front of 8 to 16 tile columns
		{"shrink", 0.7, "ratio of a child front's columns to its parent's", true, [2]float64{0.5, 0.9}},                                                       // plausible: children half to nine tenths of their parent
		{"aspect", 1.5, "rows per column of a leaf front", true, [2]float64{1, 3}},                                                                            // plausible: square to tall-and-skinny leaf fronts
	},
	KindSpLDLT: {
		{"matrix", 20000, "order of the dense symmetric matrix (PeerJ 2019: \"Cholesky factorization of a 20,000 × 20,000 matrix\"), cut into n × n tiles of ⌈matrix/n⌉ elements (tile is ignored)", false, [2]float64{}},
	},
	KindStencil: {
		{"size", 1024, "edge of the cubic grid (PeerJ 2019: \"a grid of dimension 1,024³\"); n is the number of blocks along z (StarPU's stencil example: nbz = 64 by default)", false, [2]float64{}},
		{"iterations", 32, "iterations (PeerJ 2019: \"executed for 32 iterations\")", false, [2]float64{}},
	},
}

// KindOptions lists a kind's options (none for the papers' matrix kinds).
func KindOptions(kind string) []Option { return kindOptions[kind] }

// FormatOpts writes options as Spec.Opts: "name=value,..." sorted by name.
func FormatOpts(opts map[string]float64) string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatFloat(opts[k], 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// ParseOpts reads Spec.Opts (or the CLI's --opt list).
func ParseOpts(s string) (map[string]float64, error) {
	out := map[string]float64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("workloads: option %q: want name=number", part)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("workloads: option %s is given twice", k)
		}
		out[k] = f
	}
	return out, nil
}

// optValues are the spec's options (checkOpts has validated them).
func (s Spec) optValues() map[string]float64 {
	m, _ := ParseOpts(s.Opts)
	return m
}

// opt returns an option's value: the spec's, else the default.
func (s Spec) opt(name string) float64 {
	if v, ok := s.optValues()[name]; ok {
		return v
	}
	for _, o := range kindOptions[s.Kind] {
		if o.Name == name {
			return o.Default
		}
	}
	panic("workloads: no option " + name + " for " + s.Kind)
}

// checkOpts rejects options the kind does not have and values out of range.
func (s Spec) checkOpts() error {
	given, err := ParseOpts(s.Opts)
	if err != nil {
		return err
	}
	opts := kindOptions[s.Kind]
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Name
	}
	keys := make([]string, 0, len(given))
	for k := range given {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := given[k]
		known := false
		for _, n := range names {
			known = known || n == k
		}
		if !known {
			if len(names) == 0 {
				return fmt.Errorf("workloads: %s has no options; remove %s", s.Kind, k)
			}
			return fmt.Errorf("workloads: %s has no option %q%s; options: %s", s.Kind, k, suggest.Closest(k, names), strings.Join(names, ", "))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return fmt.Errorf("workloads: %s option %s = %v; use a positive number", s.Kind, k, v)
		}
	}
	switch s.Kind {
	case KindTree, KindFMM:
		if d := s.opt("dim"); d != 2 && d != 3 {
			return fmt.Errorf("workloads: %s option dim = %v; use 2 or 3", s.Kind, d)
		}
		if s.N > 6 {
			return fmt.Errorf("workloads: %s with n = %d has 8^%d leaves; use n <= 6", s.Kind, s.N, s.N)
		}
	case KindQRMumps:
		if s.N > 12 || s.opt("branching") > 8 || s.opt("shrink") > 1 {
			return fmt.Errorf("workloads: qrmumps: depth n <= 12, branching <= 8 and shrink <= 1 keep the tree finite and shrinking")
		}
	case KindStencil:
		if float64(s.N) > s.opt("size") {
			return fmt.Errorf("workloads: stencil: n = %d blocks along z for a grid of size %v; use at most size blocks", s.N, s.opt("size"))
		}
	}
	return nil
}

// isApp reports the kinds of this file.
func isApp(kind string) bool { _, ok := kindOptions[kind]; return ok }

func genApp(b *builder, s Spec) {
	switch s.Kind {
	case KindTree:
		genTree(b, s)
	case KindFMM:
		genFMM(b, s)
	case KindQRMumps:
		genQRMumps(b, s)
	case KindSpLDLT:
		genSpLDLT(b, s)
	case KindStencil:
		genStencil(b, s)
	}
}

// addModed appends a task whose inputs carry modes; dependencies are
// inferred later from the modes (addSeqDeps).
func (b *builder) addModed(kernel string, flops float64, coords []int, inputs []int, modes []Mode) {
	t := len(b.w.Tasks)
	b.w.Tasks = append(b.w.Tasks, Task{ID: t, Kernel: kernel, Flops: flops, Inputs: inputs})
	b.w.Modes = setColumn(b.w.Modes, t, modes, len(modes) > 0)
	b.w.Coords.addInts(coords)
	b.written = append(b.written, -1)
}

// cells is a full 2^dim-ary tree: level l has 2^l cells per dimension,
// numbered in Morton (Z) order so that a cell's children are 2^dim
// consecutive ids.
type cells struct{ dim int }

func (c cells) perDim(l int) int  { return 1 << l }
func (c cells) count(l int) int   { return 1 << (c.dim * l) }
func (c cells) children() int     { return 1 << c.dim }
func (c cells) coord(i int) []int { return deinterleave(i, c.dim) }
func (c cells) index(x []int) int { return interleave(x) }

func interleave(x []int) int {
	idx := 0
	dim := len(x)
	high := 0
	for _, v := range x {
		high |= v
	}
	for bit := 0; bit < 21 && high>>bit != 0; bit++ {
		for d := 0; d < dim; d++ {
			idx |= ((x[d] >> bit) & 1) << (bit*dim + d)
		}
	}
	return idx
}

func deinterleave(i, dim int) []int {
	x := make([]int, dim)
	for bit := 0; bit < 21 && i>>(bit*dim) != 0; bit++ {
		for d := 0; d < dim; d++ {
			x[d] |= ((i >> (bit*dim + d)) & 1) << bit
		}
	}
	return x
}

// adjacent reports whether two cells of a level touch (or are the same):
// every coordinate differs by at most one.
func adjacent(x, y []int) bool {
	for d := range x {
		if y[d]-x[d] > 1 || x[d]-y[d] > 1 {
			return false
		}
	}
	return true
}

// neighbours lists the cells of the same level adjacent to cell i (itself
// excluded), in Morton order.
func (c cells) neighbours(l, i int) []int {
	x := c.coord(i)
	n := c.perDim(l)
	out := make([]int, 0, 27)
	// Walk the 3^dim offsets in -1..1 per dimension (an odometer).
	off := make([]int, c.dim)
	y := make([]int, c.dim)
	for d := range off {
		off[d] = -1
	}
	for {
		inside := true
		for d := range y {
			y[d] = x[d] + off[d]
			inside = inside && y[d] >= 0 && y[d] < n
		}
		if inside {
			if j := c.index(y); j != i {
				out = append(out, j)
			}
		}
		d := c.dim - 1
		for ; d >= 0 && off[d] == 1; d-- {
			off[d] = -1
		}
		if d < 0 {
			break
		}
		off[d]++
	}
	sort.Ints(out)
	return out
}

// interactions is the interaction list of cell i at level l (l >= 2): the
// children of its parent's neighbours that are not its neighbours (the
// well-separated cells of the FMM).
func (c cells) interactions(l, i int) []int {
	if l < 2 {
		return nil
	}
	x := c.coord(i)
	y := make([]int, c.dim)
	var out []int
	ch := c.children()
	for _, pn := range c.neighbours(l-1, i/ch) {
		p := c.coord(pn)
		for k := 0; k < ch; k++ {
			// Child k of a cell doubles its coordinates and adds k's bits (Morton order).
			for d := range y {
				y[d] = 2*p[d] + (k>>d)&1
			}
			if !adjacent(x, y) {
				out = append(out, pn*ch+k)
			}
		}
	}
	// Sorted already: the parent's neighbours ascend and their children are
	// consecutive ids.
	return out
}

// genTree is COMPAS 2022's tree-based method for the n-body problem, read
// as a Barnes-Hut treecode on a full tree of height n (invented: the paper
// names the task types only): P2C builds a leaf cell's expansion from its
// particles, N2N a parent's from its children (upward pass), In-Cell
// computes the direct interactions of a leaf with its adjacent leaves, and
// C2P evaluates at a leaf's particles the expansions of every
// well-separated cell of its own and its ancestors' interaction lists —
// many dependencies per task ("the dependencies in the DAG are huge").
// Submission order: P2C, N2N bottom-up, In-Cell, C2P.
func genTree(b *builder, s Spec) {
	c := cells{dim: int(s.opt("dim"))}
	h := s.N
	leaves := c.count(h)
	part := b.addData(leaves, nominalBytes)
	force := b.addData(leaves, nominalBytes)
	cell := make([]int, h+1)
	for l := 0; l <= h; l++ {
		cell[l] = b.addData(c.count(l), nominalBytes)
	}
	for i := 0; i < leaves; i++ {
		b.addModed("p2c", 0, []int{h, i}, []int{cell[h] + i, part + i}, []Mode{W, R})
	}
	for l := h - 1; l >= 0; l-- {
		for i := 0; i < c.count(l); i++ {
			in := []int{cell[l] + i}
			modes := []Mode{W}
			for k := 0; k < c.children(); k++ {
				in = append(in, cell[l+1]+i*c.children()+k)
				modes = append(modes, R)
			}
			b.addModed("n2n", 0, []int{l, i}, in, modes)
		}
	}
	for i := 0; i < leaves; i++ {
		in := []int{force + i, part + i}
		modes := []Mode{RW, R}
		for _, j := range c.neighbours(h, i) {
			in = append(in, part+j)
			modes = append(modes, R)
		}
		b.addModed("incell", 0, []int{h, i}, in, modes)
	}
	for i := 0; i < leaves; i++ {
		in := []int{force + i}
		modes := []Mode{RW}
		for l, a := h, i; l >= 2; l, a = l-1, a/c.children() {
			for _, j := range c.interactions(l, a) {
				in = append(in, cell[l]+j)
				modes = append(modes, R)
			}
		}
		b.addModed("c2p", 0, []int{h, i}, in, modes)
	}
}

// genFMM is the group-tree fast multipole method of ScalFMM's task-based
// version (Agullo et al. 2016, the FMM HeteroPrio was designed for), on a
// full tree of height n whose cells are grouped by `group` consecutive
// Morton cells per level. Per group: P2M (leaves), M2M (upward), M2L
// between the cells of the group and M2L' from each other group holding
// cells of its interaction lists, L2L (downward), L2P, and P2P inside the
// group and P2P' from each adjacent leaf group. COMPAS 2022 does not
// describe its FMM graph; reading M2L'/P2P' as the inter-group variants
// (PeerJ 2019's "same operation but with data of small or large
// granularity") and the grouping are this project's choices.
func genFMM(b *builder, s Spec) {
	c := cells{dim: int(s.opt("dim"))}
	h := s.N
	g := int(s.opt("group"))
	groups := func(l int) int { return (c.count(l) + g - 1) / g }
	mult := make([]int, h+1)
	local := make([]int, h+1)
	for l := min(2, h); l <= h; l++ {
		mult[l] = b.addData(groups(l), nominalBytes)
		local[l] = b.addData(groups(l), nominalBytes)
	}
	nl := groups(h)
	part := b.addData(nl, nominalBytes)
	force := b.addData(nl, nominalBytes)
	// groupsOf maps cells to their groups, deduplicated and sorted
	// (seen[k] == stamp marks group k as already listed in this call).
	seen := make([]int, groups(h)+1)
	stamp := 0
	groupsOf := func(cellsIdx []int) []int {
		stamp++
		var out []int
		for _, i := range cellsIdx {
			if k := i / g; seen[k] != stamp {
				seen[k] = stamp
				out = append(out, k)
			}
		}
		sort.Ints(out)
		return out
	}
	cellsOf := func(l, grp int) []int {
		var out []int
		for i := grp * g; i < min((grp+1)*g, c.count(l)); i++ {
			out = append(out, i)
		}
		return out
	}
	for q := 0; q < nl; q++ {
		b.addModed("p2m", 0, []int{h, q}, []int{mult[h] + q, part + q}, []Mode{W, R})
	}
	for l := h - 1; l >= 2; l-- {
		for q := 0; q < groups(l); q++ {
			var ch []int
			for _, i := range cellsOf(l, q) {
				for k := 0; k < c.children(); k++ {
					ch = append(ch, i*c.children()+k)
				}
			}
			in := []int{mult[l] + q}
			modes := []Mode{W}
			for _, cg := range groupsOf(ch) {
				in = append(in, mult[l+1]+cg)
				modes = append(modes, R)
			}
			b.addModed("m2m", 0, []int{l, q}, in, modes)
		}
	}
	for l := 2; l <= h; l++ {
		for q := 0; q < groups(l); q++ {
			var far []int
			for _, i := range cellsOf(l, q) {
				far = append(far, c.interactions(l, i)...)
			}
			srcs := groupsOf(far)
			inner := false
			for _, sg := range srcs {
				inner = inner || sg == q
			}
			if inner {
				b.addModed("m2l", 0, []int{l, q, q}, []int{local[l] + q, mult[l] + q}, []Mode{RW, R})
			}
			for _, sg := range srcs {
				if sg != q {
					b.addModed("m2l_outer", 0, []int{l, q, sg}, []int{local[l] + q, mult[l] + sg}, []Mode{RW, R})
				}
			}
		}
	}
	for l := 3; l <= h; l++ {
		for q := 0; q < groups(l); q++ {
			var parents []int
			for _, i := range cellsOf(l, q) {
				parents = append(parents, i/c.children())
			}
			in := []int{local[l] + q}
			modes := []Mode{RW}
			for _, pg := range groupsOf(parents) {
				in = append(in, local[l-1]+pg)
				modes = append(modes, R)
			}
			b.addModed("l2l", 0, []int{l, q}, in, modes)
		}
	}
	for q := 0; q < nl; q++ {
		var near []int
		for _, i := range cellsOf(h, q) {
			near = append(near, c.neighbours(h, i)...)
		}
		b.addModed("p2p", 0, []int{h, q, q}, []int{force + q, part + q}, []Mode{RW, R})
		for _, sg := range groupsOf(near) {
			if sg != q {
				b.addModed("p2p_outer", 0, []int{h, q, sg}, []int{force + q, part + sg}, []Mode{RW, R})
			}
		}
	}
	for q := 0; q < nl; q++ {
		b.addModed("l2p", 0, []int{h, q}, []int{force + q, local[h] + q}, []Mode{RW, R})
	}
}

// front is one frontal matrix of the emulated multifrontal QR.
type front struct {
	rows, cols, piv int // in tiles; piv: eliminated (fully summed) columns
	children        []int
	tiles           []int // data ids, row-major rows × cols
}

// genQRMumps emulates qr_mumps' multifrontal QR factorization (PeerJ 2019
// factorises the TF18 matrix; its assembly tree is not modelled). The
// invented assembly tree has depth n and `branching` children per front;
// the root has root_cols columns of tiles and eliminates them all, a child
// has shrink times its parent's columns, eliminates half of them and
// passes its contribution block to its parent, whose rows stack its
// children's contribution blocks over half its columns' worth of its own
// rows; a leaf has aspect rows per column. Each front is factorised by the
// tiled flat-tree QR of qr_mumps, four task types (PeerJ 2019: "four
// different types of tasks and three of them can be run on the GPUs"):
// geqrt on a panel's diagonal tile (the CPU-only panel), gemqrt updating a
// tile of the panel row, tpqrt eliminating a tile below the diagonal and
// tpmqrt updating the trailing tiles. The first task to write a parent
// tile also reads the child tile assembled into it. Tiles are tile ×
// tile doubles; flops are the LAPACK counts for tiles of b = tile.
func genQRMumps(b *builder, s Spec) {
	depth := s.N
	br := int(s.opt("branching"))
	shrink := s.opt("shrink")
	var fronts []front
	var build func(d int, cols int) int
	build = func(d int, cols int) int {
		id := len(fronts)
		fronts = append(fronts, front{cols: cols})
		if d < depth {
			cc := max(2, int(math.Round(float64(cols)*shrink)))
			for k := 0; k < br; k++ {
				fronts[id].children = append(fronts[id].children, build(d+1, cc))
			}
		}
		return id
	}
	root := build(0, int(s.opt("root_cols")))
	// Shapes bottom-up: pivots, then rows from the children's contribution blocks.
	var shape func(f int, isRoot bool)
	shape = func(f int, isRoot bool) {
		fr := &fronts[f]
		stacked := 0
		for _, c := range fr.children {
			shape(c, false)
			stacked += fronts[c].rows - fronts[c].piv
		}
		fr.piv = (fr.cols + 1) / 2
		if isRoot {
			fr.piv = fr.cols
		}
		if len(fr.children) == 0 {
			fr.rows = max(fr.cols, int(math.Ceil(float64(fr.cols)*s.opt("aspect"))))
		} else {
			fr.rows = max(fr.cols, stacked+fr.piv)
		}
	}
	shape(root, true)
	tb := int64(s.Tile) * int64(s.Tile) * doubleBytes
	for f := range fronts {
		fronts[f].tiles = make([]int, fronts[f].rows*fronts[f].cols)
		first := b.addData(len(fronts[f].tiles), tb)
		for i := range fronts[f].tiles {
			fronts[f].tiles[i] = first + i
		}
	}
	bt := float64(s.Tile)
	b3 := bt * bt * bt
	// Post-order: children before their parent, as the tree is traversed.
	var order []int
	var post func(f int)
	post = func(f int) {
		for _, c := range fronts[f].children {
			post(c)
		}
		order = append(order, f)
	}
	post(root)
	for _, f := range order {
		fr := &fronts[f]
		// assembled[t] = child tile added into parent tile t, read by the
		// first task writing t.
		assembled := map[int]int{}
		row := 0
		for _, c := range fr.children {
			ch := &fronts[c]
			for i := ch.piv; i < ch.rows; i++ {
				for j := ch.piv; j < ch.cols && j-ch.piv < fr.cols; j++ {
					assembled[fr.tiles[row*fr.cols+(j-ch.piv)]] = ch.tiles[i*ch.cols+j]
				}
				row++
			}
		}
		tile := func(i, j int) int { return fr.tiles[i*fr.cols+j] }
		task := func(kernel string, flops float64, coords []int, in []int, modes []Mode) {
			for i, d := range in {
				if modes[i].Writes() {
					if src, ok := assembled[d]; ok {
						in = append(in, src)
						modes = append(modes, R)
						delete(assembled, d)
					}
				}
			}
			b.addModed(kernel, flops, coords, in, modes)
		}
		// The T factors are kept in the tiles they belong to (qr_mumps stores
		// them in separate blocks; the data moved are the same order).
		for k := 0; k < fr.piv && k < fr.rows; k++ {
			task("qrm_geqrt", 4*b3/3, []int{f, k, k, k}, []int{tile(k, k)}, []Mode{RW})
			for j := k + 1; j < fr.cols; j++ {
				task("qrm_gemqrt", 2*b3, []int{f, k, k, j}, []int{tile(k, k), tile(k, j)}, []Mode{R, RW})
			}
			for i := k + 1; i < fr.rows; i++ {
				task("qrm_tpqrt", 2*b3, []int{f, k, i, k}, []int{tile(k, k), tile(i, k)}, []Mode{RW, RW})
				for j := k + 1; j < fr.cols; j++ {
					task("qrm_tpmqrt", 4*b3, []int{f, k, i, j}, []int{tile(i, k), tile(k, j), tile(i, j)}, []Mode{R, RW, RW})
				}
			}
		}
	}
}

// genSpLDLT emulates SpLDLT's factorization of a dense symmetric matrix
// (PeerJ 2019: "the Cholesky factorization of a 20,000 × 20,000 matrix")
// as the right-looking tiled LDLᵀ, whose graph is the tiled Cholesky's, in
// double precision, with SpLDLT's four task types of which only the update
// runs on a GPU (PeerJ 2019: "only one of them can run on the GPUs"):
// ldlt_factor (diagonal tile), ldlt_solve (a tile below it), ldlt_update_diag
// (a diagonal tile of the trailing matrix) and ldlt_update (the others).
func genSpLDLT(b *builder, s Spec) {
	n := s.N
	edge := int64(math.Ceil(s.opt("matrix") / float64(n)))
	b.addData(n*(n+1)/2, edge*edge*doubleBytes)
	a := func(m, k int) int { return m*(m+1)/2 + k }
	t := float64(edge)
	t3 := t * t * t
	for k := range n {
		b.addTask("ldlt_factor", t3/3, 3*n-3*k, a(k, k), []int{k, k, k}, a(k, k))
		for m := k + 1; m < n; m++ {
			b.addTask("ldlt_solve", t3, 3*n-(2*k+m), a(m, k), []int{k, m, k}, a(k, k), a(m, k))
		}
		for nn := k + 1; nn < n; nn++ {
			b.addTask("ldlt_update_diag", t3, 3*n-(k+2*nn), a(nn, nn), []int{k, nn, nn}, a(nn, k), a(nn, nn))
			for m := nn + 1; m < n; m++ {
				b.addTask("ldlt_update", 2*t3, 3*n-(k+nn+m), a(m, nn), []int{k, m, nn}, a(m, k), a(nn, k), a(m, nn))
			}
		}
	}
}

// genStencil is StarPU's stencil example (examples/stencil: Conway's game
// of life on unsigned char cells) on a size³ grid cut into n blocks along
// z, with periodic boundaries, for `iterations` iterations. Each block has
// two layers (old and new, with one halo layer on each side, as
// stencil-blocks.c allocates) and two copies of each neighbour's border
// layer (top and bottom, one per parity). StarPU's example has an update
// codelet and save codelets copying borders into the neighbours'
// copies; PeerJ 2019 states the application "uses only one type of tasks",
// so here the save is folded into the update: update(z, i) reads the old
// layer and the borders its neighbours saved at i−1, updates the new
// layer, and writes its own borders into its neighbours' copies. Flops are
// cell updates (size² × block thickness).
func genStencil(b *builder, s Spec) {
	nb := s.N
	size := int(s.opt("size"))
	iters := int(s.opt("iterations"))
	face := int64(size+2) * int64(size+2)
	var layer, top, bottom [2][]int
	for z := 0; z < nb; z++ {
		thick := int64(size/nb + 2)
		if z < size%nb {
			thick++
		}
		for p := 0; p < 2; p++ {
			layer[p] = append(layer[p], b.addData(1, face*thick))
		}
	}
	for p := 0; p < 2; p++ {
		for z := 0; z < nb; z++ {
			top[p] = append(top[p], b.addData(1, face))
			bottom[p] = append(bottom[p], b.addData(1, face))
		}
	}
	for it := 1; it <= iters; it++ {
		old, nw := (it-1)%2, it%2
		for z := 0; z < nb; z++ {
			thick := size / nb
			if z < size%nb {
				thick++
			}
			up, down := (z+1)%nb, (z+nb-1)%nb
			in := []int{layer[nw][z], layer[old][z], top[old][z], bottom[old][z], bottom[nw][up], top[nw][down]}
			modes := []Mode{RW, R, R, R, W, W}
			b.addModed("life", float64(size)*float64(size)*float64(thick), []int{it, z}, in, modes)
		}
	}
}
