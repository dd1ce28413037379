package sim_test

import (
	"reflect"
	"testing"

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
	events := func(decisions bool) (plain, decided []sim.Event) {
		run(t, sim.Config{Workload: w, Platform: platform(t, 2, 60<<20), Scheduler: &baseline.Eager{}, Buffer: 4, Pipeline: 2,
			Decisions: decisions, Trace: func(e sim.Event) {
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
