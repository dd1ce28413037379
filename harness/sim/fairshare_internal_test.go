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
			f := &flow{}
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
