package report

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/schedulers/heteroprio"
	"github.com/memsched/memsched/workloads"
)

// heteroClaim reports whether the claim is computed here.
func heteroClaim(c paper.Claim) bool {
	return paper.WholeSuites(c.Publication) && c.Status == paper.StatusReproducible && c.Kind != paper.KindQualitative
}

// evaluateAny evaluates a claim with the whole set of suites: the CPU+GPU
// publications' claims here, every other claim on its one suite.
func evaluateAny(c paper.Claim, suites map[string]*SuiteResults, average string) ClaimResult {
	if heteroClaim(c) {
		return evaluateHetero(c, suites)
	}
	var s *suite.Suite
	var set *Set
	if sr := suites[c.Suite]; sr != nil {
		s, set = sr.Suite, sr.Set
	}
	return EvaluateClaim(c, s, set, average)
}

// matchSuites returns the suites a claim names (its suite, or a glob), in
// name order.
func matchSuites(c paper.Claim, suites map[string]*SuiteResults) []*SuiteResults {
	var keys []string
	for k := range suites {
		if ok, _ := path.Match(c.Suite, k); ok || k == c.Suite {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]*SuiteResults, len(keys))
	for i, k := range keys {
		out[i] = suites[k]
	}
	return out
}

// evaluateHetero computes the claims of the two CPU+GPU publications (COMPAS 2022 MulTreePrio and
// PeerJ CS 2019 LAHeteroprio) : their metrics are
// speedups per configuration, shares of configurations, the critical-path
// bound, the papers' SFA/SFM and the schedulers' BMD counters, often over
// several suites (a claim's suite may be a glob, e.g.
// suites/multreeprio2022/fig3-*-tc[12].toml).
//
// A claim's metric names the computation and, after a colon, the suite
// labels it applies to ("sfa_pct:LaRU,MC_StarPU"); without labels, the
// claim's scheduler ("LAHeteroprio X" is the suite label "X";
// "LAHeteroprio" alone is every label but the baseline). Point keys filter
// the configurations: gpus, cpus, n (equal), gpus_min, gpus_max.
//
// Metrics (per point, means over the repetitions; T = all transfers, t =
// makespan):
//
//	speedup              mean over points of t(baseline)/t(scheduler)
//	share_better         share of points where t(scheduler) < t(baseline)
//	share_worst          share of points where t(scheduler) ≥ every other label's
//	makespan_over_cp     min over points of t(scheduler) / critical-path length
//	relative_speedup:k,...  min over kernels of σ (COMPAS 2022 Eq. 11): the slowest unit type's time over the fastest's, in the suite's platform
//	sfa_pct              max over points and labels of (SFA − 1) × 100, SFA = mean t(baseline)/mean t(label)
//	min_mean_sfa_pct     min over suites and labels of the mean over points of (SFA − 1) × 100
//	auto_vs_best         min over points of SFA(AUTO) / SFA(best other label)
//	transfer_reduction_pct  max over points and labels of (1 − mean T(label)/mean T(baseline)) × 100
//	share_reduced        share of (point, label) with mean T(label) < mean T(baseline)
//	share_fewer_transfers_slower  share of (point, label) with fewer transfers and a longer makespan than the baseline
//	bmd_max_pct          max over points and labels of the mean BMD (% of tasks)
//	best_l_gpu           l_GPU of the (l_CPU, l_GPU) pair with the best SFA over every formula (Fig. 5)
//	share_corr_positive  share of points where the labels' mean T and mean t correlate positively
//	tasks_threshold      the fewest tasks a slow worker needs to take one (Heteroprio's rule, point gpu_workers, speedup_factor)
func evaluateHetero(c paper.Claim, suites map[string]*SuiteResults) ClaimResult {
	res := ClaimResult{Claim: c, Value: math.NaN(), Diff: math.NaN()}
	name, labelList, _ := strings.Cut(c.Metric, ":")
	srs := matchSuites(c, suites)
	var v float64
	var detail string
	var input bool
	var err error
	switch name {
	case "relative_speedup":
		v, detail, err = relativeSpeedup(srs, labelList)
		input = true
	case "tasks_threshold":
		v, detail, err = tasksThreshold(c)
	default:
		if len(srs) == 0 {
			res.Status, res.Detail = StatusNotRun, fmt.Sprintf("no suite matches %s", c.Suite)
			return res
		}
		var missing []string
		for _, sr := range srs {
			if sr.Set == nil || sr.Set.Present == 0 {
				missing = append(missing, sr.Suite.RelFile())
			}
		}
		if len(missing) > 0 {
			res.Status, res.Detail = StatusNotRun, "no results for "+strings.Join(missing, ", ")+": run memsched sweep on them"
			return res
		}
		v, detail, err = heteroMetric(c, name, labelList, srs)
	}
	if err != nil {
		res.Status, res.Detail = StatusNotRun, err.Error()
		return res
	}
	res.Value, res.Detail = v, detail
	if pub, ok := c.Value(); ok {
		res.Diff = v - pub
	}
	switch {
	case input:
		// A number the suite sets is an input whether or not it matches
		// the paper's: one status, the difference shown.
		res.Status = StatusInput
		if !c.Within(v) {
			res.Detail += "; differs from the published number"
		}
	case c.Within(v):
		res.Status = StatusReproduced
	default:
		res.Status = StatusOff
	}
	return res
}

