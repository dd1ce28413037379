package hypergraph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestContractReusesSpares checks contract against a straightforward
// reference on random hypergraphs and cluster maps, with a contractor
// whose spare hypergraphs and scratch space come from earlier, unrelated
// contractions (larger and smaller), as in the V-cycles.
func TestContractReusesSpares(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sc contractor
	for i := range 200 {
		h := randomHypergraph(5+r.IntN(300), 1+r.IntN(200), 2+r.IntN(40), uint64(i))
		// Some edges duplicated, so that merging parallel edges is exercised.
		for e := range len(h.Edges) / 4 {
			h.Edges = append(h.Edges, slices.Clone(h.Edges[e]))
			h.EdgeWeight = append(h.EdgeWeight, h.EdgeWeight[e])
		}
		g := fromHypergraph(h)
		nc := 1 + r.IntN(g.n())
		cmap := make([]int32, g.n())
		for v := range cmap {
			cmap[v] = int32(r.IntN(nc+1)) - 1 // -1 drops the vertex
		}
		got := sc.contract(g, cmap, nc)
		checkContract(t, g, cmap, nc, got)
		checkIncidence(t, got)
		// Recycle some results, as vcycle does with its levels.
		if r.IntN(2) == 0 {
			sc.release([]level{{g: g}, {g: got, cmap: cmap}})
		}
	}
}

// checkContract compares c with the contraction computed naively: images
// of each edge's pins, sorted; edges with under two dropped; edges with
// equal pin sets merged into the first, weights added.
func checkContract(t *testing.T, g *hg, cmap []int32, nc int, c *hg) {
	t.Helper()
	vw := make([]int64, nc)
	for v, cv := range cmap {
		if cv >= 0 {
			vw[cv] += g.vw[v]
		}
	}
	var want [][]int32
	var ew []int64
	for e := int32(0); int(e) < g.m(); e++ {
		var ps []int32
		for _, p := range g.edgePins(e) {
			if cmap[p] >= 0 {
				ps = append(ps, cmap[p])
			}
		}
		slices.Sort(ps)
		ps = slices.Compact(ps)
		if len(ps) < 2 {
			continue
		}
		i := slices.IndexFunc(want, func(q []int32) bool { return slices.Equal(q, ps) })
		if i >= 0 {
			ew[i] += g.ew[e]
			continue
		}
		want = append(want, ps)
		ew = append(ew, g.ew[e])
	}
	if !slices.Equal(c.vw, vw) || !slices.Equal(c.ew, ew) || c.m() != len(want) {
		t.Fatalf("vertex weights %v, edge weights %v; want %v, %v", c.vw, c.ew, vw, ew)
	}
	var total, maxW int64
	for _, w := range vw {
		total += w
		maxW = max(maxW, w)
	}
	if c.totalW != total || c.maxVW != maxW {
		t.Fatalf("totalW %d maxVW %d, want %d %d", c.totalW, c.maxVW, total, maxW)
	}
	for e := int32(0); int(e) < c.m(); e++ {
		ps := slices.Sorted(slices.Values(c.edgePins(e)))
		if !slices.Equal(ps, want[e]) {
			t.Fatalf("edge %d: pins %v, want %v", e, ps, want[e])
		}
	}
}

// checkIncidence compares vptr/inc with each vertex's edges listed by a
// scan of the edges.
func checkIncidence(t *testing.T, g *hg) {
	t.Helper()
	if len(g.vptr) != g.n()+1 || len(g.inc) != len(g.pins) {
		t.Fatalf("%d vptr, %d inc for %d vertices, %d pins", len(g.vptr), len(g.inc), g.n(), len(g.pins))
	}
	for v := int32(0); int(v) < g.n(); v++ {
		var want []int32
		for e := int32(0); int(e) < g.m(); e++ {
			if slices.Contains(g.edgePins(e), v) {
				want = append(want, e)
			}
		}
		if got := g.vertexEdges(v); !slices.Equal(got, want) {
			t.Fatalf("vertex %d: edges %v, want %v", v, got, want)
		}
	}
}
