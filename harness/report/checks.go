package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads"
)

// Checks compute the claims of thesis chapter 5, whose statements are ratios
// to the other schedulers or to the figures' bound lines, and which
// scheduler wins in which regime (a claim's check, paper.Checks). The
// points a check covers are the suite's points matching the claim's gpus
// and its point keys: n, and before_limit / after_limit (1: the points
// whose working set fits, or does not fit, in the cumulated memory of the
// capped nodes: the figures' green line). Ratios over several points are
// ratios of sums, as the papers' averages are ratios of means.
//
//   - ratio (value): metric(scheduler) / metric(baseline);
//   - over_lower_bound (value): transfers(scheduler) / the I/O lower bound;
//   - under_pcie (value): the PCIe limit / transfers(scheduler);
//   - worst_improvement (published: the bound, %): the smallest per-point
//     improvement of scheduler over baseline; holds when >= published, and
//     for a negative bound ("at worst 5% slower") when the scheduler is
//     also slower somewhere (the smallest improvement below 0): a
//     scheduler faster at every point differs in direction from the claim;
//   - best / lowest: the scheduler has the highest (lowest) metric summed
//     over the points among the suite's labels, in every panel (GPU count);
//     the value is its margin over the runner-up, in %;
//   - above_pcie: every label's transfers exceed the PCIe limit at every
//     point; only_below_pcie: the scheduler's are below it at every point
//     and every other label's above it at some point.
//
// Bound lines (thesis §5.4.1, §5.5): the I/O lower bound of Cholesky
// N^3 / (3 sqrt(2S)) (Beaumont et al.) and of LU 2N^3 / (3 sqrt(S))
// (Olivry et al.), N the matrix order in scalars and S the scalars (4
// bytes, "32-bit scalars") one processing unit's memory holds; the PCIe
// limit is what the links from host memory (or the disk) carry during the
// ideal compute time, the sum of the kernels' durations divided among the
// workers (StarPU's area bound, which the figures' ceiling is).

// checkResult is a checked claim's row: a value claim is reproduced within
// its tolerance, a bound or a winner when it holds.
func checkResult(c paper.Claim, set *Set) ClaimResult {
	res := ClaimResult{Claim: c, Value: math.NaN(), Diff: math.NaN()}
	v, holds, detail, err := evaluateCheck(c, set)
	if err != nil {
		res.Status, res.Detail = StatusNotRun, err.Error()
		return res
	}
	res.Value, res.Detail = v, detail
	if pub, ok := c.Value(); ok {
		res.Diff = v - pub
	}
	switch {
	case c.Kind == paper.KindValue && c.Within(v), c.Kind != paper.KindValue && holds:
		res.Status = StatusReproduced
	default:
		res.Status = StatusOff
	}
	return res
}

