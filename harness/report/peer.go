package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/harness/run"
)

// PeerRow compares one label's simulated runs with the same runs made by
// StarPU itself (the suite's [report] peer file), point by point.
type PeerRow struct {
	Label      string
	Points     int
	GFlopsMAPE float64 // mean |sim − StarPU| / StarPU, %
	Bias       float64 // mean (sim − StarPU) / StarPU, %: > 0, the simulator is faster
	BytesMAPE  float64 // bytes loaded (host and peer copies), %; NaN when StarPU moved none
	EqualLoads int     // points with the same number of loads
	Unmatched  int     // StarPU runs without a simulated counterpart
	bytesN     int     // points where StarPU moved bytes
}

// PeerComparison is a suite against StarPU+SimGrid.
type PeerComparison struct {
	File     string
	Platform string // the StarPU host (the preset imported from its calibration)
	Rows     []PeerRow
	// Ranking: pairs of labels at a point that StarPU separates by more
	// than RankGap, and how many of them the simulation orders the same way.
	RankPairs, RankAgree int
	// Best: points with at least two labels run on both, and how many of
	// them have the same best label: the simulation's fastest is within
	// RankGap of StarPU's fastest in StarPU's runs.
	BestPoints, BestSame int
}

// RankGap is the relative GFlop/s difference under which StarPU's ranking
// of two schedulers is not counted (issue 33: "pairs that StarPU separates
// by more than 2 %").
const RankGap = 0.02

// Peer compares the set with its suite's peer results, nil when the suite
// names none.
func (s *Set) Peer() (*PeerComparison, error) {
	runs, err := s.peerRuns()
	if runs == nil || err != nil {
		return nil, err
	}
	return comparePeer(s, s.Suite.Report.Peer, runs), nil
}

// peerRuns reads the suite's peer file (nil when it names none): the
// successful StarPU runs of this suite, one per label and point.
func (s *Set) peerRuns() ([]run.Record, error) {
	if s.Suite == nil || s.Suite.Report.Peer == "" {
		return nil, nil
	}
	recs, err := LoadRecords(s.Suite.Path(s.Suite.Report.Peer))
	if err != nil {
		return nil, fmt.Errorf("%s: [report] peer: %w", s.Suite.File, err)
	}
	return latestPeerRuns(s.Name, recs), nil
}

// latestPeerRuns keeps a suite's successful StarPU runs, the last of each
// label and point in the file (a rerun of a point supersedes the one
// before it). The slice is never nil.
func latestPeerRuns(suite string, recs []run.Record) []run.Record {
	last := map[[2]string]int{}
	for i, r := range recs {
		last[[2]string{r.Label, pointID(r)}] = i
	}
	out := []run.Record{}
	for i, r := range recs {
		if r.Error == "" && r.Suite == suite && r.Label != "" && r.Executor == run.StarPU && last[[2]string{r.Label, pointID(r)}] == i {
			out = append(out, r)
		}
	}
	return out
}

type peerPair struct{ sim, peer run.Record }

