package simprof_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/simprof"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/static"
	"github.com/memsched/memsched/workloads"
)

// The V100 preset: a 2D block (960 x 3840 fp32, 14,745,600 bytes) crosses
// a GPU's 12 GB/s PCIe link alone in 1.2288 ms; a 960x960x3840 gemm
// (7.078 GFlop) takes 0.534 ms at 13,253 GFlop/s.
const (
	block     = 960 * 3840 * 4
	copyAlone = block / 12e9
	gemm      = 2 * 960 * 960 * 3840 / 13253e9
)

func v100(t *testing.T, gpus int) *hardware.Platform {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	// The hand-computed times assume exact kernel durations and contiguous
	// tiles: no run-to-run spread, no strided-copy cap.
	p.Runtime.DurationCV, p.Topology.StridedGBps = 0, 0
	return p
}

// byWorker gives worker w the tasks i with i % workers == w, in order, once
// each is ready, counting ops per task handed out.
type byWorker struct {
	v     schedulers.View
	next  []int
	ready map[int]bool
	ops   int
}

func (s *byWorker) Init(v schedulers.View) error {
	s.v, s.next, s.ready = v, make([]int, v.Workers()), map[int]bool{}
	return nil
}
func (s *byWorker) Push(t int) { s.ready[t] = true }
func (s *byWorker) Pull(w int) (int, bool) {
	t := s.next[w]*s.v.Workers() + w
	if !s.ready[t] {
		return 0, false
	}
	s.next[w]++
	s.v.Count(s.ops)
	return t, true
}

func byWorkerSpec(ops int) *schedulers.Spec {
	return &schedulers.Spec{Name: "by-worker", Version: 1, New: func(schedulers.Params) (schedulers.Scheduler, error) { return &byWorker{ops: ops}, nil }}
}

// profileOf runs w on p and returns the profile (through its encoding, as
// go tool pprof reads it) and the record.
func profileOf(t *testing.T, w *workloads.Workload, p *hardware.Platform, cfg run.Config, name func(int) string) (*profile.Profile, run.Record) {
	t.Helper()
	rec := simprof.New(w, p, name)
	cfg.Workload, cfg.Platform, cfg.Seed, cfg.Trace, cfg.Decisions = w, p, 1, rec.Event, true
	r, err := run.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rec.Profile("a comment").Write(&buf); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := prof.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return prof, r
}

// seconds sums the samples per stack, written root first with " / ".
func seconds(p *profile.Profile) map[string]float64 {
	out := map[string]float64{}
	for _, s := range p.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			names = append(names, s.Location[i].Line[0].Function.Name)
		}
		out[strings.Join(names, " / ")] += float64(s.Value[0]) / 1e9
	}
	return out
}

func checkStacks(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for k, v := range want {
		if math.Abs(got[k]-v) > 2e-9 {
			t.Errorf("%s: %.9f s; want %.9f", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s: %.9f s", k, v)
		}
	}
}

// blocks is a task set over 2D blocks: each task a gemm reading the
// blocks listed, after the tasks in deps.
func blocks(tasks [][]int, deps map[int][]int) *workloads.Workload {
	w := &workloads.Workload{Name: "hand"}
	for i, in := range tasks {
		for _, d := range in {
			for len(w.Data) <= d {
				w.Data = append(w.Data, workloads.Data{ID: len(w.Data), Bytes: block})
			}
		}
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 2 * 960 * 960 * 3840, Inputs: in})
		w.Deps = append(w.Deps, deps[i])
	}
	return w
}

// One GPU, one task reading A and B: the copy engine brings A then B, each
// alone on the link, then the gemm runs.
func TestOneTaskByHand(t *testing.T) {
	spec := workloads.Spec{Kind: workloads.KindMatmul2D, N: 1}
	w, _ := workloads.Generate(spec)
	prof, rec := profileOf(t, w, v100(t, 1), run.Config{Scheduler: "eager"}, spec.DataName)
	checkStacks(t, seconds(prof), map[string]float64{
		"worker 0 (gpu) / wait fetch / data 0 (A row 0) / copying": copyAlone,
		"worker 0 (gpu) / wait fetch / data 1 (B col 0) / copying": copyAlone,
		"worker 0 (gpu) / compute / gemm":                          gemm,
	})
	if math.Abs(rec.MakespanS-(2*copyAlone+gemm)) > 1e-12 || prof.DurationNanos != int64(math.Round(rec.MakespanS*1e9)) {
		t.Errorf("makespan %g s, profile duration %d ns; want %g s", rec.MakespanS, prof.DurationNanos, 2*copyAlone+gemm)
	}
	if len(prof.Comments) != 1 || prof.Comments[0] != "a comment" || prof.SampleType[0].Unit != "nanoseconds" {
		t.Errorf("comments %q, sample type %+v", prof.Comments, prof.SampleType[0])
	}
}

