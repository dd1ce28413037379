package linkshare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFairShareMatchesFullScan holds fairShare, which divides again only
// on the links a round changed, to progressive filling that scans every
// link and divides anew each round, bit for bit, on random flows over
// random links whose bandwidths often tie.
func TestFairShareMatchesFullScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		net := New[int](nil, false)
		for range 1 + r.IntN(50) {
			net.AddLink(float64(1 + r.IntN(4)*8))
		}
		for range 1 + r.IntN(25) {
			f := &flow[int]{weight: 1}
			for _, l := range r.Perm(len(net.capacity))[:1+r.IntN(min(3, len(net.capacity)))] {
				f.links = append(f.links, l)
			}
			net.flows = append(net.flows, f)
		}
		// Twice on one network: the second call reuses the first's scratch.
		for call := range 2 {
			net.fairShare()
			want := fullScanShares(net.capacity, net.flows)
			for i, f := range net.flows {
				if math.Float64bits(f.rate) != math.Float64bits(want[i]) {
					t.Fatalf("trial %d, call %d: flow %d over links %v: rate %v, full scan %v", trial, call, i, f.links, f.rate, want[i])
				}
			}
		}
	}
}

// fullScanShares is progressive filling as written before fairShare kept
// the shares between rounds: every round divides on every link.
func fullScanShares(capacity []float64, flows []*flow[int]) []float64 {
	capLeft := slices.Clone(capacity)
	users := make([]int, len(capacity))
	for _, f := range flows {
		for _, l := range f.links {
			users[l]++
		}
	}
	rate := make([]float64, len(flows))
	fixed := make([]bool, len(flows))
	for left := len(flows); left > 0; {
		bl, share := -1, math.Inf(1)
		for l := range capacity {
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
// in inverse proportion to latency, Start) to weighted progressive
// filling that scans every link each round: the most constrained link,
// by capacity left per unit of weight, gives each of its flows its weight
// times that.
func TestWeightedFairShare(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lat := []float64{10e-6, 11e-6, 12e-6, 19e-6}
	for trial := range 2000 {
		net := New[int](nil, false)
		for range 1 + r.IntN(20) {
			net.AddLink(float64(1 + r.IntN(4)*8))
		}
		for range 1 + r.IntN(15) {
			f := &flow[int]{weight: 1 / lat[r.IntN(len(lat))]}
			for _, l := range r.Perm(len(net.capacity))[:1+r.IntN(min(3, len(net.capacity)))] {
				f.links = append(f.links, l)
			}
			net.flows = append(net.flows, f)
		}
		net.fairShare()
		want := weightedShares(net.capacity, net.flows)
		for i, f := range net.flows {
			if math.Abs(f.rate-want[i]) > 1e-9*want[i] {
				t.Fatalf("trial %d: flow %d (weight %g) over links %v: rate %v, full scan %v", trial, i, f.weight, f.links, f.rate, want[i])
			}
		}
	}
	// Two copies from main memory over a shared 12.381 GB/s link, of
	// latencies 10 and 11 µs: 11/21 and 10/21 of it (StarPU's SimGrid run
	// of the gemini-2-ipdps platform gives its CUDA1 and CUDA0 these).
	net := New[int]([]float64{12.381, 10.8, 10.8}, false)
	net.flows = []*flow[int]{{weight: 1 / 11e-6, links: []int{0, 1}}, {weight: 1 / 10e-6, links: []int{0, 2}}}
	net.fairShare()
	if got, want := net.flows[1].rate/net.flows[0].rate, 11.0/10; math.Abs(got-want) > 1e-12 {
		t.Errorf("rates %v and %v: ratio %v, want %v", net.flows[0].rate, net.flows[1].rate, got, want)
	}
}

func weightedShares(capacity []float64, flows []*flow[int]) []float64 {
	capLeft := slices.Clone(capacity)
	rate := make([]float64, len(flows))
	fixed := make([]bool, len(flows))
	for left := len(flows); left > 0; {
		bl, share := -1, math.Inf(1)
		for l := range capacity {
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

// TestMemoHolds: a set of paths below 64 is kept for good, one with a
// path from 64 on in its slot of the recent sets, so meeting it again
// skips fairShare.
func TestMemoHolds(t *testing.T) {
	for _, paths := range [][]int{{0, 1, 5}, {3, 64, 100}} {
		net := New[int]([]float64{10, 4}, false)
		var key pathSet
		for _, p := range paths {
			net.SetPath(p, []int{0, 1})
			net.Start(p, 1e9, 0, p)
			key[p/64] |= 1 << (p % 64)
		}
		var r []float64
		if key[1]|key[2]|key[3] == 0 {
			r = net.lookup64(key[0])
		} else if e := net.big[key.slot()]; e.key == key {
			r = e.rates
		}
		if len(r) != len(paths) || r[0] != 4e9/3 {
			t.Errorf("paths %v: memoised rates %v, want 3 of 4/3 GB/s", paths, r)
		}
	}
}
