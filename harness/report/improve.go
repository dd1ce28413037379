package report

import (
	"fmt"
	"math"
)

// Averaging formulas for the improvement of a label over the baseline.
const (
	RatioOfMeans = "ratio-of-means" // the papers' formula (reference/README.md sanity check)
	MeanOfRatios = "mean-of-ratios"
)

// Improvement is one label's average improvement over the baseline.
type Improvement struct {
	Label   string
	Panel   string
	Percent float64 // NaN when no common point
	Points  int     // points where both have a mean
	// MeanA and MeanB are the label's and the baseline's mean over those
	// points: the inputs of the ratio of means, so a reader can check it.
	MeanA, MeanB float64
}

// Improve computes the average improvement, in percent, of a over b given
// their per-point means on the common points (pairs of equal index).
//
// For a metric where higher is better (GFlop/s):
//
//	ratio of means:  mean_p(A_p) / mean_p(B_p) − 1
//	mean of ratios:  mean_p(A_p / B_p) − 1
//
// For a metric where lower is better (transfers, makespan) the ratios are
// inverted (B over A), so a positive improvement is always better.
func Improve(a, b []float64, higher bool, average string) (float64, error) {
	if len(a) != len(b) {
		return math.NaN(), fmt.Errorf("improvement: %d values against %d", len(a), len(b))
	}
	if len(a) == 0 {
		return math.NaN(), nil
	}
	if !higher {
		a, b = b, a
	}
	switch average {
	case RatioOfMeans, "":
		var sa, sb float64
		for i := range a {
			sa += a[i]
			sb += b[i]
		}
		if sb == 0 {
			return math.NaN(), nil
		}
		return (sa/sb - 1) * 100, nil
	case MeanOfRatios:
		var sr float64
		for i := range a {
			if b[i] == 0 {
				return math.NaN(), nil
			}
			sr += a[i] / b[i]
		}
		return (sr/float64(len(a)) - 1) * 100, nil
	}
	return math.NaN(), fmt.Errorf("unknown average %q; use %s or %s", average, RatioOfMeans, MeanOfRatios)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Formula states the averaging in words, for table captions.
func Formula(average string, higher bool) string {
	a, b := "A", "B"
	if !higher {
		a, b = b, a
	}
	if average == MeanOfRatios {
		return fmt.Sprintf("mean of per-point ratios: mean_p(%s_p / %s_p) − 1", a, b)
	}
	return fmt.Sprintf("ratio of means: mean_p(%s_p) / mean_p(%s_p) − 1", a, b)
}

// Improvement computes a label's improvement over another on a metric,
// over one panel's points where both have at least one successful run.
func (s *Set) Improvement(label, baseline, metric, panel, average string) (Improvement, error) {
	imp, err := s.ImprovementOver(s.PanelPoints(panel), label, baseline, metric, average)
	imp.Panel = panel
	return imp, err
}

// ImprovementOver is Improvement over a chosen list of points.
func (s *Set) ImprovementOver(points []*Point, label, baseline, metric, average string) (Improvement, error) {
	m, ok := Metrics[metric]
	if !ok {
		return Improvement{}, fmt.Errorf("unknown metric %q", metric)
	}
	var a, b []float64
	for _, p := range points {
		sa, sb := s.Cell(label, p).Stat(metric), s.Cell(baseline, p).Stat(metric)
		if sa.N == 0 || sb.N == 0 {
			continue
		}
		a = append(a, sa.Mean)
		b = append(b, sb.Mean)
	}
	pct, err := Improve(a, b, m.Higher, average)
	return Improvement{Label: label, Percent: pct, Points: len(a), MeanA: mean(a), MeanB: mean(b)}, err
}

// Improvements lists every label's improvement over the set's baseline on
// its metric, panel by panel.
func (s *Set) Improvements(average string) ([]Improvement, error) {
	var out []Improvement
	for _, panel := range s.Panels() {
		for _, l := range s.Labels {
			if l == s.Baseline {
				continue
			}
			imp, err := s.Improvement(l, s.Baseline, s.Metric, panel, average)
			if err != nil {
				return nil, err
			}
			out = append(out, imp)
		}
	}
	return out, nil
}
