package run_test

import (
	"fmt"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/static"
	"github.com/memsched/memsched/workloads"
)

// BenchmarkSchedulers runs every scheduler of the papers' 2D experiments on
// the 2D product from 10,000 to 1,000,000 tasks (N = 100 .. 1000) at 500
// MiB per GPU, 4 GPUs (1 for the single-GPU orderings), as the CLI runs
// them, and reports simulated tasks per wall second and the scheduler's
// share (sched-s/op: Init, Push, Pull, Pop, Victim and Observe calls).
// Select sizes with -bench, e.g. 'Schedulers/.*/N=300$'; the largest take
// seconds to minutes per iteration (-benchtime 1x).
func BenchmarkSchedulers(b *testing.B) {
	type sched struct {
		label, name string
		params      map[string]string
		gpus        int
	}
	papers := map[string]string{"flip": "true", "ready": "true", "belady": "true"}
	scheds := []sched{
		{"eager", "eager", nil, 4},
		{"dmdar", "dmdar", nil, 4},
		{"darts-luf", "darts", nil, 4},
		{"darts-lru", "darts", map[string]string{"eviction": "lru"}, 4},
		{"mhfp", "mhfp", nil, 4},
		{"hmetis+r", "hmetis+r", nil, 4}, // the default: bounded without an external tool
		{"hfp", "hfp", papers, 1},
		{"mst", "mst", nil, 1},
		{"rcm", "rcm", nil, 1},
	}
	for _, n := range []int{100, 200, 300, 600, 1000} {
		var w *workloads.Workload // generated for the first benchmark selected
		for _, s := range scheds {
			b.Run(fmt.Sprintf("%s/N=%d", s.label, n), func(b *testing.B) {
				if w == nil {
					var err error
					if w, err = workloads.Generate(workloads.Spec{Kind: "matmul2d", N: n}); err != nil {
						b.Fatal(err)
					}
				}
				p, err := hardware.Load("v100-gemini")
				if err != nil {
					b.Fatal(err)
				}
				p.GPUs = s.gpus
				p.SetMemoryMiB(500)
				b.ReportAllocs()
				var sched float64
				for b.Loop() {
					rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: s.name, Params: s.params, Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					sched += rec.SchedWallS
				}
				b.ReportMetric(float64(len(w.Tasks))*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
				b.ReportMetric(sched/float64(b.N), "sched-s/op")
			})
		}
	}
}
