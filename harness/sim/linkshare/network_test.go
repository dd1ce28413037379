package linkshare_test

import (
	"maps"
	"math"
	"testing"

	"github.com/memsched/memsched/harness/sim/linkshare"
)

// Hand-checked instances, in GB/s and bytes: capacities and sizes are
// chosen so that every rate and time is exact in floating point.

// rates is each flow's rate in GB/s, by payload.
func rates(n *linkshare.Network[string]) map[string]float64 {
	r := map[string]float64{}
	for p, bps := range n.Rates() {
		r[p] = bps / 1e9
	}
	return r
}

func wantRates(t *testing.T, n *linkshare.Network[string], want map[string]float64) {
	t.Helper()
	if got := rates(n); !maps.Equal(got, want) {
		t.Errorf("rates %v GB/s, want %v", got, want)
	}
}

// Two flows over one link share it equally.
func TestTwoFlowsShareALink(t *testing.T) {
	n := linkshare.New[string]([]float64{10}, false)
	n.SetPath(0, []int{0})
	n.SetPath(1, []int{0})
	n.Start(0, 1e9, 0, "a")
	wantRates(t, n, map[string]float64{"a": 10})
	n.Start(1, 1e9, 0, "b")
	wantRates(t, n, map[string]float64{"a": 5, "b": 5})
}

// A flow over a path of two links goes at the narrower's bandwidth.
func TestPathLimitedByNarrowerLink(t *testing.T) {
	n := linkshare.New[string]([]float64{10, 4}, false)
	n.SetPath(0, []int{0, 1})
	n.Start(0, 1e9, 0, "a")
	wantRates(t, n, map[string]float64{"a": 4})
}

// Progressive filling: the flow bottlenecked on the 4 GB/s link gets 4 of
// the shared 10 GB/s link, and the other flow the 6 left, not an equal 5.
func TestBottleneckLeavesTheRestToOthers(t *testing.T) {
	n := linkshare.New[string]([]float64{10, 4}, false)
	n.SetPath(0, []int{0, 1})
	n.SetPath(1, []int{0})
	n.Start(0, 1e9, 0, "narrow")
	n.Start(1, 1e9, 0, "wide")
	wantRates(t, n, map[string]float64{"narrow": 4, "wide": 6})
	// Three flows: the 4 GB/s link halves, and the 10 GB/s link gives
	// 2 + 2 to those and 6 to the third.
	n.SetPath(2, []int{1})
	n.Start(2, 1e9, 0, "only-narrow")
	wantRates(t, n, map[string]float64{"narrow": 2, "wide": 8, "only-narrow": 2})
}

// A set of paths met again takes its rates from the memo, bit for bit the
// rates computed the first time, for paths below 64 (the cheaper key) and
// from 64 on, whatever the order the flows start in.
func TestMemoisedRatesAreIdentical(t *testing.T) {
	for _, base := range []int{0, 64, 128} {
		n := linkshare.New[string]([]float64{12.381, 10.8, 7.3}, false)
		n.SetPath(base, []int{0, 1})
		n.SetPath(base+1, []int{0, 2})
		n.SetPath(base+2, []int{2})
		start := map[string]func(){
			"a": func() { n.Start(base, 1e9, 11e-6, "a") },
			"b": func() { n.Start(base+1, 3e9, 10e-6, "b") },
			"c": func() { n.Start(base+2, 2e9, 0, "c") },
		}
		var got []map[string]float64
		for _, order := range []string{"abc", "cba"} {
			for _, f := range order {
				start[string(f)]()
			}
			for d, ok := n.Next(); ok && len(rates(n)) < 3; d, ok = n.Next() {
				n.Handle(d) // the latencies end, before any flow completes
			}
			got = append(got, rates(n))
			for d, ok := n.Next(); ok; d, ok = n.Next() {
				n.Handle(d)
			}
		}
		if len(got[0]) != 3 {
			t.Fatalf("paths from %d: %d flows sharing, want 3", base, len(got[0]))
		}
		for p, r := range got[0] {
			if math.Float64bits(got[1][p]) != math.Float64bits(r) {
				t.Errorf("paths from %d: flow %s at %v GB/s again, %v the first time", base, p, got[1][p], r)
			}
		}
	}
}

