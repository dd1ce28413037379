package static_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// The static orders lose data to LRU eviction as StarPU does (issue 33).
// Traced on StarPU+SimGrid at papers/ICPP2023 (MST, 2D product N = 20 on
// one GPU of 250 MiB: 17 blocks fit), the first victim is B block 14 (data 34): at
// the end of a copy, StarPU's CUDA driver handles the data requests before
// it pops (driver_cuda.c _starpu_cuda_driver_run_once:
// __starpu_datawizard_progress, then _starpu_get_multi_worker_task), so the
// allocation for B block 3 (data 23) evicts before the pop lets MST push the task
// of row 18 that refreshes block 14 (prefetch at push); and a block takes
// its LRU place when it is allocated (memalloc.c register_mem_chunk), not
// when its copy ends. StarPU's runs load 249 blocks at N = 20 and 1289 at
// N = 40, 500 MiB (results/starpu/*.starpu.jsonl); the former order (pop,
// then requests; LRU at the copy's end; every pop at once) loaded 229 and 1170.
func TestStaticOrdersEvictAsStarPU(t *testing.T) {
	cases := []struct {
		sched  string
		n      int
		mib    int
		starpu int // loads, StarPU+SimGrid at papers/ICPP2023
		former int // pop before requests, LRU at the copy's end
	}{
		{"mst", 20, 250, 249, 229},
		{"mst", 40, 500, 1289, 1170},
		{"cm", 20, 250, 211, 204},
		{"rcm", 30, 400, 435, 403},
	}
	for _, c := range cases {
		for _, former := range []bool{false, true} {
			p, err := hardware.Load("gemini-2-ipdps")
			if err != nil {
				t.Fatal(err)
			}
			p.GPUs = 1
			if err := p.SetMemoryCap(float64(c.mib)); err != nil {
				t.Fatal(err)
			}
			rt := &p.Runtime
			rt.PopBeforeProgress, rt.LRUAtLoad, rt.PopDuringDriverTime, rt.PopAtOnce = former, former, former, former
			w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: c.n, Tile: workloads.DefaultTile, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: c.sched, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := c.starpu
			if former {
				want = c.former
			}
			if rec.Loads != want {
				t.Errorf("%s N=%d %d MiB (former order %v): %d loads, want %d", c.sched, c.n, c.mib, former, rec.Loads, want)
			}
		}
	}
}
