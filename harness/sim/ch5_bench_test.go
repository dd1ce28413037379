package sim_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// BenchmarkChapter5Cholesky50: the Cholesky task graph with N = 50 tiles of
// 1920 (22,100 tasks) on the 8 V100s of gemini-1 at 2000 MB each, one whole
// simulated run per iteration (scheduler included); sched-s/op is the
// scheduler's share.
func BenchmarkChapter5Cholesky50(b *testing.B) {
	w, err := workloads.Generate(workloads.Spec{Kind: "cholesky", N: 50, Tile: 1920, Deps: true})
	if err != nil {
		b.Fatal(err)
	}
	p, err := hardware.Load("v100-gemini-1920")
	if err != nil {
		b.Fatal(err)
	}
	for _, sched := range []string{"eager", "dmdas", "lws", "ap", "darts-dag"} {
		b.Run(sched, func(b *testing.B) {
			var schedS float64
			for b.Loop() {
				rec, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				schedS += rec.SchedWallS
			}
			b.ReportMetric(schedS/float64(b.N), "sched-s/op")
			b.ReportMetric(float64(len(w.Tasks))*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}
