package report

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads"
)

// Claim statuses in reports.
const (
	StatusReproduced  = "reproduced"
	StatusOff         = "off"
	StatusNotRun      = "not run"
	StatusNotYet      = "not yet reproducible"
	StatusQualitative = "qualitative"
	// StatusInput marks a number the suite sets rather than computes (the
	// compute ceiling is the platform's kernel throughput, taken from the
	// paper): shown, but not counted as a reproduction.
	StatusInput = "platform input"
)

// ClaimResult is a claim with its reproduced value.
type ClaimResult struct {
	Claim  paper.Claim
	Value  float64 // reproduced, in the claim's unit; NaN when none
	Diff   float64 // Value − published; NaN when either is missing
	Status string  // one of the Status constants; not-yet adds ": <missing>"
	Detail string  // how the value was obtained, or why there is none
}

// SameSuite reports whether a claim's suite path names a suite file
// (both relative to the repository root, slash-separated).
func SameSuite(claimSuite, rel string) bool {
	return claimSuite != "" && path.Clean(claimSuite) == path.Clean(rel)
}

// EvaluateClaim compares a claim with the results of its suite. set is nil
// when the suite's results are absent; s is nil when the suite file itself
// does not exist (yet).
func EvaluateClaim(c paper.Claim, s *suite.Suite, set *Set, average string) ClaimResult {
	res := ClaimResult{Claim: c, Value: math.NaN(), Diff: math.NaN()}
	switch {
	case c.Status == paper.StatusNotYet:
		res.Status = StatusNotYet
		if c.Missing != "" {
			res.Status += ": " + c.Missing
		}
		return res
	case c.Check != "" && s != nil:
		return checkResult(c, set)
	case c.Kind == paper.KindQualitative:
		res.Status = StatusQualitative
		return res
	case s == nil:
		res.Status = StatusNotRun
		res.Detail = fmt.Sprintf("suite %s does not exist yet", orNone(c.Suite))
		return res
	}
	var v float64
	var detail string
	var ok, input bool
	switch c.Kind {
	case paper.KindImprovement:
		v, detail, ok = claimImprovement(c, set, average)
	case paper.KindValue:
		v, detail, ok, input = claimValue(c, s, set)
	default:
		detail = "unknown claim kind " + c.Kind
	}
	res.Detail = detail
	if !ok {
		res.Status = StatusNotRun
		return res
	}
	res.Value = v
	if pub, has := c.Value(); has {
		res.Diff = v - pub
	}
	switch {
	case input:
		res.Status = StatusInput
	case c.Within(v):
		res.Status = StatusReproduced
	default:
		res.Status = StatusOff
	}
	return res
}

func orNone(s string) string {
	if s == "" {
		return "(none named)"
	}
	return s
}

// claimPoints are the set's points matching the claim's GPUs and memory,
// where the set has several.
func claimPoints(c paper.Claim, set *Set) []*Point {
	var out []*Point
	mem, hasMem := c.Memory()
	for _, p := range set.Points {
		if c.GPUs > 0 && p.GPUs != c.GPUs {
			continue
		}
		if hasMem && mem > 0 && math.Abs(p.MemMiB-mem) > 0.5 && set.XAxis != "memory" {
			continue
		}
		out = append(out, p)
	}
	return out
}

func claimImprovement(c paper.Claim, set *Set, average string) (float64, string, bool) {
	if set == nil || set.Present == 0 && set.Suite != nil {
		return 0, "no results for the suite: run memsched sweep " + c.Suite, false
	}
	for _, l := range []string{c.Scheduler, c.Baseline} {
		if set.Cells[l] == nil {
			return 0, fmt.Sprintf("no results for %q (not a label of the suite yet, or not run)", l), false
		}
	}
	metric := suite.NormaliseMetric(c.Metric)
	if _, ok := Metrics[metric]; !ok {
		return 0, "metric " + c.Metric + " is not in the results", false
	}
	pts := claimPoints(c, set)
	imp, err := set.ImprovementOver(pts, c.Scheduler, c.Baseline, metric, average)
	if err != nil || imp.Points == 0 {
		return 0, fmt.Sprintf("no point where both %s and %s ran", c.Scheduler, c.Baseline), false
	}
	detail := fmt.Sprintf("%s over %d points", averageName(average), imp.Points)
	if missing := len(pts) - imp.Points; missing > 0 {
		detail += fmt.Sprintf(" (%d points lack one of the two)", missing)
	}
	if c.Unit == "x" {
		return 1 + imp.Percent/100, detail, true
	}
	return imp.Percent, detail, true
}

func averageName(a string) string {
	if a == MeanOfRatios {
		return "mean of ratios"
	}
	return "ratio of means"
}

