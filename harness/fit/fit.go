// Package fit fits a platform's uncertain parameters to the reference
// measurements and measures how much each uncertain rule moves the
// simulation, without fooling itself: the training series are declared
// before fitting (paper.FitSpec), the parameters are chosen on them alone,
// and the error on every other series is reported as the test error.
//
// An evaluation runs, for every suite of the declaration, exactly the runs
// whose point and label match a measured point of a chosen set of reference
// series, on the suite's platform with some settings overridden, and
// summarises the fidelity per (series, scheduler) pair as the report does
// (report.Set.Fidelity). The fit is a coordinate descent over each
// parameter's declared values, from the current ones, minimising the mean
// GFlop/s MAPE of the training pairs; ties keep the earlier value.
package fit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/report"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/paper"
)

// The fit's record types live in paper, which the report reads.
type (
	Setting     = paper.FitSetting
	Pair        = paper.FitPair
	Result      = paper.FitResult
	Step        = paper.FitStep
	SensitiveAt = paper.FitSensitivity
)

// Evaluator runs reference points under overrides.
type Evaluator struct {
	Spec   *paper.FitSpec
	Suites []*suite.Suite
	Jobs   int
	// Progress, when set, is told of each evaluation.
	Progress func(what string)
}

// NewEvaluator loads the declaration's suites (paths relative to root).
func NewEvaluator(spec *paper.FitSpec, root string, jobs int) (*Evaluator, error) {
	e := &Evaluator{Spec: spec, Jobs: jobs}
	if e.Jobs < 1 {
		e.Jobs = runtime.GOMAXPROCS(0)
	}
	for _, p := range spec.Suites {
		s, err := suite.Load(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		e.Suites = append(e.Suites, s)
	}
	return e, nil
}

type refKey struct {
	label     string
	n, gpus   int
	memMB     float64
	noMemory  bool
	hasMemory bool
}

// Evaluate runs the reference points of the series keep selects under the
// settings and returns the fidelity of every pair, in suite order. A pair
// whose series several suites simulate is taken from the first.
func (e *Evaluator) Evaluate(ctx context.Context, settings []Setting, keep func(figure string) bool) ([]Pair, error) {
	type job struct {
		si  int
		run suite.Run
	}
	var jobs []job
	for si, s := range e.Suites {
		refs, err := report.ReferenceSeries(s)
		if err != nil {
			return nil, err
		}
		want := map[refKey]bool{}
		for _, r := range s.Report.References {
			if !keep(r.Figure) {
				continue
			}
			for label, pts := range refs {
				for _, p := range pts {
					if p.Figure == r.Figure {
						want[refKey{label: label, n: p.N, gpus: p.GPUs, memMB: p.MemoryMB}] = true
					}
				}
			}
		}
		if len(want) == 0 {
			continue
		}
		for _, r := range s.Runs() {
			mem, _ := r.Point["memory_mb"].(float64)
			n, _ := r.Point["n"].(int)
			k := refKey{label: r.Label, n: n, gpus: r.Platform.GPUs, memMB: mem}
			if !want[k] {
				continue
			}
			p := r.Platform.Clone()
			if err := apply(p, settings); err != nil {
				return nil, err
			}
			// The run a sweep would make on p: its seed derives from p's
			// numbers, not the preset's the suite was loaded with. It keeps
			// the suite's keys, by which the report finds the point it
			// stands for.
			moved := r.WithPlatform(p)
			moved.Key, moved.ConfigID = r.Key, r.ConfigID
			jobs = append(jobs, job{si, moved})
		}
	}
	recs := make([][]run.Record, len(e.Suites))
	var mu sync.Mutex
	var firstErr error
	ch := make(chan job)
	var wg sync.WaitGroup
	for range e.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				cfg, err := j.run.Config()
				if err == nil {
					cfg.Context = ctx
					var rec run.Record
					rec, err = run.Run(cfg)
					if err == nil {
						rec.Key, rec.Config, rec.Suite, rec.Label, rec.Point, rec.Rep = j.run.Key, j.run.ConfigID, j.run.Suite, j.run.Label, j.run.Point, j.run.Rep
						mu.Lock()
						recs[j.si] = append(recs[j.si], rec)
						mu.Unlock()
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s %s %v: %w", j.run.Suite, j.run.Label, j.run.Point, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	var out []Pair
	seen := map[[2]string]bool{}
	for si, s := range e.Suites {
		if len(recs[si]) == 0 {
			continue
		}
		// Records in run order, so that the set is the same whatever the
		// scheduling of the goroutines.
		sort.Slice(recs[si], func(a, b int) bool { return recs[si][a].Key < recs[si][b].Key })
		fids, err := report.NewSet(s, recs[si], nil).Fidelity()
		if err != nil {
			return nil, err
		}
		for _, f := range fids {
			k := [2]string{f.Figure, f.Label}
			if !keep(f.Figure) || seen[k] || len(f.Pairs) == 0 {
				continue
			}
			seen[k] = true
			out = append(out, Pair{Figure: f.Figure, Label: f.Label, Suite: s.RelFile(), Train: e.Spec.IsTrain(f.Figure),
				Points: len(f.Pairs), MAPE: f.MAPE, Bias: f.Bias, TransfersMAPE: f.TransfersMAPE})
		}
	}
	return out, nil
}

func apply(p *hardware.Platform, settings []Setting) error {
	for _, s := range settings {
		var err error
		switch name, kernel := strings.CutPrefix(s.Table, "kernel."); {
		case kernel:
			v, ok := asFloat(s.Value)
			if !ok {
				err = fmt.Errorf("a kernel rate is a number, not %v", s.Value)
			} else {
				err = p.SetKernel(name, s.Key, v)
			}
		case s.Table == "topology":
			err = p.SetTopology(map[string]any{s.Key: s.Value})
		case s.Table == "runtime":
			err = p.SetRuntime(map[string]any{s.Key: s.Value})
		default:
			err = fmt.Errorf("table %q", s.Table)
		}
		if err != nil {
			return fmt.Errorf("fit: %s: %w", s, err)
		}
	}
	return nil
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// Mean is the mean GFlop/s MAPE of the pairs (NaN when there is none).
func Mean(pairs []Pair) float64 {
	if len(pairs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, p := range pairs {
		s += p.MAPE
	}
	return s / float64(len(pairs))
}

// MeanTransfers is the mean transfers MAPE of the pairs that have one.
func MeanTransfers(pairs []Pair) float64 {
	var s float64
	n := 0
	for _, p := range pairs {
		if !math.IsNaN(p.TransfersMAPE) {
			s += p.TransfersMAPE
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// MeasureDurationCV measures the spread of task durations from the
// reference's spread over iterations: on the training points that run at
// 95 % of the kernel's peak or more and load every datum once (transfers
// within 5 % of the working set), an iteration lasts the sum of its tasks'
// durations and nothing else varies, so its relative deviation is the
// tasks' coefficient of variation over the square root of the tasks per
// GPU (independent durations). It returns the median over those points of
// dev/GFlop/s × √(tasks per GPU), and how many points it used.
func MeasureDurationCV(pts []paper.RefPoint, train func(string) bool, peakGFlops float64) (float64, int) {
	var cvs []float64
	for _, p := range pts {
		if !train(p.Figure) || !p.HasDev() || !p.HasTransfers() || p.GPUs < 1 ||
			p.GFlops < 0.95*peakGFlops*float64(p.GPUs) || p.TransfersMB/11 > 1.05*p.WorkingSetMiB {
			continue
		}
		tasks := float64(p.N*p.N) / float64(p.GPUs) // the 2D products' N² tasks
		cvs = append(cvs, p.GFlopsDev/p.GFlops*math.Sqrt(tasks))
	}
	if len(cvs) == 0 {
		return 0, 0
	}
	slices.Sort(cvs)
	m := cvs[len(cvs)/2]
	if len(cvs)%2 == 0 {
		m = (cvs[len(cvs)/2-1] + m) / 2
	}
	return math.Round(m*1e4) / 1e4, len(cvs)
}

// Fit runs the coordinate descent from the start values (one per declared
// parameter, in order), the measured settings held fixed, then evaluates
// every pair at the values found.
func (e *Evaluator) Fit(ctx context.Context, measured []Setting, why []string, start []Setting) (*Result, error) {
	spec := e.Spec
	res := &Result{Spec: spec.File, Train: spec.Train, Measured: measured, Why: why}
	cache := map[string]float64{}
	train := func(cur []Setting) (float64, error) {
		key := fmt.Sprint(cur)
		if v, ok := cache[key]; ok {
			return v, nil
		}
		pairs, err := e.Evaluate(ctx, append(slices.Clone(res.Measured), cur...), spec.IsTrain)
		if err != nil {
			return 0, err
		}
		v := Mean(pairs)
		if math.IsNaN(v) {
			return 0, fmt.Errorf("fit: no training pair has a simulated point at %v (the declared training series, or the runs that stand for them, are missing)", cur)
		}
		cache[key] = v
		res.History = append(res.History, Step{Settings: slices.Clone(cur), Train: v})
		if e.Progress != nil {
			e.Progress(fmt.Sprintf("train MAPE %.2f%% at %v", v, cur))
		}
		return v, nil
	}
	cur := slices.Clone(start)
	best, err := train(cur)
	if err != nil {
		return nil, err
	}
	for pass := 0; pass < 3; pass++ {
		changed := false
		for i, p := range spec.Params {
			for _, v := range p.Values {
				try := slices.Clone(cur)
				try[i].Value = v
				m, err := train(try)
				if err != nil {
					return nil, err
				}
				if m < best {
					best, cur, changed = m, try, true
				}
			}
		}
		if !changed {
			break
		}
	}
	res.Fitted = cur
	all, err := e.Evaluate(ctx, res.Settings(), func(string) bool { return true })
	if err != nil {
		return nil, err
	}
	res.Pairs = all
	var tr, te []Pair
	for _, p := range all {
		if p.Train {
			tr = append(tr, p)
		} else {
			te = append(te, p)
		}
	}
	res.TrainMAPE, res.TestMAPE = Mean(tr), Mean(te)
	res.TrainTr, res.TestTr = MeanTransfers(tr), MeanTransfers(te)
	res.ModelVersion = sim.ModelVersion
	return res, nil
}

// Sensitivity evaluates every pair with each declared rule set to each of
// its alternatives, one at a time, the other settings at base.
func (e *Evaluator) Sensitivity(ctx context.Context, base []Setting) ([]SensitiveAt, error) {
	var out []SensitiveAt
	for _, s := range e.Spec.Sensitive {
		for _, v := range s.Values {
			set := Setting{Table: s.Table, Key: s.Key, Value: v}
			cur := append(slices.Clone(base), set)
			if e.Progress != nil {
				e.Progress(fmt.Sprintf("sensitivity: %v", set))
			}
			pairs, err := e.Evaluate(ctx, cur, func(string) bool { return true })
			if err != nil {
				return nil, err
			}
			out = append(out, SensitiveAt{Setting: set, Why: s.Why, Pairs: pairs})
		}
	}
	return out, nil
}

// WriteFitted writes the fitted values as the preset's fitted file, with
// how they were found.
func WriteFitted(path string, res *Result, spec *paper.FitSpec) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Fitted values of the %s preset, written by `%s`; do not edit by hand.\n", spec.Preset, res.Command)
	fmt.Fprintf(&b, "# They are not physical facts with a source: each is the value, among those %s declares,\n", spec.File)
	fmt.Fprintf(&b, "# that minimises the mean GFlop/s MAPE over the training series %s.\n", strings.Join(spec.Train, ", "))
	fmt.Fprintf(&b, "# Training: %.2f%% GFlop/s MAPE (%.2f%% transfers); test, every other series: %.2f%% (%.2f%% transfers).\n",
		res.TrainMAPE, res.TrainTr, res.TestMAPE, res.TestTr)
	fmt.Fprintf(&b, "# Each pair's error and the search history: %s.\n", spec.Results)
	tables := []string{"topology", "runtime"}
	for _, s := range res.Fitted {
		if strings.HasPrefix(s.Table, "kernel.") && !slices.Contains(tables, s.Table) {
			tables = append(tables, s.Table)
		}
	}
	for _, table := range tables {
		var lines []string
		for i, s := range res.Measured {
			if s.Table == table {
				lines = append(lines, fmt.Sprintf("%s = %s # measured: %s", s.Key, tomlValue(s.Value), res.Why[i]))
			}
		}
		for i, s := range res.Fitted {
			if s.Table == table {
				how := "fitted"
				if len(spec.Params[i].Values) == 1 {
					how = "declared, one value (not fitted)" // the descent had nothing to choose
				}
				lines = append(lines, fmt.Sprintf("%s = %s # %s: %s", s.Key, tomlValue(s.Value), how, spec.Params[i].Why))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n[%s]\n%s\n", table, strings.Join(lines, "\n"))
		}
	}
	return atomicfile.WriteFile(path, []byte(b.String()), 0o644)
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

// WriteResult writes the fit's record as indented JSON (NaN as null).
func WriteResult(path string, res *Result) error {
	clean(res)
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// clean replaces NaN (no measured transfers) by -1 so the JSON encodes.
func clean(res *Result) {
	fix := func(ps []Pair) {
		for i := range ps {
			if math.IsNaN(ps[i].TransfersMAPE) {
				ps[i].TransfersMAPE = -1
			}
		}
	}
	fix(res.Pairs)
	for i := range res.Sensitive {
		fix(res.Sensitive[i].Pairs)
	}
	for _, f := range []*float64{&res.TrainMAPE, &res.TestMAPE, &res.TrainTr, &res.TestTr} {
		if math.IsNaN(*f) {
			*f = -1
		}
	}
}
