package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	_ "github.com/memsched/memsched/schedulers/baseline"
	"github.com/memsched/memsched/workloads"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func TestImproveArithmetic(t *testing.T) {
	a, b := []float64{10, 20, 30}, []float64{5, 20, 60}
	rm, _ := Improve(a, b, true, RatioOfMeans)
	near(t, "ratio of means", rm, (60.0/85-1)*100, 1e-9) // −29.41%
	mr, _ := Improve(a, b, true, MeanOfRatios)
	near(t, "mean of ratios", mr, ((2+1+0.5)/3.0-1)*100, 1e-9) // +16.67%
	// Lower is better: B over A, so fewer transfers is a positive improvement.
	rm, _ = Improve([]float64{10, 20}, []float64{20, 20}, false, RatioOfMeans)
	near(t, "ratio of means, lower is better", rm, (40.0/30-1)*100, 1e-9)
	mr, _ = Improve([]float64{10, 20}, []float64{20, 20}, false, MeanOfRatios)
	near(t, "mean of ratios, lower is better", mr, 50, 1e-9)
	if v, _ := Improve(nil, nil, true, RatioOfMeans); !math.IsNaN(v) {
		t.Errorf("no points: %v, want NaN", v)
	}
	if _, err := Improve(a, b, true, "median"); err == nil {
		t.Error("unknown average accepted")
	}
	if !strings.Contains(Formula(RatioOfMeans, true), "mean_p(A_p) / mean_p(B_p) − 1") {
		t.Errorf("formula %q", Formula(RatioOfMeans, true))
	}
}

const refCSV = "../../paper/reference/gonthier-raw-results.csv"

// refSet makes records of one reference series, as if simulated.
func refSet(t *testing.T, figure string) *Set {
	t.Helper()
	pts, err := paper.LoadReference(refCSV)
	if err != nil {
		t.Fatal(err)
	}
	var recs []run.Record
	for i, p := range pts {
		if p.Figure != figure || p.DisplayScheduler() == "" {
			continue
		}
		recs = append(recs, run.Record{Identity: run.Identity{Key: figure + string(rune(i)), Label: p.DisplayScheduler(), GPUs: p.GPUs,
			MemoryBytes: int64(p.MemoryMB * hardware.MiB), WorkingSet: p.WorkingSetMiB,
			Point: map[string]any{"n": p.N, "gpus": p.GPUs, "memory_mb": p.MemoryMB}}, GFlops: p.GFlops, MakespanS: 1})
	}
	return NewSet(nil, recs, nil)
}

// TestReferenceImprovements checks, on the V100 measurements, that the
// ratio of means gives the papers' 8.5%, 9.4% and 75%
// (paper/reference/README.md sanity check) through the report's own path.
func TestReferenceImprovements(t *testing.T) {
	for _, tc := range []struct {
		figure string
		points int
		rm, mr float64
	}{
		{"ipdps22/2d_1gpu/paper", 15, 8.52, 8.90},
		{"ipdps22/2d_2gpu/paper", 15, 9.40, 10.73},
		{"ipdps22/2d_randomorder_2gpu/paper", 13, 75.26, 87.80},
	} {
		set := refSet(t, tc.figure)
		if len(set.Panels()) != 1 {
			t.Fatalf("%s: panels %v", tc.figure, set.Panels())
		}
		rm, err := set.Improvement("DARTS+LUF", "DMDAR", "gflops", "", RatioOfMeans)
		if err != nil {
			t.Fatal(err)
		}
		mr, _ := set.Improvement("DARTS+LUF", "DMDAR", "gflops", "", MeanOfRatios)
		if rm.Points != tc.points {
			t.Errorf("%s: %d points, want %d", tc.figure, rm.Points, tc.points)
		}
		near(t, tc.figure+" ratio of means", rm.Percent, tc.rm, 0.005)
		near(t, tc.figure+" mean of ratios", mr.Percent, tc.mr, 0.005)
	}
}

