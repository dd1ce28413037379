package hypergraph

import "github.com/memsched/memsched/internal/scratch"

// hg is the compact form the partitioner works on: pins and incidences in
// CSR arrays of int32, edges with at least two distinct pins only, and no
// two edges with the same pin set (they are merged, weights added), since
// neither single-pin nor parallel edges change any cut but both cost time.
type hg struct {
	vw     []int64
	eptr   []int32 // pins of edge e: pins[eptr[e]:eptr[e+1]]
	pins   []int32
	ew     []int64
	vptr   []int32 // edges of vertex v: inc[vptr[v]:vptr[v+1]]
	inc    []int32
	totalW int64
	maxVW  int64
}

func (g *hg) n() int { return len(g.vw) }
func (g *hg) m() int { return len(g.ew) }

func (g *hg) edgePins(e int32) []int32 { return g.pins[g.eptr[e]:g.eptr[e+1]] }
func (g *hg) vertexEdges(v int32) []int32 {
	return g.inc[g.vptr[v]:g.vptr[v+1]]
}

// fromHypergraph converts a validated Hypergraph. Zero-weight edges are
// dropped: they cannot change the objective.
func fromHypergraph(h *Hypergraph) *hg {
	n := h.NumVertices()
	raw := &hg{vw: h.VertexWeight, eptr: make([]int32, 1, len(h.Edges)+1)}
	for e, pins := range h.Edges {
		w := h.edgeWeight(e)
		if w == 0 || len(pins) < 2 {
			continue
		}
		for _, p := range pins {
			raw.pins = append(raw.pins, int32(p))
		}
		raw.eptr = append(raw.eptr, int32(len(raw.pins)))
		raw.ew = append(raw.ew, w)
	}
	id := make([]int32, n)
	for v := range id {
		id[v] = int32(v)
	}
	return new(contractor).contract(raw, id, n)
}

// contract builds the hypergraph whose vertex c is the set of fine vertices
// v with cmap[v] == c (c in [0,nc)); cmap[v] < 0 drops v. Each edge keeps
// its distinct images, edges left with fewer than two are dropped and
// parallel edges are merged. It serves coarsening (cmap = clusters) and
// recursive bisection (cmap = one side, which splits the cut edges as the
// connectivity−1 metric requires).
func (sc *contractor) contract(g *hg, cmap []int32, nc int) *hg {
	c := sc.newHG(nc)
	for v, cv := range cmap {
		if cv >= 0 {
			c.vw[cv] += g.vw[v]
		}
	}
	for _, w := range c.vw {
		c.totalW += w
		c.maxVW = max(c.maxVW, w)
	}
	stamp := scratch.Resize(sc.stamp, nc)
	for i := range stamp {
		stamp[i] = -1
	}
	// The pins are gathered in scratch space and copied out at their size:
	// a coarse level has far fewer than g, and the hierarchies of a
	// bisection stay alive until its end.
	pins := sc.pins[:0]
	if sc.first == nil {
		sc.first = make(map[uint64]int32, g.m())
	}
	first := sc.first
	clear(first)
	next := sc.next[:0] // chains edges whose pin sets hash alike
	for e := int32(0); int(e) < g.m(); e++ {
		start := len(pins)
		var hsh uint64
		for _, p := range g.edgePins(e) {
			if cv := cmap[p]; cv >= 0 && stamp[cv] != e {
				stamp[cv] = e
				pins = append(pins, cv)
				hsh += splitmix(uint64(cv)) // order-free: no sort needed
			}
		}
		ps := pins[start:]
		if len(ps) < 2 {
			pins = pins[:start]
			continue
		}
		hsh ^= uint64(len(ps))
		merged := false
		head, seen := first[hsh]
		for idx := head; seen && idx >= 0; idx = next[idx] {
			if samePins(pins[c.eptr[idx]:c.eptr[idx+1]], len(ps), stamp, e) {
				c.ew[idx] += g.ew[e]
				merged = true
				break
			}
		}
		if merged {
			pins = pins[:start]
			continue
		}
		if seen {
			next = append(next, head)
		} else {
			next = append(next, -1)
		}
		first[hsh] = int32(len(c.ew))
		c.eptr = append(c.eptr, int32(len(pins)))
		c.ew = append(c.ew, g.ew[e])
	}
	c.pins = append(c.pins[:0], pins...)
	sc.stamp, sc.pins, sc.next = stamp, pins, next
	c.buildIncidence()
	return c
}

