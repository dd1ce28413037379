package hypergraph

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/memsched/memsched/internal/scratch"
)

// Tuning of one multilevel bisection, in the spirit of hMETIS's defaults
// (coarsen to ~100 vertices, several initial bisections, FM until no pass
// improves); the values were chosen on the 2D-product and Cholesky task
// hypergraphs of the tests, for cut first and time second.
const (
	coarsenTo        = 100  // stop coarsening at this many vertices
	minCoarsest      = 8    // ... but never coarsen below this many
	minShrink        = 0.95 // ... or when a level keeps more than this fraction
	maxRatingEdge    = 1000 // larger edges are ignored when rating neighbours (KaHyPar's cmaxnet default)
	sampleAbove      = 64   // larger edges are rated on a window of their pins (see sample)
	samplePins       = 16   // ... of this many pins
	initialTries     = 10   // initial bisections of the coarsest hypergraph
	maxFMPasses      = 8    // FM passes per level (stops earlier if no gain)
	clusterWeightDiv = 60   // a cluster weighs at most W/clusterWeightDiv
	// A whole edge may be contracted up to W/edgeWeightDiv: a block-row of
	// an N×N product weighs W/N, and W/60 would keep rows apart for N < 60.
	edgeWeightDiv = 16
)

// Coarsening schemes. hMETIS offers both (CType); the runs of a bisection
// race them and keep the better one (see bisect).
const (
	firstChoice    = iota // cluster (vertex-based)
	edgeCoarsening        // clusterEdges (whole hyperedges first)
)

// level is one hypergraph of the hierarchy and the map of its vertices to
// those of the next coarser level.
type level struct {
	g    *hg
	cmap []int32
}

// worker holds the scratch space of one goroutine running bisections.
type worker struct {
	contractor
	f       fm
	rating  []float64
	touched []int32
	cw      []int64
	prio    []uint32
	window  []int32 // sample's scratch
	sampled bool    // rate large edges on a sample (Options.Bounded)
	order   []int32
	sideCnt []int32 // pins of each edge on each side (restricted mode)
}

// cluster is first-choice coarsening (hMETIS's FC scheme): vertices are
// visited in random order and each unclustered one joins the neighbour, or
// the neighbour's cluster, of best rating Σ_{shared e} w(e)/(|e|−1) that
// stays within maxW, ties broken at random. (Dividing the rating by the
// cluster weight, as KaHyPar does, cost a third more cut on the Cholesky
// task set.) With part non-nil only vertices on the same side may join
// (restricted coarsening for V-cycles). It stops merging once target
// clusters remain.
func (w *worker) cluster(g *hg, part []int8, target int, maxW int64, rng *rand.Rand) ([]int32, int) {
	n := g.n()
	w.rating = scratch.Zeroed(w.rating, n)
	w.prio = scratch.Resize(w.prio, n)
	w.order = scratch.Resize(w.order, n)
	for v := range n {
		w.prio[v] = rng.Uint32()
		w.order[v] = int32(v)
	}
	rng.Shuffle(n, func(i, j int) { w.order[i], w.order[j] = w.order[j], w.order[i] })
	cmap := w.newMap(n)
	for i := range cmap {
		cmap[i] = -1
	}
	w.cw = scratch.Resize(w.cw, n)
	if part != nil {
		w.sideCnt = scratch.Zeroed(w.sideCnt, 2*g.m())
		for e := int32(0); int(e) < g.m(); e++ {
			for _, p := range g.edgePins(e) {
				w.sideCnt[2*e+int32(part[p])]++
			}
		}
	}
	nc, groups := 0, n
	for _, u := range w.order {
		if cmap[u] >= 0 {
			continue
		}
		best := int32(-1)
		if groups > target {
			best = w.bestNeighbour(g, u, part, cmap, maxW)
		}
		if best < 0 {
			cmap[u] = int32(nc)
			w.cw[nc] = g.vw[u]
			nc++
			continue
		}
		c := cmap[best]
		if c < 0 {
			c = int32(nc)
			nc++
			cmap[best] = c
			w.cw[c] = g.vw[best]
		}
		cmap[u] = c
		w.cw[c] += g.vw[u]
		groups--
	}
	return cmap, nc
}

