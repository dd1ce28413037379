package dartsdag_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// BenchmarkChapter5 runs darts-dag on the chapter's largest kinds of
// points: LU out of core on 48 cores (ch5-lu-cpu48, N = 60 of 10..100),
// Cholesky and the 3D GEMM on eight V100s with 2000 MB each
// (ch5-cholesky-8gpu N = 50, ch5-gemm3d N = 20), as the CLI runs them,
// and the 360,000 independent tasks of issue 17's scaling goal (2D product
// N = 600, 4 GPUs, 500 MiB).
func BenchmarkChapter5(b *testing.B) {
	for _, c := range []struct {
		name   string
		spec   workloads.Spec
		preset string
		gpus   int
		cpus   int
		mib    float64
	}{
		{"lu-cpu48-n60", workloads.Spec{Kind: workloads.KindLU, N: 60, Tile: 320, Deps: true}, "epyc7642-ooc", 0, 48, 2000},
		{"cholesky-8gpu-n50", workloads.Spec{Kind: workloads.KindCholesky, N: 50, Tile: 1920, Deps: true}, "v100-gemini-1920", 8, 0, 2000},
		{"gemm3d-8gpu-n20", workloads.Spec{Kind: workloads.KindMatmul3D, N: 20, Tile: 1920, Deps: true}, "v100-gemini-1920", 8, 0, 2000},
		{"matmul2d-4gpu-n600", workloads.Spec{Kind: workloads.KindMatmul2D, N: 600}, "v100-gemini", 4, 0, 500},
	} {
		w, err := workloads.Generate(c.spec)
		if err != nil {
			b.Fatal(err)
		}
		p, err := hardware.Load(c.preset)
		if err != nil {
			b.Fatal(err)
		}
		p.GPUs, p.CPUs = c.gpus, c.cpus
		p.SetMemoryMiB(c.mib)
		b.Run(c.name, func(b *testing.B) {
			var schedS float64
			for b.Loop() {
				rec, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: "darts-dag", Seed: 1})
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
