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