const testSuite = `[suite]
name = "report-test"
claims = "paper/ipdps2022.toml"
[platform]
gpus = 1
memory_mb = 100
[workload]
kind = "matmul2d"
n = [4, 8]
[[scheduler]]
name = "eager"
label = "EAGER"
[[scheduler]]
name = "dmdar"
label = "DMDAR"
[report]
baseline = "DMDAR"
`

// handSet builds records with chosen GFlop/s for the test suite's runs.
func handSet(t *testing.T, gflops map[string][]float64) (*suite.Suite, *Set) {
	t.Helper()
	s, err := suite.Parse("suites/test.toml", []byte(testSuite))
	if err != nil {
		t.Fatal(err)
	}
	var recs []run.Record
	idx := map[string]int{}
	for _, r := range s.Runs() {
		rec := r.Record()
		v := gflops[r.Label][idx[r.Label]]
		idx[r.Label]++
		rec.GFlops, rec.MakespanS, rec.BytesH2D, rec.Loads = v, 1, int64(v)*hardware.MiB, int(v)
		recs = append(recs, rec)
	}
	src := make([]string, len(recs))
	for i := range src {
		src[i] = "r.jsonl"
	}
	return s, NewSet(s, recs, src)
}

func f(v float64) *float64 { return &v }

func TestClaimStatus(t *testing.T) {
	s, set := handSet(t, map[string][]float64{"EAGER": {120, 100}, "DMDAR": {100, 100}})
	if set.Present != 4 || len(set.Points) != 2 {
		t.Fatalf("set: present %d, points %d", set.Present, len(set.Points))
	}
	// EAGER over DMDAR on N = 4 and 8: (120+100)/(100+100) − 1 = 10%.
	both := map[string][]float64{"n": {4, 8}}
	imp := paper.Claim{ID: "i", Kind: paper.KindImprovement, Status: paper.StatusReproducible, Metric: "gflops",
		Scheduler: "EAGER", Baseline: "DMDAR", Published: f(9), Tolerance: f(2), Unit: "%", Suite: "suites/test.toml", Points: both}
	check := func(c paper.Claim, s *suite.Suite, set *Set, status string, value float64) ClaimResult {
		t.Helper()
		r := EvaluateClaim(c, s, set, RatioOfMeans)
		if r.Status != status {
			t.Errorf("%s: status %q (%s), want %q", c.ID, r.Status, r.Detail, status)
		}
		if !math.IsNaN(value) {
			near(t, c.ID+" value", r.Value, value, 1e-9)
		}
		return r
	}
	r := check(imp, s, set, StatusReproduced, 10)
	if !strings.Contains(r.Detail, "n = [4, 8] (2 points): EAGER 110, DMDAR 100 GFlop/s") {
		t.Errorf("detail %q does not show the points and both means", r.Detail)
	}
	off := imp
	off.ID, off.Published = "off", f(20)
	r = check(off, s, set, StatusOff, 10)
	near(t, "diff", r.Diff, -10, 1e-9)
	// The improvement is computed over exactly the claim's points; 0 ± 2
	// holds no difference at all: the claim cannot tell the schedulers apart.
	one := imp
	one.ID, one.Published, one.Points = "one", f(0), map[string][]float64{"n": {8}}
	check(one, s, set, StatusNoise, 0)
	extra := imp
	extra.ID, extra.Points = "extra", map[string][]float64{"n": {4, 8, 12}}
	if r := check(extra, s, set, StatusNotRun, math.NaN()); !strings.Contains(r.Detail, "no point at n = [12]") {
		t.Errorf("detail %q does not name the missing point", r.Detail)
	}
	nopoints := imp
	nopoints.ID, nopoints.Points = "nopoints", nil
	check(nopoints, s, set, StatusNotRun, math.NaN())
	check(imp, s, nil, StatusNotRun, math.NaN())   // no results
	check(imp, nil, nil, StatusNotRun, math.NaN()) // no suite
	missing := imp
	missing.ID, missing.Scheduler = "missing", "DARTS+LUF"
	check(missing, s, set, StatusNotRun, math.NaN())
	notYet := imp
	notYet.ID, notYet.Status, notYet.Missing = "notyet", paper.StatusNotYet, "needs a CUDA run"
	if r := EvaluateClaim(notYet, s, set, RatioOfMeans); r.Status != "not yet reproducible: needs a CUDA run" {
		t.Errorf("not-yet status %q", r.Status)
	}
	qual := paper.Claim{ID: "q", Kind: paper.KindQualitative, Status: paper.StatusReproducible}
	check(qual, s, set, StatusQualitative, math.NaN())
	again := imp
	again.ID, again.Restates = "again", "i"
	if r := check(again, s, set, StatusRestates, math.NaN()); r.Numeric() {
		t.Errorf("a restatement counts as a numeric claim")
	}

	// Value claims: a metric at a point, the nearest working set, a
	// working set computed from the generator, the compute ceiling, a
	// timing of the authors' code.
	val := paper.Claim{ID: "v", Kind: paper.KindValue, Status: paper.StatusReproducible, Metric: "gflops",
		Scheduler: "EAGER", Published: f(100), Tolerance: f(0), Point: map[string]float64{"n": 8}}
	check(val, s, set, StatusReproduced, 100)
	ws := val
	ws.ID, ws.Point = "ws", map[string]float64{"working_set_mb": 200} // N=8 is 225 MiB, N=4 112.5
	check(ws, s, set, StatusReproduced, 100)
	gen := paper.Claim{ID: "gen", Kind: paper.KindValue, Status: paper.StatusReproducible, Metric: "working_set_mb",
		Published: f(140), Tolerance: f(1), Point: map[string]float64{"n": 5}, Nature: paper.NatureDefinition}
	check(gen, s, nil, StatusDefinition, 140.625)
	ceil := paper.Claim{ID: "ceil", Kind: paper.KindValue, Status: paper.StatusReproducible, Metric: "gflops",
		GPUs: 2, Published: f(26506), Tolerance: f(1), Nature: paper.NaturePlatformInput}
	check(ceil, s, nil, StatusInput, 26506)
	timing := paper.Claim{ID: "t", Kind: paper.KindValue, Status: paper.StatusReproducible, Metric: "sched_time_s",
		Scheduler: "EAGER", Published: f(60), Tolerance: f(6), Point: map[string]float64{"n": 8}, Nature: paper.NatureImplementationTime}
	if r := check(timing, s, set, StatusFaster, 0); !strings.Contains(r.Detail, "the authors' 60 s") {
		t.Errorf("timing detail %q does not show both times", r.Detail)
	}
	absent := val
	absent.ID, absent.Point = "absent", map[string]float64{"n": 6}
	check(absent, s, set, StatusNotRun, math.NaN())
}

