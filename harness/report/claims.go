package report

import (
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads"
)

// Claim statuses in reports. Only StatusReproduced counts as a
// reproduction; the others say why a number is not one.
const (
	// StatusReproduced: computed under the paper's protocol, within the
	// claim's tolerance, and the tolerance excludes "no difference".
	StatusReproduced = "reproduced"
	// StatusNoise: an improvement within tolerance whose tolerance also
	// holds 0 %: any two curves that do not differ would pass it.
	StatusNoise  = "within noise"
	StatusOff    = "off"
	StatusNotRun = "not run"
	StatusNotYet = "not yet reproducible"
	// StatusNotHere: the claim needs what this project cannot have (the
	// weeks of a trace whose files it cannot read, a line the authors'
	// plotting defined outside their release); ": <what>" follows.
	StatusNotHere     = "not reproducible here"
	StatusQualitative = "qualitative"
	// StatusDefinition: arithmetic on the workload's definition (a working
	// set), computed but no result of a schedule.
	StatusDefinition = "definition"
	// StatusFaster: a timing of the authors' implementation that ours beats;
	// both times are shown.
	StatusFaster = "faster than published"
	// StatusInput marks a number the suite sets rather than computes (the
	// compute ceiling is the platform's kernel throughput, taken from the
	// paper): shown, but not counted as a reproduction.
	StatusInput = "platform input"
	// StatusRestates: the claim repeats another claim's number (a thesis
	// restating a paper) and is counted there.
	StatusRestates = "restates"
)

// NeedsCause reports whether a claim with this status must say why it is
// not reproduced (paper.Claim.Cause): off, within noise, not run, not yet
// and not reproducible here. Definitions, platform inputs, timings of the
// authors' code, restatements and unchecked qualitative statements are no
// gaps; a reproduced claim needs none.
func NeedsCause(status string) bool {
	switch statusKey(status) {
	case StatusOff, StatusNoise, StatusNotRun, StatusNotYet, StatusNotHere:
		return true
	}
	return false
}

// NoCause stands for a claim that needs a cause and gives none.
const NoCause = "(no cause given)"

func orMissing(cause string) string {
	if cause == "" {
		return NoCause
	}
	return cause
}

// ClaimResult is a claim with its reproduced value.
type ClaimResult struct {
	Claim  paper.Claim
	Value  float64 // reproduced, in the claim's unit; NaN when none
	Diff   float64 // Value − published; NaN when either is missing
	Status string  // one of the Status constants; not-yet adds ": <missing>"
	Detail string  // how the value was obtained, or why there is none
}