// pointOK applies the claim's point filter.
func pointOK(c paper.Claim, p *Point) (bool, error) {
	for k, v := range c.Point {
		switch k {
		case "gpus":
			if p.GPUs != int(v) {
				return false, nil
			}
		case "gpus_min":
			if p.GPUs < int(v) {
				return false, nil
			}
		case "gpus_max":
			if p.GPUs > int(v) {
				return false, nil
			}
		case "cpus":
			if int(toFloat(p.Coords["cpus"])) != int(v) {
				return false, nil
			}
		case "n":
			if p.N != int(v) {
				return false, nil
			}
		default:
			return false, fmt.Errorf("point key %q: use gpus, gpus_min, gpus_max, cpus or n", k)
		}
	}
	return true, nil
}

// labelsFor resolves the labels a claim's metric applies to in a suite.
func labelsFor(c paper.Claim, list string, set *Set) []string {
	if list != "" {
		return strings.Split(list, ",")
	}
	if l, ok := strings.CutPrefix(c.Scheduler, "LAHeteroprio "); ok {
		return []string{l}
	}
	if c.Scheduler == "LAHeteroprio" {
		var out []string
		for _, l := range set.Labels {
			if l != set.Baseline {
				out = append(out, l)
			}
		}
		return out
	}
	return []string{c.Scheduler}
}

func baselineOf(c paper.Claim, set *Set) string {
	if c.Baseline != "" {
		return c.Baseline
	}
	return set.Baseline
}

// cellMean is a label's mean of a metric at a point (NaN when it has no run).
func cellMean(set *Set, label string, p *Point, metric string) float64 {
	st := set.Cell(label, p).Stat(metric)
	if st.N == 0 {
		return math.NaN()
	}
	return st.Mean
}

const mk, all = "makespan_s", "all_transfers_mib"

func heteroMetric(c paper.Claim, name, list string, srs []*SuiteResults) (float64, string, error) {
	a := &heteroAcc{sfaBy: map[string][]float64{}}
	for _, sr := range srs {
		set := sr.Set
		base := baselineOf(c, set)
		labels := labelsFor(c, list, set)
		for _, l := range append([]string{base}, labels...) {
			if set.Cells[l] == nil && name != "best_l_gpu" && name != "share_worst" {
				return 0, "", fmt.Errorf("%s has no results for label %q", sr.Suite.RelFile(), l)
			}
		}
		var suiteSFA = map[string][]float64{}
		for _, p := range set.Points {
			ok, err := pointOK(c, p)
			if err != nil {
				return 0, "", err
			}
			if !ok {
				continue
			}
			if err := a.point(name, sr, base, labels, p, suiteSFA); err != nil {
				return 0, "", err
			}
		}
		if name == "min_mean_sfa_pct" {
			a.vals, a.where = a.vals[:0], a.where[:0]
			for _, l := range labels {
				a.meanSFA = append(a.meanSFA, mean(suiteSFA[l]))
				a.meanWhere = append(a.meanWhere, shortSuite(sr)+" "+l)
			}
		}
	}
	return a.value(name, c, len(srs))
}

