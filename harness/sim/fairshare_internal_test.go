package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memsched/memsched/hardware"
)

// TestFairShareMatchesFullScan holds fairShare, which divides again only
// on the links a round changed, to progressive filling that scans every
// link and divides anew each round, bit for bit, on random flows over
// random links whose bandwidths often tie.
func TestFairShareMatchesFullScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		e := &Engine{}
		for range 1 + r.IntN(50) {
			e.links = append(e.links, hardware.Link{GBps: float64(1 + r.IntN(4)*8)})
		}
		for range 1 + r.IntN(25) {
			f := &flow{weight: 1}
			for _, l := range r.Perm(len(e.links))[:1+r.IntN(min(3, len(e.links)))] {
				f.links = append(f.links, l)
			}
			e.flows = append(e.flows, f)
		}
		// Twice on one engine: the second call reuses the first's scratch.
		for call := range 2 {
			e.fairShare()
			want := fullScanShares(e.links, e.flows)
			for i, f := range e.flows {
				if math.Float64bits(f.rate) != math.Float64bits(want[i]) {
					t.Fatalf("trial %d, call %d: flow %d over links %v: rate %v, full scan %v", trial, call, i, f.links, f.rate, want[i])
				}
			}
		}
	}
}

// fullScanShares is progressive filling as written before fairShare kept
// the shares between rounds: every round divides on every link.
func fullScanShares(links []hardware.Link, flows []*flow) []float64 {
	capLeft := make([]float64, len(links))
	users := make([]int, len(links))
	for i, l := range links {
		capLeft[i] = l.GBps * 1e9
	}
	for _, f := range flows {
		for _, l := range f.links {
			users[l]++
		}
	}
	rate := make([]float64, len(flows))
	fixed := make([]bool, len(flows))
	for left := len(flows); left > 0; {
		bl, share := -1, math.Inf(1)
		for l := range links {
			if users[l] > 0 {
				if s := capLeft[l] / float64(users[l]); s < share {
					bl, share = l, s
				}
			}
		}
		for i, f := range flows {
			if fixed[i] || !slices.Contains(f.links, bl) {
				continue
			}
			rate[i], fixed[i] = share, true
			left--
			for _, l := range f.links {
				capLeft[l] -= share
				users[l]--
			}
		}
	}
	return rate
}

// TestWeightedFairShare holds fairShare with weights (SimGrid's sharing
// in inverse proportion to latency, setLatency) to weighted progressive
// filling that scans every link each round: the most constrained link,
// by capacity left per unit of weight, gives each of its flows its weight
// times that.
func TestWeightedFairShare(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lat := []float64{10e-6, 11e-6, 12e-6, 19e-6}
	for trial := range 2000 {
		e := &Engine{}
		for range 1 + r.IntN(20) {
			e.links = append(e.links, hardware.Link{GBps: float64(1 + r.IntN(4)*8)})
		}
		for range 1 + r.IntN(15) {
			f := &flow{weight: 1 / lat[r.IntN(len(lat))]}
			for _, l := range r.Perm(len(e.links))[:1+r.IntN(min(3, len(e.links)))] {
				f.links = append(f.links, l)
			}
			e.flows = append(e.flows, f)
		}
		e.fairShare()
		want := weightedShares(e.links, e.flows)
		for i, f := range e.flows {
			if math.Abs(f.rate-want[i]) > 1e-9*want[i] {
				t.Fatalf("trial %d: flow %d (weight %g) over links %v: rate %v, full scan %v", trial, i, f.weight, f.links, f.rate, want[i])
			}
		}
	}
	// Two copies from main memory over a shared 12.381 GB/s link, of
	// latencies 10 and 11 µs: 11/21 and 10/21 of it (StarPU's SimGrid run
	// of the gemini-2-ipdps platform gives its CUDA1 and CUDA0 these).
	e := &Engine{links: []hardware.Link{{GBps: 12.381}, {GBps: 10.8}, {GBps: 10.8}}}
	e.flows = []*flow{{weight: 1 / 11e-6, links: []int{0, 1}}, {weight: 1 / 10e-6, links: []int{0, 2}}}
	e.fairShare()
	if got, want := e.flows[1].rate/e.flows[0].rate, 11.0/10; math.Abs(got-want) > 1e-12 {
		t.Errorf("rates %v and %v: ratio %v, want %v", e.flows[0].rate, e.flows[1].rate, got, want)
	}
}

func weightedShares(links []hardware.Link, flows []*flow) []float64 {
	capLeft := make([]float64, len(links))
	for i, l := range links {
		capLeft[i] = l.GBps * 1e9
	}
	rate := make([]float64, len(flows))
	fixed := make([]bool, len(flows))
	for left := len(flows); left > 0; {
		bl, share := -1, math.Inf(1)
		for l := range links {
			w := 0.0
			for i, f := range flows {
				if !fixed[i] && slices.Contains(f.links, l) {
					w += f.weight
				}
			}
			if w > 0 && capLeft[l]/w < share {
				bl, share = l, capLeft[l]/w
			}
		}
		for i, f := range flows {
			if fixed[i] || !slices.Contains(f.links, bl) {
				continue
			}
			rate[i], fixed[i] = share*f.weight, true
			left--
			for _, l := range f.links {
				capLeft[l] -= rate[i]
			}
		}
	}
	return rate
}