// evaluateCheck computes a claim with a check; it returns the value, whether
// the claim holds (for bounds and winners), and how it was computed.
func evaluateCheck(c paper.Claim, set *Set) (v float64, holds bool, detail string, err error) {
	if set == nil || set.Present == 0 {
		return 0, false, "", fmt.Errorf("no results for the suite: run memsched sweep %s", c.Suite)
	}
	pts, err := checkPoints(c, set)
	if err != nil {
		return 0, false, "", err
	}
	metric := Metrics[metricOf(c)]
	sum := func(label string, ps []*Point) (float64, error) {
		var s float64
		for _, p := range ps {
			st := set.Cell(label, p).Stat(metric.Name)
			if st.N == 0 {
				return 0, fmt.Errorf("%s has no successful run at %s", label, describePoint(p))
			}
			s += st.Mean
		}
		return s, nil
	}
	where := fmt.Sprintf("over %d points (N = %s)", len(pts), nList(pts))
	switch c.Check {
	case paper.CheckRatio:
		a, err := sum(c.Scheduler, pts)
		if err != nil {
			return 0, false, "", err
		}
		b, err := sum(c.Baseline, pts)
		if err != nil {
			return 0, false, "", err
		}
		return a / b, false, fmt.Sprintf("%s %s / %s %s", metric.Name, c.Scheduler, c.Baseline, where), nil
	case paper.CheckOverLowerBound, paper.CheckUnderPCIe:
		a, err := sum(c.Scheduler, pts)
		if err != nil {
			return 0, false, "", err
		}
		var bound float64
		for _, p := range pts {
			b, err := boundMiB(set, p, c.Check == paper.CheckOverLowerBound)
			if err != nil {
				return 0, false, "", err
			}
			bound += b
		}
		if c.Check == paper.CheckOverLowerBound {
			return a / bound, false, fmt.Sprintf("transfers of %s / I/O lower bound %s", c.Scheduler, where), nil
		}
		return bound / a, false, fmt.Sprintf("PCIe limit / transfers of %s %s", c.Scheduler, where), nil
	case paper.CheckWorstImprovement:
		worst := math.Inf(1)
		for _, p := range pts {
			a, err := sum(c.Scheduler, []*Point{p})
			if err != nil {
				return 0, false, "", err
			}
			b, err := sum(c.Baseline, []*Point{p})
			if err != nil {
				return 0, false, "", err
			}
			imp := a/b - 1
			if !metric.Higher {
				imp = b/a - 1
			}
			worst = math.Min(worst, 100*imp)
		}
		pub, _ := c.Value()
		d := fmt.Sprintf("smallest improvement of %s over %s on %s %s", c.Scheduler, c.Baseline, metric.Name, where)
		holds := worst >= pub
		if pub < 0 && worst >= 0 {
			// "At worst X% slower" says the scheduler is slower somewhere.
			holds = false
			d += fmt.Sprintf(": %s is never slower, the claim's direction differs", c.Scheduler)
		}
		return worst, holds, d, nil
	case paper.CheckBest, paper.CheckLowest:
		margin := math.Inf(1)
		var lost []string
		for _, panel := range panelsOf(pts) {
			mine, err := sum(c.Scheduler, panel)
			if err != nil {
				return 0, false, "", err
			}
			other, runnerUp := math.NaN(), ""
			for _, l := range set.Labels {
				if l == c.Scheduler || set.Cells[l] == nil {
					continue
				}
				s, err := sum(l, panel)
				if err != nil {
					continue
				}
				if math.IsNaN(other) || (c.Check == paper.CheckBest) == (s > other) {
					other, runnerUp = s, l
				}
			}
			m := 100 * (mine/other - 1)
			if c.Check == paper.CheckLowest {
				m = 100 * (other/mine - 1)
			}
			if m < margin {
				margin = m
			}
			if m < 0 {
				lost = append(lost, fmt.Sprintf("%s beats it%s", runnerUp, panelName(panel)))
			}
		}
		what := "highest"
		if c.Check == paper.CheckLowest {
			what = "lowest"
		}
		d := fmt.Sprintf("%s has the %s %s %s; margin over the runner-up (%%)", c.Scheduler, what, metric.Name, where)
		if len(lost) > 0 {
			d += ": " + strings.Join(lost, "; ")
		}
		return margin, len(lost) == 0, d, nil
	case paper.CheckAbovePCIe, paper.CheckOnlyBelowPCIe:
		var bad []string
		count := 0
		for _, l := range set.Labels {
			if set.Cells[l] == nil {
				continue
			}
			mine := l == c.Scheduler
			above := 0
			for _, p := range pts {
				t, err := sum(l, []*Point{p})
				if err != nil {
					return 0, false, "", err
				}
				b, err := boundMiB(set, p, false)
				if err != nil {
					return 0, false, "", err
				}
				if t > b {
					above++
				}
			}
			switch {
			case c.Check == paper.CheckAbovePCIe && above < len(pts):
				bad = append(bad, fmt.Sprintf("%s is below it at %d points", l, len(pts)-above))
			case c.Check == paper.CheckOnlyBelowPCIe && mine && above > 0:
				bad = append(bad, fmt.Sprintf("%s is above it at %d points", l, above))
			case c.Check == paper.CheckOnlyBelowPCIe && !mine && above == 0:
				bad = append(bad, fmt.Sprintf("%s is below it too", l))
			}
			count++
		}
		d := fmt.Sprintf("transfers of %d labels against the PCIe limit %s", count, where)
		if len(bad) > 0 {
			d += ": " + strings.Join(bad, "; ")
		}
		return float64(len(bad)), len(bad) == 0, d, nil
	}
	return 0, false, "", fmt.Errorf("unknown check %q", c.Check)
}

func metricOf(c paper.Claim) string {
	switch c.Check {
	case paper.CheckOverLowerBound, paper.CheckUnderPCIe, paper.CheckAbovePCIe, paper.CheckOnlyBelowPCIe:
		return "transfers_mib"
	}
	m := c.Metric
	if m == "transfers_ratio" {
		m = "transfers_mib"
	}
	if m == "transfers_mb" {
		m = "transfers_mib"
	}
	if _, ok := Metrics[m]; !ok {
		return "gflops"
	}
	return m
}

