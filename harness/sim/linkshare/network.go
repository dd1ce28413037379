// Package linkshare shares the bandwidth of links among the flows (copies)
// crossing them, with weighted max-min fairness, and says when each flow
// completes. It is the simulator's sharing solver, the analogue of
// SimGrid's lmm max-min system (src/kernel/lmm/maxmin.cpp) under its CM02
// network model; what to copy, when and from where stays in harness/sim,
// which this package does not import.
//
// A flow crosses the links of a path, which the caller numbers and
// registers (SetPath). A flow carries a payload, handed back when it
// completes, so the solver knows nothing of what it copies. The network
// keeps its own clock: Advance moves it, Next says when the next flow
// starts sharing or completes, Handle carries that out.
package linkshare

import (
	"iter"
	"math"
)

// Network is a set of links and the flows crossing them, each carrying a
// payload P.
type Network[P any] struct {
	capacity []float64 // per link, in bytes/s
	paths    [][]int   // per path id, its links
	instant  bool      // flows take no time
	now      float64
	flows    []*flow[P] // sharing their links, in the order they started to
	latent   []*flow[P] // in their latency, not yet sharing
	spare    []*flow[P] // finished, for reuse: starting a flow allocates nothing

	memo64 map[uint64][]float64 // the rates of each set of paths below 64 (rates)
	cache  *[1 << 10]memoEntry  // in front of memo64
	big    *[1 << 10]bigEntry   // the rates of recent sets with a path from 64 on
	fair   fairScratch
}

// flow is a copy in progress over a path of links.
type flow[P any] struct {
	links           []int
	path            int // rates are memoised per set of paths (rates)
	remaining, rate float64
	// weight is the flow's share of a link against the others' (SimGrid:
	// the inverse of its sharing penalty, its latency), 1 without
	// latency; activeAt is when its latency has passed and it starts
	// sharing its links.
	weight, activeAt float64
	payload          P
}

// New is a network of links of the given capacities in GB/s (10⁹ bytes/s)
// and no paths yet. With instant, every flow completes as it starts and
// latencies are ignored (the simulator's model without transfers).
func New[P any](gbps []float64, instant bool) *Network[P] {
	n := &Network[P]{instant: instant, memo64: map[uint64][]float64{}, cache: new([1 << 10]memoEntry)}
	for _, g := range gbps {
		n.AddLink(g)
	}
	return n
}

// AddLink adds a link of gbps GB/s and returns its index. Links are
// scanned in index order (the first of the smallest share is the
// bottleneck), so adding them in the same order gives the same rates.
func (n *Network[P]) AddLink(gbps float64) int {
	n.capacity = append(n.capacity, gbps*1e9)
	return len(n.capacity) - 1
}

// SetPath makes path id cross links. Rates are memoised per set of paths
// with a flow sharing (rates), so the flows of a path must all have the
// same latency. The memo holds sets of ids below 256 with one flow per
// path; ids below 64 get the cheapest.
func (n *Network[P]) SetPath(id int, links []int) {
	for len(n.paths) <= id {
		n.paths = append(n.paths, nil)
	}
	n.paths[id] = links
}

// Path is the links of path id, nil when it has none.
func (n *Network[P]) Path(id int) []int {
	if id < len(n.paths) {
		return n.paths[id]
	}
	return nil
}

// Now is the network's clock.
func (n *Network[P]) Now() float64 { return n.now }

// Advance moves the clock to t, the flows' remaining bytes with it; time
// never goes back.
func (n *Network[P]) Advance(t float64) {
	if dt := t - n.now; dt > 0 {
		for _, f := range n.flows {
			f.remaining -= f.rate * dt
		}
		n.now = t
	}
}

// Start starts a flow of bytes over path, carrying p. It shares the path's
// links once latency seconds have passed, weighted by the latency's
// inverse, as SimGrid's CM02 model takes a flow's route latency as its
// sharing penalty (NetworkCm02Model::communicate, network/weight-S = 0);
// without latency its weight is 1, SimGrid's penalty of a flow without
// latency.
func (n *Network[P]) Start(path int, bytes, latency float64, p P) {
	f := n.newFlow()
	*f = flow[P]{links: n.paths[path], path: path, remaining: bytes, weight: 1, activeAt: n.now, payload: p}
	if latency > 0 && !n.instant {
		f.weight, f.activeAt = 1/latency, n.now+latency
	}
	n.share(f)
}

// share adds a flow to its links once its latency has passed.
func (n *Network[P]) share(f *flow[P]) {
	if f.activeAt > n.now {
		n.latent = append(n.latent, f)
		return
	}
	n.flows = append(n.flows, f)
	if n.instant {
		f.rate = math.Inf(1)
		return
	}
	n.rates()
}

// Due is the network's next change: a flow's latency ends, or a flow
// completes. Handle carries it out.
type Due struct {
	At    float64 // when
	i     int     // the flow's index in latent or flows
	ended bool    // a flow completes (else its latency ends)
}

// Next is the network's next change, false when no flow is in progress. A
// latency ending goes before a completion at the same time.
func (n *Network[P]) Next() (Due, bool) {
	tEnd, fi := n.nextEnd()
	tLat, li := n.nextActive()
	if li >= 0 && tLat <= tEnd {
		return Due{At: tLat, i: li}, true
	}
	if fi >= 0 {
		return Due{At: tEnd, i: fi, ended: true}, true
	}
	return Due{}, false
}

// Handle carries out d, the last Next, at its time: a flow whose latency
// ends starts sharing its links; a completed flow leaves them, and its
// payload comes back with ended true. The other flows' rates follow.
func (n *Network[P]) Handle(d Due) (p P, ended bool) {
	n.Advance(d.At)
	if !d.ended {
		f := n.latent[d.i]
		n.latent = append(n.latent[:d.i], n.latent[d.i+1:]...)
		n.share(f)
		return p, false
	}
	f := n.flows[d.i]
	n.flows = append(n.flows[:d.i], n.flows[d.i+1:]...)
	n.rates()
	n.spare = append(n.spare, f)
	return f.payload, true
}

// nextEnd is the earliest completion of a flow sharing its links, and its
// index in flows (-1 when none).
func (n *Network[P]) nextEnd() (float64, int) {
	best, bi := math.Inf(1), -1
	for i, f := range n.flows {
		if t := n.now + f.remaining/f.rate; t < best {
			best, bi = t, i
		}
	}
	return best, bi
}

// nextActive is the earliest time a flow in its latency starts sharing its
// links, and its index in latent (-1 when none).
func (n *Network[P]) nextActive() (float64, int) {
	best, bi := math.Inf(1), -1
	for i, f := range n.latent {
		if f.activeAt < best {
			best, bi = f.activeAt, i
		}
	}
	return best, bi
}

// Rates yields the payload and rate in bytes/s of each flow sharing its
// links, in the order they started to.
func (n *Network[P]) Rates() iter.Seq2[P, float64] {
	return func(yield func(P, float64) bool) {
		for _, f := range n.flows {
			if !yield(f.payload, f.rate) {
				return
			}
		}
	}
}

func (n *Network[P]) newFlow() *flow[P] {
	if k := len(n.spare); k > 0 {
		f := n.spare[k-1]
		n.spare = n.spare[:k-1]
		return f
	}
	return new(flow[P])
}
