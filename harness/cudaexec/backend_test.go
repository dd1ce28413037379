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

// simDriver drives the engine through its effects in simulated time, with
// the simulator's timing model for platforms whose only bottleneck is each
// GPU's own link (one flow per GPU at a constant rate), reproducing the
// simulator's arithmetic and tie-breaking: copies before task ends and
// wake-ups at equal times, copies in start order, the others in the order
// the engine asked for them. It is a third driver of the engine, written
// from its exported contract alone.
type simDriver struct {
	m     *sim.Engine
	flows []*simFlow
	ev    taskHeap
	seq   uint64
	trace func(event.Event)
}

type simFlow struct {
	c               sim.Copy
	remaining, rate float64
}

type taskEv struct {
	t       float64
	seq     uint64
	g, task int // task -1: a wake-up
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

func (b *simDriver) carryOut() {
	m := b.m
	for _, f := range m.Effects() {
		switch f.Kind {
		case sim.EffectCopy:
			b.flows = append(b.flows, &simFlow{c: f.Copy,
				remaining: float64(m.Workload().Data[f.Copy.Data].Bytes), rate: m.Platform().HomeGBps(f.Copy.Node) * 1e9})
		case sim.EffectTask:
			b.seq++
			heap.Push(&b.ev, taskEv{m.Now() + m.ComputeSeconds(f.Worker, f.Task), b.seq, f.Worker, f.Task})
		case sim.EffectWake:
			b.seq++
			heap.Push(&b.ev, taskEv{f.At, b.seq, f.Worker, -1})
		}
	}
	for _, ev := range m.Events() {
		b.trace(ev)
	}
	m.Ack()
}

func (b *simDriver) run() (*sim.Stats, error) {
	m := b.m
	if err := m.Begin(); err != nil {
		return nil, err
	}
	b.carryOut()
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
			m.CopyDone(f.c)
			b.carryOut()
			continue
		}
		e := heap.Pop(&b.ev).(taskEv)
		b.advance(e.t)
		if e.task < 0 {
			m.Wake(e.g, e.t)
		} else {
			m.TaskDone(e.g, e.task)
		}
		b.carryOut()
	}
	return m.Finish(), nil
}

func (b *simDriver) advance(t float64) {
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

// TestMachineLockstep drives sim.Engine through its effects (simDriver),
// in simulated time, against sim.Run on the same configuration: the traces
// must agree event for event (time, kind, GPU, task, data) and the totals
// exactly. It keeps the engine's exported contract, which the CUDA
// executor drives, honest.
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
				trace := func(e event.Event) { got = append(got, e) }
				m, err := sim.New(sim.Config{Workload: w, Platform: p, Scheduler: s2, Buffer: buf,
					Pipeline: p.Runtime.Pipeline, Seed: 7, Trace: trace})
				if err != nil {
					t.Fatal(err)
				}
				b := &simDriver{m: m, trace: trace}
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
