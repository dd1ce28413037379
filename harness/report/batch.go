package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads/jobs"
)

// Batch suites (thesis chapter 6): each record carries a batch.Report for
// one scheduler on one week. The report compares every scheduler with its
// baseline (FCFS, or FCFS-BF for the -BF labels) week by week and over the
// weeks: the reductions of file-wait and core time (Tables 6.1-6.4), the
// per-session stretch improvements (Figs. 6.3-6.8), and the agreement with
// the release's own outcomes on the same weeks.

// batchWeek is one point of a batch suite.
type batchWeek struct {
	name string                   // "2022-02-07", or a workload name
	num  int                      // 2022 week number, 0 when not a Rackham week
	by   map[string]*batch.Report // each label's report
	recs map[string]run.Record    // each label's record, whose metrics (run.Metrics) are the report's
}

// batchWeeks gathers the reports of a batch set by point, in point order.
func batchWeeks(set *Set) []*batchWeek {
	var out []*batchWeek
	for _, p := range set.Points {
		w := &batchWeek{by: map[string]*batch.Report{}, recs: map[string]run.Record{}}
		if v, ok := p.Coords["week"]; ok {
			w.name = fmt.Sprint(v)
			w.num = jobs.WeekNumber(w.name)
		} else {
			w.name = fmt.Sprint(p.Coords["workload"])
		}
		for _, l := range set.Labels {
			if c := set.Cell(l, p); c != nil && len(c.Records) > 0 && c.Records[0].Batch != nil {
				w.by[l], w.recs[l] = c.Records[0].Batch, c.Records[0]
			}
		}
		out = append(out, w)
	}
	return out
}

func (w *batchWeek) title() string {
	if w.num > 0 {
		return fmt.Sprintf("week %d (%s)", w.num, w.name)
	}
	return w.name
}

// batchBaseline is the label a batch label is compared with.
func batchBaseline(s *suite.Suite, label string) string {
	if strings.HasSuffix(label, "-BF") && s.Batch.BaselineBF != "" {
		return s.Batch.BaselineBF
	}
	return s.Report.Baseline
}

// reduction is 100 × (base − x) / base.
func reduction(base, x float64) float64 { return 100 * (base - x) / base }

// weeksTotal sums f over the weeks where both labels ran; n counts them.
func weeksTotal(ws []*batchWeek, label, base string, f func(run.Record) float64) (x, b float64, n int) {
	for _, w := range ws {
		if w.by[label] != nil && w.by[base] != nil {
			x += f(w.recs[label])
			b += f(w.recs[base])
			n++
		}
	}
	return
}

// sessionRatios pools the per-session improvements base/label over the
// weeks (the thesis' Figs. 6.3-6.8 quantity): memsched's, or with release
// the release's own, from its per-job outcomes of the same weeks.
func sessionRatios(ws []*batchWeek, label, base string, release bool) ([]float64, []string, error) {
	var out []float64
	var used []string
	for _, w := range ws {
		r, q := w.by[label], w.by[base]
		if r == nil || q == nil {
			continue
		}
		a, b := q.SessionSums, r.SessionSums
		if release {
			var err error
			if a, err = releaseSessions(q); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", w.title(), err)
			}
			if b, err = releaseSessions(r); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", w.title(), err)
			}
		}
		imp, err := batch.Improvements(a, b)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", w.title(), err)
		}
		out = append(out, imp...)
		used = append(used, w.title())
	}
	return out, used, nil
}

var releaseSums sync.Map // workload, cluster and scheduler -> []float64

