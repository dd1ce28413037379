package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/fit"
	"github.com/memsched/memsched/paper"
)

func init() {
	register("fit", "fit a preset's uncertain parameters on declared training series; report training and test error and each rule's sensitivity", cmdFit)
}

func cmdFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", "DECLARATION.toml (e.g. paper/fit/v100-gemini.toml)", stderr)
	jobs := fs.Int("j", 0, "parallel runs (0: one per CPU)")
	sens := fs.Bool("sensitivity", true, "also run every declared rule's alternatives (the report's sensitivity section)")
	write := fs.Bool("write", true, "write the fitted values into the preset's fitted file and the record")
	ref := fs.String("reference", "paper/reference/gonthier-raw-results.csv", "the reference measurements")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("give one fit declaration (paper/fit/v100-gemini.toml), got %d arguments", fs.NArg())
	}
	pts, err := paper.LoadReference(*ref)
	if err != nil {
		return err
	}
	spec, err := paper.LoadFit(fs.Arg(0), pts)
	if err != nil {
		return err
	}
	p, err := hardware.Load(spec.Preset)
	if err != nil {
		return err
	}
	var start []fit.Setting
	for _, prm := range spec.Params {
		v, _ := p.Setting(prm.Table, prm.Key)
		if !declared(prm.Values, v) && len(prm.Values) > 0 {
			// The descent tries the declared values only, and keeps its start
			// when none does better: a start the declaration does not list (a
			// former fit's value, a kernel rate of 0) would survive undeclared.
			fmt.Fprintf(stderr, "fit: %s.%s = %v is not a declared value; starting from %v\n", prm.Table, prm.Key, v, prm.Values[0])
			v = prm.Values[0]
		}
		start = append(start, fit.Setting{Table: prm.Table, Key: prm.Key, Value: v})
	}
	gemm := p.Kernels["gemm"].GFlops
	cv, n := fit.MeasureDurationCV(pts, spec.IsTrain, gemm)
	measured := []fit.Setting{{Table: "runtime", Key: "duration_cv", Value: cv}}
	why := []string{fmt.Sprintf("median over the %d training points at >= 95%% of the %g GFlop/s peak loading every datum once of gflops_dev/gflops x sqrt(tasks per GPU) (fit.MeasureDurationCV)", n, gemm)}
	e, err := fit.NewEvaluator(spec, ".", *jobs)
	if err != nil {
		return err
	}
	e.Progress = func(s string) { fmt.Fprintln(stderr, "fit:", s) }
	ctx := context.Background()
	res, err := e.Fit(ctx, measured, why, start)
	if err != nil {
		return err
	}
	res.Command = "memsched fit " + strings.Join(args, " ")
	if *sens {
		if res.Sensitive, err = e.Sensitivity(ctx, res.Settings()); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "fitted on %s:\n", strings.Join(spec.Train, ", "))
	for _, s := range res.Measured {
		fmt.Fprintf(stdout, "  %s (measured)\n", s)
	}
	for _, s := range res.Fitted {
		fmt.Fprintf(stdout, "  %s\n", s)
	}
	fmt.Fprintf(stdout, "GFlop/s MAPE: training %.2f%%, test %.2f%% (transfers: %.2f%%, %.2f%%)\n", res.TrainMAPE, res.TestMAPE, res.TrainTr, res.TestTr)
	for _, pr := range res.Pairs {
		tag := "test"
		if pr.Train {
			tag = "train"
		}
		tr := "—"
		if !math.IsNaN(pr.TransfersMAPE) {
			tr = fmt.Sprintf("%.1f%%", pr.TransfersMAPE)
		}
		fmt.Fprintf(stdout, "  %-5s %-42s %-28s %6.1f%%  transfers %s\n", tag, pr.Figure, pr.Label, pr.MAPE, tr)
	}
	if !*write {
		return nil
	}
	if err := fit.WriteFitted(spec.Output, res, spec); err != nil {
		return err
	}
	if err := fit.WriteResult(spec.Results, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", spec.Output, spec.Results)
	return nil
}

// declared says v is one of a parameter's declared values (TOML integers
// compare as the float64 settings they set).
func declared(values []any, v any) bool {
	norm := func(x any) any {
		if i, ok := x.(int64); ok {
			return float64(i)
		}
		return x
	}
	for _, x := range values {
		if norm(x) == norm(v) {
			return true
		}
	}
	return false
}
