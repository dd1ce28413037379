package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/memsched/memsched/harness/run"
	"golang.org/x/perf/benchmath"
)

// CompareRow is one label at one point, old against new: each side's
// median and its confidence interval over the repetitions and seeds
// (benchmath's distribution-free summary, as benchstat gives), the ratio
// new/old with an interval, and the Mann-Whitney U test's p-value.
type CompareRow struct {
	Label, Point  string
	Old, New      benchmath.Summary
	NOld, NNew    int
	Ratio, Lo, Hi float64 // new/old center; interval from the sides' intervals
	P             float64 // NaN when not tested (one run a side: exact values)
	Significant   bool    // P < alpha, or exact values that differ
	Warnings      []string
}

// Comparison is a metric compared between two results sets.
type Comparison struct {
	Metric     string
	Higher     bool // higher is better for this metric
	Confidence float64
	Rows       []CompareRow
	// Geomean is the geometric mean of the ratios per label, and over
	// every row under "" (benchstat's geomean row).
	Geomean map[string]float64
	// Unmatched counts the cells of either side without a counterpart.
	Unmatched int
}

// Compare matches old's and new's cells by point and label (oldLabel and
// newLabel when set: two labels of one file compared point by point) and
// compares metric on each pair. A side with one value is exact (the
// simulator is deterministic: a rerun gives the same number), so the
// ratio has no interval and no test; with several, the interval of the
// ratio is [newLo/oldHi, newHi/oldLo], which holds the true ratio with at
// least the product of the two confidences.
func Compare(old, new *Set, oldLabel, newLabel, metric string, confidence float64) (*Comparison, error) {
	m, ok := Metrics[metric]
	if !ok {
		return nil, fmt.Errorf("unknown metric %q", metric)
	}
	if !(confidence > 0 && confidence < 1) {
		return nil, fmt.Errorf("confidence %v: want a level in (0, 1), e.g. 0.95", confidence)
	}
	if (oldLabel == "") != (newLabel == "") {
		return nil, fmt.Errorf("name both labels or neither")
	}
	c := &Comparison{Metric: metric, Higher: m.Higher, Confidence: confidence, Geomean: map[string]float64{}}
	pairs := [][2]string{}
	if oldLabel != "" {
		for _, l := range []struct {
			set   *Set
			label string
		}{{old, oldLabel}, {new, newLabel}} {
			if l.set.Cells[l.label] == nil {
				return nil, fmt.Errorf("no records of label %q (labels: %v)", l.label, l.set.Labels)
			}
		}
		pairs = append(pairs, [2]string{oldLabel, newLabel})
	} else {
		for _, l := range old.Labels {
			pairs = append(pairs, [2]string{l, l})
		}
	}
	newPoints := map[string]*Point{}
	for _, p := range new.Points {
		newPoints[p.ID] = p
	}
	matched := 0
	logSum := map[string]float64{}
	count := map[string]int{}
	for _, pr := range pairs {
		for _, p := range old.Points {
			oc := old.Cells[pr[0]][p.ID]
			np := newPoints[p.ID]
			var nc *Cell
			if np != nil {
				nc = new.Cells[pr[1]][p.ID]
			}
			if oc == nil || len(oc.Records) == 0 {
				continue
			}
			if nc == nil || len(nc.Records) == 0 {
				c.Unmatched++
				continue
			}
			for _, r := range [2]run.Record{oc.Records[0], nc.Records[0]} {
				if batch := r.Batch != nil; batch != m.Batch {
					return nil, fmt.Errorf("metric %q measures %s, but these records are of %s: choose a metric of their kind", metric, kindOf(m.Batch), kindOf(batch))
				}
			}
			matched++
			row := compareCells(oc, nc, m, confidence)
			row.Label, row.Point = pr[1], old.pointName(p)
			if pr[0] != pr[1] {
				row.Label = pr[0] + " → " + pr[1]
			}
			c.Rows = append(c.Rows, row)
			if row.Ratio > 0 && !math.IsInf(row.Ratio, 0) {
				logSum[row.Label] += math.Log(row.Ratio)
				count[row.Label]++
				logSum[""] += math.Log(row.Ratio)
				count[""]++
			}
		}
	}
	if oldLabel == "" {
		for _, l := range new.Labels {
			for _, p := range new.Points {
				if nc := new.Cells[l][p.ID]; nc != nil && len(nc.Records) > 0 {
					if oc := old.Cells[l][p.ID]; oc == nil || len(oc.Records) == 0 {
						c.Unmatched++
					}
				}
			}
		}
	}
	if matched == 0 {
		return nil, fmt.Errorf("no point and label in both sets: nothing to compare (old labels %v, new labels %v)", old.Labels, new.Labels)
	}
	for l, s := range logSum {
		c.Geomean[l] = math.Exp(s / float64(count[l]))
	}
	return c, nil
}

// kindOf names the runs a metric, or a record, is of.
func kindOf(batch bool) string {
	if batch {
		return "batch runs (thesis chapter 6)"
	}
	return "GPU runs"
}

