package fit

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/paper"
)

// The duration spread is the iterations' relative deviation times the
// square root of the tasks per GPU, on compute-bound training points that
// load every datum once; the median of those.
func TestMeasureDurationCV(t *testing.T) {
	pt := func(fig string, n int, gflops, dev, ws, transfers float64) paper.RefPoint {
		return paper.RefPoint{Figure: fig, N: n, GPUs: 1, GFlops: gflops, GFlopsDev: dev, WorkingSetMiB: ws, TransfersMB: 11 * transfers}
	}
	pts := []paper.RefPoint{
		pt("a", 10, 13000, 13, 100, 100),  // 0.001·10 = 0.01
		pt("a", 20, 13000, 39, 100, 104),  // 0.003·20 = 0.06
		pt("a", 40, 13000, 13, 100, 100),  // 0.001·40 = 0.04
		pt("a", 40, 13000, 999, 100, 300), // reloads: left out
		pt("a", 40, 9000, 999, 100, 100),  // below 95 % of peak: left out
		pt("b", 40, 13000, 999, 100, 100), // not training: left out
	}
	cv, n := MeasureDurationCV(pts, func(f string) bool { return f == "a" }, 13253)
	if n != 3 || math.Abs(cv-0.04) > 1e-12 {
		t.Errorf("cv = %g over %d points, want 0.04 over 3", cv, n)
	}
}

// The fitted file written by a fit loads over its preset.
func TestWriteFittedLoads(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fitted.toml")
	spec := &paper.FitSpec{File: "decl.toml", Preset: "v100-gemini", Results: "r.json", Train: []string{"x"},
		Params: []paper.FitParam{{Table: "topology", Key: "strided_gbps", Why: "w", Values: []any{8.0, 9.0}}, {Table: "runtime", Key: "op_seconds", Why: "w", Values: []any{3e-8}}, {Table: "kernel.potrf", Key: "seconds", Why: "w", Values: []any{0.02, 0.025}}}}
	res := &Result{Command: "memsched fit decl.toml", Measured: []Setting{{Table: "runtime", Key: "duration_cv", Value: 0.01}}, Why: []string{"m"},
		Fitted: []Setting{{Table: "topology", Key: "strided_gbps", Value: 8.0}, {Table: "runtime", Key: "op_seconds", Value: 3e-8}, {Table: "kernel.potrf", Key: "seconds", Value: 0.025}}}
	if err := WriteFitted(out, res, spec); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	main, err := os.ReadFile("../../hardware/presets/v100-gemini.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "p.toml"), []byte(strings.Replace(string(main), `fitted = "fitted/v100-gemini.toml"`, `fitted = "fitted.toml"`, 1)), 0o644)
	p, err := hardware.Load(filepath.Join(dir, "p.toml"))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if p.Topology.StridedGBps != 8 || p.Runtime.OpSeconds != 3e-8 || p.Runtime.DurationCV != 0.01 || p.Kernels["potrf"].Seconds != 0.025 {
		t.Errorf("loaded %+v %+v %+v from\n%s", p.Topology, p.Runtime, p.Kernels["potrf"], b)
	}
	// A value with one declared value was not chosen by the fit: the file
	// says so rather than calling it fitted.
	if !strings.Contains(string(b), "op_seconds = 3e-08 # declared, one value (not fitted): w") || !strings.Contains(string(b), "strided_gbps = 8 # fitted: w") {
		t.Errorf("fitted file does not tell fitted from held values:\n%s", b)
	}
}