// heteroAcc gathers a CPU+GPU claim's metric over the points of its
// suites: values with where they were taken, hit counts for the shares,
// and the SFAs the best_l_gpu and min_mean_sfa_pct metrics pool.
type heteroAcc struct {
	vals        []float64
	where       []string
	count, hits int
	sfaBy       map[string][]float64 // best_l_gpu: per (l_cpu,l_gpu), SFAs pooled over formulas and suites
	meanSFA     []float64            // min_mean_sfa_pct: per (suite, label)
	meanWhere   []string
}

// point adds one point of a suite to the metric.
func (a *heteroAcc) point(name string, sr *SuiteResults, base string, labels []string, p *Point, suiteSFA map[string][]float64) error {
	set := sr.Set
	b := cellMean(set, base, p, mk)
	bT := cellMean(set, base, p, all)
	at := fmt.Sprintf("%s %s", shortSuite(sr), describePoint(p))
	switch name {
	case "speedup", "share_better", "makespan_over_cp":
		s := cellMean(set, labels[0], p, mk)
		if math.IsNaN(s) || math.IsNaN(b) && name != "makespan_over_cp" {
			return fmt.Errorf("%s: %s or %s did not run at %s", sr.Suite.RelFile(), labels[0], base, describePoint(p))
		}
		switch name {
		case "speedup":
			a.vals = append(a.vals, b/s)
		case "share_better":
			a.count++
			if s < b*(1-1e-9) {
				a.hits++
			}
		case "makespan_over_cp":
			cp, err := criticalPath(sr.Suite, p)
			if err != nil {
				return err
			}
			a.vals = append(a.vals, s/cp)
			a.where = append(a.where, at)
		}
	case "share_worst":
		s := cellMean(set, labels[0], p, mk)
		worst := true
		for _, o := range set.Labels {
			if o != labels[0] && cellMean(set, o, p, mk) > s*(1+1e-9) {
				worst = false
			}
		}
		a.count++
		if worst {
			a.hits++
		}
	case "sfa_pct", "min_mean_sfa_pct":
		for _, l := range labels {
			sfa := b / cellMean(set, l, p, mk)
			a.vals = append(a.vals, (sfa-1)*100)
			a.where = append(a.where, at+" "+l)
			suiteSFA[l] = append(suiteSFA[l], (sfa-1)*100)
		}
	case "auto_vs_best":
		other := math.Inf(-1)
		for _, l := range set.Labels {
			if l != base && l != "AUTO" {
				other = max(other, b/cellMean(set, l, p, mk))
			}
		}
		a.vals = append(a.vals, (b/cellMean(set, "AUTO", p, mk))/other)
		a.where = append(a.where, at)
	case "transfer_reduction_pct", "share_reduced", "share_fewer_transfers_slower":
		for _, l := range labels {
			T, t := cellMean(set, l, p, all), cellMean(set, l, p, mk)
			switch name {
			case "transfer_reduction_pct":
				a.vals = append(a.vals, (1-T/bT)*100)
				a.where = append(a.where, at+" "+l)
			case "share_reduced":
				a.count++
				if T < bT {
					a.hits++
				}
			default:
				a.count++
				if T < bT && t > b {
					a.hits++
				}
			}
		}
	case "bmd_max_pct":
		for _, l := range labels {
			a.vals = append(a.vals, cellMean(set, l, p, "bmd_pct"))
			a.where = append(a.where, at+" "+l)
		}
	case "share_corr_positive":
		var xs, ys []float64
		for _, l := range labels {
			xs, ys = append(xs, cellMean(set, l, p, all)), append(ys, cellMean(set, l, p, mk))
		}
		a.count++
		if pearson(xs, ys) > 0 {
			a.hits++
		}
	case "best_l_gpu":
		for _, sc := range sr.Suite.Schedulers {
			if sc.Label == base {
				continue
			}
			key := sc.Params["l_cpu"] + "," + sc.Params["l_gpu"]
			if t := cellMean(set, sc.Label, p, mk); !math.IsNaN(t) {
				a.sfaBy[key] = append(a.sfaBy[key], b/t)
			}
		}
	default:
		return fmt.Errorf("unknown metric %q of a CPU+GPU claim", name)
	}
	return nil
}