func (w *worker) bestNeighbour(g *hg, u int32, part []int8, cmap []int32, maxW int64) int32 {
	// Locals, not fields: appending to a field would make the compiler
	// reload every slice of w on each pin.
	rating, touched := w.rating, w.touched[:0]
	for _, e := range g.vertexEdges(u) {
		ps := g.edgePins(e)
		if len(ps) > maxRatingEdge {
			continue
		}
		size := int32(len(ps))
		filter := false
		if part != nil {
			// A cut edge acts as two edges, one per side, as after a
			// bisection: pins of a small remainder attract each other.
			su := int32(part[u])
			size = w.sideCnt[2*e+su]
			if size < 2 {
				continue
			}
			filter = w.sideCnt[2*e+1-su] > 0 // else every pin is on u's side
		}
		s := float64(g.ew[e]) / float64(size-1)
		if w.sampled && len(ps) > sampleAbove {
			ps = w.sample(ps, u, e)
		}
		// The hottest loop of the package: u rates itself too (skipped
		// below) rather than testing every pin.
		if !filter {
			for _, p := range ps {
				if rating[p] == 0 {
					touched = append(touched, p)
				}
				rating[p] += s
			}
			continue
		}
		su := part[u]
		for _, p := range ps {
			if part[p] != su {
				continue
			}
			if rating[p] == 0 {
				touched = append(touched, p)
			}
			rating[p] += s
		}
	}
	w.touched = touched
	best, bestScore := int32(-1), 0.0
	prio, cw := w.prio, w.cw
	for _, p := range touched {
		r := rating[p]
		rating[p] = 0
		// Ratings are positive, so without a best yet (bestScore 0) the
		// first test passes every candidate; it rejects most of the others.
		if r < bestScore || p == u || (r == bestScore && best >= 0 && prio[p] <= prio[best]) {
			continue
		}
		// The weight bound is checked last: most candidates lose anyway.
		cwp := g.vw[p]
		if c := cmap[p]; c >= 0 {
			cwp = cw[c]
		}
		if g.vw[u]+cwp <= maxW {
			best, bestScore = p, r
		}
	}
	return best
}

// sample returns a window of samplePins consecutive pins of a large edge
// (cyclically), from an offset drawn from u's priority and e, so that
// rating u costs O(samplePins) per large edge instead of O(|e|): the
// neighbour rating visited every pin of every edge, Σ_e |e|² per level
// (54 M visits on the 90,000-task 2D product, whose 600 edges have 300
// pins). Every pin of an edge gets the same score from it, so a window
// offers the same candidates up to the random tie-break; pins sharing
// several edges with u are still found through its small edges, which
// are rated in full. The bounds were chosen on the test hypergraphs
// (2D, sparse, Cholesky) so that no cut changed by more than the seeds'
// spread: windows of 8 pins on edges above 8 cost up to 11 % on
// Cholesky K=3 and sparse products, whose edges hold 20 to 100 tasks.
func (w *worker) sample(ps []int32, u, e int32) []int32 {
	off := int(splitmix(uint64(w.prio[u])<<32|uint64(uint32(e))) % uint64(len(ps)))
	if off+samplePins <= len(ps) {
		return ps[off : off+samplePins]
	}
	w.window = append(append(w.window[:0], ps[off:]...), ps[:off+samplePins-len(ps)]...)
	return w.window
}

