package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	_ "github.com/memsched/memsched/schedulers/multreeprio"
)

// Two CPU+GPU configurations, three schedulers, two runs each.
const heteroSuite = `[suite]
name = "hetero-test"
repetitions = 2
[platform]
preset = "compas2022-tc1"
cpus_gpus = [[16, 4], [20, 50]]
[workload]
kind = "cholesky"
deps = true
n = 4
[[scheduler]]
name = "heteroprio"
label = "Heteroprio"
[[scheduler]]
name = "laheteroprio"
label = "AUTO"
[[scheduler]]
name = "laheteroprio"
label = "LaRU"
dlaf = "laru"
[report]
baseline = "Heteroprio"
metric = "makespan_s"
style = "dlaf-details"
`

// heteroSet gives each run a makespan, total transfer and BMD chosen per
// label and point (gpus), the second run 10 % slower than the first.
func heteroSet(t *testing.T, mk map[string][2]float64, tr map[string][2]int64, bmd map[string][2]float64) map[string]*SuiteResults {
	t.Helper()
	s, err := suite.Parse("suites/x/hetero.toml", []byte(heteroSuite))
	if err != nil {
		t.Fatal(err)
	}
	var recs []run.Record
	for _, r := range s.Runs() {
		rec := r.Record()
		i := 0
		if r.Point["gpus"] == 50 {
			i = 1
		}
		rec.MakespanS = mk[r.Label][i] * (1 + 0.1*float64(r.Rep))
		rec.BytesH2D = tr[r.Label][i] << 20
		rec.SchedStats = map[string]float64{"bmd_pct": bmd[r.Label][i]}
		recs = append(recs, rec)
	}
	return map[string]*SuiteResults{"suites/x/hetero.toml": {Suite: s, Set: NewSet(s, recs, nil)}}
}

func TestHeteroMetrics(t *testing.T) {
	suites := heteroSet(t,
		map[string][2]float64{"Heteroprio": {10, 6}, "AUTO": {5, 6}, "LaRU": {12, 4}},
		map[string][2]int64{"Heteroprio": {100, 100}, "AUTO": {40, 90}, "LaRU": {80, 120}},
		map[string][2]float64{"AUTO": {2, 4}, "LaRU": {30, 50}})
	claim := func(metric, sched string, pub, tol float64, bound string) paper.Claim {
		return paper.Claim{ID: metric, Publication: "heteroprio2019", Kind: paper.KindValue, Status: paper.StatusReproducible,
			Metric: metric, Scheduler: sched, Baseline: "Heteroprio", Published: &pub, Tolerance: &tol, Bound: bound,
			Suite: "suites/x/*.toml"}
	}
	for _, c := range []struct {
		c      paper.Claim
		value  float64
		status string
	}{
		// SFA per point: AUTO 10/5 = 2 and 6/6 = 1; LaRU 10/12 and 1.5.
		{claim("sfa_pct", "LAHeteroprio", 100, 0, ""), 100, StatusReproduced},
		{claim("sfa_pct:LaRU", "LAHeteroprio", 5, 0, paper.BoundAtMost), 50, StatusOff},
		// Mean SFA − 1 over the points: AUTO 50 %, LaRU (−1/6 + 1/2)/2.
		{claim("min_mean_sfa_pct:AUTO,LaRU", "LAHeteroprio", 0, 0, paper.BoundAtLeast), (10.0/12 - 1 + 0.5) / 2 * 100, StatusReproduced},
		{claim("speedup", "AUTO", 1.5, 0, ""), 1.5, StatusReproduced},
		{claim("share_better", "AUTO", 1, 0, ""), 0.5, StatusOff},
		{claim("share_worst", "LaRU", 0.5, 0, ""), 0.5, StatusReproduced},
		// Transfers: AUTO cuts 60 % and 10 %; LaRU 20 % and −20 %.
		{claim("transfer_reduction_pct", "LAHeteroprio", 50, 0, paper.BoundAtLeast), 60, StatusReproduced},
		{claim("share_reduced:AUTO", "LAHeteroprio AUTO", 1, 0, ""), 1, StatusReproduced},
		{claim("share_fewer_transfers_slower", "LAHeteroprio LaRU", 1, 0, ""), 0.5, StatusOff},
		{claim("bmd_max_pct", "LAHeteroprio LaRU", 50, 5, ""), 50, StatusReproduced},
		// AUTO against the best other formula: 2/(10/12) and 1/1.5.
		{claim("auto_vs_best", "LAHeteroprio AUTO", 1, 0.1, ""), 1 / 1.5, StatusOff},
	} {
		r := evaluateAny(c.c, suites, RatioOfMeans)
		if r.Status != c.status || math.Abs(r.Value-c.value) > 1e-9 {
			t.Errorf("%s: %g (%s, %s), want %g (%s)", c.c.Metric, r.Value, r.Status, r.Detail, c.value, c.status)
		}
	}
	gpus := claim("speedup", "AUTO", 1, 0, "")
	gpus.Point = map[string]float64{"gpus": 50}
	if r := evaluateAny(gpus, suites, RatioOfMeans); r.Value != 1 || r.Status != StatusReproduced {
		t.Errorf("speedup at 50 GPUs: %g %s", r.Value, r.Status)
	}
	thr := claim("tasks_threshold", "Heteroprio", 6, 0, "")
	thr.Point = map[string]float64{"gpu_workers": 3, "speedup_factor": 2}
	if r := evaluateAny(thr, suites, RatioOfMeans); r.Value != 6 || r.Status != StatusReproduced {
		t.Errorf("tasks threshold %g %s (%s)", r.Value, r.Status, r.Detail)
	}
	// A platform input is one status, matching or not: GEMM's 7 and
	// TRSM's 1/0.3 on the first test case, the smallest 3.33 against 7.
	sp := claim("relative_speedup:gemm,trsm", "", 7, 0, "")
	if r := evaluateAny(sp, suites, RatioOfMeans); math.Abs(r.Value-1/0.3) > 1e-9 || r.Status != StatusInput || !strings.Contains(r.Detail, "differs") {
		t.Errorf("relative speedup %g %s (%s)", r.Value, r.Status, r.Detail)
	}
	none := claim("sfa_pct", "LAHeteroprio", 1, 0, "")
	none.Suite = "suites/y/*.toml"
	if r := evaluateAny(none, suites, RatioOfMeans); r.Status != StatusNotRun {
		t.Errorf("no suite: %s", r.Status)
	}
}

