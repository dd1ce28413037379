//go:build linux && (amd64 || arm64)

package cudaexec

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/hardware/cuda"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// The CPU fake of libcudart/libcublas, built once for the package; fakeErr
// is set (and the tests skip) where gcc is missing.
var fakeErr error

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "memsched-cudaexec-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rt, blas, err := cuda.BuildFake(dir)
	if err != nil {
		fakeErr = err
	} else {
		os.Setenv(cuda.EnvCudart, rt)
		os.Setenv(cuda.EnvCublas, blas)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fake sets the fake's knobs (others back to their defaults, two devices).
func fake(t *testing.T, knobs map[string]string) {
	t.Helper()
	if fakeErr != nil {
		t.Skipf("no CUDA fake (gcc needed): %v", fakeErr)
	}
	for _, k := range []string{"DEVICES", "INIT_ERROR", "MEM_MIB", "NAME", "SMS", "RUNTIME_VERSION",
		"DRIVER_VERSION", "GFLOPS", "GBPS", "D2D_GBPS", "LAUNCH_US", "LOAD_US", "VIRTUAL"} {
		t.Setenv("FAKE_CUDA_"+k, knobs[k])
	}
	if knobs["DEVICES"] == "" {
		t.Setenv("FAKE_CUDA_DEVICES", "2")
	}
}

// Virtual-time rates of the fake, and the platform that models them.
const (
	fakeGBps   = 2.0    // 4 KiB data: 2048 ns per copy
	fakeGFlops = 16.384 // 16x16x64 SGEMM: 2 µs
)

func virtual(t *testing.T) {
	fake(t, map[string]string{"VIRTUAL": "1", "GBPS": fmt.Sprint(fakeGBps), "GFLOPS": fmt.Sprint(fakeGFlops)})
}

// modelOfFake is privateLinks with the fake's rates for every kernel.
func modelOfFake(t testing.TB, gpus int, memBytes int64) *hardware.Platform {
	p := privateLinks(t, gpus, memBytes)
	p.Topology.GPULinkGBps = fakeGBps
	for k := range p.Kernels {
		p.Kernels[k] = hardware.Kernel{Rate: hardware.Rate{GFlops: fakeGFlops}}
	}
	p.Kernels["getrf"] = hardware.Kernel{Rate: hardware.Rate{GFlops: fakeGFlops}}
	return p
}

type outcome struct {
	st     *sim.Stats
	device string
	events []event.Event
}

func execute(t *testing.T, w *workloads.Workload, p *hardware.Platform, sched string, opt Options) outcome {
	t.Helper()
	s, buf := build(t, sched, p)
	var o outcome
	var err error
	o.st, o.device, err = RunWith(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf,
		Pipeline: p.Runtime.Pipeline, Seed: 1, Trace: func(e event.Event) { o.events = append(o.events, e) }}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// checkTrace verifies what the brief asks of every run: each task exactly
// once, memory never above the cap, and a trace that trace.Validate
// accepts against the workload and platform.
func checkTrace(t *testing.T, w *workloads.Workload, p *hardware.Platform, o outcome) {
	t.Helper()
	runs := make([]int, len(w.Tasks))
	used := make([]int64, p.GPUs)
	for _, ev := range o.events {
		switch ev.Ev {
		case "task_start":
			runs[ev.Task]++
		case "load_start":
			used[ev.Worker] += ev.Bytes
			if used[ev.Worker] > p.MemoryBytes {
				t.Fatalf("t=%g: gpu%d holds %d bytes, over the %d-byte cap", ev.T, ev.Worker, used[ev.Worker], p.MemoryBytes)
			}
		case "evict":
			used[ev.Worker] -= ev.Bytes
		}
	}
	for i, n := range runs {
		if n != 1 {
			t.Fatalf("task %d ran %d times", i, n)
		}
	}
	if o.st.Tasks != len(w.Tasks) {
		t.Fatalf("stats count %d tasks of %d", o.st.Tasks, len(w.Tasks))
	}
	st := o.st
	rec := run.Record{Loads: st.Loads, Prefetches: st.Prefetches, Fetches: st.Fetches, Evictions: st.Evictions,
		WriteBacks: st.WriteBacks, Invalid: st.Invalidations, PopMissing: st.PopMissing, Tasks: st.Tasks, PerWorker: st.PerWorker,
		BytesH2D: st.BytesH2D, BytesD2D: st.BytesD2D, BytesD2H: st.BytesD2H, MakespanS: st.Makespan, GFlops: st.Flops / st.Makespan / 1e9}
	rec.GPUs, rec.MemoryBytes, rec.Workload = p.GPUs, p.MemoryBytes, w.Name
	tr := &trace.Trace{Header: trace.Header{Ev: "run", Platform: p}, Events: o.events, Result: &rec}
	if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Fatalf("trace.Validate: %d violations, first: %s", len(bad), strings.Join(bad[:min(5, len(bad))], "; "))
	}
}

func TestRunCompletesOnFake(t *testing.T) {
	virtual(t)
	tile := 16
	cases := []struct {
		name string
		spec workloads.Spec
		gpus int
		mem  int64 // in data of the workload's size
	}{
		{"2d", workloads.Spec{Kind: "matmul2d", N: 6, Tile: tile, Z: 4 * tile}, 1, 4},
		{"2d-2gpu", workloads.Spec{Kind: "matmul2d", N: 6, Tile: tile, Z: 4 * tile}, 2, 4},
		{"random-2gpu", workloads.Spec{Kind: "randompairs", N: 6, Tile: tile, Z: 4 * tile, Seed: 5}, 2, 3},
		{"3d-deps", workloads.Spec{Kind: "matmul3d", N: 3, Tile: tile, Deps: true}, 2, 5},
		{"cholesky-deps", workloads.Spec{Kind: "cholesky", N: 4, Tile: tile, Deps: true}, 2, 4},
		{"lu-deps", workloads.Spec{Kind: "lu", N: 3, Tile: tile, Deps: true}, 1, 4},
		// Room for one task's inputs only: fetches for the oldest popped
		// task must evict data of younger ones (the last resort).
		{"2d-tightest", workloads.Spec{Kind: "matmul2d", N: 5, Tile: tile, Z: 4 * tile}, 2, 2},
		{"cholesky-tightest", workloads.Spec{Kind: "cholesky", N: 4, Tile: tile, Deps: true}, 2, 3},
	}
	for _, c := range cases {
		for _, sched := range []string{"eager", "dmdar"} {
			t.Run(c.name+"/"+sched, func(t *testing.T) {
				w := mustGen(t, c.spec)
				p := modelOfFake(t, c.gpus, c.mem*w.Data[0].Bytes+w.DeviceBytes) // c.mem data beside the 2D C tile (Workload.DeviceBytes)
				o := execute(t, w, p, sched, Options{})
				checkTrace(t, w, p, o)
				if o.st.Evictions == 0 && c.spec.Kind != "matmul3d" {
					t.Errorf("no eviction: the case does not exercise the memory cap")
				}
				if !strings.Contains(o.device, "Fake GPU") || !strings.Contains(o.device, "CUDA runtime 12.8") {
					t.Errorf("device description %q lacks the GPU model or CUDA version", o.device)
				}
			})
		}
	}
}

// TestRealTimeFake runs on the fake's monotonic clock (no virtual time):
// the host loop must cope with completions it cannot order in advance.
func TestRealTimeFake(t *testing.T) {
	fake(t, nil)
	w := mustGen(t, workloads.Spec{Kind: "randompairs", N: 6, Tile: 16, Z: 64, Seed: 2})
	p := modelOfFake(t, 2, 3*w.Data[0].Bytes)
	for _, sched := range []string{"eager", "dmdar"} {
		o := execute(t, w, p, sched, Options{})
		if o.st.Tasks != len(w.Tasks) || o.st.Makespan <= 0 {
			t.Fatalf("%s: %d of %d tasks, makespan %g", sched, o.st.Tasks, len(w.Tasks), o.st.Makespan)
		}
	}
}

// TestNumerics checks every task's C tile against a CPU product of the
// same deterministic inputs (tile 8, z 16: exact in float32), for the 2D
// shape and the 3D one.
func TestNumerics(t *testing.T) {
	fake(t, nil)
	for _, spec := range []workloads.Spec{
		{Kind: "matmul2d", N: 3, Tile: 8, Z: 16},
		{Kind: "matmul3d", N: 2, Tile: 8, Deps: true},
	} {
		w := mustGen(t, spec)
		p := modelOfFake(t, 2, 3*w.Data[0].Bytes)
		got := map[int][]float32{}
		execute(t, w, p, "dmdar", Options{Output: func(task, m, n int, c []float32) {
			if m != 8 || n != 8 {
				t.Errorf("task %d: C is %dx%d, want 8x8", task, m, n)
			}
			got[task] = c
		}})
		if len(got) != len(w.Tasks) {
			t.Fatalf("%s: %d C tiles for %d tasks", spec.Kind, len(got), len(w.Tasks))
		}
		for _, task := range w.Tasks {
			a, b := task.Inputs[0], task.Inputs[1]
			m, n := 8, 8
			k := int(w.Data[a].Bytes / 4 / int64(m))
			for j := 0; j < n; j++ {
				for i := 0; i < m; i++ {
					var want float32
					for l := 0; l < k; l++ {
						want += fillValue(a, i+l*m) * fillValue(b, l+j*k)
					}
					if c := got[task.ID][i+j*m]; c != want {
						t.Fatalf("%s task %d: C[%d,%d] = %g, want %g", spec.Kind, task.ID, i, j, c, want)
					}
				}
			}
		}
	}
}

// TestMakespanMatchesSim: on the fake's virtual clock with the platform's
// rates, the executor and the simulator make the same decisions on the
// same model. With rates that make every operation a whole number of
// nanoseconds the traces are the same events at the same times; with
// others the fake rounds each operation to the nanosecond, which can flip
// the simulator's exact ties, so only the makespans are compared (1%).
func TestMakespanMatchesSim(t *testing.T) {
	for _, exact := range []bool{true, false} {
		gbps, gflops := fakeGBps, fakeGFlops // 4 KiB copy: 2048 ns, SGEMM: 2000 ns
		if !exact {
			gbps, gflops = 3, 20 // 1365.33 ns, 1638.4 ns
		}
		fake(t, map[string]string{"VIRTUAL": "1", "GBPS": fmt.Sprint(gbps), "GFLOPS": fmt.Sprint(gflops)})
		for _, gpus := range []int{1, 2} {
			for _, sched := range []string{"eager", "dmdar"} {
				w := mustGen(t, workloads.Spec{Kind: "matmul2d", N: 10, Tile: 16, Z: 64})
				p := modelOfFake(t, gpus, 6*w.Data[0].Bytes)
				p.Topology.GPULinkGBps = gbps
				p.Kernels["gemm"] = hardware.Kernel{Rate: hardware.Rate{GFlops: gflops}}
				var want []event.Event
				s, buf := build(t, sched, p)
				st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf, Pipeline: p.Runtime.Pipeline,
					Seed: 1, Trace: func(e event.Event) { want = append(want, e) }})
				if err != nil {
					t.Fatal(err)
				}
				got := execute(t, w, p, sched, Options{})
				checkTrace(t, w, p, got)
				rel := got.st.Makespan/st.Makespan - 1
				t.Logf("2D n=10, %d GPU, %s, %g GB/s, %g GFlop/s: sim %.6g s (%d loads, %d evictions), cuda on fake %.6g s (%d loads, %d evictions), %+.4f%%",
					gpus, sched, gbps, gflops, st.Makespan, st.Loads, st.Evictions, got.st.Makespan, got.st.Loads, got.st.Evictions, 100*rel)
				if math.Abs(rel) > 0.01 {
					t.Errorf("%d GPU, %s: makespan %g on the fake vs %g simulated", gpus, sched, got.st.Makespan, st.Makespan)
				}
				if !exact {
					continue
				}
				if math.Abs(rel) > 1e-6 || got.st.Loads != st.Loads || got.st.Evictions != st.Evictions || fmt.Sprint(got.st.PerWorker) != fmt.Sprint(st.PerWorker) {
					t.Errorf("%d GPU, %s: stats differ: fake %+v, sim %+v", gpus, sched, *got.st, *st)
				}
				if d := diffEvents(want, got.events); d != "" {
					t.Errorf("%d GPU, %s: traces differ: %s", gpus, sched, d)
				}
			}
		}
	}
}

