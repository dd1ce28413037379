package schedulers_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// KernelTimes answers as Platform.KernelSeconds for every task of a few
// graphs, kinds and kernels the platform lacks.
func TestKernelTimesMatchPlatform(t *testing.T) {
	p, err := hardware.Load("v100-gemini-1920")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{hardware.GPU, hardware.CPU} {
		k := schedulers.NewKernelTimes(p, kind)
		for _, spec := range []workloads.Spec{{Kind: "cholesky", N: 6, Deps: true}, {Kind: "lu", N: 5, Deps: true}, {Kind: "matmul2d", N: 4}} {
			w, err := workloads.Generate(spec)
			if err != nil {
				t.Fatal(err)
			}
			w.Tasks[0].Kernel = "no-such-kernel"
			w.Tasks[1].Flops *= 3
			for _, task := range w.Tasks {
				s, ok, err := k.Seconds(&task)
				s2, ok2, err2 := p.KernelSeconds(task.Kernel, kind, task.Flops)
				if s != s2 || ok != ok2 || (err == nil) != (err2 == nil) {
					t.Fatalf("%s %s task %d: %v %v %v, platform %v %v %v", kind, spec.Kind, task.ID, s, ok, err, s2, ok2, err2)
				}
			}
		}
	}
}