// Numeric reports whether the claim counts in the headline's denominator:
// a published number (improvement or value) that is not a restatement.
func (r ClaimResult) Numeric() bool {
	return r.Claim.Kind != paper.KindQualitative && r.Claim.Restates == ""
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
	case c.Restates != "":
		res.Status = StatusRestates
		res.Detail = "restates " + c.Restates + ", counted there"
		return res
	case c.Status == paper.StatusNotYet:
		res.Status = StatusNotYet
		if c.Missing != "" {
			res.Status += ": " + c.Missing
		}
		return res
	case c.Status == paper.StatusNotHere:
		res.Status = StatusNotHere + ": " + c.Missing
		if c.Check != "" && s != nil && set != nil {
			// What the suite computes anyway, for the reader (no value:
			// it reproduces nothing).
			if r := checkResult(c, set); !math.IsNaN(r.Value) {
				res.Detail = fmt.Sprintf("computed as defined here: %s%s (%s)", num(r.Value), unit(c.Unit), r.Detail)
			}
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
	case s.Batch != nil:
		return evaluateBatchClaim(c, s, set, res)
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
	return judge(c, v, input, res)
}

// judge gives a computed claim its status: its value against the
// published one within the tolerance, by the claim's nature (shared by
// GPU and batch claims).
func judge(c paper.Claim, v float64, input bool, res ClaimResult) ClaimResult {
	res.Value = v
	if pub, has := c.Value(); has {
		res.Diff = v - pub
	}
	pub, _ := c.Value()
	switch {
	case input || c.Nature == paper.NaturePlatformInput:
		res.Status = StatusInput
	case c.Nature == paper.NatureDefinition:
		res.Status = StatusDefinition
	case c.Nature == paper.NatureImplementationTime:
		res.Status = StatusOff
		if v < pub {
			res.Status = StatusFaster
			res.Detail += fmt.Sprintf("; ours %s s against the authors' %s s (%s× faster)", trimFloat(v), trimFloat(pub), trimFloat(roundSig(pub/v, 2)))
		}
	case !c.Within(v):
		res.Status = StatusOff
	case c.Kind == paper.KindImprovement && c.Within(0):
		res.Status = StatusNoise
	default:
		res.Status = StatusReproduced
	}
	return res
}

func trimFloat(v float64) string { return strconv.FormatFloat(roundSig(v, 3), 'f', -1, 64) }

// roundSig rounds to n significant digits.
func roundSig(v float64, n int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
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

// namedPoints are the set's points at exactly the claim's Points (one key:
// n or memory_mb), among those of the claim's GPUs; missing lists the named
// values the set has no point for.
func namedPoints(c paper.Claim, set *Set) (pts []*Point, key string, missing []float64) {
	var want []float64
	for k, vs := range c.Points {
		key, want = k, vs
	}
	for _, v := range want {
		var found *Point
		for _, p := range set.Points {
			if c.GPUs > 0 && p.GPUs != c.GPUs {
				continue
			}
			match := false
			switch key {
			case "n":
				match = p.N == int(v)
				if mem, ok := c.Memory(); ok && mem > 0 && math.Abs(p.MemMiB-mem) > 0.5 {
					match = false
				}
			case "memory_mb":
				match = math.Abs(p.MemMiB-v) < 0.5
			}
			if match {
				found = p
				break
			}
		}
		if found == nil {
			missing = append(missing, v)
			continue
		}
		pts = append(pts, found)
	}
	return pts, key, missing
}

// pointValue is a point's coordinate on a claim's points key.
func pointValue(p *Point, key string) float64 {
	if key == "memory_mb" {
		return p.MemMiB
	}
	return float64(p.N)
}

// describeValues writes a list of point values compactly: "5..45 step 5"
// for an arithmetic progression, else the list.
func describeValues(vs []float64) string {
	if len(vs) > 2 {
		step := vs[1] - vs[0]
		prog := step > 0
		for i := 2; i < len(vs) && prog; i++ {
			prog = vs[i]-vs[i-1] == step
		}
		if prog {
			return fmt.Sprintf("%s..%s step %s", fmtCoord(vs[0]), fmtCoord(vs[len(vs)-1]), fmtCoord(step))
		}
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmtCoord(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
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
	m, ok := Metrics[metric]
	if !ok {
		return 0, "metric " + c.Metric + " is not in the results", false
	}
	if len(c.Points) == 0 {
		return 0, "the claim names no points (points = { n = [...] })", false
	}
	pts, key, missing := namedPoints(c, set)
	var values []float64
	for _, vs := range c.Points {
		values = vs
	}
	where := fmt.Sprintf("%s = %s (%d points)", key, describeValues(values), len(values))
	if len(missing) > 0 {
		return 0, fmt.Sprintf("the suite has no point at %s = %s of the claim's %s", key, describeValues(missing), where), false
	}
	var lack []string
	for _, p := range pts {
		if set.Cell(c.Scheduler, p).Stat(metric).N == 0 || set.Cell(c.Baseline, p).Stat(metric).N == 0 {
			lack = append(lack, fmtCoord(pointValue(p, key)))
		}
	}
	if len(lack) > 0 {
		return 0, fmt.Sprintf("%s or %s has no successful run at %s = %s of the claim's %s", c.Scheduler, c.Baseline, key, strings.Join(lack, ", "), where), false
	}
	imp, err := set.ImprovementOver(pts, c.Scheduler, c.Baseline, metric, average)
	if err != nil || imp.Points != len(pts) {
		return 0, fmt.Sprintf("no improvement over %s: %v", where, err), false
	}
	detail := fmt.Sprintf("%s over %s: %s %s, %s %s %s", averageName(average), where,
		c.Scheduler, formatMean(metric, imp.MeanA), c.Baseline, formatMean(metric, imp.MeanB), m.Title)
	if c.Unit == "x" {
		return 1 + imp.Percent/100, detail, true
	}
	return imp.Percent, detail, true
}

// formatMean writes a mean of a metric with the precision the tables use.
func formatMean(metric string, v float64) string {
	if metric == "gflops" {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return format(metric, v)
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
		w, err := generate(sp)
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
	for _, k := range slices.Sorted(maps.Keys(c.Point)) {
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
	for _, k := range slices.Sorted(maps.Keys(p.Coords)) {
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