func comparePeer(s *Set, file string, runs []run.Record) *PeerComparison {
	pc := &PeerComparison{File: file}
	rows := map[string]*PeerRow{}
	byPoint := map[string][]peerPair{}
	var order []string
	for _, r := range runs {
		pc.Platform = r.Platform
		row := rows[r.Label]
		if row == nil {
			row = &PeerRow{Label: r.Label}
			rows[r.Label] = row
			order = append(order, r.Label)
		}
		id := pointID(r)
		c := s.Cells[r.Label][id]
		if c == nil || len(c.Records) == 0 || !(r.GFlops > 0) {
			row.Unmatched++
			continue
		}
		sim := c.Records[0]
		row.Points++
		e := (sim.GFlops - r.GFlops) / r.GFlops
		row.GFlopsMAPE += math.Abs(e)
		row.Bias += e
		if pb := r.BytesH2D + r.BytesD2D; pb > 0 {
			row.bytesN++
			row.BytesMAPE += math.Abs(float64(sim.BytesH2D+sim.BytesD2D-pb)) / float64(pb)
		}
		if sim.Loads == r.Loads {
			row.EqualLoads++
		}
		byPoint[id] = append(byPoint[id], peerPair{sim, r})
	}
	sort.SliceStable(order, func(i, j int) bool { return labelIndex(s.Labels, order[i]) < labelIndex(s.Labels, order[j]) })
	for _, l := range order {
		row := rows[l]
		row.GFlopsMAPE, row.Bias, row.BytesMAPE = mean100(row.GFlopsMAPE, row.Points), mean100(row.Bias, row.Points), mean100(row.BytesMAPE, row.bytesN)
		pc.Rows = append(pc.Rows, *row)
	}
	ids := make([]string, 0, len(byPoint))
	for id := range byPoint {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ps := byPoint[id]
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				a, b := ps[i], ps[j]
				if math.Abs(a.peer.GFlops-b.peer.GFlops)/math.Max(a.peer.GFlops, b.peer.GFlops) <= RankGap {
					continue
				}
				pc.RankPairs++
				if (a.peer.GFlops > b.peer.GFlops) == (a.sim.GFlops > b.sim.GFlops) {
					pc.RankAgree++
				}
			}
		}
		if len(ps) < 2 {
			continue
		}
		pc.BestPoints++
		bs, bp := 0, 0
		for i, p := range ps {
			if p.sim.GFlops > ps[bs].sim.GFlops {
				bs = i
			}
			if p.peer.GFlops > ps[bp].peer.GFlops {
				bp = i
			}
		}
		// StarPU's best is any scheduler within RankGap of its fastest: the
		// simulation's fastest must be one of them.
		if ps[bs].peer.GFlops >= ps[bp].peer.GFlops*(1-RankGap) {
			pc.BestSame++
		}
	}
	return pc
}

// mean100 is sum/n in percent, NaN without values.
func mean100(sum float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n) * 100
}

// peerSection is a suite's table against StarPU+SimGrid.
func peerSection(pc *PeerComparison, level int) Section {
	t := Table{
		Caption: fmt.Sprintf("The same runs simulated and on StarPU itself (%s: tag papers/ICPP2023 in SimGrid, the authors' calibration): GFlop/s MAPE and bias (> 0: memsched faster), MAPE of the bytes loaded, points with the same number of loads. %s", lastElem(pc.File), pc.rankingText()),
		Header:  []string{"scheduler", "points", "GFlop/s MAPE", "bias", "bytes MAPE", "equal loads", "unmatched"},
		Right:   []bool{false, true, true, true, true, true, true},
	}
	for _, r := range pc.Rows {
		t.Rows = append(t.Rows, []string{r.Label, strconv.Itoa(r.Points), pct1(r.GFlopsMAPE), signedPct(r.Bias), pct1(r.BytesMAPE), fmt.Sprintf("%d / %d", r.EqualLoads, r.Points), strconv.Itoa(r.Unmatched)})
	}
	return Section{Title: "Against StarPU+SimGrid", Level: level, Tables: []Table{t}}
}

func (pc *PeerComparison) rankingText() string {
	return fmt.Sprintf("Ranking: %d of %d pairs of schedulers that StarPU separates by more than %.0f %% are in the same order; the best scheduler is the same at %d of %d points.",
		pc.RankAgree, pc.RankPairs, RankGap*100, pc.BestSame, pc.BestPoints)
}

// Peers compares every suite that names a peer file, by suite key.
func Peers(suites map[string]*SuiteResults) (map[string]*PeerComparison, error) {
	out := map[string]*PeerComparison{}
	for k, sr := range suites {
		if sr.Set == nil {
			continue
		}
		pc, err := sr.Set.Peer()
		if err != nil {
			return nil, err
		}
		if pc != nil {
			out[k] = pc
		}
	}
	return out, nil
}

