package report

import (
	"math"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/run"
)

func peerRec(exec, label string, n int, gflops float64, loads int) run.Record {
	r := run.Record{GFlops: gflops, Loads: loads, BytesH2D: int64(loads) * 1000}
	r.Suite, r.Label, r.Executor, r.Scheduler = "s", label, exec, strings.ToLower(label)
	r.Point = map[string]any{"n": float64(n)}
	return r
}

// Two schedulers at two points, simulated and on StarPU: the errors, the
// equal loads, the ranking and the best scheduler as worked out by hand.
func TestComparePeer(t *testing.T) {
	sim := []run.Record{
		peerRec("sim", "A", 10, 110, 50), peerRec("sim", "B", 10, 90, 60),
		peerRec("sim", "A", 20, 100, 80), peerRec("sim", "B", 20, 101, 90),
	}
	peer := []run.Record{
		peerRec("starpu", "A", 10, 100, 50), peerRec("starpu", "B", 10, 100, 50), // tie in StarPU: no ranking pair
		peerRec("starpu", "A", 20, 120, 80), peerRec("starpu", "B", 20, 100, 100), // StarPU: A ahead by 17 %; the simulation puts B first
		peerRec("starpu", "C", 20, 100, 1), // no simulated counterpart
		peerRec("sim", "A", 30, 1, 1),      // not a StarPU record
	}
	peer = append([]run.Record{peerRec("starpu", "A", 10, 1, 1)}, peer...) // superseded by the rerun below it
	set := NewSet(nil, sim, nil)
	set.Name = "s"
	pc := comparePeer(set, "x.starpu.jsonl", latestPeerRuns("s", peer))
	if len(pc.Rows) != 3 {
		t.Fatalf("rows %+v", pc.Rows)
	}
	a, b, c := pc.Rows[0], pc.Rows[1], pc.Rows[2]
	// A: |110-100|/100 = 10 %, |100-120|/120 = 16.67 %: MAPE 13.33 %, bias (10 − 16.67)/2.
	if a.Label != "A" || a.Points != 2 || math.Abs(a.GFlopsMAPE-40.0/3) > 1e-9 || math.Abs(a.Bias-(10-50.0/3)/2) > 1e-9 || a.EqualLoads != 2 || a.BytesMAPE != 0 {
		t.Errorf("A: %+v", a)
	}
	// B: 10 % and 1 %; loads equal at neither; bytes 20 % and 10 %.
	if b.Label != "B" || math.Abs(b.GFlopsMAPE-5.5) > 1e-9 || b.EqualLoads != 0 || math.Abs(b.BytesMAPE-15) > 1e-9 {
		t.Errorf("B: %+v", b)
	}
	if c.Label != "C" || c.Points != 0 || c.Unmatched != 1 || !math.IsNaN(c.GFlopsMAPE) {
		t.Errorf("C: %+v", c)
	}
	// One pair StarPU separates (n = 20), ordered the other way round; at
	// n = 10 StarPU's two are tied, so the simulation's A is a best one.
	if pc.RankPairs != 1 || pc.RankAgree != 0 || pc.BestPoints != 2 || pc.BestSame != 1 {
		t.Errorf("ranking %d/%d, best %d/%d", pc.RankAgree, pc.RankPairs, pc.BestSame, pc.BestPoints)
	}
}
