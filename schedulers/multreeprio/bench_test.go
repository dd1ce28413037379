package multreeprio_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// Tiled Cholesky of 30 tiles (4,960 tasks) on 20 CPUs + 50 GPUs, COMPAS
// 2022's largest configuration: 51 trees, each ready task inserted in all.
func BenchmarkCholesky50GPUs(b *testing.B) {
	p, err := hardware.Load("compas2022-tc1")
	if err != nil {
		b.Fatal(err)
	}
	p.CPUs, p.GPUs = 20, 50
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindCholesky, N: 30, Deps: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []string{"multreeprio", "multreeprio+cp", "critical-path"} {
		b.Run(s, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: s, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The 360,000 independent tasks of issue 17's scaling goal (2D product
// N = 600, 4 GPUs, 500 MiB): every task is ready at once, in every tree.
func Benchmark2D600(b *testing.B) {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		b.Fatal(err)
	}
	p.GPUs = 4
	p.SetMemoryMiB(500)
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 600})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: "multreeprio", Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(w.Tasks))*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}