func TestReportRendering(t *testing.T) {
	s, set := handSet(t, map[string][]float64{"EAGER": {110, 90}, "DMDAR": {100, 100}})
	claims := []paper.Claim{{ID: "c1", Kind: paper.KindImprovement, Status: paper.StatusReproducible, Metric: "gflops",
		Scheduler: "EAGER", Baseline: "DMDAR", Published: f(1), Tolerance: f(2), Unit: "%", Suite: s.RelFile(), Where: "Fig. 1", Statement: "EAGER | DMDAR", Publication: "ipdps2022",
		Points: map[string][]float64{"n": {4, 8}}}}
	d, err := Build(set, Options{Claims: claims})
	if err != nil {
		t.Fatal(err)
	}
	var md, html, csv bytes.Buffer
	if err := d.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ratio of means: mean_p(A_p) / mean_p(B_p) − 1", "| EAGER     |", "+0.00%", "within noise", `EAGER \| DMDAR`, "**GFlop/s**"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := d.HTML(&html); err != nil || !strings.Contains(html.String(), `<td class="r">+0.00%</td>`) || strings.Contains(html.String(), "**") {
		t.Errorf("html: %v\n%s", err, html.String())
	}
	if err := WriteCSV(&csv, set); err != nil || !strings.HasPrefix(csv.String(), "suite,label,point") || strings.Count(csv.String(), "\n") != 1+2*2*len(tableMetrics) {
		t.Errorf("csv: %v\n%s", err, csv.String())
	}
	dir := t.TempDir()
	files, err := WriteFigures(set, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Errorf("figures %v: want gflops and transfers_mib as PNG, SVG and PDF", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		magic := map[string]string{".png": "\x89PNG", ".svg": "<?xml", ".pdf": "%PDF-"}[filepath.Ext(f)]
		if err != nil || !strings.HasPrefix(string(b), magic) {
			t.Errorf("%s: %v, starts %.8q, want %q", f, err, b, magic)
		}
	}
	set.FigureFormats = []string{".svg"}
	if only, err := WriteFigures(set, t.TempDir()); err != nil || len(only) != 2 || filepath.Ext(only[0]) != ".svg" {
		t.Errorf("FigureFormats svg only: %v %v", only, err)
	}
	set.FigureFormats = nil
	rep, err := Reproduction(append(claims, paper.Claim{ID: "c2", Publication: "ipdps2022", Kind: paper.KindQualitative, Status: paper.StatusNotYet, Missing: "x"}),
		map[string]*SuiteResults{s.RelFile(): {Suite: s, Set: set, Figures: files}}, Options{LinkDir: dir}, "memsched report --reproduction x")
	if err != nil {
		t.Fatal(err)
	}
	md.Reset()
	rep.Markdown(&md)
	for _, want := range []string{"**Headline: 0 of 1 numeric claims reproduced**", "|    0 / 1 |", "| mean A | mean B (DMDAR) |", "![" + s.RelFile() + " gflops](gflops.png)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("reproduction lacks %q:\n%s", want, md.String())
		}
	}
}