// Next is the earliest completion at the current rates; when a flow
// completes, the others speed up.
func TestNextCompletion(t *testing.T) {
	n := linkshare.New[string]([]float64{10}, false)
	n.SetPath(0, []int{0})
	n.SetPath(1, []int{0})
	if _, ok := n.Next(); ok {
		t.Fatal("an idle network has a next change")
	}
	n.Start(0, 10e9, 0, "short")
	n.Start(1, 20e9, 0, "long")
	// 5 GB/s each: the short one ends at 2 s, the long one has 10 GB left,
	// alone at 10 GB/s: it ends at 3 s.
	for _, want := range []struct {
		at   float64
		flow string
	}{{2, "short"}, {3, "long"}} {
		d, ok := n.Next()
		if !ok || d.At != want.at {
			t.Fatalf("next change at %v (%v), want %v", d.At, ok, want.at)
		}
		p, ended := n.Handle(d)
		if !ended || p != want.flow {
			t.Fatalf("at %v: %q ended %v, want %q", d.At, p, ended, want.flow)
		}
		if n.Now() != want.at {
			t.Errorf("clock at %v, want %v", n.Now(), want.at)
		}
	}
	if _, ok := n.Next(); ok {
		t.Error("flows left after both completed")
	}
}

// Advance moves the clock between changes (the caller's other events):
// the flows' remaining bytes follow, and time never goes back.
func TestAdvance(t *testing.T) {
	n := linkshare.New[string]([]float64{10}, false)
	n.SetPath(0, []int{0})
	n.Start(0, 20e9, 0, "a")
	n.Advance(1)
	n.Advance(0.5)
	if d, _ := n.Next(); d.At != 2 || n.Now() != 1 {
		t.Errorf("at %v, next change at %v, want 2", n.Now(), d.At)
	}
}

// A flow shares no bandwidth during its latency, then shares in inverse
// proportion to it: latencies of 1 and 0.5 s give weights 1 and 2.
func TestLatencyThenWeightedShare(t *testing.T) {
	n := linkshare.New[string]([]float64{6}, false)
	n.SetPath(0, []int{0})
	n.SetPath(1, []int{0})
	n.Start(0, 60e9, 1, "slow")
	n.Start(1, 60e9, 0.5, "fast")
	wantRates(t, n, map[string]float64{})
	d, _ := n.Next()
	if _, ended := n.Handle(d); ended || d.At != 0.5 {
		t.Fatalf("first change at %v (ended %v), want a latency ending at 0.5", d.At, ended)
	}
	wantRates(t, n, map[string]float64{"fast": 6})
	d, _ = n.Next()
	n.Handle(d)
	wantRates(t, n, map[string]float64{"slow": 2, "fast": 4})
}

// Without transfers a flow completes as it starts, whatever its latency.
func TestInstant(t *testing.T) {
	n := linkshare.New[string]([]float64{10}, true)
	n.SetPath(0, []int{0})
	n.Advance(3)
	n.Start(0, 1e9, 1e-3, "a")
	d, ok := n.Next()
	if !ok || d.At != 3 {
		t.Fatalf("next change at %v (%v), want 3", d.At, ok)
	}
	if p, ended := n.Handle(d); !ended || p != "a" {
		t.Errorf("%q ended %v, want a", p, ended)
	}
}

// Links added after the first keep their indices and capacities, and a
// path's links are what SetPath gave.
func TestAddLinkAndPath(t *testing.T) {
	n := linkshare.New[string]([]float64{10}, false)
	if l := n.AddLink(2); l != 1 {
		t.Fatalf("AddLink = %d, want 1", l)
	}
	if n.Path(5) != nil {
		t.Error("an unset path has links")
	}
	n.SetPath(5, []int{0, 1})
	n.Start(5, 1e9, 0, "a")
	wantRates(t, n, map[string]float64{"a": 2})
	if got := n.Path(5); len(got) != 2 || got[1] != 1 {
		t.Errorf("path 5 = %v, want [0 1]", got)
	}
}
