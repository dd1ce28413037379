package heteroprio_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/trace"
	_ "github.com/memsched/memsched/schedulers/heteroprio"
	"github.com/memsched/memsched/workloads"
)

func platform(t *testing.T, preset string, cpus, gpus int) *hardware.Platform {
	t.Helper()
	p, err := hardware.Load(preset)
	if err != nil {
		t.Fatal(err)
	}
	p.CPUs, p.GPUs = cpus, gpus
	p.Runtime.DurationCV = 0
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, w *workloads.Workload, p *hardware.Platform, sched string, params map[string]string) memrun.Record {
	t.Helper()
	var events []event.Event
	rec, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Params: params, Seed: 5,
		Trace: func(e event.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatalf("%s: %v", sched, err)
	}
	tr := &trace.Trace{Header: trace.Header{Platform: p}, Events: events, Result: &rec}
	if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Fatalf("%s: %d violations, first: %s", sched, len(bad), strings.Join(bad[:min(3, len(bad))], "; "))
	}
	return rec
}

func independent(kernel string, n int) *workloads.Workload {
	w := &workloads.Workload{Name: kernel}
	for i := 0; i < n; i++ {
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: 8})
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: kernel, Inputs: []int{i}})
	}
	return w
}

// The speedup factors on a real bucket: GEMM is 7 times faster on the
// GPU (first test case), so with one GPU a CPU worker takes a GEMM only
// while the bucket holds 7 or more (heteroprio.c: ntasks/nworkers(fastest)
// ≥ slow factor). With 8 GEMMs the GPU takes one, the CPU then sees 7 and
// takes one, the GPU runs the other 6: makespan 0.7. With 7 the CPU sees 6
// after the GPU's first pop and never takes one: the GPU runs all 7.
func TestSpeedupFactorsOnABucket(t *testing.T) {
	p := platform(t, "compas2022-tc1", 1, 1)
	params := map[string]string{"max_prefetch": "1"}
	rec := run(t, independent("gemm", 8), p, "heteroprio", params)
	if !reflect.DeepEqual(rec.PerWorker, []int{7, 1}) || math.Abs(rec.MakespanS-0.7) > 1e-12 {
		t.Errorf("8 GEMMs: per worker %v makespan %g, want [7 1] and 0.7", rec.PerWorker, rec.MakespanS)
	}
	rec = run(t, independent("gemm", 7), p, "heteroprio", params)
	if !reflect.DeepEqual(rec.PerWorker, []int{7, 0}) {
		t.Errorf("7 GEMMs: per worker %v, want [7 0]", rec.PerWorker)
	}
	params["speedup_factors"] = "off"
	rec = run(t, independent("gemm", 7), p, "heteroprio", params)
	if !reflect.DeepEqual(rec.PerWorker, []int{6, 1}) {
		t.Errorf("7 GEMMs without speedup factors: per worker %v, want [6 1]", rec.PerWorker)
	}
}

// Each kind visits its buckets in its own order (COMPAS 2022 Table 2, first
// test case: the CPU TRSM first, the GPU GEMM first), whatever the
// submission order.
func TestPrioritiesPerKind(t *testing.T) {
	w := &workloads.Workload{Name: "mix", Data: []workloads.Data{{ID: 0, Bytes: 8}, {ID: 1, Bytes: 8}},
		Tasks: []workloads.Task{{ID: 0, Kernel: "trsm", Inputs: []int{0}}, {ID: 1, Kernel: "gemm", Inputs: []int{1}}}}
	p := platform(t, "compas2022-tc1", 1, 1)
	params := map[string]string{"max_prefetch": "1", "speedup_factors": "off", "priorities": "cpu=trsm,potrf,syrk,gemm;gpu=gemm,syrk,potrf,trsm"}
	rec := run(t, w, p, "heteroprio", params)
	if !reflect.DeepEqual(rec.PerWorker, []int{1, 1}) || math.Abs(rec.MakespanS-1.0) > 1e-12 {
		t.Errorf("per worker %v makespan %g; want the GPU's GEMM and the CPU's TRSM, 1.0", rec.PerWorker, rec.MakespanS)
	}
	params["priorities"] = "cpu=gemm,trsm;gpu=trsm,gemm"
	rec = run(t, w, p, "heteroprio", params)
	if math.Abs(rec.MakespanS-0.7) > 1e-12 {
		t.Errorf("reversed priorities: makespan %g, want 0.7 (GPU TRSM 0.3, CPU GEMM 0.7)", rec.MakespanS)
	}
	for _, bad := range []string{"cpu=trsm;gpu=gemm,foo", "cpu=trsm;gpu=gemm,gemm", "cpu=trsm", "npu=gemm,trsm", "cpu=gemm;cpu=trsm"} {
		params["priorities"] = bad
		if _, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: "heteroprio", Params: params}); err == nil {
			t.Errorf("priorities %q accepted", bad)
		}
	}
}

