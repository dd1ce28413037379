// Package schedtest draws the small random instances of the schedulers'
// property tests (an index against the scan it replaces, on tight memory),
// so that those tests share one definition of "a random instance".
package schedtest

import (
	"math/rand/v2"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/workloads"
)

// TaskSet draws 4 to 15 data of 1 to 3 bytes and 5 to 4+moreTasks gemm
// tasks of 1 to maxMFlop MFlop, each reading 1 to 3 distinct data; more,
// when not nil, changes each task after its draws (a duplicate input) and
// returns its dependencies (on earlier tasks), if any.
func TaskSet(r *rand.Rand, moreTasks, maxMFlop int, more func(t *workloads.Task) (deps []int)) *workloads.Workload {
	w := &workloads.Workload{}
	nd := 4 + r.IntN(12)
	for d := range nd {
		w.Data = append(w.Data, workloads.Data{ID: d, Bytes: int64(1 + r.IntN(3))})
	}
	nt := 5 + r.IntN(moreTasks)
	for i := range nt {
		task := workloads.Task{ID: i, Kernel: "gemm", Flops: float64(1+r.IntN(maxMFlop)) * 1e6, Inputs: r.Perm(nd)[:1+r.IntN(3)]}
		var deps []int
		if more != nil {
			deps = more(&task)
		}
		w.Tasks = append(w.Tasks, task)
		w.Deps = append(w.Deps, deps)
	}
	return w
}

// TightV100 is the V100 platform with gpus GPUs of 9 to 14 bytes each: a
// few inputs fit, so that tasks wait for loads and data are evicted.
func TightV100(r *rand.Rand, gpus int) (*hardware.Platform, error) {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		return nil, err
	}
	p.GPUs = gpus
	p.SetMemoryBytes(int64(9 + r.IntN(6)))
	return p, nil
}