// clusterEdges is modified hyperedge coarsening (Karypis et al., hMETIS):
// edges are visited by decreasing weight, then increasing size, and each
// one whose pins are all still free is contracted into one cluster; a
// second sweep clusters the free pins left in each edge. Contracting whole
// edges keeps the structure that pairwise matching scrambles, e.g. whole
// block-rows of a 2D product, whose pairs would otherwise tie rows to
// columns at random. With part non-nil each side of an edge counts as an
// edge of its own.
func (w *worker) clusterEdges(g *hg, part []int8, target int, maxW int64, rng *rand.Rand) ([]int32, int) {
	n, m := g.n(), g.m()
	w.order = scratch.Resize(w.order, m)
	w.prio = scratch.Resize(w.prio, m)
	order, key := w.order, w.prio
	for e := range order {
		order[e] = int32(e)
		key[e] = rng.Uint32()
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(g.ew[b], g.ew[a]); c != 0 {
			return c
		}
		la, lb := g.eptr[a+1]-g.eptr[a], g.eptr[b+1]-g.eptr[b]
		if c := cmp.Compare(la, lb); c != 0 {
			return c
		}
		return cmp.Compare(key[a], key[b])
	})
	cmap := w.newMap(n)
	for i := range cmap {
		cmap[i] = -1
	}
	nc, groups := 0, n
	var buf []int32
	// join makes one cluster of buf (all free) if it weighs at most maxW.
	join := func() {
		if len(buf) < 2 {
			return
		}
		var wsum int64
		for _, p := range buf {
			wsum += g.vw[p]
		}
		if wsum > maxW {
			return
		}
		for _, p := range buf {
			cmap[p] = int32(nc)
		}
		nc++
		groups -= len(buf) - 1
	}
	for sweep := 0; sweep < 2; sweep++ {
		for _, e := range order {
			if groups <= target {
				break
			}
			for side := int8(0); side < 2; side++ {
				buf = buf[:0]
				blocked := false
				for _, p := range g.edgePins(e) {
					if part != nil && part[p] != side {
						continue
					}
					if cmap[p] >= 0 {
						blocked = true
						continue
					}
					buf = append(buf, p)
				}
				if !blocked || sweep == 1 {
					join()
				}
				if part == nil {
					break
				}
			}
		}
	}
	for v := range cmap {
		if cmap[v] < 0 {
			cmap[v] = int32(nc)
			nc++
		}
	}
	return cmap, nc
}

// coarsen builds the hierarchy from g down to about coarsenTo vertices,
// or a quarter of g's, whichever is fewer: even small hypergraphs get a
// coarse level where whole edges can move at once.
// With part non-nil the coarsening is restricted to the sides of part and
// the returned coarsest partition is its projection.
func (w *worker) coarsen(g *hg, part []int8, scheme int, rng *rand.Rand) ([]level, []int8) {
	levels := []level{{g: g}}
	// Clusters weigh at most W/60, or 16 average vertices on hypergraphs
	// under 960 vertices, where W/60 would forbid contracting even a
	// 16-pin edge.
	maxW := max(g.maxVW, g.totalW/int64(min(clusterWeightDiv, max(minCoarsest, g.n()/16))))
	limit := min(coarsenTo, max(minCoarsest, g.n()/4))
	for cur := g; cur.n() > limit; {
		// Halving per level keeps the levels close enough for FM to repair.
		target := max(limit, cur.n()/2)
		var cmap []int32
		nc := cur.n()
		if scheme == edgeCoarsening {
			cmap, nc = w.clusterEdges(cur, part, target, max(maxW, g.totalW/edgeWeightDiv), rng)
		}
		if float64(nc) > minShrink*float64(cur.n()) {
			// Every edge is blocked by now: go on pairwise.
			cmap, nc = w.cluster(cur, part, target, maxW, rng)
		}
		if float64(nc) > minShrink*float64(cur.n()) {
			break
		}
		coarse := w.contract(cur, cmap, nc)
		levels[len(levels)-1].cmap = cmap
		if part != nil {
			cp := make([]int8, nc)
			for v, c := range cmap {
				cp[c] = part[v]
			}
			part = cp
		}
		levels = append(levels, level{g: coarse})
		cur = coarse
	}
	return levels, part
}