// Hand-checked LAHeteroprio on one CPU and two P100s (pipeline of one
// task), ldlt_update tasks
// (GPU 123 times faster, so the CPU never takes one): T0 updates a, T1
// updates b (both submitted by the application, so pushed to main memory's
// list where a and b are), then T2 reads a and updates c, T3 reads b and
// updates e (e smaller than b). Each GPU steals one of T0, T1 from main
// memory's list; LS_SDH then pushes T2 and T3 to the list of the GPU
// holding a or b, whose worker takes it: two tasks per GPU, half of the
// tasks stolen, no push/pop difference. LaRU pushes T0 and T1 to main
// memory (the submitter's node) and T2, T3 to the releasing GPU: the BMD,
// the share popped on another node than pushed, is 50%.
func TestLAHandChecked(t *testing.T) {
	big, small := int64(8<<20), int64(1<<20)
	w := &workloads.Workload{Name: "la", Data: []workloads.Data{{ID: 0, Bytes: big}, {ID: 1, Bytes: big}, {ID: 2, Bytes: small}, {ID: 3, Bytes: small}}}
	rw, r := workloads.RW, workloads.R
	w.Tasks = []workloads.Task{
		{ID: 0, Kernel: "ldlt_update", Flops: 1e9, Inputs: []int{0}},
		{ID: 1, Kernel: "ldlt_update", Flops: 1e9, Inputs: []int{1}},
		{ID: 2, Kernel: "ldlt_update", Flops: 1e9, Inputs: []int{0, 2}},
		{ID: 3, Kernel: "ldlt_update", Flops: 1e9, Inputs: []int{1, 3}},
	}
	w.Modes = [][]workloads.Mode{{rw}, {rw}, {r, rw}, {r, rw}}
	w.Deps = [][]int{nil, nil, {0}, {1}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	p := platform(t, "plafrim-p100", 1, 2)
	p.Runtime.Pipeline = 1 // one task per GPU at a time, so that each takes one of T0, T1
	for _, c := range []struct {
		dlaf string
		bmd  float64
	}{{"ls_sdh", 0}, {"laru", 50}} {
		rec := run(t, w, p, "laheteroprio", map[string]string{"dlaf": c.dlaf})
		if !reflect.DeepEqual(rec.PerWorker, []int{2, 2, 0}) {
			t.Errorf("%s: per worker %v, want [2 2 0]", c.dlaf, rec.PerWorker)
		}
		if got := rec.SchedStats["bmd_pct"]; got != c.bmd {
			t.Errorf("%s: BMD %g%%, want %g%%", c.dlaf, got, c.bmd)
		}
		if got := rec.SchedStats["stolen_pct"]; got != 50 {
			t.Errorf("%s: %g%% stolen, want 50%%", c.dlaf, got)
		}
		// T2 and T3 run where a and b are: nothing but the first loads and
		// the final write-backs cross the bus.
		if rec.BytesH2D != 2*big+2*small {
			t.Errorf("%s: %d bytes host→GPU, want %d", c.dlaf, rec.BytesH2D, 2*big+2*small)
		}
	}
}

// Every formula and both schedulers run the PeerJ applications with valid
// traces, and the same configuration gives the same record twice.
func TestApplicationsRunAndRepeat(t *testing.T) {
	p, err := hardware.Load("plafrim-k40")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs, p.CPUs = 2, 22
	apps := []workloads.Spec{
		{Kind: workloads.KindQRMumps, N: 2, Tile: 512, Opts: "root_cols=6"},
		{Kind: workloads.KindSpLDLT, N: 6},
		{Kind: workloads.KindStencil, N: 8, Opts: "iterations=4,size=256"},
	}
	for _, a := range apps {
		w, err := workloads.Generate(a)
		if err != nil {
			t.Fatal(err)
		}
		cases := []map[string]string{nil}
		for _, f := range []string{"auto", "laru", "mc_starpu", "ls_sdh", "ls_sdh2", "ls_sdhb", "lc_smwb"} {
			cases = append(cases, map[string]string{"dlaf": f})
		}
		cases = append(cases, map[string]string{"l_cpu": "2", "l_gpu": "1", "s_gpu": "-1", "prio_distance": "starpu"},
			map[string]string{"auto_ties": "keep", "ignore_everywhere": "all", "factor_rule": "gt", "bucket_order": "fifo"})
		for i, params := range cases {
			sched := "laheteroprio"
			if i == 0 {
				sched = "heteroprio"
			}
			r1 := run(t, w, p, sched, params)
			r2 := run(t, w, p, sched, params)
			if r1.MakespanS != r2.MakespanS || r1.BytesH2D != r2.BytesH2D || !reflect.DeepEqual(r1.SchedStats, r2.SchedStats) {
				t.Errorf("%s %v on %s: two runs differ", sched, params, w.Name)
			}
		}
	}
}
