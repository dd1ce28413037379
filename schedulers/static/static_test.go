package static_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/order"
	"github.com/memsched/memsched/schedulers/static"
	"github.com/memsched/memsched/workloads"
)

func platform(t *testing.T, gpus int, mem int64) *hardware.Platform {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryBytes(mem)
	return p
}

// Every static scheduler, with its options, runs random small task sets to
// a schedule that validates, and never beats the exact optimum of loads.
func TestStaticSchedulesValidateAndRespectOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	configs := []struct {
		name   string
		params map[string]string
	}{
		{"mst", nil}, {"rcm", nil}, {"cm", nil}, {"hfp", nil},
		{"hfp", map[string]string{"flip": "true", "ready": "true", "belady": "true"}},
		{"hfp", map[string]string{"fast_start": "true", "belady": "true"}},
		{"hfp", map[string]string{"flip": "true", "ready": "true", "belady": "true", "ready_at": "plan"}},
		{"mst", map[string]string{"order": "thesis", "ready": "true"}},
		{"mst", map[string]string{"ready": "true", "ready_at": "plan"}},
	}
	for it := 0; it < 60; it++ {
		w := &workloads.Workload{}
		nd := 4 + r.IntN(5)
		for d := 0; d < nd; d++ {
			w.Data = append(w.Data, workloads.Data{ID: d, Bytes: 1})
		}
		for i := 0; i < 3+r.IntN(6); i++ {
			w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e6, Inputs: r.Perm(nd)[:1+r.IntN(2)]})
		}
		mem := int64(2 + r.IntN(3))
		opt, _, err := order.OptimalLoads(w, mem)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range configs {
			var events []event.Event
			rec, err := run.Run(run.Config{Workload: w, Platform: platform(t, 1, mem), Scheduler: c.name, Params: c.params,
				Trace: func(e event.Event) { events = append(events, e) }})
			if err != nil {
				t.Fatalf("%s %v: %v", c.name, c.params, err)
			}
			if rec.Loads < opt {
				t.Fatalf("%s %v: %d loads, below the optimum %d", c.name, c.params, rec.Loads, opt)
			}
			tr := &trace.Trace{Header: trace.Header{Platform: platform(t, 1, mem)}, Events: events, Result: &rec}
			if bad := trace.Validate(tr, w); len(bad) > 0 {
				t.Fatalf("%s %v: %v", c.name, c.params, bad)
			}
		}
	}
}

func TestSingleGPUOrderingsRefuseSeveralGPUs(t *testing.T) {
	w, _ := workloads.Generate(workloads.Spec{Kind: "matmul2d", N: 4})
	_, err := run.Run(run.Config{Workload: w, Platform: platform(t, 2, 1<<30), Scheduler: "hfp"})
	if err == nil || !strings.Contains(err.Error(), "use mhfp") {
		t.Fatalf("err = %v, want a pointer to mhfp", err)
	}
}

// mHFP splits the 2D set across GPUs with balanced task counts.
func TestMHFPBalancesGPUs(t *testing.T) {
	w, _ := workloads.Generate(workloads.Spec{Kind: "matmul2d", N: 20})
	p := platform(t, 2, 0)
	p.SetMemoryMiB(250)
	rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "mhfp"})
	if err != nil {
		t.Fatal(err)
	}
	if d := rec.PerWorker[0] - rec.PerWorker[1]; d > 40 || d < -40 {
		t.Fatalf("tasks per GPU %v: unbalanced", rec.PerWorker)
	}
	t.Logf("mHFP N=20 250 MB 2 GPUs: %d fetches, %d prefetches, %.0f GFlop/s (thesis Fig. 4.7: 30 fetches)", rec.Fetches, rec.Prefetches, rec.GFlops)
}