// Goals of the comparison (issue 33): per scheduler, GFlop/s within 2 %
// on average and the same load count at 90 % of the points; the same best
// scheduler at every point.
const (
	PeerGoalMAPE       = 2.0
	PeerGoalEqualLoads = 0.90
)

// peerSummary pools every peer suite per scheduler label.
func peerSummary(peers map[string]*PeerComparison) Section {
	type acc struct {
		points, equal, bytesN, suites int
		ape, bias, bytes              float64
	}
	by := map[string]*acc{}
	var labels, keys []string
	for k := range peers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rankPairs, rankAgree, bestPoints, bestSame int
	hosts := map[string]bool{}
	for _, k := range keys {
		pc := peers[k]
		if pc.Platform != "" {
			hosts[pc.Platform] = true
		}
		rankPairs, rankAgree, bestPoints, bestSame = rankPairs+pc.RankPairs, rankAgree+pc.RankAgree, bestPoints+pc.BestPoints, bestSame+pc.BestSame
		for _, r := range pc.Rows {
			a := by[r.Label]
			if a == nil {
				a = &acc{}
				by[r.Label] = a
				labels = append(labels, r.Label)
			}
			if r.Points == 0 {
				continue
			}
			a.suites++
			a.points += r.Points
			a.equal += r.EqualLoads
			a.ape += r.GFlopsMAPE * float64(r.Points)
			a.bias += r.Bias * float64(r.Points)
			if !math.IsNaN(r.BytesMAPE) {
				a.bytes += r.BytesMAPE * float64(r.bytesN)
				a.bytesN += r.bytesN
			}
		}
	}
	sort.Strings(labels)
	t := Table{
		Caption: fmt.Sprintf("Every suite with a peer file (%d), pooled per scheduler label. Goals: GFlop/s MAPE ≤ %.0f %%, equal load counts at ≥ %.0f %% of the points, the same best scheduler at every point.", len(keys), PeerGoalMAPE, PeerGoalEqualLoads*100),
		Header:  []string{"scheduler", "suites", "points", "GFlop/s MAPE", "bias", "bytes MAPE", "equal loads", "goals met"},
		Right:   []bool{false, true, true, true, true, true, true, false},
	}
	for _, l := range labels {
		a := by[l]
		if a.points == 0 {
			continue
		}
		mape, share := a.ape/float64(a.points), float64(a.equal)/float64(a.points)
		bytes := math.NaN()
		if a.bytesN > 0 {
			bytes = a.bytes / float64(a.bytesN)
		}
		goals := "yes"
		switch {
		case mape > PeerGoalMAPE && share < PeerGoalEqualLoads:
			goals = "no: GFlop/s, loads"
		case mape > PeerGoalMAPE:
			goals = "no: GFlop/s"
		case share < PeerGoalEqualLoads:
			goals = "no: loads"
		}
		t.Rows = append(t.Rows, []string{l, strconv.Itoa(a.suites), strconv.Itoa(a.points), pct1(mape), signedPct(a.bias / float64(a.points)), pct1(bytes),
			fmt.Sprintf("%d / %d (%.0f %%)", a.equal, a.points, share*100), goals})
	}
	para := fmt.Sprintf("memsched against the authors' StarPU (tag papers/ICPP2023) run in SimGrid with their calibrations of their V100 machines (StarPU hosts %s, each imported as the preset of that name by `memsched calibrate --from-starpu`), the same suites swept by `memsched sweep --executor starpu` (`make reproduce-starpu`; results checked in). Ranking: %d of %d pairs that StarPU separates by more than %.0f %% in the same order; the same best scheduler at %d of %d points.",
		strings.Join(slices.Sorted(maps.Keys(hosts)), ", "), rankAgree, rankPairs, RankGap*100, bestSame, bestPoints)
	return Section{Title: "Against StarPU+SimGrid", Paras: []string{para}, Tables: []Table{t}}
}

func labelIndex(labels []string, l string) int {
	for i, x := range labels {
		if x == l {
			return i
		}
	}
	return len(labels)
}
