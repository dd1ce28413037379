package sim_test

import (
	"testing"

	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// PopMissing counts what the authors' visualisation counts (StarPU HFP.c
// get_data_to_load): at each pop, the inputs neither resident nor already
// fetched for a popped task, in-flight prefetches included.
func TestPopMissing(t *testing.T) {
	const gb = 1.2e9       // 0.1 s at 12 GB/s
	const second = 13253e9 // flops of one second of gemm on the V100 preset
	data := func(n int) []workloads.Data {
		d := make([]workloads.Data, n)
		for i := range d {
			d[i] = workloads.Data{ID: i, Bytes: gb}
		}
		return d
	}
	task := func(id int, flops float64, in ...int) workloads.Task {
		return workloads.Task{ID: id, Kernel: "gemm", Flops: flops, Inputs: in}
	}
	// T0 {0,1} pops with both inputs in flight as prefetches: 2. T1 {0,2}
	// and T2 {3} were prefetched during the second of the task before
	// them: 0. Four loads, two of them missing at pop.
	w := &workloads.Workload{Data: data(4), Tasks: []workloads.Task{task(0, second, 0, 1), task(1, second, 0, 2), task(2, second, 3)}}
	st := run(t, sim.Config{Workload: w, Platform: platform(t, 1, 10*gb), Scheduler: fixed([][]int{{0, 1, 2}}, false), Buffer: 1, Pipeline: 1})
	if st.PopMissing != 2 || st.Loads != 4 {
		t.Errorf("prefetched in time: pop missing %d, loads %d; want 2 and 4", st.PopMissing, st.Loads)
	}
	// With short tasks the prefetches are still in flight at each pop:
	// T0 2, T1 1 (data 2), T2 1 (data 3).
	w = &workloads.Workload{Data: data(4), Tasks: []workloads.Task{task(0, 1, 0, 1), task(1, 1, 0, 2), task(2, 1, 3)}}
	st = run(t, sim.Config{Workload: w, Platform: platform(t, 1, 10*gb), Scheduler: fixed([][]int{{0, 1, 2}}, false), Buffer: 1, Pipeline: 1})
	if st.PopMissing != 4 {
		t.Errorf("prefetches in flight: pop missing %d, want 4", st.PopMissing)
	}
	// Data already fetched for a popped task is not missing for the next
	// one: T0 and T1 both read 0, popped together while it loads: 1.
	w = &workloads.Workload{Data: data(1), Tasks: []workloads.Task{task(0, 1, 0), task(1, 1, 0)}}
	p := platform(t, 1, 10*gb)
	p.Runtime.PopWhileFetching = true
	st = run(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed([][]int{{0, 1}}, false), Buffer: 2, Pipeline: 2})
	if st.PopMissing != 1 {
		t.Errorf("fetched for a popped task: pop missing %d, want 1", st.PopMissing)
	}
}