// releaseSessions are the release's session sums for a run's week and
// scheduler, its sessions grouped as the run's (the week is read once).
func releaseSessions(r *batch.Report) ([]float64, error) {
	w := r.Workload.Defaults()
	key := fmt.Sprintf("%+v|%+v|%s", w, r.Cluster, r.Scheduler)
	if v, ok := releaseSums.Load(key); ok {
		return v.([]float64), nil
	}
	t, err := w.Trace(r.Cluster)
	if err != nil {
		return nil, err
	}
	sessions, err := batch.Sessions(t, w.Sessions, w.SessionWindow)
	if err != nil {
		return nil, err
	}
	sums, err := batch.ReleaseSessionSums(t, r.Scheduler, sessions)
	if err != nil {
		return nil, err
	}
	releaseSums.Store(key, sums)
	return sums, nil
}

// SessionStats summarise per-session improvements as the thesis' boxplots
// draw them (src/plot_boxplot.py: seaborn's boxplot with whis = [12.5,
// 87.5], showmeans, no fliers): quartiles and median as numpy's linear
// percentiles, whiskers as matplotlib places them (the most extreme ratio
// within the 12.5th / 87.5th percentile, never inside the box).
type SessionStats struct {
	Sessions  int     // all sessions
	Counted   int     // the sessions the statistics cover (all, or those at least 1% away from 1)
	Different float64 // % of all sessions at least 1% away from 1 (the percentage beside the names of Fig. 6.3)
	Improved  float64 // % of the counted sessions above 1
	// P12 and P87 are the whiskers; P25, Median, P75 the box.
	P12, P25, Median, P75, P87, Mean, Min, Max float64
	sorted                                     []float64
}

// sessionStats computes the statistics over every session (the twelve-week
// Figs. 6.7 and 6.8: Expe2.sh draws them with count_improvement_equal_at_1
// = 1), or, with onlyDifferent, over those at least 1% away from 1 (the
// one-week Fig. 6.3: "only these user sessions are depicted").
func sessionStats(r []float64, onlyDifferent bool) SessionStats {
	st := SessionStats{Sessions: len(r)}
	if len(r) == 0 {
		return st
	}
	diff := batch.Different(r)
	st.Different = 100 * float64(len(diff)) / float64(len(r))
	d := slices.Clone(r)
	if onlyDifferent {
		d = diff
	}
	if len(d) == 0 {
		return st
	}
	slices.Sort(d)
	st.sorted, st.Counted = d, len(d)
	st.P25, st.Median, st.P75 = percentile(d, 25), percentile(d, 50), percentile(d, 75)
	st.P12, st.P87 = whiskers(d, st.P25, st.P75)
	st.Min, st.Max = d[0], d[len(d)-1]
	for _, x := range d {
		st.Mean += x
		if x > 1 {
			st.Improved++
		}
	}
	st.Mean /= float64(len(d))
	st.Improved = 100 * st.Improved / float64(len(d))
	return st
}