// TestKernelLoadingBeforeTheClock: CUDA loads cuBLAS's kernels at their
// first launch on a device (77-104 ms on an H100 with CUDA 13.0, 500 times
// a 2D task). The executor warms up before its origin, so a run's makespan
// is the simulator's even when the fake charges a whole second for it.
func TestKernelLoadingBeforeTheClock(t *testing.T) {
	fake(t, map[string]string{"VIRTUAL": "1", "GBPS": fmt.Sprint(fakeGBps), "GFLOPS": fmt.Sprint(fakeGFlops), "LOAD_US": "1000000"})
	w := mustGen(t, workloads.Spec{Kind: "matmul2d", N: 6, Tile: 16, Z: 64})
	for _, gpus := range []int{1, 2} {
		p := modelOfFake(t, gpus, 4*w.Data[0].Bytes)
		s, buf := build(t, "eager", p)
		st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf, Pipeline: p.Runtime.Pipeline, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cuda.Open()
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.ResetFake(); err != nil { // the kernels unloaded
			t.Fatal(err)
		}
		got := execute(t, w, p, "eager", Options{})
		if math.Abs(got.st.Makespan/st.Makespan-1) > 1e-6 {
			t.Errorf("%d GPU: makespan %g s on the fake, %g s simulated: the kernels' loading is inside the clock", gpus, got.st.Makespan, st.Makespan)
		}
	}
}

