package baseline

import (
	"slices"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// popCounts is a View that records the status queries of each call
// (one call per pop of dmdar's Ready).
type popCounts struct {
	schedulers.View
	pops *[]int
}

func (c popCounts) CountOps(k schedulers.Op, n int) {
	if k == schedulers.OpStatus {
		*c.pops = append(*c.pops, n)
	}
	c.View.CountOps(k, n)
}

// Status forwards the simulator's StarPU statuses (schedulers.StatusViewer),
// which the embedded interface would hide.
func (c popCounts) Status(w int) schedulers.Status {
	return c.View.(schedulers.StatusViewer).Status(w)
}

// countedDMDA is dmdar seeing popCounts (its other methods promoted, so
// the engine finds its Popper, Observer and Idler).
type countedDMDA struct {
	*DMDA
	pops *[]int
}

func (s countedDMDA) Init(v schedulers.View) error {
	return s.DMDA.Init(popCounts{v, s.pops})
}

// dmdar counts the status queries StarPU's Ready makes at each pop
// (issue 34), checked by hand against the C loop: fifo_queues.c
// _starpu_fifo_pop_first_ready_task (papers/ICPP2023, and 0a34a0a24 of May
// 2021 that the V100 campaigns ran) scans the queue from its front, calls
// _starpu_size_non_ready_buffers on each task, which queries
// starpu_data_query_status2 for every buffer (R and W alike; only SCRATCH
// and REDUX are skipped at the tag), and breaks out of the scan only at a
// task that improves the best count of bytes not valid with nothing not
// valid and nothing not allocated. dmda_pop_ready_task calls it at every
// pop, over the worker's whole queue (dmda pushes every task there).
//
// 2D product, N = 4, natural order, one V100 of the preset: task
// t = 4a+b reads B column 4+b (strided, 1.84 ms a load) and A row a
// (1.23 ms). The pops, as the run makes them:
//
//	t=0      queue t0..t15, nothing valid: no task stops the scan, 16 x 2 = 32 (pops t0)
//	3.07 ms  t1..t15, B4 A0 valid, B5 loading: none has both valid, 15 x 2 = 30 (t1)
//	4.92 ms  t2..t15, B6 loading: 14 x 2 = 28 (t2)
//	6.76 ms  t3..t15, B7 loading: 13 x 2 = 26 (t3)
//	8.60 ms  t4..t15, A1 loading: 12 x 2 = 24 (t4)
//	9.83 ms  A1 valid: t5, t6, t7 each first in the queue with both valid: 2, 2, 2;
//	         then t8..t15 with A2 loading, A3 absent: 8 x 2 = 16 (t8)
//	11.06 ms A2 valid: t9, t10 at the front: 2, 2; at 11.43 ms t11: 2
//	11.97 ms t12..t15, A3 loading: 4 x 2 = 8 (t12)
//	12.50 ms A3 valid: t13, t14, t15: 2, 2, 2
//
// 182 queries in all, 11.4 a task.
func TestDMDARStatusQueriesPerPop(t *testing.T) {
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.Runtime.DurationCV = 0
	s, spec, params, err := schedulers.Build("dmdar", nil)
	if err != nil {
		t.Fatal(err)
	}
	var pops []int
	st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: countedDMDA{s.(*DMDA), &pops},
		Buffer: spec.BufferDepth(params, p.Runtime.Buffer), Pipeline: p.Runtime.Pipeline})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{32, 30, 28, 26, 24, 2, 2, 2, 16, 2, 2, 2, 8, 2, 2, 2}
	if !slices.Equal(pops, want) {
		t.Errorf("status queries per pop %v, want %v", pops, want)
	}
	if got := st.SchedOps[schedulers.OpStatus]; got != 182 {
		t.Errorf("%d status queries in all, want 182", got)
	}
}
