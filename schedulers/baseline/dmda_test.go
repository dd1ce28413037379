package baseline

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// dmdar's Ready index makes exactly Ready's choices: a run with it (window
// 0) equals a run scanning the whole queue (a window wider than any queue),
// on random instances, with and without dependencies.
func TestDMDARIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for it := 0; it < 120; it++ {
		w := &workloads.Workload{}
		nd := 4 + r.IntN(12)
		for d := 0; d < nd; d++ {
			w.Data = append(w.Data, workloads.Data{ID: d, Bytes: int64(1 + r.IntN(3))})
		}
		nt := 5 + r.IntN(80)
		for i := 0; i < nt; i++ {
			task := workloads.Task{ID: i, Kernel: "gemm", Flops: float64(1+r.IntN(4)) * 1e6, Inputs: r.Perm(nd)[:1+r.IntN(3)]}
			if it%2 == 1 && i > 0 && r.IntN(3) == 0 {
				task.Deps = []int{r.IntN(i)}
			}
			w.Tasks = append(w.Tasks, task)
		}
		p, err := hardware.Load("v100-gemini")
		if err != nil {
			t.Fatal(err)
		}
		p.GPUs = 1 + r.IntN(3)
		p.SetMemoryBytes(int64(9 + r.IntN(6)))
		run := func(window int) string {
			s := &DMDA{Alpha: 1, Beta: 1, Ready: true, Window: window}
			var trace []sim.Event
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: -1, Pipeline: 1 + it%3, Seed: uint64(it),
				Trace: func(e sim.Event) { trace = append(trace, e) }})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(*st, trace)
		}
		if a, b := run(0), run(1<<30); a != b {
			t.Fatalf("instance %d: the Ready index and the scan disagree", it)
		}
	}
}