// checkPoints selects the points a check covers (see Checks).
func checkPoints(c paper.Claim, set *Set) ([]*Point, error) {
	var out []*Point
	for _, p := range set.Points {
		if c.GPUs > 0 && p.GPUs != c.GPUs {
			continue
		}
		if n, ok := c.Point["n"]; ok && p.N != int(n) {
			continue
		}
		fits := p.WSMiB <= float64(max(p.GPUs, 1))*p.MemMiB
		if c.Point["before_limit"] == 1 && !fits || c.Point["after_limit"] == 1 && fits {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the results have no point matching gpus=%d %v", c.GPUs, c.Point)
	}
	return out, nil
}

func panelsOf(pts []*Point) [][]*Point {
	var out [][]*Point
	index := map[string]int{}
	for _, p := range pts {
		i, ok := index[p.Panel]
		if !ok {
			i = len(out)
			index[p.Panel] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

func panelName(pts []*Point) string {
	if pts[0].Panel == "" {
		return ""
	}
	return " (" + pts[0].Panel + ")"
}

func nList(pts []*Point) string {
	ns := make([]int, 0, len(pts))
	seen := map[int]bool{}
	for _, p := range pts {
		if !seen[p.N] {
			seen[p.N] = true
			ns = append(ns, p.N)
		}
	}
	sort.Ints(ns)
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// boundMiB is a point's I/O lower bound (lower) or PCIe limit, in MiB.
func boundMiB(set *Set, p *Point, lower bool) (float64, error) {
	spec, plat, err := pointConfig(set, p)
	if err != nil {
		return 0, err
	}
	if lower {
		lb := IOLowerBoundMiB(spec, p.MemMiB)
		if math.IsNaN(lb) {
			return 0, fmt.Errorf("no I/O lower bound for %s (Cholesky and LU have one)", spec.Kind)
		}
		return lb, nil
	}
	ideal, err := pointIdeal(set, p)
	if err != nil {
		return 0, err
	}
	return hostGBps(plat) * 1e9 * ideal / mib, nil
}

// pointIdeal is the ideal compute time of a point's workload (IdealSeconds),
// computed once per point.
func pointIdeal(set *Set, p *Point) (float64, error) {
	spec, plat, err := pointConfig(set, p)
	if err != nil {
		return 0, err
	}
	pr := set.configs[p.ID]
	if pr.ideal == 0 {
		w, err := generate(spec)
		if err != nil {
			return 0, err
		}
		pr.ideal = IdealSeconds(w, plat)
	}
	return pr.ideal, nil
}

// pointConfig finds the workload spec and platform of a point in its suite.
func pointConfig(set *Set, p *Point) (workloads.Spec, *hardware.Platform, error) {
	if set.Suite == nil {
		return workloads.Spec{}, nil, fmt.Errorf("bounds need the suite")
	}
	if set.configs == nil {
		set.configs = map[string]*pointRun{}
		for _, r := range set.Suite.Runs() {
			b, _ := json.Marshal(normalise(r.Point))
			set.configs[string(b)] = &pointRun{spec: r.Spec, plat: r.Platform}
		}
	}
	pr := set.configs[p.ID]
	if pr == nil || pr.spec.Kind == "" {
		return workloads.Spec{}, nil, fmt.Errorf("point %s is not a generated workload of the suite", describePoint(p))
	}
	return pr.spec, pr.plat, nil
}

type pointRun struct {
	spec  workloads.Spec
	plat  *hardware.Platform
	ideal float64 // seconds, 0 until computed
}

// IOLowerBoundMiB is the communication lower bound of the Cholesky or LU
// factorisation with memMiB per processing unit (thesis §5.4.1, §5.5), NaN
// for other kinds.
func IOLowerBoundMiB(spec workloads.Spec, memMiB float64) float64 {
	s := spec.WithDefaults()
	n := float64(s.N) * float64(s.Tile)
	scalars := memMiB * mib / 4
	var words float64
	switch s.Kind {
	case workloads.KindCholesky:
		words = n * n * n / (3 * math.Sqrt(2*scalars))
	case workloads.KindLU:
		words = 2 * n * n * n / (3 * math.Sqrt(scalars))
	default:
		return math.NaN()
	}
	return words * 4 / mib
}

// IdealSeconds is the area bound of a workload on a platform: every task
// on its fastest worker kind, the total divided among the workers.
func IdealSeconds(w *workloads.Workload, p *hardware.Platform) float64 {
	kinds := map[string]bool{}
	for _, ws := range p.Workers() {
		kinds[ws.Kind] = true
	}
	var total float64
	for _, t := range w.Tasks {
		best := math.Inf(1)
		for k := range kinds {
			if s, ok, _ := p.KernelSeconds(t.Kernel, k, t.Flops); ok && s < best {
				best = s
			}
		}
		total += best
	}
	return total / float64(len(p.Workers()))
}

// PCIeLimitMiB is what the links from home carry during the ideal compute
// time: the aggregate host bandwidth to the GPUs, or the disk's out of core.
func PCIeLimitMiB(w *workloads.Workload, p *hardware.Platform) float64 {
	return hostGBps(p) * 1e9 * IdealSeconds(w, p) / mib
}

func hostGBps(p *hardware.Platform) float64 {
	if p.OutOfCore() {
		return p.Topology.DiskGBps
	}
	return AggregateHostGBps(p, p.GPUs)
}
