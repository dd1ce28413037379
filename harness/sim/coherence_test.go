package sim_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/darts"
	"github.com/memsched/memsched/workloads"
)

// withKernels gives every kernel of the generators a GPU rate and a CPU
// rate (a CPU core ~30x slower).
func withKernels(p *hardware.Platform) *hardware.Platform {
	for _, k := range []string{"gemm", "trsm", "syrk", "potrf", "getrf"} {
		gpu := p.Kernels["gemm"].Rate
		if k == "potrf" || k == "getrf" {
			gpu.GFlops /= 10
		}
		p.Kernels[k] = hardware.Kernel{Rate: gpu, CPU: &hardware.Rate{GFlops: gpu.GFlops / 30}}
	}
	return p
}

func gpuNode(t *testing.T, gpus, cpus int, mib float64, nvlink bool) *hardware.Platform {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs, p.CPUs = gpus, cpus
	p.Topology.NVLink = nvlink
	p.Runtime.DurationCV = 0 // exact durations: the makespans are checked by hand
	p.SetMemoryMiB(mib)
	return withKernels(p)
}

// outOfCore is thesis §5.7's machine: CPU cores computing from a capped
// RAM, data on a disk of 250 MB/s.
func outOfCore(t *testing.T, cpus int, mib float64) *hardware.Platform {
	p := gpuNode(t, 0, cpus, mib, false)
	p.Name, p.Home, p.MaxGPUs, p.MaxCPUs = "ooc", hardware.HomeDisk, 0, 64
	p.Topology.DiskGBps = 0.25
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func validRun(t *testing.T, label string, w *workloads.Workload, p *hardware.Platform, sched string) memrun.Record {
	t.Helper()
	var events []event.Event
	rec, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Seed: 7, Trace: func(e event.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	tr := &trace.Trace{Header: trace.Header{Platform: p}, Events: events, Result: &rec}
	if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Fatalf("%s: %d violations, first: %s", label, len(bad), strings.Join(bad[:min(3, len(bad))], "; "))
	}
	return rec
}

func genW(t *testing.T, s workloads.Spec) *workloads.Workload {
	t.Helper()
	w, err := workloads.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Every run of task graphs that write their tiles validates, coherence
// included (no task reads a stale copy, the last copy is written back
// before it is evicted, home ends with every last version), on GPUs with
// and without NVLink, on CPU+GPU nodes and out of core.
func TestWrittenDataValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	specs := []workloads.Spec{
		{Kind: "cholesky", N: 8, Tile: 480, Deps: true},
		{Kind: "lu", N: 6, Tile: 480, Deps: true},
		{Kind: "matmul3d", N: 4, Tile: 480, Deps: true},
		{Kind: "matmul3d", N: 4, Tile: 480, Deps: true, Order: "random", Seed: 3},
		{Kind: "matmul2d", N: 10, Tile: 480, WriteC: true, Order: "random", Seed: 2},
		{Kind: "sparse2d", N: 16, Tile: 480, WriteC: true, Keep: 0.4, Seed: 1},
	}
	for _, s := range specs {
		w := genW(t, s)
		need := float64(w.MaxInputBytes()) / hardware.MiB
		for it := 0; it < 6; it++ {
			mib := need * (1 + 3*r.Float64())
			gpus, nvlink := 1+r.IntN(4), r.IntN(2) == 0
			for _, sched := range []string{"eager", "dmda", "dmdar", "darts"} {
				p := gpuNode(t, gpus, 0, mib, nvlink)
				validRun(t, fmt.Sprintf("%s %s %d GPUs %.1f MiB nvlink=%v", w.Name, sched, gpus, mib, nvlink), w, p, sched)
			}
			p := gpuNode(t, 1+r.IntN(2), 1+r.IntN(4), mib, nvlink)
			validRun(t, fmt.Sprintf("%s eager %d GPUs + %d CPUs", w.Name, p.GPUs, p.CPUs), w, p, "eager")
			p = outOfCore(t, 1+r.IntN(8), mib)
			validRun(t, fmt.Sprintf("%s eager %d CPUs out of core %.1f MiB", w.Name, p.CPUs, mib), w, p, "eager")
		}
	}
}

// A hand-checked write-back: one GPU holding one tile of memory runs two
// independent tasks that each write their own C tile (mode W, no reads).
// The first C is allocated (no copy), written, then evicted to make room
// for the second: it is written back first. At the end the second is
// written back too. Nothing is loaded.
func TestWriteBackOnEvictionAndAtTheEnd(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1 << 20}, {ID: 1, Bytes: 1 << 20}}}
	for i := range 2 {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e9, Inputs: []int{i}})
		w.Modes = append(w.Modes, []workloads.Mode{workloads.W})
	}
	p := gpuNode(t, 1, 0, 1, false)
	rec := validRun(t, "two writers", w, p, "eager")
	if rec.Loads != 0 || rec.WriteBacks != 2 || rec.BytesD2H != 2<<20 || rec.Evictions != 1 {
		t.Errorf("loads %d, write-backs %d, d2h %d bytes, evictions %d; want 0, 2, 2 MiB, 1", rec.Loads, rec.WriteBacks, rec.BytesD2H, rec.Evictions)
	}
	// The final write-back is outside the timed region, as in the papers'
	// benchmarks; both tasks compute 1e9 flops at 13,253 GFlop/s, and the
	// first write-back (1 MiB at 12 GB/s) delays the second allocation.
	compute := 1e9 / 13253e9
	if want := 2*compute + float64(1<<20)/12e9; !near(rec.MakespanS, want) {
		t.Errorf("makespan %g, want %g", rec.MakespanS, want)
	}
	p.Runtime.FlushInMakespan = true
	rec = validRun(t, "two writers, flush timed", w, p, "eager")
	if want := 2*compute + 2*float64(1<<20)/12e9; !near(rec.MakespanS, want) {
		t.Errorf("makespan with the flush %g, want %g", rec.MakespanS, want)
	}
}