// diffEvents compares two traces as multisets of events with times
// rounded to the nanosecond (equal-time events may come in another order).
func diffEvents(want, got []event.Event) string {
	key := func(e event.Event) event.Event { e.T = math.Round(e.T * 1e9); return e }
	count := map[event.Event]int{}
	for _, e := range want {
		count[key(e)]++
	}
	for _, e := range got {
		count[key(e)]--
	}
	for e, n := range count {
		if n != 0 {
			return fmt.Sprintf("%+v occurs %+d times more in the simulator's trace (%d vs %d events)", e, n, len(want), len(got))
		}
	}
	return ""
}

func TestRunErrorsOnFake(t *testing.T) {
	w := mustGen(t, workloads.Spec{Kind: "matmul2d", N: 3, Tile: 8, Z: 16})
	try := func(knobs map[string]string, p *hardware.Platform) error {
		fake(t, knobs)
		s, buf := build(t, "eager", p)
		_, _, err := Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf, Pipeline: 1})
		if err == nil {
			t.Fatal("no error")
		}
		return err
	}
	err := try(map[string]string{"DEVICES": "0"}, modelOfFake(t, 1, 1<<20))
	if !strings.Contains(err.Error(), "no CUDA GPU found") || !strings.Contains(err.Error(), "--executor sim") {
		t.Errorf("no device: %v", err)
	}
	err = try(nil, modelOfFake(t, 3, 1<<20))
	if !strings.Contains(err.Error(), "asks for 3 GPUs but CUDA sees 2") {
		t.Errorf("too many GPUs: %v", err)
	}
	err = try(map[string]string{"MEM_MIB": "1"}, modelOfFake(t, 1, 2<<20))
	if !strings.Contains(err.Error(), "lower --memory-mb") {
		t.Errorf("cap above the GPU's memory: %v", err)
	}
}

