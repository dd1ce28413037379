package sim_test

import (
	"math"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
)

// A preset imported from StarPU times each GPU by its own history entry
// (SimGrid's _starpu_simgrid_submit_job takes the task's device's model):
// on gemini-2-ipdps the 2D task takes 563.6 µs on CUDA0 and 570.7 µs on
// CUDA1, and a shape the history lacks takes the kernel's rate.
func TestEachGPUTakesItsHistoryMean(t *testing.T) {
	p, err := hardware.Load("gemini-2-ipdps")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = 2
	p.SetMemoryBytes(1 << 20)
	w := unitGrid(2)
	for i := range w.Tasks {
		w.Tasks[i].Flops = 2 * 960 * 960 * 3840 // the 2D task's shape
	}
	w.Tasks[3].Flops = 1e9 // no shape of the history
	var c collector
	run(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed([][]int{{0, 1}, {2, 3}}, false), Buffer: 10, Pipeline: 5, Trace: c.add})
	gemm := p.Kernels["gemm"]
	want := map[int]float64{0: 563.6051e-6, 1: 563.6051e-6, 2: 570.7416e-6, 3: gemm.Rate.Duration(1e9)}
	start := map[int]float64{}
	for _, e := range c.events {
		switch e.Ev {
		case "task_start":
			start[e.Task] = e.T
		case "task_end":
			if got := e.T - start[e.Task]; math.Abs(got-want[e.Task]) > 1e-12 {
				t.Errorf("task %d on worker %d took %.7g s, want %.7g", e.Task, e.Worker, got, want[e.Task])
			}
			delete(want, e.Task)
		}
	}
	if len(want) != 0 {
		t.Errorf("tasks %v never ended", want)
	}
}