// A tile written on one GPU and read on another travels through main memory
// without NVLink (a write-back, then a load) and directly with it.
func TestModifiedDataReachesAnotherGPU(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1 << 20}}}
	w.Tasks = []workloads.Task{
		{ID: 0, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}},
		{ID: 1, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}},
	}
	w.Modes = [][]workloads.Mode{{workloads.RW}, nil}
	w.Deps = [][]int{nil, {0}}
	for _, nvlink := range []bool{false, true} {
		p := gpuNode(t, 2, 0, 10, nvlink)
		var events []event.Event
		st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: &listed{plan: [][]int{{0}, {1}}}, Buffer: 1, Pipeline: 1, Trace: func(e event.Event) { events = append(events, e) }})
		if err != nil {
			t.Fatal(err)
		}
		wantD2H, wantD2D := int64(1<<20), int64(0)
		if nvlink {
			wantD2D = 1 << 20 // GPU 1 copies it from GPU 0; the end writes GPU 0's copy back
		}
		// Without NVLink: GPU 1's load waits for GPU 0's write-back, and
		// home then holds the last version: nothing is left to flush.
		if st.BytesD2H != wantD2H || st.BytesD2D != wantD2D || st.BytesH2D != int64(1<<20)+(1<<20)-wantD2D {
			t.Errorf("nvlink=%v: h2d %d, d2d %d, d2h %d", nvlink, st.BytesH2D, st.BytesD2D, st.BytesD2H)
		}
		tr := &trace.Trace{Header: trace.Header{Platform: p}, Events: events}
		if bad := trace.Validate(tr, w); len(bad) > 0 {
			t.Errorf("nvlink=%v: %v", nvlink, bad)
		}
	}
}

// A workload whose dependencies let a write race with a read is refused
// with an error naming the task and the data, not a silent wrong result.
func TestWriteRaceIsAnError(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1 << 20}, {ID: 1, Bytes: 1 << 20}}}
	w.Tasks = []workloads.Task{
		{ID: 0, Kernel: "gemm", Flops: 1e12, Inputs: []int{0, 1}},
		{ID: 1, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}},
	}
	w.Modes = [][]workloads.Mode{nil, {workloads.RW}}
	_, err := sim.Run(sim.Config{Workload: w, Platform: gpuNode(t, 2, 0, 10, false), Scheduler: &listed{plan: [][]int{{0}, {1}}}, Buffer: 1, Pipeline: 1})
	if err == nil || !strings.Contains(err.Error(), "lacks a dependency") || !strings.Contains(err.Error(), "task 1 writes data 0") {
		t.Fatalf("err = %v", err)
	}
}