func compareCells(oc, nc *Cell, m Metric, confidence float64) CompareRow {
	values := func(cell *Cell) []float64 {
		xs := make([]float64, len(cell.Records))
		for i, r := range cell.Records {
			xs[i] = m.Get(r)
		}
		return xs
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = 1 - confidence
	os, ns := benchmath.NewSample(values(oc), &th), benchmath.NewSample(values(nc), &th)
	row := CompareRow{NOld: len(os.Values), NNew: len(ns.Values), P: math.NaN()}
	var a benchmath.Assumption = benchmath.AssumeNothing
	if row.NOld == 1 && row.NNew == 1 {
		a = benchmath.AssumeExact
	}
	row.Old, row.New = a.Summary(os, confidence), a.Summary(ns, confidence)
	row.Ratio = row.New.Center / row.Old.Center
	if a == benchmath.AssumeExact {
		row.Lo, row.Hi = row.Ratio, row.Ratio
		row.Significant = row.New.Center != row.Old.Center
		row.Warnings = append(row.Warnings, "one run a side: exact values, no interval")
	} else {
		row.Lo, row.Hi = row.New.Lo/row.Old.Hi, row.New.Hi/row.Old.Lo
		if row.Old.Lo <= 0 {
			row.Hi = math.Inf(1)
		}
		cmp := a.Compare(os, ns)
		row.P, row.Significant = cmp.P, cmp.P < cmp.Alpha
		for _, w := range append(append(row.Old.Warnings, row.New.Warnings...), cmp.Warnings...) {
			row.Warnings = append(row.Warnings, w.Error())
		}
	}
	return row
}

// Table renders the comparison as benchstat lays it out: each side's
// center ± its interval, the change (~ when the test cannot tell them
// apart) with its interval, then the p-value and sample sizes.
func (c *Comparison) Table() Table {
	exact := true
	for _, r := range c.Rows {
		exact = exact && r.NOld == 1 && r.NNew == 1
	}
	caption := fmt.Sprintf("%s: median ± %.0f %% confidence interval; change = new/old − 1, ~ when the U test cannot tell the sides apart (%s is better)", Metrics[c.Metric].Title, 100*c.Confidence, map[bool]string{true: "higher", false: "lower"}[c.Higher])
	if exact {
		caption = fmt.Sprintf("%s: one run a side, an exact value (the simulator is deterministic: a rerun gives the same number), so no interval and no test; change = new/old − 1 (%s is better); repetitions or seeds give intervals", Metrics[c.Metric].Title, map[bool]string{true: "higher", false: "lower"}[c.Higher])
	}
	t := Table{
		Caption: caption,
		Header:  []string{"label", "point", "old", "new", "change", "change interval", "p", "n"},
		Right:   []bool{false, false, true, true, true, true, true, true},
	}
	for _, r := range c.Rows {
		change := signedPct(100 * (r.Ratio - 1))
		if !r.Significant {
			change = "~"
		}
		interval := ""
		if r.Lo != r.Hi {
			interval = fmt.Sprintf("[%s, %s]", signedPct(100*(r.Lo-1)), signedPct(100*(r.Hi-1)))
		}
		p := ""
		if !math.IsNaN(r.P) {
			p = fmt.Sprintf("%.3f", r.P)
		}
		t.Rows = append(t.Rows, []string{r.Label, r.Point, summaryCell(r.Old), summaryCell(r.New), change, interval, p, fmt.Sprintf("%d+%d", r.NOld, r.NNew)})
	}
	labels := make([]string, 0, len(c.Geomean))
	for l := range c.Geomean {
		if l != "" {
			labels = append(labels, l)
		}
	}
	sort.Strings(labels)
	if len(labels) > 1 {
		labels = append(labels, "")
	}
	for _, l := range labels {
		name := l
		if l == "" {
			name = "all"
		}
		if g, ok := c.Geomean[l]; ok {
			t.Rows = append(t.Rows, []string{name, "geomean", "", "", signedPct(100 * (g - 1)), "", "", ""})
		}
	}
	return t
}

func summaryCell(s benchmath.Summary) string {
	v := strconv.FormatFloat(s.Center, 'g', 6, 64)
	if s.Lo == s.Hi {
		return v
	}
	return v + " ± " + s.PctRangeString()
}

// WriteCSV writes one row per label and point with every number of the
// comparison, for a notebook.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"metric", "label", "point", "old_center", "old_lo", "old_hi", "old_n", "new_center", "new_lo", "new_hi", "new_n", "ratio", "ratio_lo", "ratio_hi", "p", "significant", "confidence"})
	for _, r := range c.Rows {
		cw.Write([]string{c.Metric, r.Label, r.Point, ff(r.Old.Center), ff(r.Old.Lo), ff(r.Old.Hi), strconv.Itoa(r.NOld),
			ff(r.New.Center), ff(r.New.Lo), ff(r.New.Hi), strconv.Itoa(r.NNew), ff(r.Ratio), ff(r.Lo), ff(r.Hi), ff(r.P),
			strconv.FormatBool(r.Significant), ff(c.Confidence)})
	}
	cw.Flush()
	return cw.Error()
}