// hMETIS+R's partition is the hypergraph's, as a partition file generated
// beforehand: runs of other seeds (other drawn durations) get the same
// one, and runs that share (a sweep's runs of a point) compute it once.
func TestHMETISPartitionIsTheHypergraphs(t *testing.T) {
	w, _ := workloads.Generate(workloads.Spec{Kind: "sparse2d", N: 20, Keep: 0.3, Seed: 1})
	computed := 0
	values := map[string]any{}
	share := func(key string, compute func() (any, error)) (any, error) {
		if v, ok := values[key]; ok {
			return v, nil
		}
		computed++
		v, err := compute()
		values[key] = v
		return v, err
	}
	var parts []int // per task, its GPU
	for seed := uint64(1); seed <= 3; seed++ {
		for _, shared := range []bool{false, true} {
			p := platform(t, 4, 1<<30)
			p.Runtime.DurationCV = 0.05
			cfg := run.Config{Workload: w, Platform: p, Scheduler: "hmetis+r", Seed: seed,
				Params: map[string]string{"partitioner": "builtin", "runs": "1", "ready": "false", "steal": "false"}}
			if shared {
				cfg.Share = share
			}
			gpu := make([]int, len(w.Tasks))
			cfg.Trace = func(e event.Event) {
				if e.Ev == "task_start" {
					gpu[e.Task] = e.Worker
				}
			}
			if _, err := run.Run(cfg); err != nil {
				t.Fatal(err)
			}
			if parts == nil {
				parts = gpu
			} else if !slices.Equal(gpu, parts) {
				t.Errorf("seed %d: another partition", seed)
			}
		}
	}
	if computed != 1 {
		t.Errorf("the shared partition was computed %d times", computed)
	}
}

// The Planned schedulers default to StarPU's Ready: in the FIFO below the
// scheduler.
func TestPlannedDefaultsAreStarPUs(t *testing.T) {
	for _, name := range []string{"mst", "rcm", "cm", "hfp", "mhfp", "hmetis+r"} {
		_, _, p, err := schedulers.Build(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p["ready_at"] != schedulers.ReadyAtBuffer {
			t.Errorf("%s: ready_at %q", name, p["ready_at"])
		}
	}
}

// mst runs by default the order mst_policy.c produces.
func TestMSTDefaultIsStarPUs(t *testing.T) {
	if _, _, p, _ := schedulers.Build("mst", nil); p["order"] != static.MSTStarPU {
		t.Errorf("mst: order %q", p["order"])
	}
}

// A stale partition (stale_partition: a partition file of another order
// of the tasks, as the random-order campaign's HMETIS=3 runs read) keeps
// the parts' sizes, loses their locality (each GPU then reads more data),
// and is the same for the same seed.
func TestHMETISStalePartition(t *testing.T) {
	w, err := workloads.Generate(workloads.Spec{Kind: "matmul2d", N: 12, Order: workloads.OrderRandom, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	gpus := func(stale string, seed uint64) []int {
		gpu := make([]int, len(w.Tasks))
		cfg := run.Config{Workload: w, Platform: platform(t, 2, 1<<30), Scheduler: "hmetis+r", Seed: seed,
			Params: map[string]string{"partitioner": "builtin", "runs": "1", "ready": "false", "steal": "false", "stale_partition": stale}}
		cfg.Trace = func(e event.Event) {
			if e.Ev == "task_start" {
				gpu[e.Task] = e.Worker
			}
		}
		if _, err := run.Run(cfg); err != nil {
			t.Fatal(err)
		}
		return gpu
	}
	// data is the number of distinct inputs each GPU reads.
	data := func(gpu []int) (n int) {
		seen := map[[2]int]bool{}
		for i, g := range gpu {
			for _, d := range w.Tasks[i].Inputs {
				if !seen[[2]int{g, d}] {
					seen[[2]int{g, d}] = true
					n++
				}
			}
		}
		return n
	}
	count := func(gpu []int) [2]int {
		var c [2]int
		for _, g := range gpu {
			c[g]++
		}
		return c
	}
	own, stale := gpus("false", 1), gpus("true", 1)
	if count(own) != count(stale) {
		t.Errorf("part sizes %v, stale %v: a stale partition keeps them", count(own), count(stale))
	}
	if data(stale) <= data(own) {
		t.Errorf("GPUs read %d data with a stale partition, %d with their own: the stale one has no locality", data(stale), data(own))
	}
	if !slices.Equal(stale, gpus("true", 1)) {
		t.Error("a stale partition differs between two runs of one seed")
	}
	if slices.Equal(stale, gpus("true", 2)) {
		t.Error("a stale partition is the same for two seeds")
	}
}