// Out of core, the CPU cores share one RAM: data read by several cores
// are loaded from disk once.
func TestOutOfCoreSharesRAM(t *testing.T) {
	w := genW(t, workloads.Spec{Kind: "matmul2d", N: 4, Tile: 320})
	p := outOfCore(t, 4, 64)
	rec := validRun(t, "2D out of core", w, p, "eager")
	if rec.Loads != 8 || rec.BytesH2D != w.WorkingSetBytes() || rec.Tasks != 16 {
		t.Errorf("%d loads, %d bytes from disk, %d tasks; want each of the 8 blocks once", rec.Loads, rec.BytesH2D, rec.Tasks)
	}
	if got := rec.PerWorker; len(got) != 4 {
		t.Errorf("tasks per worker %v", got)
	}
}

// CPU cores compute from main memory without transfers; a kernel a CPU
// cannot run goes to the GPUs only.
func TestCPUWorkersNeedNoTransfers(t *testing.T) {
	w := genW(t, workloads.Spec{Kind: "matmul2d", N: 6, Tile: 480})
	p := gpuNode(t, 0, 3, 100, false)
	rec := validRun(t, "CPUs only", w, p, "eager")
	if rec.Loads != 0 || rec.BytesH2D != 0 {
		t.Errorf("CPU workers loaded %d data", rec.Loads)
	}
	p = gpuNode(t, 1, 2, 100, false)
	k := p.Kernels["gemm"]
	k.CPU = nil
	p.Kernels["gemm"] = k
	rec = validRun(t, "gemm on GPUs only", w, p, "dmda")
	if rec.PerWorker[1] != 0 || rec.PerWorker[2] != 0 {
		t.Errorf("CPU cores ran GPU-only tasks: %v", rec.PerWorker)
	}
}

// Without transfers (MulTreePrio's model) the makespan is the compute
// schedule alone.
func TestNoTransfers(t *testing.T) {
	w := genW(t, workloads.Spec{Kind: "cholesky", N: 6, Tile: 960, Deps: true})
	p := gpuNode(t, 2, 2, 1, false)
	p.Topology.NoTransfers = true
	rec := validRun(t, "no transfers", w, p, "eager")
	if rec.BytesH2D+rec.BytesD2H == 0 {
		t.Errorf("no copies at all: the model still moves data, instantly")
	}
	for _, n := range p.Nodes() {
		if n.Capacity >= 0 {
			t.Errorf("node %s is capped without transfers", n.Name)
		}
	}
}

// listed runs each worker's list in order, a task once it is ready.
type listed struct {
	plan  [][]int
	ready map[int]bool
}

func (l *listed) Init(schedulers.View) error { l.ready = map[int]bool{}; return nil }
func (l *listed) Push(t int)                 { l.ready[t] = true }
func (l *listed) Pull(w int) (int, bool) {
	if len(l.plan[w]) == 0 || !l.ready[l.plan[w][0]] {
		return 0, false
	}
	t := l.plan[w][0]
	l.plan[w] = l.plan[w][1:]
	return t, true
}

func near(a, b float64) bool { return a > b*(1-1e-9) && a < b*(1+1e-9) }

