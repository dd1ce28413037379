package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers/baseline"
)

// A cancelled run stops between events and says why.
func TestRunStopsWhenItsContextIsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := sim.Run(sim.Config{Workload: unitGrid(4), Platform: platform(t, 1, 3), Scheduler: &baseline.Eager{},
		Buffer: 1, Pipeline: 1, Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// Every event carries every field, id 0 and GPU 0 included, as the
// README's trace format says.
func TestTraceEventsCarryEveryField(t *testing.T) {
	c := &collector{}
	run(t, sim.Config{Workload: unitGrid(2), Platform: platform(t, 1, 4), Scheduler: &baseline.Eager{},
		Buffer: 1, Pipeline: 1, Trace: c.add})
	kinds := map[string]bool{}
	for _, ev := range c.events {
		b, _ := json.Marshal(ev)
		kinds[ev.Ev] = true
		for _, f := range []string{`"t":`, `"ev":`, `"worker":`, `"node":`, `"task":`, `"data":`, `"bytes":`, `"kind":`, `"src":`} {
			if !strings.Contains(string(b), f) {
				t.Errorf("%s lacks %s", b, f)
			}
		}
	}
	for _, k := range []string{"load_start", "load_end", "task_start", "task_end"} {
		if !kinds[k] {
			t.Errorf("no %s event", k)
		}
	}
}
