package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/memsched/memsched/paper"
)

// Options shape a report.
type Options struct {
	Average string        // RatioOfMeans (default) or MeanOfRatios
	Claims  []paper.Claim // claims to set beside the results (those of the set's suite are used)
	// Figures lists figure files already written (see WriteFigures); they
	// are linked relative to LinkDir, the directory of the report file.
	Figures []string
	LinkDir string
	Preview bool // the results are a quick sweep's: say so at the top
	// Fit declares the training series (pairs are tagged train or test);
	// FitResult is the record of the fit (fitted values, sensitivity).
	Fit       *paper.FitSpec
	FitResult *paper.FitResult
}

// Build makes the report of one results set.
func Build(set *Set, opt Options) (*Doc, error) {
	d := &Doc{Title: set.Title}
	if set.Preview {
		d.Title += " (PREVIEW)"
	}
	secs, err := setSections(set, opt, 2)
	if err != nil {
		return nil, err
	}
	d.Sections = secs
	return d, nil
}

// setSections are the sections of one set, at a heading level.
func setSections(set *Set, opt Options, level int) ([]Section, error) {
	if set.Suite != nil && set.Suite.Batch != nil {
		return batchSetSections(set, opt, level)
	}
	var out []Section
	paras := []string{summaryText(set)}
	if set.Preview {
		paras = append([]string{PreviewBanner}, paras...)
	}
	out = append(out, Section{Title: "Runs", Level: level, Paras: paras})

	imps, err := set.Improvements(opt.Average)
	if err != nil {
		return nil, err
	}
	if len(imps) > 0 {
		m := Metrics[set.Metric]
		t := Table{
			Caption: fmt.Sprintf("Average improvement in %s of each scheduler (A) over %s (B), over the points where both ran; %s, in %%.",
				m.Title, set.Baseline, Formula(opt.Average, m.Higher)),
			Header: []string{"scheduler", "improvement over " + set.Baseline, "points"},
			Right:  []bool{false, true, true},
		}
		multi := len(set.Panels()) > 1
		if multi {
			t.Header = append([]string{"panel"}, t.Header...)
			t.Right = append([]bool{false}, t.Right...)
		}
		for _, im := range imps {
			row := []string{im.Label, pct(im.Percent), strconv.Itoa(im.Points)}
			if multi {
				row = append([]string{im.Panel}, row...)
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, Section{Title: "Average improvement", Level: level, Tables: []Table{t}})
	}

	if set.Suite != nil && len(opt.Claims) > 0 {
		var rows [][]string
		for _, c := range opt.Claims {
			if !SameSuite(c.Suite, set.Suite.RelFile()) {
				continue
			}
			r := evaluateAny(c, map[string]*SuiteResults{set.Suite.RelFile(): {Suite: set.Suite, Set: set}}, opt.Average)
			rows = append(rows, claimRow(r, false))
		}
		if len(rows) > 0 {
			out = append(out, Section{Title: "Published and reproduced", Level: level, Tables: []Table{claimTable(rows, false, opt.Average)}})
		}
	}

	fid, err := set.Fidelity()
	if err != nil {
		return nil, err
	}
	if len(fid) > 0 {
		out = append(out, fidelitySection(set, fid, opt.Fit, level))
	}
	pc, err := set.Peer()
	if err != nil {
		return nil, err
	}
	if pc != nil {
		out = append(out, peerSection(pc, level))
	}

	var tables []Table
	d2d := false
	for _, cells := range set.Cells {
		for _, c := range cells {
			for _, r := range c.Records {
				d2d = d2d || r.BytesD2D > 0
			}
		}
	}
	note := "Transfers in MiB (the papers' MB): host→GPU plus GPU→GPU, then each separately."
	if !d2d {
		note = "Transfers in MiB (the papers' MB); no GPU→GPU copy happened in these runs, so all are host→GPU."
	}
	for _, name := range tableMetrics {
		if !d2d && (name == "h2d_mib" || name == "d2d_mib") {
			continue
		}
		tables = append(tables, metricTable(set, name))
	}
	out = append(out, Section{Title: "Per point", Level: level,
		Paras:  []string{"Each cell: mean ± sample standard deviation over the repetitions (n = number of successful runs; shown when above 1). " + note},
		Tables: tables})

	if errs := errorRows(set); len(errs.Rows) > 0 {
		out = append(out, Section{Title: "Failed runs", Level: level, Tables: []Table{errs}})
	}
	if len(opt.Figures) > 0 {
		sec := Section{Title: "Figures", Level: level}
		for _, f := range opt.Figures {
			if strings.HasSuffix(f, ".png") {
				sec.Images = append(sec.Images, Image{Path: link(opt.LinkDir, f), Alt: filepath.Base(f)})
			}
		}
		out = append(out, sec)
	}
	return out, nil
}

// link makes a path relative to the report's directory, slash-separated.
func link(dir, file string) string {
	if dir != "" {
		if rel, err := filepath.Rel(dir, file); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}

func summaryText(set *Set) string {
	var b strings.Builder
	if set.Suite != nil {
		s := set.Suite
		fmt.Fprintf(&b, "Suite `%s` (%s): %d points × %d schedulers × %d repetitions = %d runs; %d have a record",
			s.Name, s.RelFile(), s.Points(), len(s.Schedulers), s.Repetitions, set.Expected, set.Present)
		if miss := set.Expected - set.Present; miss > 0 {
			fmt.Fprintf(&b, ", **%d missing** (run `memsched sweep %s` to complete)", miss, s.RelFile())
		}
		if set.Stale > 0 {
			fmt.Fprintf(&b, "; %d records of an older configuration ignored", set.Stale)
		}
	} else {
		fmt.Fprintf(&b, "%d points, %d labels (no suite: labels and points as recorded)", len(set.Points), len(set.Labels))
	}
	if set.Errors > 0 {
		fmt.Fprintf(&b, "; %d error rows", set.Errors)
	}
	b.WriteString(".")
	if len(set.Files) > 0 {
		fmt.Fprintf(&b, " Results: %s.", strings.Join(set.Files, ", "))
	}
	if set.Suite != nil && set.Suite.Platform.Base != nil {
		p := set.Suite.Platform.Base
		fmt.Fprintf(&b, " Platform %s (hash per point in the records), executor %s, scheduling time charged: %v.", p.Name, set.Suite.Executor, set.Suite.ChargeSched)
	}
	if cs := set.Commits(); len(cs) > 0 {
		fmt.Fprintf(&b, " Code: %s %s.", plural(len(cs), "commit"), strings.Join(cs, ", "))
	}
	if mixed := set.MixedCells(); len(mixed) > 0 {
		b.WriteString(" " + MixedWarning(mixed))
	}
	return b.String()
}

// MixedWarning is the warning about cells mixing commits (Set.MixedCells).
func MixedWarning(mixed []string) string {
	show := mixed
	if len(show) > 3 {
		show = show[:3]
	}
	more := ""
	if len(mixed) > len(show) {
		more = fmt.Sprintf(" and %d more", len(mixed)-len(show))
	}
	return fmt.Sprintf("**Warning: %d table %s mix records of different commits**: %s%s; the commits changed no version, so their records were reused; `memsched sweep --fresh` makes every record from one commit.",
		len(mixed), plural(len(mixed), "cell"), strings.Join(show, "; "), more)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// PreviewBanner heads the reports and figures of a quick sweep.
const PreviewBanner = "**PREVIEW**: made from a quick sweep (`memsched sweep --quick`: a few values per axis and a short time limit per run), so points are missing and the largest runs may show as timeouts. It is not the reproduction: `make reproduce` builds that."

func claimTable(rows [][]string, withSuite bool, average string) Table {
	t := Table{
		Caption: fmt.Sprintf("Improvement claims are recomputed as the %s over exactly the claim's points (as the papers' numbers are; paper/reference/README.md), with both means shown in the last column; value claims are the metric at the claim's point. Status: reproduced when |reproduced − published| ≤ the claim's tolerance and the tolerance excludes no difference (0 %%); within noise when it does not.", averageName(average)),
		Header:  []string{"claim", "where", "statement", "published", "reproduced", "diff", "invented options", "status", "cause", "evidence", "how"},
		Right:   []bool{false, false, false, true, true, true, false, false, false, false, false},
	}
	if withSuite {
		t.Header = append(t.Header, "suite")
	}
	t.Rows = rows
	return t
}

func claimRow(r ClaimResult, withSuite bool) []string {
	c := r.Claim
	pub := publishedCell(c)
	rep, diff := "", ""
	if !math.IsNaN(r.Value) {
		rep = num(r.Value) + unit(c.Unit)
	}
	if !math.IsNaN(r.Diff) {
		diff = signed(r.Diff)
	}
	cause, evidence := "", ""
	if NeedsCause(r.Status) {
		cause, evidence = orMissing(c.Cause), c.Evidence
	}
	row := []string{c.ID, c.Where, c.Statement, pub, rep, diff, sensitivityCell(c), r.Status, cause, evidence, r.Detail}
	if withSuite {
		row = append(row, c.Suite)
	}
	return row
}

// sensitivityCell says, beside a claim's status, whether its outcome moves
// with an invented workload option across the option's declared range
// (workloads.Option.Range): the options that move it, then the check's
// evidence; empty for a claim on no invented option.
func sensitivityCell(c paper.Claim) string {
	switch {
	case len(c.SensitiveTo) > 0:
		return "moves with " + strings.Join(c.SensitiveTo, ", ") + ": " + c.Sensitivity
	case c.Sensitivity != "":
		return "steady: " + c.Sensitivity
	}
	return ""
}

// publishedCell writes a claim's published number with its tolerance, a
// bound as a bound: "≥ 50% − 5" for at least (the tolerance widens it), "> 0.50"
// for a strict "more than", "≤ 5%" for at most.
func publishedCell(c paper.Claim) string {
	v, ok := c.Value()
	if !ok {
		return ""
	}
	pub := numSig(v) + unit(c.Unit)
	tol := ""
	if c.Tolerance != nil && (*c.Tolerance != 0 || c.Bound == "") {
		tol = numSig(*c.Tolerance)
	}
	switch c.Bound {
	case paper.BoundAtLeast, paper.BoundAbove:
		op := "≥ "
		if c.Bound == paper.BoundAbove {
			op = "> "
		}
		if tol != "" {
			return op + pub + " − " + tol
		}
		return op + pub
	case paper.BoundAtMost:
		if tol != "" {
			return "≤ " + pub + " + " + tol
		}
		return "≤ " + pub
	}
	if tol != "" {
		pub += " ± " + tol
	}
	return pub
}

// numSig writes a published number or tolerance as num does, but one
// below 1 that two decimals would round with two significant digits (0.003,
// Table 6.4's tolerance 0.037), not 0.00 or 0.04.
func numSig(v float64) string {
	if v != 0 && math.Abs(v) < 1 && math.Abs(v*100-math.Round(v*100)) > 1e-9 {
		return strconv.FormatFloat(roundSig(v, 2), 'f', -1, 64)
	}
	return num(v)
}

func unit(u string) string {
	switch u {
	case "%":
		return "%"
	case "", "x":
		return u
	}
	return " " + u
}

// fidelitySection compares a set with its suite's measured series: the
// papers' V100 measurements (each series in the fit's training or test set),
// or the real runs of a results file (reference_csv = "results/....jsonl"),
// which no fit uses.
func fidelitySection(set *Set, fid []Fidelity, spec *paper.FitSpec, level int) Section {
	title := "Fidelity against the V100 measurements"
	measured := "Transfers: the reference sums 11 iterations, compared per iteration. Set: the fit's training or test series."
	setOf := func(f Fidelity) string { return setName(spec != nil && spec.IsTrain(f.Figure)) }
	if ref := set.Suite.Report.ReferenceCSV; IsResultsReference(ref) {
		title = "Fidelity against the real runs of " + lastElem(ref)
		measured = "Measured: one real run per point (memsched's CUDA executor), used by no fit."
		setOf = func(Fidelity) string { return "real runs" }
	}
	t := Table{
		Caption: "Simulated against measured GFlop/s on the same N, GPUs and memory: MAPE = mean |sim − measured| / measured; bias = mean (sim − measured) / measured (> 0: the simulation is optimistic). " + measured,
		Header:  []string{"set", "reference series", "scheduler", "points", "GFlop/s MAPE", "bias", "transfers MAPE", "unmatched"},
		Right:   []bool{false, false, false, true, true, true, true, true},
	}
	for _, f := range fid {
		tm := "—"
		if f.TransfersN > 0 {
			tm = fmt.Sprintf("%.1f%% (%d)", f.TransfersMAPE, f.TransfersN)
		}
		t.Rows = append(t.Rows, []string{setOf(f), f.Figure, f.Label, strconv.Itoa(len(f.Pairs)), pct1(f.MAPE), signedPct(f.Bias), tm, strconv.Itoa(f.Unmatched)})
	}
	return Section{Title: title, Level: level, Tables: []Table{t}}
}

func metricTable(set *Set, metric string) Table {
	m := Metrics[metric]
	xTitle := "working set (MiB)"
	if set.XAxis == "memory" {
		xTitle = "memory per GPU (MiB)"
	}
	t := Table{Caption: "**" + m.Title + "**", Header: []string{"point", xTitle}, Right: []bool{false, true}}
	for _, l := range set.Labels {
		t.Header = append(t.Header, l)
		t.Right = append(t.Right, true)
	}
	for _, p := range set.Points {
		row := []string{set.pointName(p), fmt.Sprintf("%.1f", p.X)}
		for _, l := range set.Labels {
			c := set.Cell(l, p)
			st := c.Stat(metric)
			cell := ""
			switch {
			case st.N == 0 && c != nil && len(c.Errors) > 0:
				cell = "error"
			case st.N == 0:
				cell = "—"
			case st.N == 1:
				cell = format(metric, st.Mean)
			default:
				cell = fmt.Sprintf("%s ± %s (n=%d)", format(metric, st.Mean), format(metric, st.Std), st.N)
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func errorRows(set *Set) Table {
	t := Table{Header: []string{"scheduler", "point", "error"}}
	for _, l := range set.Labels {
		for _, p := range set.Points {
			c := set.Cell(l, p)
			if c == nil {
				continue
			}
			for _, e := range c.Errors {
				if len(t.Rows) < 50 {
					t.Rows = append(t.Rows, []string{l, set.pointName(p), e})
				}
			}
		}
	}
	return t
}

func format(metric string, v float64) string {
	switch metric {
	case "gflops", "loads", "fetches", "prefetches", "evictions", "pop_missing", "model_loads":
		return fmt.Sprintf("%.0f", v)
	case "transfers_mib", "h2d_mib", "d2d_mib":
		return fmt.Sprintf("%.1f", v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%+.2f%%", v)
}

func pct1(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", v)
}

func signedPct(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

func signed(v float64) string {
	return fmt.Sprintf("%+.2f", v)
}

// WriteCSV writes the per-point statistics in long form: one row per
// label, point and metric.
func WriteCSV(w io.Writer, set *Set) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"suite", "label", "point", "panel", "x", "n", "gpus", "memory_mib", "working_set_mib", "metric", "mean", "std", "runs", "errors"})
	for _, p := range set.Points {
		for _, l := range set.Labels {
			c := set.Cell(l, p)
			if c == nil {
				continue
			}
			for _, name := range tableMetrics {
				st := c.Stat(name)
				cw.Write([]string{set.Name, l, set.pointName(p), p.Panel, ff(p.X), strconv.Itoa(p.N), strconv.Itoa(p.GPUs),
					ff(p.MemMiB), ff(p.WSMiB), name, ff(st.Mean), ff(st.Std), strconv.Itoa(st.N), strconv.Itoa(len(c.Errors))})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func ff(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// pointName shows the coordinates that vary across the set (all of them
// when there is a single point), e.g. "n=15" or "gpus=2 n=15".
func (s *Set) pointName(p *Point) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p.Coords)) {
		vals := map[string]bool{}
		for _, q := range s.Points {
			vals[fmt.Sprint(q.Coords[k])] = true
		}
		if len(vals) > 1 || len(s.Points) == 1 {
			parts = append(parts, k+"="+fmtCoord(p.Coords[k]))
		}
	}
	if len(parts) == 0 {
		return describePoint(p)
	}
	return strings.Join(parts, " ")
}