// bisection describes one bisection problem: side 0 should get the
// fraction t0 of the weight, and side s at most lmax[s].
type bisection struct {
	t0   float64
	lmax [2]int64
}

// levelBounds relaxes the bounds on a coarse level so that one coarse
// vertex of slack is always available; finer levels tighten them again and
// FM rebalances.
func (b bisection) levelBounds(g *hg) [2]int64 {
	l := b.lmax
	t := [2]float64{b.t0, 1 - b.t0}
	for s := range l {
		l[s] = max(l[s], int64(math.Ceil(t[s]*float64(g.totalW)))+g.maxVW)
	}
	return l
}

// uncoarsen projects the partition of the coarsest level up the hierarchy
// and refines it (FM and edge completion) on every level, the coarsest
// included.
func (w *worker) uncoarsen(levels []level, part []int8, b bisection) []int8 {
	for i := len(levels) - 1; i >= 0; i-- {
		g := levels[i].g
		if i < len(levels)-1 {
			fine := make([]int8, g.n())
			for v, c := range levels[i].cmap {
				fine[v] = part[c]
			}
			part = fine
		}
		lm := b.lmax
		if i > 0 {
			lm = b.levelBounds(g)
		}
		w.f.reset(g, part, lm, b.lmax)
		w.f.refine(maxFMPasses, true)
	}
	return part
}

// vcycle re-coarsens g keeping the sides of part together, so that the
// coarsest level starts from the current bisection with the same cut, and
// refines it again on the way up. The caller keeps the result only if it
// is better.
func (w *worker) vcycle(g *hg, part []int8, b bisection, scheme int, rng *rand.Rand) []int8 {
	levels, coarse := w.coarsen(g, part, scheme, rng)
	part = w.uncoarsen(levels, coarse, b)
	w.release(levels)
	return part
}

// initial bisects the coarsest hypergraph: greedy hypergraph growing from a
// random seed (most tries) or a random fill, each refined by FM; the best
// (overload, cut) wins.
func (w *worker) initial(g *hg, b bisection, rng *rand.Rand) []int8 {
	n := g.n()
	lm := b.levelBounds(g)
	target0 := int64(math.Ceil(b.t0 * float64(g.totalW)))
	best := make([]int8, n)
	bestScore := score{math.MaxInt64, math.MaxInt64, math.MaxInt64}
	part := make([]int8, n)
	order := make([]int32, n)
	for try := 0; try < initialTries; try++ {
		for v := range order {
			order[v] = int32(v)
		}
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		if try%4 == 3 {
			var pw int64
			for _, v := range order {
				if pw < target0 {
					part[v] = 0
					pw += g.vw[v]
				} else {
					part[v] = 1
				}
			}
			w.f.reset(g, part, lm, b.lmax)
		} else {
			w.grow(g, part, lm, b.lmax, target0, order)
		}
		w.f.refine(maxFMPasses, false)
		if sc := w.f.score(); sc.less(bestScore) {
			bestScore = sc
			copy(best, part)
		}
	}
	return best
}

// grow is greedy hypergraph growing: side 0 starts empty and repeatedly
// takes the side-1 vertex of highest FM gain (a random one when none
// touches side 0) until it reaches its target weight.
func (w *worker) grow(g *hg, part []int8, lm, strict [2]int64, target0 int64, order []int32) {
	for v := range part {
		part[v] = 1
	}
	f := &w.f
	f.reset(g, part, lm, strict)
	f.startPass(-1)
	next := 0
	for f.pw[0] < target0 {
		var v int32
		if h := &f.heaps[1]; len(h.items) > 0 {
			v = h.top()
		} else {
			for next < len(order) && part[order[next]] == 0 {
				next++
			}
			if next == len(order) {
				break
			}
			v = order[next]
		}
		f.move(v)
	}
	f.moves = f.moves[:0]
}