// Two GPUs on one PCIe switch (12 GB/s for the pair) each load one block
// at once: each copy runs at half speed, so half of each wait is the
// shared bus. Pulls charged 1 ms each (sched_cost = "model") come first.
func TestSharedBusAndSchedulingByHand(t *testing.T) {
	w := blocks([][]int{{0}, {1}}, nil)
	p := v100(t, 2)
	p.Runtime.SchedCost, p.Runtime.OpSeconds = "model", 1e-3
	prof, _ := profileOf(t, w, p, run.Config{Spec: byWorkerSpec(1)}, nil)
	want := map[string]float64{}
	for _, wk := range []string{"worker 0 (gpu)", "worker 1 (gpu)"} {
		want[wk+" / scheduling"] = 1e-3
		want[wk+" / compute / gemm"] = gemm
	}
	want["worker 0 (gpu) / wait fetch / data 0 / copying"] = copyAlone
	want["worker 0 (gpu) / wait fetch / data 0 / bus shared"] = copyAlone
	want["worker 1 (gpu) / wait fetch / data 1 / copying"] = copyAlone
	want["worker 1 (gpu) / wait fetch / data 1 / bus shared"] = copyAlone
	checkStacks(t, seconds(prof), want)
}

// A worker the scheduler has nothing for is idle: "no task" until it gets
// one, "finished" after its last. GPU 0 runs T0 then T2 on block 0; GPU 1
// runs T1 on block 1, then waits for T3, which needs T2 done, and reads
// block 1 again. Both copies share the switch, as above.
func TestIdleByHand(t *testing.T) {
	w := blocks([][]int{{0}, {1}, {0}, {1}}, map[int][]int{3: {2}})
	prof, _ := profileOf(t, w, v100(t, 2), run.Config{Spec: byWorkerSpec(0)}, nil)
	checkStacks(t, seconds(prof), map[string]float64{
		"worker 0 (gpu) / wait fetch / data 0 / copying":    copyAlone,
		"worker 0 (gpu) / wait fetch / data 0 / bus shared": copyAlone,
		"worker 0 (gpu) / compute / gemm":                   2 * gemm,
		"worker 0 (gpu) / idle / finished":                  gemm,
		"worker 1 (gpu) / wait fetch / data 1 / copying":    copyAlone,
		"worker 1 (gpu) / wait fetch / data 1 / bus shared": copyAlone,
		"worker 1 (gpu) / compute / gemm":                   2 * gemm,
		"worker 1 (gpu) / idle / no task":                   gemm,
	})
}

// On the papers' workloads, each worker's samples add up to the makespan
// and its compute to the durations of the tasks it ran.
func TestEveryWorkerAccountsForTheMakespan(t *testing.T) {
	cases := []struct {
		sched string
		spec  workloads.Spec
		gpus  int
		cpus  int
		mib   float64
	}{
		{"eager", workloads.Spec{Kind: workloads.KindMatmul2D, N: 12}, 2, 0, 100},
		{"darts", workloads.Spec{Kind: workloads.KindMatmul2D, N: 12, Order: workloads.OrderRandom}, 4, 0, 100},
		{"dmdar", workloads.Spec{Kind: workloads.KindMatmul3D, N: 4}, 2, 0, 30},
		{"darts", workloads.Spec{Kind: workloads.KindCholesky, N: 8, Deps: true}, 2, 0, 40},
		{"eager", workloads.Spec{Kind: workloads.KindCholesky, N: 6, Deps: true}, 2, 2, 40},
		{"hfp", workloads.Spec{Kind: workloads.KindMatmul2D, N: 10, WriteC: true}, 1, 0, 80},
	}
	for _, c := range cases {
		w, err := workloads.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		p := v100(t, c.gpus)
		p.CPUs, p.MaxCPUs = c.cpus, 8
		for _, k := range []string{"gemm", "trsm", "syrk", "potrf"} {
			kr := p.Kernels[k]
			kr.CPU = &hardware.Rate{GFlops: kr.GFlops / 30}
			p.Kernels[k] = kr
		}
		p.SetMemoryMiB(c.mib)
		busy := make([]float64, c.gpus+c.cpus)
		start := map[int]float64{}
		rec := simprof.New(w, p, c.spec.DataName)
		r, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: c.sched, Seed: 1, Decisions: true, Trace: func(e event.Event) {
			rec.Event(e)
			switch e.Ev {
			case "task_start":
				start[e.Task] = e.T
			case "task_end":
				busy[e.Worker] += e.T - start[e.Task]
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		total := make([]float64, len(busy))
		compute := make([]float64, len(busy))
		for k, v := range seconds(rec.Profile()) {
			var wk int
			if _, err := fmt.Sscanf(k, "worker %d", &wk); err != nil {
				t.Fatalf("stack %q", k)
			}
			total[wk] += v
			if strings.Contains(k, " / compute / ") {
				compute[wk] += v
			}
		}
		for wk := range busy {
			if math.Abs(total[wk]-r.MakespanS) > 1e-7 || math.Abs(compute[wk]-busy[wk]) > 1e-7 {
				t.Errorf("%s %s worker %d: %.9f s in all, %.9f s computing; want the makespan %.9f s and %.9f s", c.sched, w.Name, wk, total[wk], compute[wk], r.MakespanS, busy[wk])
			}
		}
	}
}

// The recorder's cost per event, on EAGER's 2D N = 60 on 4 GPUs (about
// 25,000 events): replaying the recorded events and building the profile.
func BenchmarkRecorder(b *testing.B) {
	spec := workloads.Spec{Kind: workloads.KindMatmul2D, N: 60}
	w, _ := workloads.Generate(spec)
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		b.Fatal(err)
	}
	p.GPUs = 4
	var events []event.Event
	if _, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "eager", Seed: 1, Decisions: true,
		Trace: func(e event.Event) { events = append(events, e) }}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := simprof.New(w, p, spec.DataName)
		for _, e := range events {
			r.Event(e)
		}
		r.Profile()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(events)), "ns/event")
}
