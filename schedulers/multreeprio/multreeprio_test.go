package multreeprio_test

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/multreeprio"
	"github.com/memsched/memsched/workloads"
)

func platform(t *testing.T, preset string, cpus, gpus int) *hardware.Platform {
	t.Helper()
	p, err := hardware.Load(preset)
	if err != nil {
		t.Fatal(err)
	}
	p.CPUs, p.GPUs = cpus, gpus
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func gen(t *testing.T, s workloads.Spec) *workloads.Workload {
	t.Helper()
	w, err := workloads.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// run simulates a configuration, validates its trace and returns the
// record and the task start order.
func run(t *testing.T, w *workloads.Workload, p *hardware.Platform, sched string, params map[string]string) (memrun.Record, []int) {
	t.Helper()
	var events []event.Event
	rec, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Params: params, Seed: 3,
		Trace: func(e event.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatalf("%s: %v", sched, err)
	}
	tr := &trace.Trace{Header: trace.Header{Platform: p}, Events: events, Result: &rec}
	if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Fatalf("%s: %d violations, first: %s", sched, len(bad), strings.Join(bad[:min(3, len(bad))], "; "))
	}
	var order []int
	for _, e := range events {
		if e.Ev == "task_start" {
			order = append(order, e.Task)
		}
	}
	return rec, order
}

// newScheduler builds a scheduler on a prepared engine, as the engine's
// Begin does, so its scores can be read.
func newScheduler(t *testing.T, w *workloads.Workload, p *hardware.Platform, name string) *multreeprio.Scheduler {
	t.Helper()
	sch, _, _, err := schedulers.Build(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := sim.New(sim.Config{Workload: w, Platform: p, Scheduler: sch, Buffer: 1, Pipeline: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := sch.(*multreeprio.Scheduler)
	if err := s.Init(e); err != nil {
		t.Fatal(err)
	}
	return s
}

// seeds_003_004.md §D.3: B3 on Cholesky's first test case is 1 − 1/σ:
// GEMM 1 − 1/7, SYRK 1 − 0.3/1.3, POTRF 1 − 0.35/1.2, TRSM 1 − 0.3/1.0 in
// a GPU's tree, which alone orders them as HeteroPrio's GPU priorities
// (GEMM, SYRK, POTRF, TRSM); 0 in the CPUs' tree, where σ = 1.
func TestB3CholeskyTC1(t *testing.T) {
	w := gen(t, workloads.Spec{Kind: workloads.KindCholesky, N: 4, Deps: true})
	p := platform(t, "compas2022-tc1", 16, 4)
	s := newScheduler(t, w, p, "multreeprio")
	want := map[string]float64{"gemm": 1 - 1.0/7, "syrk": 1 - 0.3/1.3, "potrf": 1 - 0.35/1.2, "trsm": 1 - 0.3/1.0}
	gpuTree, cpuTree := -1, -1
	for g, n := range s.Groups() {
		if n == p.HomeNode() {
			cpuTree = g
		} else if gpuTree < 0 {
			gpuTree = g
		}
	}
	seen := map[string]float64{}
	for i, task := range w.Tasks {
		terms := s.TermsOf(i)
		if got := terms[gpuTree].B[2]; math.Abs(got-want[task.Kernel]) > 1e-12 {
			t.Errorf("%s: B3 on a GPU = %.4f, want %.4f", task.Kernel, got, want[task.Kernel])
		}
		if got := terms[cpuTree].B[2]; got != 0 {
			t.Errorf("%s: B3 on the CPUs = %g, want 0", task.Kernel, got)
		}
		seen[task.Kernel] = terms[gpuTree].B[2]
		for g, tm := range terms {
			if sc := tm.Score(false); sc < 0 || sc > 1 {
				t.Errorf("task %d node %d: score %g outside [0, 1]", i, g, sc)
			}
		}
	}
	kinds := []string{"gemm", "syrk", "potrf", "trsm"}
	if !slices.IsSortedFunc(kinds, func(a, b string) int {
		switch {
		case seen[a] > seen[b]:
			return -1
		case seen[a] < seen[b]:
			return 1
		}
		return 0
	}) {
		t.Errorf("B3 orders %v, not as HeteroPrio's GPU priorities", seen)
	}
}

// Hand-checked: one CPU, one GPU, a TRSM then a GEMM ready at once (first
// test case). In the GPU's tree the TRSM scores higher: B3 0.7 + B4 1 (the
// longest GPU task so far, at the best speedup) against the GEMM's
// 0.857 + 0.1/0.3; the GPU takes it. The CPU's best is then the GEMM (0.7
// on a CPU), but the speedup-factor heuristic sees the GPU's remaining
// work, 0.3 running + 0.1 ready, below it and makes it wait: the GPU runs
// both, makespan 0.4. Without the heuristic the CPU runs the GEMM:
// makespan 0.7.
func TestSpeedupFilterHandChecked(t *testing.T) {
	w := &workloads.Workload{Name: "gemm+trsm", Data: []workloads.Data{{ID: 0, Bytes: 8}, {ID: 1, Bytes: 8}},
		Tasks: []workloads.Task{{ID: 0, Kernel: "trsm", Inputs: []int{0}}, {ID: 1, Kernel: "gemm", Inputs: []int{1}}}}
	p := platform(t, "compas2022-tc1", 1, 1)
	rec, order := run(t, w, p, "multreeprio", nil)
	if math.Abs(rec.MakespanS-0.4) > 1e-12 || !reflect.DeepEqual(rec.PerWorker, []int{2, 0}) || !slices.Equal(order, []int{0, 1}) {
		t.Errorf("with the heuristic: makespan %g, per worker %v, order %v; want 0.4, [2 0], [0 1]", rec.MakespanS, rec.PerWorker, order)
	}
	rec, _ = run(t, w, p, "multreeprio", map[string]string{"speedup_filter": "false"})
	if math.Abs(rec.MakespanS-0.7) > 1e-12 || !reflect.DeepEqual(rec.PerWorker, []int{1, 1}) {
		t.Errorf("without: makespan %g, per worker %v; want 0.7, [1 1]", rec.MakespanS, rec.PerWorker)
	}
}

// Hand-checked list schedule of the critical-path scheduler: POTRF (1.2 on
// a CPU) → TRSM (1.0) and an independent GEMM (0.7) on one CPU core. The
// path POTRF-TRSM is critical (length 2.2); GEMM may start as late as 1.5
// and TRSM as late as 1.2, so after POTRF the core runs TRSM, then GEMM.
func TestCriticalPathHandChecked(t *testing.T) {
	w := &workloads.Workload{Name: "chain", Data: []workloads.Data{{ID: 0, Bytes: 8}, {ID: 1, Bytes: 8}},
		Tasks: []workloads.Task{
			{ID: 0, Kernel: "potrf", Inputs: []int{0}},
			{ID: 1, Kernel: "gemm", Inputs: []int{1}},
			{ID: 2, Kernel: "trsm", Inputs: []int{0}},
		},
		Modes: [][]workloads.Mode{{workloads.RW}, nil, {workloads.RW}},
		Deps:  [][]int{nil, nil, {0}}}
	p := platform(t, "compas2022-tc1", 1, 0)
	rec, order := run(t, w, p, "critical-path", nil)
	if !slices.Equal(order, []int{0, 2, 1}) || math.Abs(rec.MakespanS-2.9) > 1e-12 {
		t.Errorf("order %v makespan %g; want [0 2 1] and 2.9", order, rec.MakespanS)
	}
	c := w.Analyse(func(i int) float64 { return []float64{1.2, 0.7, 1.0}[i] })
	if near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }; !near(c.Length, 2.2) || !near(c.LST[1], 1.5) || !near(c.LST[2], 1.2) {
		t.Errorf("critical path %+v", c)
	}
}

// Every scheduler of the paper completes the three applications on the
// three configurations with valid traces, identically on a second run.
func TestApplicationsRunAndRepeat(t *testing.T) {
	apps := []workloads.Spec{
		{Kind: workloads.KindCholesky, N: 6, Deps: true},
		{Kind: workloads.KindTree, N: 2},
		{Kind: workloads.KindFMM, N: 3, Opts: "group=16"},
	}
	for _, cfg := range [][2]int{{16, 4}, {18, 10}, {20, 50}} {
		p := platform(t, "compas2022-tc2", cfg[0], cfg[1])
		for _, a := range apps {
			w := gen(t, a)
			cp := w.Analyse(func(i int) float64 {
				sec := math.Inf(1)
				for _, k := range []string{hardware.CPU, hardware.GPU} {
					if v, ok, _ := p.KernelSeconds(w.Tasks[i].Kernel, k, 0); ok {
						sec = min(sec, v)
					}
				}
				return sec
			}).Length
			for _, s := range []string{"multreeprio", "multreeprio+cp", "critical-path"} {
				r1, _ := run(t, w, p, s, nil)
				r2, _ := run(t, w, p, s, nil)
				if r1.MakespanS != r2.MakespanS || !reflect.DeepEqual(r1.PerWorker, r2.PerWorker) {
					t.Errorf("%s on %s: two runs differ", s, w.Name)
				}
				if r1.MakespanS < cp*(1-1e-12) {
					t.Errorf("%s on %s: makespan %g below the critical path %g", s, w.Name, r1.MakespanS, cp)
				}
			}
		}
	}
}

// Hand-checked degree of criticality in MulTreePrio+CP: on one GPU, the
// chain GEMM (0.1) → POTRF (0.35) → POTRF (0.35) is the critical path
// (0.8), whose tasks' bonuses B6 = 1 − LST/0.8 are 1, 0.875 and 0.4375; an
// independent TRSM (0.3) may start as late as 0.5: 0.375. Static scores
// use the whole DAG's maxima and no starving terms: B2 = P1 = 0.
func TestCriticalityBonus(t *testing.T) {
	rw := []workloads.Mode{workloads.RW}
	w := &workloads.Workload{Name: "cp", Data: []workloads.Data{{ID: 0, Bytes: 8}, {ID: 1, Bytes: 8}},
		Tasks: []workloads.Task{
			{ID: 0, Kernel: "gemm", Inputs: []int{0}},
			{ID: 1, Kernel: "trsm", Inputs: []int{1}},
			{ID: 2, Kernel: "potrf", Inputs: []int{0}},
			{ID: 3, Kernel: "potrf", Inputs: []int{0}},
		},
		Modes: [][]workloads.Mode{rw, rw, rw, rw},
		Deps:  [][]int{nil, nil, {0}, {2}}}
	p := platform(t, "compas2022-tc1", 0, 1)
	s := newScheduler(t, w, p, "multreeprio+cp")
	for task, want := range map[int]float64{0: 1, 1: 0.375, 2: 0.875, 3: 0.4375} {
		tm := s.TermsOf(task)[0]
		if math.Abs(tm.B[5]-want) > 1e-12 || tm.B[1] != 0 || tm.P1 != 0 {
			t.Errorf("task %d: B6 %g (want %g), B2 %g, P1 %g", task, tm.B[5], want, tm.B[1], tm.P1)
		}
	}
	// One GPU: σ = 1 for every task, so B3 = B4 = 0; B1 = 1 − e^−⌊1·1⌋ for
	// the GEMM (releases the most work), B5 = 1 (NOD 1 of 1).
	g := s.TermsOf(0)[0]
	if math.Abs(g.B[0]-(1-math.Exp(-1))) > 1e-12 || g.B[2] != 0 || g.B[3] != 0 || g.B[4] != 1 {
		t.Errorf("GEMM terms %+v", g)
	}
	if sc := g.Score(true); math.Abs(sc-(1-math.Exp(-1)+1+1+1)/7) > 1e-12 {
		t.Errorf("GEMM score %g", sc)
	}
	_, order := run(t, w, p, "multreeprio+cp", nil)
	if !slices.Equal(order, []int{0, 2, 3, 1}) {
		t.Errorf("order %v: the critical chain first", order)
	}
}
