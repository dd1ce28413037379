package hypergraph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// NoVCycle disables V-cycle refinement (hMETIS Vcycle=0).
const NoVCycle = -1

// Options configures Partition. Zero values take the paper's settings
// (IPDPS 2022 §IV-B: UBfactor 1, Nruns 20, Vcycle 2).
type Options struct {
	// Parts is K, the number of parts (>= 1).
	Parts int
	// UBFactor is hMETIS's balance tolerance b in percent, in (0,50);
	// 0 means 1. As in hmetis/shmetis it applies to every bisection: a
	// side that should get the fraction t of the weight W of its
	// subproblem gets at most t·W·(1+2b/100), i.e. (50+b)% of W when
	// splitting in halves. With K = 2^d parts a part may thus reach
	// ((50+b)/50)^d times the average.
	UBFactor float64
	// Runs is hMETIS's Nruns: each bisection is computed Runs times from
	// random coarsenings and the best is kept; 0 means 20. The first 4
	// runs alternate the two coarsening schemes and the others use the
	// one that did better (see Bounded).
	Runs int
	// VCycles is hMETIS's Vcycle mode: 1 refines the best of the Runs
	// bisections with V-cycles, 2 every run at least as good as the best
	// before it, 3 every run; NoVCycle (-1) disables them; 0 means 2.
	// A V-cycle is repeated while it improves the cut.
	VCycles int
	// Seed makes the result reproducible: the same hypergraph, options and
	// seed give the same partition, whatever GOMAXPROCS is.
	Seed uint64
	// Bounded bounds the work as KaHyPar and PaToH do, at the price of a
	// different partition: edges over 64 pins are rated on a window of 16
	// of their pins when coarsening; the runs after the first 4 reuse the
	// hierarchies of the scheme that did better (the cheaper whole-edge
	// scheme on a tie) with their own initial bisections, instead of
	// coarsening anew; V-cycles refine each distinct bisection once. The
	// default (false) is the partitioner the checked-in results used.
	Bounded bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Parts < 1 {
		return o, fmt.Errorf("hypergraph: Parts must be >= 1, got %d", o.Parts)
	}
	if o.UBFactor == 0 {
		o.UBFactor = 1
	}
	if !(o.UBFactor > 0 && o.UBFactor < 50) {
		return o, fmt.Errorf("hypergraph: UBFactor must be in (0,50) percent, got %v", o.UBFactor)
	}
	if o.Runs == 0 {
		o.Runs = 20
	}
	if o.Runs < 0 {
		return o, fmt.Errorf("hypergraph: Runs must be >= 0, got %d", o.Runs)
	}
	if o.VCycles == 0 {
		o.VCycles = 2
	}
	if o.VCycles != NoVCycle && (o.VCycles < 1 || o.VCycles > 3) {
		return o, fmt.Errorf("hypergraph: VCycles must be 1, 2, 3 or NoVCycle, got %d", o.VCycles)
	}
	return o, nil
}

// ErrZeroWeight is returned when every vertex weighs 0, so that no
// balance can be defined.
var ErrZeroWeight = errors.New("hypergraph: total vertex weight is zero")

// raceRuns is the number of first runs that alternate coarsening schemes.
const raceRuns = 4

// maxVCycleRounds bounds the repetitions of an improving V-cycle.
const maxVCycleRounds = 5

