package sim_test

import (
	"fmt"
	"testing"

	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// BenchmarkEngine reports simulated tasks per second of wall time for the
// baselines on the 2D product with 4 GPUs at 500 MiB.
func BenchmarkEngine(b *testing.B) {
	for _, name := range []string{"eager", "dmdar"} {
		for _, n := range []int{100, 300} {
			w := gen(b, workloads.Spec{Kind: "matmul2d", N: n})
			b.Run(fmt.Sprintf("%s/N=%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					s, buf := build(b, name)
					p := platform(b, 4, 0)
					p.SetMemoryMiB(500)
					if _, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf, Pipeline: 5}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(w.Tasks))*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
			})
		}
	}
}
