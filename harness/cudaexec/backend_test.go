package cudaexec

import (
	"container/heap"
	"fmt"
	"math"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline"
	"github.com/memsched/memsched/workloads"
)

// simBackend drives the machine in simulated time with the engine's timing
// model for platforms whose only bottleneck is each GPU's own link (one
// flow per GPU at a constant rate), reproducing the engine's arithmetic and
// tie-breaking: loads before task ends at equal times, loads in start
// order, task ends by push order.
type simBackend struct {
	m     *sim.Engine
	flows []*simFlow
	ev    taskHeap
	seq   uint64
}

type simFlow struct {
	g, d            int
	prefetch        bool
	remaining, rate float64
}

type taskEv struct {
	t       float64
	seq     uint64
	g, task int
}

type taskHeap []taskEv

func (h taskHeap) Len() int { return len(h) }
func (h taskHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || (h[i].t == h[j].t && h[i].seq < h[j].seq)
}
func (h taskHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *taskHeap) Push(x any)   { *h = append(*h, x.(taskEv)) }
func (h *taskHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (b *simBackend) StartLoad(g, d int, prefetch bool, _ int) {
	b.flows = append(b.flows, &simFlow{g: g, d: d, prefetch: prefetch,
		remaining: float64(b.m.Workload().Data[d].Bytes), rate: b.m.Platform().HomeGBps(g) * 1e9})
}

func (b *simBackend) StartTask(g, task int, _ int) {
	b.seq++
	heap.Push(&b.ev, taskEv{b.m.Now() + b.m.ComputeSeconds(g, task), b.seq, g, task})
}

func (b *simBackend) Evicted(int, int) {}

func (b *simBackend) run() (*sim.Stats, error) {
	m := b.m
	if err := m.Begin(); err != nil {
		return nil, err
	}
	for !m.Done() {
		best, fi := math.Inf(1), -1
		for i, f := range b.flows {
			if t := m.Now() + f.remaining/f.rate; t < best {
				best, fi = t, i
			}
		}
		if len(b.ev) == 0 && fi < 0 {
			return nil, m.Stuck()
		}
		if fi >= 0 && (len(b.ev) == 0 || best <= b.ev[0].t) {
			b.advance(best)
			f := b.flows[fi]
			b.flows = append(b.flows[:fi], b.flows[fi+1:]...)
			m.LoadDone(f.g, f.d, f.prefetch)
			continue
		}
		e := heap.Pop(&b.ev).(taskEv)
		b.advance(e.t)
		m.TaskDone(e.g, e.task)
	}
	return m.Finish(), nil
}

func (b *simBackend) advance(t float64) {
	if dt := t - b.m.Now(); dt > 0 {
		for _, f := range b.flows {
			f.remaining -= f.rate * dt
		}
		b.m.Advance(t)
	}
}

// privateLinks is v100-gemini with every shared link wide enough never to
// bind, so each GPU's own link is its only bottleneck.
func privateLinks(t testing.TB, gpus int, memBytes int64) *hardware.Platform {
	t.Helper()
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryBytes(memBytes)
	p.Topology.GPUsPerSwitch, p.Topology.GPUsPerNUMA = 1, 8
	wide := 64 * p.Topology.GPULinkGBps
	p.Topology.SwitchLinkGBps, p.Topology.NUMALinkGBps, p.Topology.InterNUMAGBps = wide, wide, wide
	// The fake GPUs copy every datum at the link's rate, from host RAM,
	// and run every kernel for its exact duration.
	p.Topology.NVLink, p.Topology.StridedGBps, p.Runtime.DurationCV = false, 0, 0
	return p
}

// mustGen generates a workload for the executor, which runs read-only task
// sets: a DAG keeps its dependencies, and its updates become reads.
func mustGen(t testing.TB, s workloads.Spec) *workloads.Workload {
	t.Helper()
	w, err := workloads.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	w.Modes = nil
	return w
}

func build(t testing.TB, name string, p *hardware.Platform) (schedulers.Scheduler, int) {
	t.Helper()
	s, spec, params, err := schedulers.Build(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, spec.BufferDepth(params, p.Runtime.Buffer)
}

// TestMachineLockstep runs sim.Engine through the Backend seam, with
// simulated time, against sim.Run
// on the same configuration: the traces must agree event for event (time,
// kind, GPU, task, data) and the totals exactly. It is what keeps this
// copy of the engine's state machine honest until sim exports the seam.
func TestMachineLockstep(t *testing.T) {
	tile := 96
	cases := []struct {
		name string
		spec workloads.Spec
		gpus int
		mem  int64 // in data of the workload's size
	}{
		{"2d-1gpu", workloads.Spec{Kind: "matmul2d", N: 8, Tile: tile, Z: 4 * tile}, 1, 5},
		{"2d-1gpu-m8", workloads.Spec{Kind: "matmul2d", N: 8, Tile: tile, Z: 4 * tile}, 1, 8},
		{"2d-2gpu-m9", workloads.Spec{Kind: "matmul2d", N: 8, Tile: tile, Z: 4 * tile}, 2, 9},
		{"random-1gpu-m10", workloads.Spec{Kind: "randompairs", N: 8, Tile: tile, Z: 4 * tile, Seed: 3}, 1, 10},
		{"2d-2gpu", workloads.Spec{Kind: "matmul2d", N: 8, Tile: tile, Z: 4 * tile}, 2, 4},
		{"random-3gpu", workloads.Spec{Kind: "randompairs", N: 7, Tile: tile, Z: 4 * tile, Seed: 3}, 3, 3},
		{"3d-2gpu", workloads.Spec{Kind: "matmul3d", N: 3, Tile: tile, Deps: true}, 2, 5},
		{"cholesky-2gpu", workloads.Spec{Kind: "cholesky", N: 5, Tile: tile, Deps: true}, 2, 4},
	}
	for _, c := range cases {
		for _, sched := range []string{"eager", "dmda", "dmdar"} {
			t.Run(c.name+"/"+sched, func(t *testing.T) {
				w := mustGen(t, c.spec)
				p := privateLinks(t, c.gpus, c.mem*w.Data[0].Bytes)
				var want, got []event.Event
				s1, buf := build(t, sched, p)
				st1, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s1, Buffer: buf,
					Pipeline: p.Runtime.Pipeline, Seed: 7, Trace: func(e event.Event) { want = append(want, e) }})
				if err != nil {
					t.Fatal(err)
				}
				s2, _ := build(t, sched, p)
				b := &simBackend{}
				m, err := sim.NewWith(sim.Config{Workload: w, Platform: p, Scheduler: s2, Buffer: buf,
					Pipeline: p.Runtime.Pipeline, Seed: 7, Trace: func(e event.Event) { got = append(got, e) }}, b)
				if err != nil {
					t.Fatal(err)
				}
				b.m = m
				st2, err := b.run()
				if err != nil {
					t.Fatal(err)
				}
				if st1.Evictions == 0 {
					t.Errorf("no eviction: the case does not exercise memory pressure")
				}
				if len(want) != len(got) {
					t.Fatalf("sim emitted %d events, the machine %d", len(want), len(got))
				}
				for i := range want {
					if want[i] != got[i] {
						t.Fatalf("event %d: sim %+v, machine %+v", i, want[i], got[i])
					}
				}
				a, b2 := *st1, *st2
				if fmt.Sprint(a) != fmt.Sprint(b2) {
					t.Fatalf("stats differ:\nsim     %+v\nmachine %+v", a, b2)
				}
			})
		}
	}
}