func TestBounds(t *testing.T) {
	// N = 90: one input matrix is 1265.625 MiB; ⌊1265.625²/500²⌋ = 6 phases of 500 MiB, plus 500.
	near(t, "LB N=90", LowerBound2D(1265.625, 500, 2531.25), 3500, 1e-9)
	// N = 10: both matrices fit, the bound is the working set.
	near(t, "LB N=10", LowerBound2D(140.625, 500, 281.25), 281.25, 1e-9)
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	// 2 GPUs share an inner switch (12 GB/s); 4 share a 22 GB/s NUMA link; 8 use both NUMA nodes.
	for gpus, want := range map[int]float64{1: 12, 2: 12, 4: 22, 8: 44} {
		near(t, "aggregate bandwidth", AggregateHostGBps(p, gpus), want, 1e-9)
	}
}

func TestOrderPlot(t *testing.T) {
	dir := t.TempDir()
	for _, sp := range []workloads.Spec{{Kind: "matmul2d", N: 6}, {Kind: "matmul3d", N: 3}, {Kind: "cholesky", N: 4}} {
		w, err := workloads.Generate(sp)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := hardware.Load("v100-gemini")
		p.GPUs = 2
		p.SetMemoryMiB(60)
		var evs []event.Event
		if _, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "eager", Trace: func(e event.Event) { evs = append(evs, e) }}); err != nil {
			t.Fatal(err)
		}
		marks, workers, err := orderMarks(evs, w)
		if err != nil || len(marks) != len(w.Tasks) || workers != 2 {
			t.Fatalf("%s: %d marks for %d tasks, %d workers, %v", sp.Kind, len(marks), len(w.Tasks), workers, err)
		}
		loads := 0
		for _, m := range marks {
			loads += len(m.loads)
		}
		if loads == 0 {
			t.Errorf("%s: no load attributed to any task", sp.Kind)
		}
		for _, ext := range []string{".png", ".svg"} {
			out := filepath.Join(dir, sp.Kind+ext)
			if err := OrderPlot(evs, w, out); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(out); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", out, err)
			}
		}
	}
}

