package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/paper"
)

// Goals of issue 11: every (series, scheduler) pair within these MAPEs.
const (
	GoalGFlops    = 10.0 // % GFlop/s MAPE
	GoalTransfers = 15.0 // % transfers MAPE
)

// FitPairs gathers the fidelity of every (series, scheduler) pair of the
// suites' results, each pair once (from the first suite, in suite order),
// tagged training or test by the fit declaration (nil: all test).
func FitPairs(suites map[string]*SuiteResults, spec *paper.FitSpec) ([]paper.FitPair, error) {
	keys := make([]string, 0, len(suites))
	for k := range suites {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []paper.FitPair
	seen := map[[2]string]bool{}
	for _, k := range keys {
		sr := suites[k]
		if sr.Set == nil || sr.Set.Suite == nil || IsResultsReference(sr.Set.Suite.Report.ReferenceCSV) {
			continue // the fit's pairs are the papers' measurements only
		}
		fids, err := sr.Set.Fidelity()
		if err != nil {
			return nil, err
		}
		for _, f := range fids {
			key := [2]string{f.Figure, f.Label}
			if seen[key] || len(f.Pairs) == 0 {
				continue
			}
			seen[key] = true
			out = append(out, paper.FitPair{Figure: f.Figure, Label: f.Label, Suite: k, Train: spec != nil && spec.IsTrain(f.Figure),
				Points: len(f.Pairs), MAPE: f.MAPE, Bias: f.Bias, TransfersMAPE: f.TransfersMAPE})
		}
	}
	return out, nil
}

// FidelitySummary is the headline of the simulator's fidelity.
type FidelitySummary struct {
	TrainPairs, TestPairs         int
	TrainGFlops, TestGFlops       float64 // mean GFlop/s MAPE, %
	TrainTransfers, TestTransfers float64 // mean transfers MAPE over the pairs that have one, %
	WithinGoal, Pairs             int
}

// SummariseFidelity averages the pairs' errors per set.
func SummariseFidelity(pairs []paper.FitPair) FidelitySummary {
	var s FidelitySummary
	var tg, eg, tt, et float64
	var ntt, net int
	for _, p := range pairs {
		if p.Train {
			s.TrainPairs++
			tg += p.MAPE
			if !math.IsNaN(p.TransfersMAPE) {
				tt += p.TransfersMAPE
				ntt++
			}
		} else {
			s.TestPairs++
			eg += p.MAPE
			if !math.IsNaN(p.TransfersMAPE) {
				et += p.TransfersMAPE
				net++
			}
		}
		if withinGoal(p) {
			s.WithinGoal++
		}
	}
	s.Pairs = len(pairs)
	div := func(a float64, n int) float64 {
		if n == 0 {
			return math.NaN()
		}
		return a / float64(n)
	}
	s.TrainGFlops, s.TestGFlops = div(tg, s.TrainPairs), div(eg, s.TestPairs)
	s.TrainTransfers, s.TestTransfers = div(tt, ntt), div(et, net)
	return s
}

func withinGoal(p paper.FitPair) bool {
	return p.MAPE <= GoalGFlops && (math.IsNaN(p.TransfersMAPE) || p.TransfersMAPE <= GoalTransfers)
}

func (s FidelitySummary) String() string {
	return fmt.Sprintf("test error %s GFlop/s MAPE over %d pairs (%s transfers), training %s over %d pairs (%s transfers); %d of %d pairs within %g %% GFlop/s and %g %% transfers",
		pct1(s.TestGFlops), s.TestPairs, pct1(s.TestTransfers), pct1(s.TrainGFlops), s.TrainPairs, pct1(s.TrainTransfers), s.WithinGoal, s.Pairs, GoalGFlops, GoalTransfers)
}

func setName(train bool) string {
	if train {
		return "train"
	}
	return "test"
}

// fidelitySections are the report's overview of the simulator's fidelity:
// every pair with its set, and the sensitivity of each pair to each
// uncertain rule from the fit's record.
func fidelitySections(pairs []paper.FitPair, spec *paper.FitSpec, fit *paper.FitResult) []Section {
	s := SummariseFidelity(pairs)
	paras := []string{fmt.Sprintf("**Simulator fidelity: %s.**", s)}
	if spec != nil {
		paras = append(paras, fmt.Sprintf("A pair is a (reference series, scheduler); its errors are the MAPE of GFlop/s and of transfers per iteration over the series' points (bias > 0: the simulation is optimistic). The training series, declared in %s before fitting, are %s; every other series is test, and the test error is the headline.", spec.File, joinCode(spec.Train)))
	}
	if fit != nil {
		desc := ""
		for _, st := range fit.Measured {
			desc += fmt.Sprintf("`%s` (measured), ", st)
		}
		for _, st := range fit.Fitted {
			desc += fmt.Sprintf("`%s`, ", st)
		}
		para := fmt.Sprintf("Values fitted by `%s`: %s; at them the fit computed training %s and test %s GFlop/s MAPE (its record: %s).", fit.Command, trimComma(desc), pct1(fit.TrainMAPE), pct1(fit.TestMAPE), spec.Results)
		if fit.ModelVersion != run.ModelVersion {
			fitted := "an older simulator model"
			if fit.ModelVersion > 0 {
				fitted = fmt.Sprintf("simulator model %d", fit.ModelVersion)
			}
			para += fmt.Sprintf(" That fit ran under %s; these results are model %d's, whose runtime rules differ (sim.ModelVersion): the errors above are today's at the old values, and `make fit` refits them.", fitted, run.ModelVersion)
		}
		paras = append(paras, para)
	}
	t := Table{Caption: "Every (series, scheduler) pair of the reference that a suite simulates.",
		Header: []string{"set", "reference series", "scheduler", "suite", "points", "GFlop/s MAPE", "bias", "transfers MAPE", "within goal"},
		Right:  []bool{false, false, false, false, true, true, true, true, false}}
	sorted := append([]paper.FitPair(nil), pairs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Train && !sorted[j].Train })
	for _, p := range sorted {
		t.Rows = append(t.Rows, []string{setName(p.Train), p.Figure, p.Label, p.Suite, strconv.Itoa(p.Points), pct1(p.MAPE), signedPct(p.Bias), pctOrDash(p.TransfersMAPE), yesNo(withinGoal(p))})
	}
	secs := []Section{{Title: "Fidelity of the simulator", Paras: paras, Tables: []Table{t}}}
	if fit == nil || len(fit.Sensitive) == 0 {
		return secs
	}
	// Sensitivity: each pair's GFlop/s MAPE under each rule's alternative,
	// against its value at the fitted settings of the fit's record.
	base := map[[2]string]paper.FitPair{}
	for _, p := range fit.Pairs {
		base[[2]string{p.Figure, p.Label}] = p
	}
	st := Table{Caption: "GFlop/s MAPE of each pair with one uncertain rule changed (the others at the fitted values), and its change in points against the fitted model (`memsched fit` record).",
		Header: []string{"set", "reference series", "scheduler", "fitted"}, Right: []bool{false, false, false, true}}
	var why []string
	for _, s := range fit.Sensitive {
		st.Header = append(st.Header, fmt.Sprintf("%s = %v", s.Setting.Key, s.Setting.Value))
		st.Right = append(st.Right, true)
		why = append(why, fmt.Sprintf("`%s = %v`: %s", s.Setting.Key, s.Setting.Value, s.Why))
	}
	alt := make([]map[[2]string]paper.FitPair, len(fit.Sensitive))
	for i, s := range fit.Sensitive {
		alt[i] = map[[2]string]paper.FitPair{}
		for _, p := range s.Pairs {
			alt[i][[2]string{p.Figure, p.Label}] = p
		}
	}
	meanMove := make([]float64, len(fit.Sensitive))
	for _, p := range fit.Pairs {
		k := [2]string{p.Figure, p.Label}
		row := []string{setName(p.Train), p.Figure, p.Label, pct1(base[k].MAPE)}
		for i := range fit.Sensitive {
			a, ok := alt[i][k]
			if !ok {
				row = append(row, "—")
				continue
			}
			d := a.MAPE - base[k].MAPE
			meanMove[i] += math.Abs(d) / float64(len(fit.Pairs))
			row = append(row, fmt.Sprintf("%s (%+.1f)", pct1(a.MAPE), d))
		}
		st.Rows = append(st.Rows, row)
	}
	mt := Table{Caption: "Mean absolute change of the pairs' GFlop/s MAPE, in points, per rule alternative.", Header: []string{"rule", "mean |change|"}, Right: []bool{false, true}}
	for i, s := range fit.Sensitive {
		mt.Rows = append(mt.Rows, []string{fmt.Sprintf("%s = %v", s.Setting.Key, s.Setting.Value), fmt.Sprintf("%.1f", meanMove[i])})
	}
	secs = append(secs, Section{Title: "Sensitivity to the uncertain rules", Level: 3,
		Paras: append([]string{"How much each uncertain rule moves each result: the rules, and what their alternatives mean:"}, why...), Tables: []Table{mt, st}})
	return secs
}

func joinCode(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += "`" + x + "`"
	}
	return out
}

func trimComma(s string) string {
	if len(s) >= 2 && s[len(s)-2:] == ", " {
		return s[:len(s)-2]
	}
	return s
}

func pctOrDash(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return pct1(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
