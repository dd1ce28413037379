package sim_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers/baseline"
	"github.com/memsched/memsched/workloads"
)

// Decisions adds a pop event per task, on its worker before it starts,
// and changes nothing else: the other events are those of a run without.
func TestDecisionEvents(t *testing.T) {
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 6})
	if err != nil {
		t.Fatal(err)
	}
	events := func(decisions bool) (plain, decided []event.Event) {
		run(t, sim.Config{Workload: w, Platform: platform(t, 2, 60<<20), Scheduler: &baseline.Eager{}, Buffer: 4, Pipeline: 2,
			Decisions: decisions, Trace: func(e event.Event) {
				if e.Ev == "pop" || e.Ev == "sched" {
					decided = append(decided, e)
				} else {
					plain = append(plain, e)
				}
			}})
		return plain, decided
	}
	without, none := events(false)
	with, decided := events(true)
	if len(none) != 0 || !reflect.DeepEqual(with, without) {
		t.Fatalf("without Decisions: %d decision events; with them the other events differ: %v", len(none), !reflect.DeepEqual(with, without))
	}
	popped := map[int]int{} // task -> worker
	for _, e := range decided {
		if _, twice := popped[e.Task]; e.Ev != "pop" || twice {
			t.Fatalf("unexpected %+v", e)
		}
		popped[e.Task] = e.Worker
	}
	for _, e := range with {
		if wk, ok := popped[e.Task]; e.Ev == "task_start" && (!ok || wk != e.Worker) {
			t.Errorf("task %d starts on worker %d; popped on %d (%v)", e.Task, e.Worker, wk, ok)
		}
	}
	if len(popped) != len(w.Tasks) {
		t.Errorf("%d pops for %d tasks", len(popped), len(w.Tasks))
	}
}

// A task whose inputs need no copy (mode W: an allocation) is ready at
// once, and a GPU's driver, which polls, pops the next task at once: the
// tasks here each write their own tile, and with a pipeline of 2 the GPU
// pops its second task at time 0, when its first starts, and not when its
// first ends. Cores run one task at a time (pipeline depth 1): each of two
// cores sharing their memory pops its second task when its first ends.
func TestPopAgainAfterAnAllocation(t *testing.T) {
	cores, err := hardware.Load("epyc7642-ooc")
	if err != nil {
		t.Fatal(err)
	}
	cores.CPUs = 2
	cores.SetMemoryMiB(64)
	for _, c := range []struct {
		p     *hardware.Platform
		ahead int // tasks popped at time 0
	}{{platform(t, 1, 1<<30), 2}, {cores, 2}} {
		w := &workloads.Workload{}
		for i := range c.ahead + 1 {
			w.Data = append(w.Data, workloads.Data{ID: i, Bytes: 1 << 20})
			w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e9, Inputs: []int{i}})
			w.Modes = append(w.Modes, []workloads.Mode{workloads.W})
		}
		var pops []float64
		run(t, sim.Config{Workload: w, Platform: c.p, Scheduler: &baseline.Eager{}, Buffer: 1, Pipeline: 2,
			Decisions: true, Trace: func(e event.Event) {
				if e.Ev == "pop" {
					pops = append(pops, e.T)
				}
			}})
		if len(pops) != len(w.Tasks) || slices.ContainsFunc(pops[:c.ahead], func(t float64) bool { return t != 0 }) || pops[c.ahead] <= 0 {
			t.Errorf("%s: pops at %v; want %d at 0, then when a first task ends", c.p.Name, pops, c.ahead)
		}
	}
}