// claimValue reads a value claim; input says the value is a parameter of
// the suite itself rather than a result.
func claimValue(c paper.Claim, s *suite.Suite, set *Set) (v float64, detail string, ok, input bool) {
	metric := suite.NormaliseMetric(c.Metric)
	switch {
	case metric == "working_set_mb":
		// A property of the workload: computed from the suite's generator.
		n, ok := c.Point["n"]
		if !ok || s.Workload.Kind == "" {
			return 0, "working set claim without point n, or suite without a generator", false, false
		}
		sp := workloads.Spec{Kind: s.Workload.Kind, N: int(n), Tile: s.Workload.Tile, Z: s.Workload.Z, Order: s.Workload.Order, Deps: s.Workload.Deps}
		w, err := workloads.Generate(sp)
		if err != nil {
			return 0, err.Error(), false, false
		}
		return w.WorkingSetMiB(), fmt.Sprintf("working set of %s at N = %d (computed)", s.Workload.Kind, int(n)), true, false
	case metric == "gflops" && c.Scheduler == "":
		// The compute ceiling: a property of the platform's kernel model.
		g := c.GPUs
		if g == 0 {
			g = s.Platform.GPUs[0]
		}
		k, ok := s.Platform.Base.Kernels["gemm"]
		if !ok || k.GFlops <= 0 {
			return 0, "platform has no gemm throughput", false, false
		}
		return float64(g) * k.GFlops, fmt.Sprintf("ceiling: %d GPU(s) × gemm %g GFlop/s", g, k.GFlops), true, true
	}
	if set == nil || set.Present == 0 {
		return 0, "no results for the suite: run memsched sweep " + c.Suite, false, false
	}
	if _, ok := Metrics[metric]; !ok {
		return 0, "metric " + c.Metric + " is not in the results", false, false
	}
	if c.Scheduler == "" {
		return 0, "the claim names no scheduler and its metric is no property of the suite's workload or platform", false, false
	}
	if set.Cells[c.Scheduler] == nil {
		return 0, fmt.Sprintf("no results for %q (not a label of the suite yet, or not run)", c.Scheduler), false, false
	}
	p, where, err := selectPoint(c, set)
	if err != nil {
		return 0, err.Error(), false, false
	}
	st := set.Cell(c.Scheduler, p).Stat(metric)
	if st.N == 0 {
		return 0, fmt.Sprintf("%s has no successful run %s", c.Scheduler, where), false, false
	}
	return st.Mean, fmt.Sprintf("%s %s", c.Scheduler, where), true, false
}

// selectPoint finds the claim's point: n, gpus and memory_mb must match;
// working_set_mb picks the nearest point (sweeps rarely hit it exactly).
func selectPoint(c paper.Claim, set *Set) (*Point, string, error) {
	cands := claimPoints(c, set)
	var unused []string
	for _, k := range sortedKeys(c.Point) {
		v := c.Point[k]
		var keep []*Point
		switch k {
		case "n":
			for _, p := range cands {
				if p.N == int(v) {
					keep = append(keep, p)
				}
			}
		case "gpus":
			for _, p := range cands {
				if p.GPUs == int(v) {
					keep = append(keep, p)
				}
			}
		case "memory_mb":
			for _, p := range cands {
				if math.Abs(p.MemMiB-v) < 0.5 {
					keep = append(keep, p)
				}
			}
		case "working_set_mb":
			continue
		default:
			unused = append(unused, k)
			continue
		}
		cands = keep
	}
	if len(cands) == 0 {
		return nil, "", fmt.Errorf("the results have no point matching %v", c.Point)
	}
	if ws, ok := c.Point["working_set_mb"]; ok {
		best := cands[0]
		for _, p := range cands[1:] {
			if math.Abs(p.WSMiB-ws) < math.Abs(best.WSMiB-ws) {
				best = p
			}
		}
		return best, fmt.Sprintf("at N = %d (%.1f MiB, the nearest point to %g MB)", best.N, best.WSMiB, ws), nil
	}
	if len(cands) > 1 {
		return nil, "", fmt.Errorf("%d points match %v; the claim's point is ambiguous for this suite", len(cands), c.Point)
	}
	where := fmt.Sprintf("at %s", describePoint(cands[0]))
	if len(unused) > 0 {
		where += fmt.Sprintf(" (point keys %s not checked)", strings.Join(unused, ", "))
	}
	return cands[0], where, nil
}

func describePoint(p *Point) string {
	var parts []string
	for _, k := range sortedKeys(p.Coords) {
		parts = append(parts, k+"="+fmtCoord(p.Coords[k]))
	}
	return strings.Join(parts, " ")
}

// fmtCoord writes integral numbers without an exponent (memory_bytes).
func fmtCoord(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