// Partition splits the vertices of h into opt.Parts parts minimising the
// connectivity−1 metric under the UBFactor balance constraint, and returns
// the part (in [0,Parts)) of each vertex.
//
// Like hmetis, it works by recursive bisection: K parts come from splitting
// into ⌈K/2⌉ and ⌊K/2⌋ parts, each side getting its share of the weight.
// The edges a bisection cuts are split between the two sub-hypergraphs, so
// the bisection cuts add up exactly to the connectivity−1 of the result.
// Each bisection is the best of opt.Runs multilevel runs:
//   - coarsening by first-choice clustering or modified hyperedge
//     coarsening (the first runs race the two, the rest use the winner;
//     with Bounded, edges over 64 pins are rated on a sample of their pins
//     and the rest reuse the winner's hierarchies);
//   - initial bisections of the coarsest hypergraph by greedy growing or
//     random fill, the best of several after FM;
//   - uncoarsening with FM refinement on every level (boundary vertices,
//     gain-ordered heaps, early exit, rollback to the best prefix) and
//     edge-completion sweeps that move the minority pins of a cut edge at
//     once;
//   - V-cycles per opt.VCycles (with Bounded, once per distinct bisection).
//
// Runs execute in parallel; the result does not depend on how they are
// scheduled.
func Partition(h *Hypergraph, opt Options) ([]int, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	n := h.NumVertices()
	if opt.Parts > n {
		return nil, fmt.Errorf("hypergraph: cannot split %d vertices into %d non-empty parts", n, opt.Parts)
	}
	pins := 0
	for _, e := range h.Edges {
		pins += len(e)
	}
	if n > math.MaxInt32 || pins > math.MaxInt32 {
		return nil, fmt.Errorf("hypergraph: %d vertices and %d pins exceed the partitioner's int32 indices", n, pins)
	}
	parts := make([]int, n)
	if opt.Parts == 1 {
		return parts, nil
	}
	g := fromHypergraph(h)
	if g.totalW == 0 {
		return nil, ErrZeroWeight
	}
	vmap := make([]int32, n)
	for v := range vmap {
		vmap[v] = int32(v)
	}
	p := newPartitioner(opt)
	p.recurse(g, vmap, opt.Parts, 0, 1, parts)
	return parts, nil
}

type partitioner struct {
	opt     Options
	workers []*worker
	sc      contractor // recurse's
}

func newPartitioner(opt Options) *partitioner {
	nw := max(1, min(runtime.GOMAXPROCS(0), opt.Runs))
	p := &partitioner{opt: opt, workers: make([]*worker, nw)}
	for i := range p.workers {
		p.workers[i] = &worker{sampled: opt.Bounded}
	}
	return p
}

// recurse partitions g (whose vertex v is vmap[v] in the input) into k
// parts numbered from base; node numbers the bisection tree (root 1,
// children 2·node and 2·node+1) so that every bisection has its own seeds.
func (p *partitioner) recurse(g *hg, vmap []int32, k, base int, node uint64, out []int) {
	if k == 1 {
		for _, v := range vmap {
			out[v] = base
		}
		return
	}
	if g.totalW == 0 {
		// A zero-weight subproblem is balanced on vertex counts instead.
		g.vw = slices.Repeat([]int64{1}, g.n())
		g.totalW, g.maxVW = int64(g.n()), 1
	}
	k0 := (k + 1) / 2
	b := newBisection(g, float64(k0)/float64(k), p.opt.UBFactor)
	part := p.bisect(g, b, node)
	ensureCounts(g, part, [2]int{k0, k - k0})
	for s := int8(0); s < 2; s++ {
		cmap := make([]int32, g.n())
		var sub []int32
		for v := range cmap {
			if part[v] == s {
				cmap[v] = int32(len(sub))
				sub = append(sub, vmap[v])
			} else {
				cmap[v] = -1
			}
		}
		kk, bb := k0, base
		if s == 1 {
			kk, bb = k-k0, base+k0
		}
		p.recurse(p.sc.contract(g, cmap, len(sub)), sub, kk, bb, 2*node+uint64(s), out)
	}
}

// newBisection derives the balance bounds of one bisection from UBfactor,
// never tighter than what indivisible vertices allow.
func newBisection(g *hg, t0, ub float64) bisection {
	b := bisection{t0: t0}
	W := float64(g.totalW)
	for s, t := range [2]float64{t0, 1 - t0} {
		exact := int64(math.Ceil(t * W))
		b.lmax[s] = max(int64(t*W*(1+2*ub/100)), exact+g.maxVW-1)
	}
	return b
}

