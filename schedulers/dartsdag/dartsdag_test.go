package dartsdag_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/dartsdag"
	"github.com/memsched/memsched/workloads"
)

// See schedulers/baseline/ch5_test.go for the 3x3 Cholesky's task ids and
// bottom levels.
func cholesky3(t *testing.T) *workloads.Workload {
	w, err := workloads.Generate(workloads.Spec{Kind: "cholesky", N: 3, Tile: 1920, Deps: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func gemini(t *testing.T, gpus int, mib float64) *hardware.Platform {
	p, err := hardware.Load("v100-gemini-1920")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryMiB(mib)
	return p
}

// run returns the order tasks start in ("worker:task") and the totals.
func run(t *testing.T, params map[string]string, w *workloads.Workload, p *hardware.Platform, buffer, pipeline int) (string, *sim.Stats) {
	t.Helper()
	s, _, _, err := schedulers.Build("darts-dag", params)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buffer, Pipeline: pipeline, Seed: 1,
		Trace: func(e event.Event) {
			if e.Ev == "task_start" {
				out = append(out, fmt.Sprintf("%d:%d", e.Worker, e.Task))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " "), st
}

// One GPU, a buffer and a pipeline of one task, memory for every tile.
//   - The first request skips the search: POTRF0, the only ready task.
//   - 0 releases TRSM 1 and 2 (readyTasks); dataNotInMem = [A10, A20]. Each
//     frees one TRSM (A00 is on the GPU) with the same ratio (one tile over
//     PCIe / 1.64 ms) and count; priority decides: A10 (TRSM 1, 7.02 ms).
//     The next request plans TRSM 2 from A20.
//   - 1 releases SYRK 3 (A11 missing); 2 releases GEMM 4 and SYRK 5. A21
//     and A22 tie on ratio (each frees one 1.02 ms task); A21 wins on
//     priority (GEMM 4.53 over SYRK 2.89).
//   - 3 releases POTRF1 (6), free (A11 on the GPU): it bypasses readyTasks
//     into the plan, ahead of SYRK 5, which the next search plans.
//   - 6 releases TRSM(2,1) 7, free; 5 then 7 complete SYRK(2,1) 8 and 9.
func TestDARTSCholesky3OneGPU(t *testing.T) {
	got, st := run(t, nil, cholesky3(t), gemini(t, 1, 2000), 1, 1)
	if want := "0:0 0:1 0:2 0:3 0:4 0:6 0:5 0:7 0:8 0:9"; got != want {
		t.Errorf("darts-dag: %s, want %s", got, want)
	}
	if st.Loads != 6 {
		t.Errorf("%d loads, want each of the 6 tiles once", st.Loads)
	}
}

// Two GPUs, the same buffer and pipeline. GPU 0 (node 0, kicked first)
// takes POTRF0, then both TRSMs (one planned, one buffered); GPU 1's first
// request finds readyTasks empty until 2 releases GEMM 4 and SYRK 5:
// GPU 0's search takes A21 (GEMM 4, higher priority) and GPU 1's first
// request the highest-priority ready task left, SYRK 5. Everything else is
// free on GPU 0 when released.
func TestDARTSCholesky3TwoGPUs(t *testing.T) {
	for _, push := range []string{"fewest-planned", "round-robin"} {
		got, _ := run(t, map[string]string{"free_push": push}, cholesky3(t), gemini(t, 2, 2000), 1, 1)
		if want := "0:0 0:1 0:2 0:3 0:4 1:5 0:6 0:7 0:8 0:9"; got != want {
			t.Errorf("darts-dag free_push=%s on 2 GPUs: %s, want %s", push, got, want)
		}
	}
}