// percentile is numpy.percentile's default (linear interpolation between
// the closest ranks) of sorted data, p in percent.
func percentile(sorted []float64, p float64) float64 {
	pos := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// whiskers are matplotlib's (cbook.boxplot_stats with whis = [12.5, 87.5]):
// the smallest ratio at or above the 12.5th percentile and the largest at or
// below the 87.5th, each at most the box's edge.
func whiskers(sorted []float64, q1, q3 float64) (lo, hi float64) {
	loVal, hiVal := percentile(sorted, 12.5), percentile(sorted, 87.5)
	i := sort.SearchFloat64s(sorted, loVal) // first >= loVal
	lo = q1
	if i < len(sorted) && sorted[i] <= q1 {
		lo = sorted[i]
	}
	j := sort.Search(len(sorted), func(k int) bool { return sorted[k] > hiVal }) - 1 // last <= hiVal
	hi = q3
	if j >= 0 && sorted[j] >= q3 {
		hi = sorted[j]
	}
	return lo, hi
}

// share is the % of the counted sessions with lo <= ratio < hi.
func (st SessionStats) share(lo, hi float64) float64 {
	if len(st.sorted) == 0 {
		return math.NaN()
	}
	n := 0
	for _, x := range st.sorted {
		if x >= lo && x < hi {
			n++
		}
	}
	return 100 * float64(n) / float64(len(st.sorted))
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// BatchSections are a batch suite's tables; claims (those naming the suite)
// add the table of the claims the suite's weeks cannot reproduce, computed
// on them anyway from memsched's runs and from the release's outcomes.
func BatchSections(sr *SuiteResults, claims []paper.Claim) ([]Section, error) {
	s, set := sr.Suite, sr.Set
	ws := batchWeeks(set)
	var weekNames []string
	for _, w := range ws {
		weekNames = append(weekNames, w.title())
	}
	rules := ""
	for _, w := range ws {
		for _, r := range w.by {
			rules = r.Rules.Name()
			break
		}
	}
	intro := fmt.Sprintf("Batch suite: %s under the %s rules, on %s. The thesis evaluates twelve weeks; the release's tree lists the outputs of all twelve, and these are the ones this project can read (%s).",
		strings.Join(set.Labels, ", "), rules, strings.Join(weekNames, ", "), missingWeeks)
	secs := []Section{{Title: "Suite " + s.RelFile(), Paras: []string{intro}}}

	// Reductions of file-wait and core time, ours and the release's on the
	// same weeks (from its outcomes), beside the thesis' twelve weeks.
	thesisWait := map[string]string{"EFT": "0.9%", "LEA": "17.1%", "LEO": "0.9%", "LEM": "7.1%"}
	thesisCore := map[string]string{"EFT": "0.01%", "LEA": "0.37%", "LEO": "0.02%", "LEM": "0.10%"}
	for _, m := range []struct {
		title, thesis string
		ours          func(run.Record) float64
		theirs        func(run.Record) float64
		ref           map[string]string
	}{
		{"File-wait reduction from the baseline (Tables 6.1-6.3)", "Table 6.3 (12 weeks)",
			batchTotal("file_wait_time", false), batchTotal("file_wait_time", true), thesisWait},
		{"Core-time reduction from the baseline (Table 6.4)", "Table 6.4 (12 weeks)",
			batchTotal("core_time", false), batchTotal("core_time", true), thesisCore},
	} {
		t := Table{Caption: m.title + ": ours (the release's, from its outcomes on the same week).", Header: []string{"scheduler", "baseline"}}
		for _, w := range ws {
			t.Header = append(t.Header, w.title())
		}
		t.Header = append(t.Header, "all weeks", m.thesis)
		for range t.Header {
			t.Right = append(t.Right, len(t.Right) >= 2)
		}
		for _, l := range set.Labels {
			base := batchBaseline(s, l)
			if l == base {
				continue
			}
			row := []string{l, base}
			for _, w := range ws {
				if w.by[l] == nil || w.by[base] == nil {
					row = append(row, "")
					continue
				}
				r, q := w.recs[l], w.recs[base]
				cell := pct(reduction(m.ours(q), m.ours(r)))
				if th := reduction(m.theirs(q), m.theirs(r)); !math.IsNaN(th) {
					cell += " (" + pct(th) + ")"
				}
				row = append(row, cell)
			}
			x, b, n := weeksTotal(ws, l, base, m.ours)
			xt, bt, _ := weeksTotal(ws, l, base, m.theirs)
			all := ""
			if n > 0 {
				all = pct(reduction(b, x))
				if th := reduction(bt, xt); !math.IsNaN(th) {
					all += " (" + pct(th) + ")"
				}
			}
			row = append(row, all, m.ref[l])
			t.Rows = append(t.Rows, row)
		}
		secs = append(secs, Section{Title: m.title, Level: 3, Tables: []Table{t}})
	}

	// Per-session stretch improvements, pooled over the weeks: memsched's,
	// then the release's on the same weeks.
	t := Table{Caption: "Improvement of each user session's stretch over the baseline's (baseline / scheduler, above 1 is faster), pooled over the weeks, over every session as the thesis' twelve-week Figs. 6.7 and 6.8 (Expe2.sh: plot_boxplot.py ... 1 boxplot); the share at least 1% away from 1 is Fig. 6.3's population. Whiskers at 12.5% and 87.5% and quartiles as the release's boxplots draw them; the release's rows are its own per-job outcomes of the same weeks.",
		Header: []string{"scheduler", "baseline", "source", "sessions", "≥1% different", "above 1", "whisker 12.5%", "p25", "median", "p75", "whisker 87.5%", "mean", "min", "max"}}
	for range t.Header {
		t.Right = append(t.Right, len(t.Right) >= 3)
	}
	for _, l := range set.Labels {
		base := batchBaseline(s, l)
		if l == base {
			continue
		}
		for _, release := range []bool{false, true} {
			r, _, err := sessionRatios(ws, l, base, release)
			if err != nil {
				if release {
					continue // weeks without the release's outcomes
				}
				return nil, err
			}
			st := sessionStats(r, false)
			src := "memsched"
			if release {
				src = "release"
			}
			t.Rows = append(t.Rows, []string{l, base, src, strconv.Itoa(st.Sessions), pct1(st.Different), pct1(st.Improved),
				f2(st.P12), f2(st.P25), f2(st.Median), f2(st.P75), f2(st.P87), f2(st.Mean), fmt.Sprintf("%.3g", st.Min), fmt.Sprintf("%.3g", st.Max)})
		}
	}
	secs = append(secs, Section{Title: "User-session stretch (Figs. 6.3-6.8)", Level: 3, Tables: []Table{t}})

	if tw := weeksTable(claims, s, set); len(tw.Rows) > 0 {
		secs = append(secs, Section{Title: "The twelve-week claims on the weeks here (not counted among the claims)", Level: 3, Tables: []Table{tw}})
	}

	// Agreement with the release, job by job.
	ft := Table{Caption: "Agreement with the release's outcomes, job by job: quantiles of our stretch / its stretch, the share of jobs within 1% and 10%, the share starting in the same second; then the mean stretch, ours / the release's.",
		Header: []string{"week", "scheduler", "jobs", "p5", "p25", "p50", "p75", "p95", "within 1%", "within 10%", "same start", "mean stretch"}}
	for range ft.Header {
		ft.Right = append(ft.Right, len(ft.Right) >= 2)
	}
	for _, w := range ws {
		for _, l := range set.Labels {
			r := w.by[l]
			if r == nil || r.Fidelity == nil {
				continue
			}
			f := r.Fidelity
			ft.Rows = append(ft.Rows, []string{w.title(), l, strconv.Itoa(f.Jobs), f2(f.P5), f2(f.P25), f2(f.P50), f2(f.P75), f2(f.P95),
				pct1(100 * f.Within1), pct1(100 * f.Within10), pct1(100 * f.SameStart), f2(f.MeanStretch) + " / " + f2(f.TheirMeanStretch)})
		}
	}
	if len(ft.Rows) > 0 {
		tables := []Table{ft}
		if at := agreementTable(set, ws); len(at.Rows) > 0 {
			tables = append([]Table{at}, ft)
		}
		secs = append(secs, Section{Title: "Fidelity against the release", Level: 3, Tables: tables})
	}
	return secs, nil
}

// agreementTable is the job-by-job agreement with the release, one row per
// scheduler and one column per week that has the release's outcomes: the
// share of jobs whose stretch is within 1% of the release's (within 10% in
// parentheses). The caption says which history before the week the suite
// stands in for the release's (its 7 days of Rackham's jobs), as run.
func agreementTable(set *Set, ws []*batchWeek) Table {
	leadIns := map[string]bool{}
	for _, w := range ws {
		for _, r := range w.by {
			if r.Fidelity != nil {
				leadIns[cmp.Or(r.Workload.LeadIn, "none")] = true
			}
		}
	}
	leadIn := strings.Join(slices.Sorted(maps.Keys(leadIns)), ", ")
	t := Table{Caption: "Job-by-job agreement with the release, per week and scheduler: the share of jobs whose stretch is within 1% of the release's (within 10%). History before the week: lead_in = " + leadIn + " (the release starts from 7 days of Rackham's jobs; see the suite).",
		Header: []string{"scheduler"}}
	var cols []*batchWeek
	for _, w := range ws {
		for _, l := range set.Labels {
			if r := w.by[l]; r != nil && r.Fidelity != nil {
				cols = append(cols, w)
				break
			}
		}
	}
	for _, w := range cols {
		t.Header = append(t.Header, w.title())
	}
	for range t.Header {
		t.Right = append(t.Right, len(t.Right) >= 1)
	}
	for _, l := range set.Labels {
		row := []string{l}
		any := false
		for _, w := range cols {
			cell := ""
			if r := w.by[l]; r != nil && r.Fidelity != nil {
				cell = pct1(100*r.Fidelity.Within1) + " (" + pct1(100*r.Fidelity.Within10) + ")"
				any = true
			}
			row = append(row, cell)
		}
		if any {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// missingWeeks names what the release's tree lists but this project cannot
// read (its copies of the release stop at the three weeks' outputs).
const missingWeeks = "weeks 1, 2, 13, 28, 40, 41, 42, 43 and 50 of 2022 are listed in the release's tree (MaximeGonthier/Locality-aware-batch-scheduling 6cb69e5: data/Stretch_times_<week>_<scheduler>.csv and inputs/workloads/converted/<week>_V10000_anonymous), too large for the copies this project can reach"

// weeksTable computes the claims of the suite that its weeks cannot
// reproduce (status not-here: the twelve weeks) on the weeks it has, from
// memsched's runs and from the release's own per-job outcomes of the same
// weeks: how far the simulator is from the release, the target it can
// reach. Agreement uses the project's widest tolerance (paper.MaxTolerance).
func weeksTable(claims []paper.Claim, s *suite.Suite, set *Set) Table {
	t := Table{Caption: "The claims of twelve weeks, computed on the suite's weeks by memsched and by the release (its per-job outcomes): not a reproduction of the thesis' numbers, which need the nine other weeks, but the simulator against the code that made them. Agreement: |memsched − release| within the project's tolerance for the claim (±5 points for an improvement, ±10 % of the release's value otherwise).",
		Header: []string{"claim", "quantity", "thesis (12 weeks)", "release (these weeks)", "memsched (these weeks)", "memsched − release", "agree"},
		Right:  []bool{false, false, true, true, true, true, false}}
	if set == nil || set.Present == 0 {
		return t
	}
	ws := batchWeeks(set)
	for _, c := range claims {
		if c.Status != paper.StatusNotHere || !SameSuite(c.Suite, s.RelFile()) || c.Kind == paper.KindQualitative || c.Restates != "" {
			continue
		}
		ours, detail, err := batchValue(c, ws, false)
		if err != nil {
			continue
		}
		theirs, _, err := batchValue(c, ws, true)
		row := []string{c.ID, detail, publishedCell(c), "", num(ours) + unit(c.Unit), "", ""}
		if err == nil {
			row[3] = num(theirs) + unit(c.Unit)
			row[5] = signed(ours - theirs)
			lim, _ := paper.MaxTolerance(paper.Claim{Kind: c.Kind, Unit: c.Unit, Published: &theirs})
			row[6] = "no"
			if math.Abs(ours-theirs) <= lim {
				row[6] = "yes"
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// batchSetSections are the report of one batch set: its tables, its
// claims, its figures.
func batchSetSections(set *Set, opt Options, level int) ([]Section, error) {
	secs, err := BatchSections(&SuiteResults{Suite: set.Suite, Set: set}, opt.Claims)
	if err != nil {
		return nil, err
	}
	for i := range secs {
		secs[i].Level = level + min(i, 1)
	}
	var rows [][]string
	for _, c := range opt.Claims {
		if SameSuite(c.Suite, set.Suite.RelFile()) {
			rows = append(rows, claimRow(EvaluateClaim(c, set.Suite, set, opt.Average), false))
		}
	}
	if len(rows) > 0 {
		secs = append(secs, Section{Title: "Published and reproduced", Level: level, Tables: []Table{claimTable(rows, false, opt.Average)}})
	}
	if len(opt.Figures) > 0 {
		sec := Section{Title: "Figures", Level: level}
		for _, f := range opt.Figures {
			if strings.HasSuffix(f, ".png") {
				sec.Images = append(sec.Images, Image{Path: link(opt.LinkDir, f), Alt: f[strings.LastIndex(f, "/")+1:]})
			}
		}
		secs = append(secs, sec)
	}
	return secs, nil
}

// evaluateBatchClaim computes a chapter 6 claim from a batch suite's
// results, over the weeks the suite has (the detail names them).
func evaluateBatchClaim(c paper.Claim, s *suite.Suite, set *Set, res ClaimResult) ClaimResult {
	if set == nil || set.Present == 0 {
		res.Status, res.Detail = StatusNotRun, "no results for the suite: run memsched sweep "+c.Suite
		return res
	}
	v, detail, err := batchValue(c, batchWeeks(set), false)
	if err != nil {
		res.Status, res.Detail = StatusNotRun, err.Error()
		return res
	}
	res.Detail = detail
	return judge(c, v, false, res)
}

// batchValue computes a chapter 6 claim's quantity over the suite's weeks
// (those the claim's point names), from memsched's runs or, with release,
// from the release's per-job outcomes of the same weeks.
//
// Metrics: file_wait_time and core_time (% reduction of the baseline's
// total), core_hours_saved and platform_hours_saved (scaled to 12 weeks),
// and over the per-session stretch ratios baseline / scheduler (every
// session; point plotted_only = 1 keeps those at least 1% away from 1, Fig.
// 6.3's population): stretch_ratio_p12.5 and _p87.5 (the whiskers),
// _p25, _p50, _p75 (the box), stretch_ratio_median (100 × (median − 1), in
// %), _max, _min, sessions_improved_pct (% above 1) and sessions_pct (%
// with point lo <= ratio < hi, no upper end without hi: an empirical
// distribution's reading).
func batchValue(c paper.Claim, ws []*batchWeek, release bool) (float64, string, error) {
	if wk, ok := c.Point["week"]; ok {
		var keep []*batchWeek
		for _, w := range ws {
			if w.num == int(wk) {
				keep = append(keep, w)
			}
		}
		if len(keep) == 0 {
			return 0, "", fmt.Errorf("week %d is not among the suite's weeks", int(wk))
		}
		ws = keep
	}
	label, base := c.Scheduler, c.Baseline
	for _, l := range []string{label, base} {
		if l == "" {
			continue
		}
		found := false
		for _, w := range ws {
			found = found || w.by[l] != nil
		}
		if !found {
			return 0, "", fmt.Errorf("no results for %q", l)
		}
	}
	var names []string
	for _, w := range ws {
		if w.by[label] != nil && (base == "" || w.by[base] != nil) {
			names = append(names, strconv.Itoa(w.num))
		}
	}
	weeks := fmt.Sprintf("weeks %s (%d of the thesis' 12)", strings.Join(names, ", "), len(names))
	total := func(which string) (float64, float64, int, error) {
		x, b, n := weeksTotal(ws, label, base, batchTotal(which, release))
		if math.IsNaN(x) || math.IsNaN(b) {
			return 0, 0, 0, fmt.Errorf("a week of %s has no release outcome", weeks)
		}
		return x, b, n, nil
	}
	var v float64
	detail := ""
	switch c.Metric {
	case "file_wait_time", "core_time":
		x, b, _, err := total(c.Metric)
		if err != nil {
			return 0, "", err
		}
		v, detail = reduction(b, x), fmt.Sprintf("%s reduction, %s over %s, of the total over %s", c.Metric, label, base, weeks)
	case "core_hours_saved", "platform_hours_saved":
		x, b, n, err := total("core_time")
		if err != nil {
			return 0, "", err
		}
		v = (b - x) / 3600 * 12 / float64(n)
		detail = fmt.Sprintf("core hours %s saves over %s on %s, scaled to 12 weeks", label, base, weeks)
		if c.Metric == "platform_hours_saved" {
			cl := ws[0].by[label].Cluster
			v /= float64(cl.Nodes * cl.CoresPerNode)
			detail = fmt.Sprintf("platform hours (core hours / cores) %s saves over %s on %s, scaled to 12 weeks", label, base, weeks)
		}
	default:
		r, _, err := sessionRatios(ws, label, base, release)
		if err != nil {
			return 0, "", err
		}
		st := sessionStats(r, c.Point["plotted_only"] == 1)
		pop := fmt.Sprintf("all %d sessions", st.Sessions)
		if c.Point["plotted_only"] == 1 {
			pop = fmt.Sprintf("%d sessions at least 1%% from 1, of %d", st.Counted, st.Sessions)
		}
		detail = fmt.Sprintf("%s, %s / %s per session, %s over %s", c.Metric, base, label, pop, weeks)
		if st.Counted == 0 {
			return 0, "", fmt.Errorf("no session to compute %s over", c.Metric)
		}
		lo, hi := c.Point["lo"], c.Point["hi"]
		switch c.Metric {
		case "stretch_ratio_p12.5":
			v = st.P12
		case "stretch_ratio_p25":
			v = st.P25
		case "stretch_ratio_p50":
			v = st.Median
		case "stretch_ratio_p75":
			v = st.P75
		case "stretch_ratio_p87.5":
			v = st.P87
		case "stretch_ratio_median":
			v = 100 * (st.Median - 1)
		case "stretch_ratio_max":
			v = st.Max
		case "stretch_ratio_min":
			v = st.Min
		case "sessions_improved_pct":
			v = st.Improved
		case "sessions_pct":
			if _, ok := c.Point["lo"]; !ok {
				return 0, "", fmt.Errorf("sessions_pct needs point lo (and hi, else no upper end): the ratio range")
			}
			if _, ok := c.Point["hi"]; !ok {
				hi = math.Inf(1)
			}
			v = st.share(lo, hi)
			detail = fmt.Sprintf("share of ratios in [%g, %g); ", lo, hi) + detail
		default:
			return 0, "", fmt.Errorf("metric %s is not computed for batch suites", c.Metric)
		}
	}
	if release {
		detail += ", the release's outcomes"
	}
	return v, detail, nil
}

// batchTotal reads a run's total file wait or core time ("file_wait_time",
// "core_time"): memsched's (its record's metric, run.Metrics), or with
// release the release's on the same jobs (from the run's fidelity record;
// NaN without one).
func batchTotal(which string, release bool) func(run.Record) float64 {
	switch {
	case which == "core_time" && release:
		return releases(func(f *batch.Fidelity) int64 { return f.TheirCoreTimeS })
	case which == "core_time":
		return Metrics["core_time_s"].Get
	case release:
		return releases(func(f *batch.Fidelity) int64 { return f.TheirFileWaitS })
	}
	return Metrics["file_wait_s"].Get
}

// releases reads a metric of the release's outcomes on the run's week, NaN
// when the week has none.
func releases(metric func(*batch.Fidelity) int64) func(run.Record) float64 {
	return func(r run.Record) float64 {
		if r.Batch == nil || r.Batch.Fidelity == nil {
			return math.NaN()
		}
		return float64(metric(r.Batch.Fidelity))
	}
}