// ensureCounts moves the lightest vertices across if a side got fewer
// vertices than the parts it must still be split into (possible only with
// zero or very uneven weights).
func ensureCounts(g *hg, part []int8, need [2]int) {
	for s := int8(0); s < 2; s++ {
		have := 0
		for _, ps := range part {
			if ps == s {
				have++
			}
		}
		for ; have < need[s]; have++ {
			light := -1
			for v, ps := range part {
				if ps != s && (light < 0 || g.vw[v] < g.vw[light]) {
					light = v
				}
			}
			part[light] = s
		}
	}
}

type runResult struct {
	part     []int8
	overload int64
	cut      int64
}

func (r runResult) better(o runResult) bool {
	return r.overload < o.overload || (r.overload == o.overload && r.cut < o.cut)
}

// rng gives each (bisection, run, phase) its own PCG stream.
func (p *partitioner) rng(node uint64, run, phase int) *rand.Rand {
	return rand.New(rand.NewPCG(p.opt.Seed, splitmix(node<<20^uint64(run)<<4^uint64(phase))))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// bisect returns the best of opt.Runs multilevel bisections after the
// V-cycles that opt.VCycles asks for.
//
// The first runs race the two coarsening schemes, each coarsening g its own
// way; the other runs use the winning scheme. With opt.Bounded they reuse
// the hierarchies of the winner's race runs, in turn, and differ by their
// initial bisection (PaToH and KaHyPar likewise run several initial
// partitionings on one coarsest hypergraph): coarsening is most of a run's
// work, so Nruns cost about raceRuns coarsenings plus Nruns initial
// bisections and refinements. A run whose coarsest bisection equals an
// earlier one's on the same hierarchy would refine to the same result, so
// it takes that result.
func (p *partitioner) bisect(g *hg, b bisection, node uint64) []int8 {
	runs := p.opt.Runs
	res := make([]runResult, runs)
	scheme := make([]int, runs)
	hier := make([][]level, runs) // per run, its hierarchy (shared after the race)
	coarse := make([][]int8, runs)
	same := make([]int, runs) // the earlier run with the same coarsest bisection, or -1
	refine := func(from, to int) {
		for r := from; r < to; r++ {
			same[r] = -1
			for q := 0; q < r && same[r] < 0; q++ {
				if len(hier[q]) > 0 && &hier[q][0] == &hier[r][0] && slices.Equal(coarse[q], coarse[r]) {
					same[r] = q
				}
			}
		}
		var todo []int
		for r := from; r < to; r++ {
			if same[r] < 0 {
				todo = append(todo, r)
			}
		}
		p.parallel(len(todo), func(w *worker, i int) {
			r := todo[i]
			res[r] = w.evaluate(g, w.uncoarsen(hier[r], slices.Clone(coarse[r]), b), b)
		})
		for r := from; r < to; r++ {
			if q := same[r]; q >= 0 {
				res[r] = res[q]
			}
		}
	}
	// Race the two coarsening schemes on the first runs, then give the
	// rest to the winner: each scheme fails badly on some task sets
	// (pairwise matching on 2D products, whole-edge contraction on
	// Cholesky), and the race costs less than running both throughout.
	// On a tie the whole-edge scheme wins: it rates no neighbours, which
	// makes its V-cycles several times cheaper (the 2D product's halves
	// tie, at the optimum).
	race := min(runs, raceRuns)
	for r := range race {
		scheme[r] = r % 2
	}
	p.parallel(race, func(w *worker, r int) {
		rng := p.rng(node, r, 0)
		hier[r], _ = w.coarsen(g, nil, scheme[r], rng)
		coarse[r] = w.initial(hier[r][len(hier[r])-1].g, b, rng)
	})
	refine(0, race)
	win := firstChoice
	if race > 1 {
		var best [2]runResult
		for r := range race {
			if r < 2 || res[r].better(best[r%2]) {
				best[r%2] = res[r]
			}
		}
		if p.opt.Bounded && !best[firstChoice].better(best[edgeCoarsening]) ||
			!p.opt.Bounded && best[edgeCoarsening].better(best[firstChoice]) {
			win = edgeCoarsening // with Bounded, the cheaper scheme on a tie
		}
	}
	var own []int // the race runs of the winning scheme
	for r := range race {
		if scheme[r] == win {
			own = append(own, r)
		}
	}
	for r := race; r < runs; r++ {
		scheme[r] = win
	}
	for r := range race {
		if scheme[r] != win {
			hier[r] = nil // no later run uses the losing scheme's hierarchies: free them
		}
	}
	if p.opt.Bounded {
		for r := race; r < runs; r++ {
			hier[r] = hier[own[(r-race)%len(own)]]
		}
		p.parallel(runs-race, func(w *worker, i int) {
			r := race + i
			coarse[r] = w.initial(hier[r][len(hier[r])-1].g, b, p.rng(node, r, 0))
		})
		refine(race, runs)
	} else {
		p.parallel(runs-race, func(w *worker, i int) {
			r := race + i
			rng := p.rng(node, r, 0)
			levels, _ := w.coarsen(g, nil, scheme[r], rng)
			part := w.initial(levels[len(levels)-1].g, b, rng)
			res[r] = w.evaluate(g, w.uncoarsen(levels, part, b), b)
		})
	}
	clear(hier) // the V-cycles coarsen anew
	var todo []int
	switch p.opt.VCycles {
	case 1:
		todo = []int{bestRun(res)}
	case 2:
		// Decided on the runs' own results, in run order, so that the set
		// does not depend on which V-cycle finishes first.
		for r := range res {
			if r == 0 || !res[bestRun(res[:r])].better(res[r]) {
				todo = append(todo, r)
			}
		}
		todo = p.distinct(res, todo)
	case 3:
		for r := range res {
			todo = append(todo, r)
		}
		todo = p.distinct(res, todo)
	}
	p.parallel(len(todo), func(w *worker, i int) {
		r := todo[i]
		for round := 1; round <= maxVCycleRounds; round++ {
			next := w.evaluate(g, w.vcycle(g, res[r].part, b, scheme[r], p.rng(node, r, round)), b)
			if !next.better(res[r]) {
				break
			}
			res[r] = next
		}
	})
	return res[bestRun(res)].part
}

// distinct drops from runs, with opt.Bounded, those whose bisection equals
// that of an earlier one: hMETIS refines each intermediate solution, and
// several runs often reach the same one.
func (p *partitioner) distinct(res []runResult, runs []int) []int {
	if !p.opt.Bounded {
		return runs
	}
	var out []int
	for _, r := range runs {
		if !slices.ContainsFunc(out, func(q int) bool { return slices.Equal(res[q].part, res[r].part) }) {
			out = append(out, r)
		}
	}
	return out
}

func bestRun(res []runResult) int {
	best := 0
	for r := range res {
		if res[r].better(res[best]) {
			best = r
		}
	}
	return best
}

func (w *worker) evaluate(g *hg, part []int8, b bisection) runResult {
	var pw [2]int64
	for v, s := range part {
		pw[s] += g.vw[v]
	}
	over := max(0, pw[0]-b.lmax[0]) + max(0, pw[1]-b.lmax[1])
	return runResult{part: part, overload: over, cut: g.cut(part)}
}

// parallel runs job(0..n-1) on the workers; each job must depend only on
// its index so that the outcome is the same for any interleaving.
func (p *partitioner) parallel(n int, job func(w *worker, i int)) {
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for _, w := range p.workers[:min(len(p.workers), n)] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				job(w, i)
			}
		}()
	}
	wg.Wait()
}