// Duration noise: the same seed gives every scheduler the same task
// durations; the factors have mean 1 and the requested spread.
func TestDurationNoise(t *testing.T) {
	w := genW(t, workloads.Spec{Kind: "matmul2d", N: 40})
	p := gpuNode(t, 2, 0, 500, false)
	p.Runtime.DurationCV = 0.1
	durations := func(sched string, seed uint64) map[int]float64 {
		start := map[int]float64{}
		out := map[int]float64{}
		_, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Seed: seed, Trace: func(e event.Event) {
			switch e.Ev {
			case "task_start":
				start[e.Task] = e.T
			case "task_end":
				out[e.Task] = e.T - start[e.Task]
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := durations("eager", 3), durations("dmdar", 3)
	base := 2 * 960 * 960 * 3840 / 13253e9
	var sum, sum2 float64
	for task, d := range a {
		if !near(d, b[task]) {
			t.Fatalf("task %d takes %g under eager and %g under dmdar", task, d, b[task])
		}
		sum += d / base
		sum2 += (d / base) * (d / base)
	}
	n := float64(len(a))
	mean := sum / n
	cv := math.Sqrt(sum2/n-mean*mean) / mean
	if math.Abs(mean-1) > 0.02 || math.Abs(cv-0.1) > 0.02 {
		t.Errorf("factors: mean %.3f, cv %.3f; want 1 and 0.1", mean, cv)
	}
	if c := durations("eager", 4); near(c[0], a[0]) && near(c[1], a[1]) {
		t.Errorf("another seed draws the same durations")
	}
}

// opCounting pulls 1,000 operations per decision.
type opCounting struct {
	listed
	v     schedulers.View
	pulls int
}

func (c *opCounting) Init(v schedulers.View) error { c.v = v; return c.listed.Init(v) }
func (c *opCounting) Pull(w int) (int, bool) {
	c.v.Count(1000)
	c.pulls++
	return c.listed.Pull(w)
}

// Under sched_cost = "model" a worker pays the operations its scheduler
// counts, reproducibly: each pull of one GPU running 3 tasks costs 1,000
// operations of 1 µs.
func TestSchedCostModel(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1 << 20}}}
	for i := range 3 {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}})
	}
	makespan := func(cost string) float64 {
		p := gpuNode(t, 1, 0, 10, false)
		p.Runtime.SchedCost, p.Runtime.OpSeconds = cost, 1e-6
		c := &opCounting{listed: listed{plan: [][]int{{0, 1, 2}}}}
		st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: c, Buffer: 1, Pipeline: 1})
		if err != nil {
			t.Fatal(err)
		}
		if st.SchedOps[schedulers.OpStep] != int64(1000*c.pulls) || c.pulls < 4 {
			t.Errorf("%s: %d operations counted for %d pulls", cost, st.SchedOps[schedulers.OpStep], c.pulls)
		}
		return st.Makespan
	}
	free, charged := makespan("none"), makespan("model")
	// The three pulls that return a task delay it by 1 ms each (the GPU
	// computes 75 µs per task, less than a pull: nothing overlaps).
	if d := charged - free; d < 3e-3*(1-1e-9) {
		t.Errorf("charging 3 pulls of 1 ms added only %g s", d)
	}
	if makespan("model") != charged {
		t.Errorf("model charging is not reproducible")
	}
}

// On the gemini NVLink mesh a written tile reaches a GPU over its two
// NVLinks from the writer (48 GB/s), and a GPU without NVLink to any holder
// gets it peer to peer over PCIe (12 GB/s) rather than through main
// memory, as StarPU's source selection does; the validator accepts both.
func TestPeerRoutesOnTheNVLinkMesh(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 12 << 20}}}
	w.Tasks = []workloads.Task{
		{ID: 0, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}},
		{ID: 1, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}},
		{ID: 2, Kernel: "gemm", Flops: 1e9, Inputs: []int{0}},
	}
	w.Modes = [][]workloads.Mode{{workloads.RW}, nil, nil}
	w.Deps = [][]int{nil, {0}, {1}}
	p, err := hardware.Load("v100-gemini-1920")
	if err != nil {
		t.Fatal(err)
	}
	plan := make([][]int, 8)
	plan[0], plan[3], plan[5] = []int{0}, []int{1}, []int{2}
	var events []event.Event
	st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: &listed{plan: plan}, Buffer: 1, Pipeline: 1, Trace: func(e event.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	starts := map[int]event.Event{}
	for _, e := range events {
		switch e.Ev {
		case "load_start":
			starts[e.Node] = e
		case "load_end":
			s := starts[e.Node]
			want := map[int]float64{0: 12e9, 3: 48e9, 5: 12e9}[e.Node]
			if wantSrc := map[int]int{0: p.HomeNode(), 3: 0, 5: 0}[e.Node]; s.Src != wantSrc || !near(e.T-s.T, float64(12<<20)/want) {
				t.Errorf("load on GPU %d from node %d took %g s; want from node %d at %g GB/s", e.Node, s.Src, e.T-s.T, wantSrc, want/1e9)
			}
		}
	}
	if st.BytesD2D != 2*(12<<20) || st.BytesH2D != 12<<20 {
		t.Errorf("h2d %d, d2d %d bytes", st.BytesH2D, st.BytesD2D)
	}
	tr := &trace.Trace{Header: trace.Header{Platform: p}, Events: events}
	if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Errorf("%v", bad)
	}
}
