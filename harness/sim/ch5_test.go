package sim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/hardware"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/dartsdag"
	"github.com/memsched/memsched/workloads"
)

// The schedulers of thesis chapter 5 on their platforms: every run of
// random task graphs validates (coherence, memory, links, dependencies) on
// the gemini NVLink mesh with 1 to 8 GPUs and on CPU cores out of core, and
// the same configuration and seed give the same record.
func TestChapter5SchedulersValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	gemini, err := hardware.Load("v100-gemini-1920")
	if err != nil {
		t.Fatal(err)
	}
	epyc, err := hardware.Load("epyc7642-ooc")
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"cholesky", "lu", "matmul3d"}
	for it := 0; it < 24; it++ {
		kind := kinds[it%3]
		cpu := it%4 == 3
		tile := 1920
		if cpu {
			tile = 320
		}
		w := genW(t, workloads.Spec{Kind: kind, N: 3 + r.IntN(4), Tile: tile, Deps: true})
		need := float64(w.MaxInputBytes()) / hardware.MiB
		mib := need * (1 + 4*r.Float64())
		p := gemini.Clone()
		p.GPUs = 1 + r.IntN(8)
		if cpu {
			p = epyc.Clone()
			p.CPUs = 1 + r.IntN(48)
		}
		p.SetMemoryMiB(mib)
		for _, sched := range []string{"eager", "dmdas", "lws", "ap", "darts-dag"} {
			label := fmt.Sprintf("%s %s %d GPUs %d CPUs %.0f MiB", w.Name, sched, p.GPUs, p.CPUs, mib)
			a := validRun(t, label, w, p, sched)
			b, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if a.MakespanS != b.MakespanS || a.BytesH2D != b.BytesH2D || a.BytesD2D != b.BytesD2D || a.Loads != b.Loads {
				t.Errorf("%s: two runs differ: %v/%v s, %d/%d loads", label, a.MakespanS, b.MakespanS, a.Loads, b.Loads)
			}
		}
	}
}

// counting hands out tasks in order and counts those pulled and not
// finished.
type counting struct {
	listed
	out, most int
}

func (c *counting) Pull(w int) (int, bool) {
	t, ok := c.listed.Pull(0)
	if ok {
		c.out++
		c.most = max(c.most, c.out)
	}
	return t, ok
}

func (c *counting) Observe(kind schedulers.EventKind, where, id int) {
	if kind == schedulers.Finished {
		c.out--
	}
}

// With NodeBuffer the CPU cores sharing a RAM share one task buffer (DARTS's
// per-node fifo): at most Buffer tasks wait on the node, besides the one
// each core computes; without it each core holds its own Buffer.
func TestNodeBuffer(t *testing.T) {
	w := genW(t, workloads.Spec{Kind: "matmul2d", N: 8, Tile: 320})
	p := outOfCore(t, 4, 64)
	for _, shared := range []bool{false, true} {
		order := make([]int, len(w.Tasks))
		for i := range order {
			order[i] = i
		}
		c := &counting{listed: listed{plan: [][]int{order}}}
		if _, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: c, Buffer: 3, Pipeline: 1, NodeBuffer: shared}); err != nil {
			t.Fatal(err)
		}
		want := 4 * (3 + 1)
		if shared {
			want = 3 + 4
		}
		if c.most != want {
			t.Errorf("node buffer %v: at most %d tasks out, want %d", shared, c.most, want)
		}
	}
}