// value is the metric over every point added, with how it was taken.
func (a *heteroAcc) value(name string, c paper.Claim, suites int) (float64, string, error) {
	switch name {
	case "speedup":
		if len(a.vals) == 0 {
			return 0, "", fmt.Errorf("no point matches %v", c.Point)
		}
		return mean(a.vals), fmt.Sprintf("mean of %d per-configuration speedups (min %.3g, max %.3g) over %d suite(s)", len(a.vals), minOf(a.vals), maxOf(a.vals), suites), nil
	case "share_better", "share_worst", "share_reduced", "share_fewer_transfers_slower", "share_corr_positive":
		if a.count == 0 {
			return 0, "", fmt.Errorf("no point matches %v", c.Point)
		}
		return float64(a.hits) / float64(a.count), fmt.Sprintf("%d of %d", a.hits, a.count), nil
	case "makespan_over_cp", "auto_vs_best":
		i := argmin(a.vals)
		if i < 0 {
			return 0, "", fmt.Errorf("no point matches %v", c.Point)
		}
		return a.vals[i], fmt.Sprintf("min over %d points, at %s (max %.3g)", len(a.vals), a.where[i], maxOf(a.vals)), nil
	case "min_mean_sfa_pct":
		i := argmin(a.meanSFA)
		if i < 0 {
			return 0, "", fmt.Errorf("no point matches %v", c.Point)
		}
		return a.meanSFA[i], fmt.Sprintf("lowest mean SFA over a suite's points: %s; highest %.1f%%", a.meanWhere[i], maxOf(a.meanSFA)), nil
	case "sfa_pct", "transfer_reduction_pct", "bmd_max_pct":
		i := argmax(a.vals)
		if i < 0 {
			return 0, "", fmt.Errorf("no point matches %v", c.Point)
		}
		return a.vals[i], fmt.Sprintf("max over %d (point, formula) pairs, at %s (min %.1f)", len(a.vals), a.where[i], minOf(a.vals)), nil
	case "best_l_gpu":
		keys := make([]string, 0, len(a.sfaBy))
		for k := range a.sfaBy {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		best, bestK := math.Inf(-1), ""
		var parts []string
		for _, k := range keys {
			m := mean(a.sfaBy[k])
			parts = append(parts, fmt.Sprintf("(%s) %.3f", k, m))
			if m > best {
				best, bestK = m, k
			}
		}
		if bestK == "" {
			return 0, "", fmt.Errorf("no (l_cpu, l_gpu) results")
		}
		_, lg, _ := strings.Cut(bestK, ",")
		v, _ := strconv.Atoi(lg)
		return float64(v), "SFA over every formula per (l_CPU, l_GPU): " + strings.Join(parts, ", "), nil
	}
	return 0, "", fmt.Errorf("unknown metric %q", name)
}

func shortSuite(sr *SuiteResults) string {
	return strings.TrimSuffix(path.Base(sr.Suite.RelFile()), ".toml")
}

func minOf(xs []float64) float64 { return xs[argmin(xs)] }
func maxOf(xs []float64) float64 { return xs[argmax(xs)] }

func argmin(xs []float64) int {
	best := -1
	for i, x := range xs {
		if !math.IsNaN(x) && (best < 0 || x < xs[best]) {
			best = i
		}
	}
	return best
}

func argmax(xs []float64) int {
	best := -1
	for i, x := range xs {
		if !math.IsNaN(x) && (best < 0 || x > xs[best]) {
			best = i
		}
	}
	return best
}

func pearson(xs, ys []float64) float64 {
	mx, my := mean(xs), mean(ys)
	var sxy, sxx, syy float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
		syy += (ys[i] - my) * (ys[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// criticalPath is the critical-path length of a point's workload on its
// platform, each task at its fastest kind ("the critical path with an
// infinity of resources", COMPAS 2022 Fig. 3).
func criticalPath(s *suite.Suite, p *Point) (float64, error) {
	for _, r := range s.Runs() {
		b, _ := json.Marshal(normalise(r.Point))
		if string(b) != p.ID {
			continue
		}
		w, err := runWorkload(r)
		if err != nil {
			return 0, err
		}
		pl := r.Platform
		return w.Analyse(func(t int) float64 { return fastest(pl, w, t) }).Length, nil
	}
	return 0, fmt.Errorf("%s has no run at %s", s.RelFile(), describePoint(p))
}

func fastest(p *hardware.Platform, w *workloads.Workload, t int) float64 {
	best := math.Inf(1)
	kinds := []string{}
	if p.GPUs > 0 {
		kinds = append(kinds, hardware.GPU)
	}
	if p.CPUs > 0 {
		kinds = append(kinds, hardware.CPU)
	}
	for _, k := range kinds {
		if s, ok, _ := p.KernelSeconds(w.Tasks[t].Kernel, k, w.Tasks[t].Flops); ok {
			best = min(best, s)
		}
	}
	return best
}

// relativeSpeedup reads Table 2's speedups off the suites' platforms as
// COMPAS 2022 defines a task type's speedup (Eq. 11): σ(T, P_m) =
// ξ_worst(T) / ξ(T, P_m), the time on the slowest unit type over the time
// on P_m, so the speedup of T on its fastest type is max(CPU, GPU) /
// min(CPU, GPU) whichever type is faster: the second test case's C2P (CPU
// 0.11, GPU 1.1) has the same relative speedup, 10, as In-Cell (2, 0.2).
// The value is the smallest over the named kernels, each listed.
func relativeSpeedup(srs []*SuiteResults, list string) (float64, string, error) {
	if len(srs) == 0 || list == "" {
		return 0, "", fmt.Errorf("relative_speedup needs a suite and kernels (relative_speedup:gemm)")
	}
	pl := srs[0].Suite.Platform.Base
	best := math.Inf(1)
	var parts []string
	for _, k := range strings.Split(list, ",") {
		g, ok1, err1 := pl.KernelSeconds(k, hardware.GPU, 0)
		c, ok2, err2 := pl.KernelSeconds(k, hardware.CPU, 0)
		if err1 != nil || err2 != nil || !ok1 || !ok2 {
			return 0, "", fmt.Errorf("platform %s has no CPU and GPU times for kernel %s", pl.Name, k)
		}
		sigma, faster := c/g, "GPU"
		if g > c {
			sigma, faster = g/c, "CPU"
		}
		best = min(best, sigma)
		parts = append(parts, fmt.Sprintf("%s %.3g (%s faster)", k, sigma, faster))
	}
	return best, fmt.Sprintf("platform %s, σ of Eq. 11 (slowest over fastest unit type): %s; the smallest", pl.Name, strings.Join(parts, ", ")), nil
}

// tasksThreshold runs Heteroprio's speedup-factor rule on the claim's point.
func tasksThreshold(c paper.Claim) (float64, string, error) {
	g, ok1 := c.Point["gpu_workers"]
	s, ok2 := c.Point["speedup_factor"]
	if !ok1 || !ok2 {
		return 0, "", fmt.Errorf("tasks_threshold needs point gpu_workers and speedup_factor")
	}
	for n := 0; n < 1000000; n++ {
		if heteroprio.SlowWorkerMayTake(n, int(g), s) {
			return float64(n), fmt.Sprintf("smallest bucket size a CPU worker may take from with %g GPU workers %g times faster (schedulers/heteroprio.SlowWorkerMayTake)", g, s), nil
		}
	}
	return 0, "", fmt.Errorf("no threshold below a million tasks")
}