// TestWholeMemory: --memory-mb 0 (the GPU's whole memory) cannot be free on
// a real GPU, where the context and cuBLAS hold some; it runs, never
// evicting, when every data fits what is free, and is refused otherwise.
func TestWholeMemory(t *testing.T) {
	w := mustGen(t, workloads.Spec{Kind: "matmul2d", N: 3, Tile: 8, Z: 16})
	for _, mib := range []int{512, 200} {
		fake(t, map[string]string{"MEM_MIB": fmt.Sprint(mib)})
		p := modelOfFake(t, 1, 1<<20)
		p.PhysicalMiB = float64(mib)
		if err := p.SetMemoryCap(0); err != nil {
			t.Fatal(err)
		}
		s, buf := build(t, "eager", p)
		st, _, err := Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf, Pipeline: 1})
		switch {
		case mib == 512 && err != nil:
			t.Errorf("%d MiB, all free: %v", mib, err)
		case mib == 512 && st.Evictions != 0:
			t.Errorf("%d MiB: %d evictions at the whole memory", mib, st.Evictions)
		case mib == 200 && (err == nil || !strings.Contains(err.Error(), "lower --memory-mb")):
			t.Errorf("%d MiB, less than the reserve: %v", mib, err)
		}
	}
}

// slowPlan is a scheduler whose static planning (Init) takes plan.
type slowPlan struct {
	schedulers.Scheduler
	plan time.Duration
}

func (s slowPlan) Init(v schedulers.View) error {
	time.Sleep(s.plan)
	return s.Scheduler.Init(v)
}

// TestPlanningOutsideTheClock: on the fake's real clock, a run's makespan
// includes the planning only when the run charges it (the papers' timers
// start after starpu_do_schedule unless COUNT_DO_SCHEDULE).
func TestPlanningOutsideTheClock(t *testing.T) {
	fake(t, nil)
	w := mustGen(t, workloads.Spec{Kind: "matmul2d", N: 3, Tile: 8, Z: 16})
	p := modelOfFake(t, 1, 1<<20)
	const plan = 300 * time.Millisecond
	for _, charge := range []bool{false, true} {
		s, buf := build(t, "eager", p)
		st, _, err := Run(sim.Config{Workload: w, Platform: p, Scheduler: slowPlan{s, plan}, Buffer: buf,
			Pipeline: p.Runtime.Pipeline, Seed: 1, ChargeSchedTime: charge})
		if err != nil {
			t.Fatal(err)
		}
		if counted := st.Makespan >= plan.Seconds(); counted != charge {
			t.Errorf("charge %v: makespan %g s with a %v planning", charge, st.Makespan, plan)
		}
	}
}