// The critical-path metric and the bar charts of the three styles.
func TestHeteroCriticalPathAndFigures(t *testing.T) {
	suites := heteroSet(t,
		map[string][2]float64{"Heteroprio": {10, 6}, "AUTO": {5, 6}, "LaRU": {12, 4}},
		map[string][2]int64{"Heteroprio": {100, 100}, "AUTO": {40, 90}, "LaRU": {80, 120}},
		map[string][2]float64{})
	// Cholesky of 4 tiles, first test case: POTRF 0.35, then (TRSM 0.3,
	// SYRK 0.3, POTRF 0.35) three times = 3.2 on GPUs.
	sr := suites["suites/x/hetero.toml"]
	cp, err := criticalPath(sr.Suite, sr.Set.Points[0])
	if err != nil || math.Abs(cp-3.2) > 1e-9 {
		t.Fatalf("critical path %g (%v), want 3.2", cp, err)
	}
	pub, tol := 1.0, 0.0
	c := paper.Claim{ID: "cp", Publication: "multreeprio2022", Kind: paper.KindValue, Status: paper.StatusReproducible,
		Metric: "makespan_over_cp", Scheduler: "LaRU", Published: &pub, Tolerance: &tol, Suite: "suites/x/hetero.toml"}
	if r := evaluateAny(c, suites, RatioOfMeans); math.Abs(r.Value-4.2/3.2) > 1e-9 {
		t.Errorf("makespan/CP %g, want the smallest mean, 4.2, over 3.2 (%s)", r.Value, r.Detail)
	}
	dir := t.TempDir()
	for _, style := range []string{"dlaf-details", "makespan-bars"} {
		sr.Suite.Report.Style = style
		files, err := WriteFigures(sr.Set, filepath.Join(dir, style))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", style, err)
		}
		for _, f := range files {
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				t.Errorf("%s: empty", f)
			}
		}
	}
	sr.Suite.Report.Style = "locality-coefficient"
	sr.Suite.Schedulers[1].Params["l_cpu"], sr.Suite.Schedulers[1].Params["l_gpu"] = "1", "3"
	files, err := WriteFigures(sr.Set, filepath.Join(dir, "l"))
	if err != nil || len(files) != 6 || !strings.Contains(files[0], "speedup") {
		t.Errorf("locality figures %v (%v)", files, err)
	}
}

// COMPAS 2022 Eq. 11: a task type's speedup is relative to the slowest unit
// type, so Table 2's second test case gives the tree-based types the same
// speedup, 10, as printed (C2P and N2N are 10 times faster on a CPU): the
// claim is a platform input that matches, with no swapped reading needed.
func TestRelativeSpeedupIsEq11(t *testing.T) {
	s, err := suite.Load("../../suites/multreeprio2022/fig3-tree-tc2.toml")
	if err != nil {
		t.Fatal(err)
	}
	srs := map[string]*SuiteResults{s.RelFile(): {Suite: s}}
	pub, tol := 10.0, 0.0
	c := paper.Claim{ID: "tc2", Publication: "multreeprio2022", Kind: paper.KindValue, Status: paper.StatusReproducible,
		Metric: "relative_speedup:incell,p2c,c2p,n2n", Published: &pub, Tolerance: &tol, Suite: s.RelFile()}
	r := evaluateAny(c, srs, RatioOfMeans)
	if math.Abs(r.Value-10) > 1e-9 || r.Status != StatusInput || !strings.Contains(r.Detail, "c2p 10 (CPU faster)") {
		t.Errorf("tree tc2: %g %s (%s), want 10, a platform input", r.Value, r.Status, r.Detail)
	}
}
