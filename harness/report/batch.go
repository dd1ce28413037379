package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memsched/memsched/harness/batch"
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
	name string // "2022-02-07", or a workload name
	num  int    // 2022 week number, 0 when not a Rackham week
	by   map[string]*batch.Report
}

// batchWeeks gathers the reports of a batch set by point, in point order.
func batchWeeks(set *Set) []*batchWeek {
	var out []*batchWeek
	for _, p := range set.Points {
		w := &batchWeek{by: map[string]*batch.Report{}}
		if v, ok := p.Coords["week"]; ok {
			w.name = fmt.Sprint(v)
			w.num = jobs.WeekNumber(w.name)
		} else {
			w.name = fmt.Sprint(p.Coords["workload"])
		}
		for _, l := range set.Labels {
			if c := set.Cell(l, p); c != nil && len(c.Records) > 0 && c.Records[0].Batch != nil {
				w.by[l] = c.Records[0].Batch
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
func weeksTotal(ws []*batchWeek, label, base string, f func(*batch.Report) float64) (x, b float64, n int) {
	for _, w := range ws {
		if r, q := w.by[label], w.by[base]; r != nil && q != nil {
			x += f(r)
			b += f(q)
			n++
		}
	}
	return
}

// sessionRatios pools the per-session improvements base/label over the
// weeks (the thesis' Figs. 6.3-6.8 quantity).
func sessionRatios(ws []*batchWeek, label, base string) ([]float64, []string, error) {
	var out []float64
	var used []string
	for _, w := range ws {
		r, q := w.by[label], w.by[base]
		if r == nil || q == nil {
			continue
		}
		imp, err := batch.Improvements(q.SessionSums, r.SessionSums)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", w.title(), err)
		}
		out = append(out, imp...)
		used = append(used, w.title())
	}
	return out, used, nil
}

// SessionStats summarise per-session improvements as the thesis plots them:
// only sessions at least 1% away from 1, boxes at 25-75%, whiskers at 12.5
// and 87.5%.
type SessionStats struct {
	Sessions                                   int     // all sessions
	Different                                  float64 // % at least 1% away from 1 (the percentage beside the names)
	Improved                                   float64 // % of those above 1
	P12, P25, Median, P75, P87, Mean, Min, Max float64
	sorted                                     []float64
}

func sessionStats(r []float64) SessionStats {
	st := SessionStats{Sessions: len(r)}
	d := batch.Different(r)
	if len(r) == 0 || len(d) == 0 {
		return st
	}
	slices.Sort(d)
	st.sorted = d
	st.Different = 100 * float64(len(d)) / float64(len(r))
	q := func(p float64) float64 { return d[int(math.Round(p*float64(len(d)-1)))] }
	st.P12, st.P25, st.Median, st.P75, st.P87 = q(0.125), q(0.25), q(0.5), q(0.75), q(0.875)
	st.Min, st.Max = d[0], d[len(d)-1]
	for _, x := range d {
		st.Mean += x
		if x >= 1.01 {
			st.Improved++
		}
	}
	st.Mean /= float64(len(d))
	st.Improved = 100 * st.Improved / float64(len(d))
	return st
}

// share is the % of the plotted sessions with lo <= ratio < hi.
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

// BatchSections are a batch suite's tables.
func BatchSections(sr *SuiteResults) ([]Section, error) {
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
	intro := fmt.Sprintf("Batch suite: %s under the %s rules, on %s. The thesis evaluates twelve weeks; the release published the outputs of these only.",
		strings.Join(set.Labels, ", "), rules, strings.Join(weekNames, ", "))
	secs := []Section{{Title: "Suite " + s.RelFile(), Paras: []string{intro}}}

	// Reductions of file-wait and core time, ours and the release's on the
	// same weeks (from its outcomes), beside the thesis' twelve weeks.
	thesisWait := map[string]string{"EFT": "0.9%", "LEA": "17.1%", "LEO": "0.9%", "LEM": "7.1%"}
	thesisCore := map[string]string{"EFT": "0.01%", "LEA": "0.37%", "LEO": "0.02%", "LEM": "0.10%"}
	for _, m := range []struct {
		title, thesis string
		ours          func(*batch.Report) float64
		theirs        func(*batch.Report) float64
		ref           map[string]string
	}{
		{"File-wait reduction from the baseline (Tables 6.1-6.3)", "Table 6.3 (12 weeks)",
			func(r *batch.Report) float64 { return float64(r.FileWaitS) },
			releases(func(f *batch.Fidelity) int64 { return f.TheirFileWaitS }), thesisWait},
		{"Core-time reduction from the baseline (Table 6.4)", "Table 6.4 (12 weeks)",
			func(r *batch.Report) float64 { return float64(r.CoreTimeS) },
			releases(func(f *batch.Fidelity) int64 { return f.TheirCoreTimeS }), thesisCore},
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
				r, q := w.by[l], w.by[base]
				if r == nil || q == nil {
					row = append(row, "")
					continue
				}
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

	// Per-session stretch improvements, pooled over the weeks.
	t := Table{Caption: "Improvement of each user session's stretch over the baseline's (baseline / scheduler, above 1 is faster), pooled over the weeks; as the thesis' figures, only the sessions at least 1% away from 1 count (the share beside the name).",
		Header: []string{"scheduler", "baseline", "sessions", "≥1% different", "improved", "p12.5", "p25", "median", "p75", "p87.5", "mean", "min", "max"}}
	for range t.Header {
		t.Right = append(t.Right, len(t.Right) >= 2)
	}
	for _, l := range set.Labels {
		base := batchBaseline(s, l)
		if l == base {
			continue
		}
		r, _, err := sessionRatios(ws, l, base)
		if err != nil {
			return nil, err
		}
		st := sessionStats(r)
		t.Rows = append(t.Rows, []string{l, base, strconv.Itoa(st.Sessions), pct1(st.Different), pct1(st.Improved),
			f2(st.P12), f2(st.P25), f2(st.Median), f2(st.P75), f2(st.P87), f2(st.Mean), fmt.Sprintf("%.3g", st.Min), fmt.Sprintf("%.3g", st.Max)})
	}
	secs = append(secs, Section{Title: "User-session stretch (Figs. 6.3-6.8)", Level: 3, Tables: []Table{t}})

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
		secs = append(secs, Section{Title: "Fidelity against the release", Level: 3, Tables: []Table{ft}})
	}
	return secs, nil
}

// batchSetSections are the report of one batch set: its tables, its
// claims, its figures.
func batchSetSections(set *Set, opt Options, level int) ([]Section, error) {
	secs, err := BatchSections(&SuiteResults{Suite: set.Suite, Set: set})
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
	ws := batchWeeks(set)
	if wk, ok := c.Point["week"]; ok {
		var keep []*batchWeek
		for _, w := range ws {
			if w.num == int(wk) {
				keep = append(keep, w)
			}
		}
		if len(keep) == 0 {
			res.Status, res.Detail = StatusNotRun, fmt.Sprintf("week %d is not among the suite's weeks", int(wk))
			return res
		}
		ws = keep
	}
	label, base := c.Scheduler, c.Baseline
	for _, l := range []string{label, base} {
		if l != "" && set.Cells[l] == nil {
			res.Status, res.Detail = StatusNotRun, fmt.Sprintf("no results for %q", l)
			return res
		}
	}
	var names []string
	for _, w := range ws {
		if w.by[label] != nil && (base == "" || w.by[base] != nil) {
			names = append(names, strconv.Itoa(w.num))
		}
	}
	weeks := fmt.Sprintf("weeks %s (%d of the thesis' 12)", strings.Join(names, ", "), len(names))
	total := func(f func(*batch.Report) float64) (float64, float64, int) { return weeksTotal(ws, label, base, f) }
	var v float64
	detail := ""
	switch c.Metric {
	case "file_wait_time", "core_time":
		f := func(r *batch.Report) float64 { return float64(r.FileWaitS) }
		if c.Metric == "core_time" {
			f = func(r *batch.Report) float64 { return float64(r.CoreTimeS) }
		}
		x, b, _ := total(f)
		v, detail = reduction(b, x), "reduction of the total over "+weeks
	case "core_hours_saved", "platform_hours_saved":
		x, b, n := total(func(r *batch.Report) float64 { return float64(r.CoreTimeS) })
		v = (b - x) / 3600 * 12 / float64(n)
		detail = "core hours saved over " + weeks + ", scaled to 12 weeks"
		if c.Metric == "platform_hours_saved" {
			cl := ws[0].by[label].Cluster
			v /= float64(cl.Nodes * cl.CoresPerNode)
			detail = "platform hours saved (core hours / cores) over " + weeks + ", scaled to 12 weeks"
		}
	default:
		r, _, err := sessionRatios(ws, label, base)
		if err != nil {
			res.Status, res.Detail = StatusNotRun, err.Error()
			return res
		}
		st := sessionStats(r)
		detail = fmt.Sprintf("%d sessions at least 1%% from 1, of %d, over %s", len(st.sorted), st.Sessions, weeks)
		lo, hi := c.Point["lo"], c.Point["hi"]
		switch c.Metric {
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
		case "sessions_pct_above_300pct":
			v = st.share(3, math.Inf(1))
		case "sessions_pct_above_1.8":
			v = st.share(1.8, math.Inf(1))
		case "sessions_pct_below_0.95":
			v = st.share(0, 0.95)
		case "sessions_pct":
			if _, ok := c.Point["hi"]; !ok {
				res.Status, res.Detail = StatusNotRun, "sessions_pct needs point lo and hi (the ratio range)"
				return res
			}
			v = st.share(lo, hi)
			detail = fmt.Sprintf("share of ratios in [%g, %g); ", lo, hi) + detail
		default:
			res.Status, res.Detail = StatusNotRun, "metric "+c.Metric+" is not computed for batch suites"
			return res
		}
	}
	res.Detail = detail
	return judge(c, v, false, res)
}

// releases reads a metric of the release's outcomes on the run's week, NaN
// when the week has none.
func releases(metric func(*batch.Fidelity) int64) func(*batch.Report) float64 {
	return func(r *batch.Report) float64 {
		if r.Fidelity == nil {
			return math.NaN()
		}
		return float64(metric(r.Fidelity))
	}
}