// contractor holds contract's scratch space, reused from one call to the
// next (one per goroutine), and the hypergraphs and cluster maps of
// finished V-cycles, whose arrays it reuses: a V-cycle builds a hierarchy
// as large as a run's and drops it at once, half of all allocation.
type contractor struct {
	stamp, pins, next []int32
	first             map[uint64]int32
	spare             []*hg
	spareMaps         [][]int32
}

// newHG returns an empty hypergraph of nc zero-weight vertices, reusing a
// spare one's arrays.
func (sc *contractor) newHG(nc int) *hg {
	c := new(hg)
	if k := len(sc.spare); k > 0 {
		c, sc.spare = sc.spare[k-1], sc.spare[:k-1]
	}
	c.vw = scratch.Zeroed(c.vw, nc)
	c.eptr = append(c.eptr[:0], 0)
	c.ew = c.ew[:0]
	c.totalW, c.maxVW = 0, 0
	return c
}

// newMap returns a cluster map for n vertices, its contents undefined.
func (sc *contractor) newMap(n int) []int32 {
	if k := len(sc.spareMaps); k > 0 {
		m := sc.spareMaps[k-1]
		sc.spareMaps = sc.spareMaps[:k-1]
		return scratch.Resize(m, n)
	}
	return make([]int32, n)
}

// release hands back the coarse levels of a hierarchy nobody uses any
// more (the finest level is the caller's), and all its cluster maps,
// coarsest first: the next hierarchy takes the largest first.
func (sc *contractor) release(levels []level) {
	for i := len(levels) - 1; i >= 0; i-- {
		if levels[i].cmap != nil {
			sc.spareMaps = append(sc.spareMaps, levels[i].cmap)
		}
		if i > 0 {
			sc.spare = append(sc.spare, levels[i].g)
		}
	}
}

// samePins reports whether the pins other of an edge are exactly the n
// distinct pins just stamped e.
func samePins(other []int32, n int, stamp []int32, e int32) bool {
	if len(other) != n {
		return false
	}
	for _, p := range other {
		if stamp[p] != e {
			return false
		}
	}
	return true
}

// buildIncidence fills vptr/inc from the edges (counting sort, so each
// vertex lists its edges in increasing order).
func (g *hg) buildIncidence() {
	n := g.n()
	g.vptr = scratch.Zeroed(g.vptr, n+1)
	for _, p := range g.pins {
		g.vptr[p+1]++
	}
	for v := 0; v < n; v++ {
		g.vptr[v+1] += g.vptr[v]
	}
	// vptr[p] serves as p's fill position, ending at p+1's start; the
	// shift below restores the starts without a second array.
	g.inc = scratch.Resize(g.inc, len(g.pins))
	for e := int32(0); int(e) < g.m(); e++ {
		for _, p := range g.edgePins(e) {
			g.inc[g.vptr[p]] = e
			g.vptr[p]++
		}
	}
	copy(g.vptr[1:], g.vptr[:n])
	g.vptr[0] = 0
}

// cut is the weight of the edges with pins on both sides of a bisection.
func (g *hg) cut(part []int8) int64 {
	var c int64
	for e := int32(0); int(e) < g.m(); e++ {
		ps := g.edgePins(e)
		s := part[ps[0]]
		for _, p := range ps[1:] {
			if part[p] != s {
				c += g.ew[e]
				break
			}
		}
	}
	return c
}