func TestCheckReferences(t *testing.T) {
	text := testSuite + "\n[[report.reference]]\nfigure = \"ipdps22/2d_1gpu/papr\"\n\n[[report.reference]]\nfigure = \"ipdps22/2d_1gpu/paper\"\nlabels = { EAGR = \"EAGER\" }\n"
	s, err := suite.Parse("suites/test.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckReferences(s)
	if err == nil {
		t.Fatal("bad references accepted")
	}
	for _, want := range []string{`figure "ipdps22/2d_1gpu/papr" is not a series`, `did you mean "ipdps22/2d_1gpu/paper"`, `no scheduler "EAGR"`, `did you mean "EAGER"`,
		"suites/test.toml:" + strconv.Itoa(lineOf(text, "papr")) + ":", "suites/test.toml:" + strconv.Itoa(lineOf(text, "EAGR")) + ":"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func lineOf(text, frag string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, frag) {
			return i + 1
		}
	}
	return 0
}

// The fidelity headline averages per set and counts the pairs within the
// goal (no measured transfers: only GFlop/s counts).
func TestSummariseFidelity(t *testing.T) {
	s := SummariseFidelity([]paper.FitPair{
		{Train: true, MAPE: 2, TransfersMAPE: 10},
		{MAPE: 8, TransfersMAPE: 20},
		{MAPE: 12, TransfersMAPE: math.NaN()},
		{MAPE: 4, TransfersMAPE: math.NaN()},
	})
	if s.TrainPairs != 1 || s.TestPairs != 3 || s.TestGFlops != 8 || s.TestTransfers != 20 || s.TrainGFlops != 2 || s.WithinGoal != 2 {
		t.Errorf("%+v", s)
	}
}

// TestResultsAsReference: a results file of real runs is a suite's measured
// series (the simulated twin of a CUDA suite): pairs by N, the MAPE against
// the real runs, and none of it in the fit's pairs (the papers' only).
func TestResultsAsReference(t *testing.T) {
	real, err := suite.Parse("suites/test.toml", []byte(testSuite))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "real.jsonl")
	var lines []byte
	idx := map[string]int{}
	for _, r := range real.Runs() {
		rec := r.Record()
		rec.GFlops = map[string][]float64{"EAGER": {80, 100}, "DMDAR": {100, 125}}[r.Label][idx[r.Label]]
		rec.MakespanS = 1
		idx[r.Label]++
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(path, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(testSuite, "[report]\n", "[report]\nreference_csv = \""+path+"\"\n", 1) + "[[report.reference]]\nfigure = \"report-test\"\n"
	s, err := suite.Parse("suites/twin.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckReferences(s); err != nil {
		t.Fatal(err)
	}
	var recs []run.Record
	idx = map[string]int{}
	for _, r := range s.Runs() { // simulated: EAGER 100 and 100, DMDAR 100 and 100
		rec := r.Record()
		rec.GFlops, rec.MakespanS = 100, 1
		recs = append(recs, rec)
	}
	set := NewSet(s, recs, make([]string, len(recs)))
	fid, err := set.Fidelity()
	if err != nil || len(fid) != 2 {
		t.Fatalf("fidelity %+v, %v", fid, err)
	}
	for _, fd := range fid {
		// EAGER: |100-80|/80 and 0 -> 12.5%; DMDAR: 0 and |100-125|/125 -> 10%.
		want := map[string]float64{"EAGER": 12.5, "DMDAR": 10}[fd.Label]
		if len(fd.Pairs) != 2 || math.Abs(fd.MAPE-want) > 1e-9 {
			t.Errorf("%s: %d pairs, MAPE %g, want 2 and %g", fd.Label, len(fd.Pairs), fd.MAPE, want)
		}
	}
	pairs, err := FitPairs(map[string]*SuiteResults{"suites/twin.toml": {Suite: s, Set: set}}, nil)
	if err != nil || len(pairs) != 0 {
		t.Errorf("the fit counts the real runs: %+v, %v", pairs, err)
	}
	var md bytes.Buffer
	d, err := Build(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.Markdown(&md)
	if !strings.Contains(md.String(), "Fidelity against the real runs of real.jsonl") || !strings.Contains(md.String(), "| real runs |") {
		t.Errorf("report:\n%s", md.String())
	}
}

// A bound reads as a bound in the tables: "more than half" is > 0.5, "at
// least" ≥, "at most" ≤, the tolerance widening it; other numbers ± their
// tolerance.
func TestBoundsShownAsBounds(t *testing.T) {
	for _, c := range []struct {
		bound     string
		pub, tol  float64
		unit, out string
	}{
		{paper.BoundAbove, 0.5, 0, "share of configurations", "> 0.50 share of configurations"},
		{paper.BoundAtLeast, 50, 0, "%", "≥ 50%"},
		{paper.BoundAtLeast, 87.5, 5, "%", "≥ 87.50% − 5"},
		{paper.BoundAtMost, 5, 0, "%", "≤ 5%"},
		{"", 3, 0.3, "x", "3x ± 0.30"},
		{"", 0.37, 0.037, "%", "0.37% ± 0.037"},
	} {
		cl := paper.Claim{Published: &c.pub, Tolerance: &c.tol, Unit: c.unit, Bound: c.bound}
		if got := publishedCell(cl); got != c.out {
			t.Errorf("%s %g ± %g: %q, want %q", c.bound, c.pub, c.tol, got, c.out)
		}
		res := ClaimResult{Claim: cl, Value: math.NaN(), Diff: math.NaN()}
		if row := claimRow(res, false); row[3] != c.out {
			t.Errorf("row shows %q, want %q", row[3], c.out)
		}
	}
}

// A claim that is not reproduced shows its cause and evidence in columns of
// their own, and the summary counts the claims per cause; a reproduced
// claim shows none, whatever its file says.
func TestCausesInTheReport(t *testing.T) {
	s, set := handSet(t, map[string][]float64{"EAGER": {120, 100}, "DMDAR": {100, 100}})
	base := paper.Claim{Publication: "ipdps2022", Where: "w", Statement: "s", Workload: "matmul2d", Setting: "sim",
		Kind: paper.KindImprovement, Status: paper.StatusReproducible, Metric: "gflops", Scheduler: "EAGER", Baseline: "DMDAR",
		Tolerance: f(2), Unit: "%", Suite: "suites/test.toml", Points: map[string][]float64{"n": {4, 8}}}
	off, ok, bare := base, base, base
	off.ID, off.Published, off.Cause, off.Evidence = "off", f(30), paper.CauseRuntime, "issue 33 rule 2"
	ok.ID, ok.Published, ok.Cause, ok.Evidence = "ok", f(10), paper.CauseProtocol, "an old gap"
	bare.ID, bare.Published = "bare", f(40)
	d, err := Reproduction([]paper.Claim{off, ok, bare}, map[string]*SuiteResults{"suites/test.toml": {Suite: s, Set: set}}, Options{Average: RatioOfMeans}, "memsched report")
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := d.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	causes := d.Sections[0].Tables[1]
	rows := map[string][]string{}
	for _, r := range causes.Rows {
		rows[r[0]] = r
	}
	if r := rows[paper.CauseRuntime]; r == nil || r[len(r)-1] != "1" {
		t.Errorf("runtime row %q", r)
	}
	if r := rows[paper.CauseProtocol]; r == nil || r[len(r)-1] != "0" {
		t.Errorf("a reproduced claim counted under its cause: %q", r)
	}
	if r := rows[NoCause]; r == nil || r[len(r)-1] != "1" {
		t.Errorf("the claim without a cause is not counted: %q", r)
	}
	for _, want := range []string{"| status | cause ", "| off | runtime effect not modelled | issue 33 rule 2 |", "| off | (no cause given) |"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "an old gap") {
		t.Errorf("a reproduced claim shows its cause")
	}
}
