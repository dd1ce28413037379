package sim_test

import (
	"sync"
	"testing"
	"time"

	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
)

// memo is the simplest Config.Share: one value per key.
type memo struct {
	mu     sync.Mutex
	values map[string]any
}

func (m *memo) share(key string, compute func() (any, error)) (any, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.values[key]; ok {
		return v, nil
	}
	v, err := compute()
	m.values[key] = v
	return v, err
}

// A run that shares a plan costs, in counted operations, what computing it
// costs: the operations are counted again for the runs that did not
// compute. A run charged its measured time computes itself.
func TestSharedPlanCountsItsOperations(t *testing.T) {
	computed := 0
	plan := func(v schedulers.View) ([][]int, error) {
		order, err := schedulers.Shared(v, "plan", func() ([]int, error) {
			computed++
			v.Count(1000)
			return []int{3, 1, 2, 0}, nil
		})
		return [][]int{append([]int(nil), order...)}, err // shared values are read only
	}
	m := &memo{values: map[string]any{}}
	var ops []int64
	for _, charge := range []bool{false, false, true} {
		p := platform(t, 1, 4)
		if charge {
			p.Runtime.SchedCost = "measured"
		}
		st := run(t, sim.Config{Workload: unitGrid(2), Platform: p,
			Scheduler: &schedulers.Planned{Name: "shared", Plan: plan}, Buffer: 1, Pipeline: 1,
			Share: m.share, ChargeSchedTime: charge, Clock: func() time.Duration { return 0 }})
		ops = append(ops, st.SchedOps)
	}
	if computed != 2 {
		t.Errorf("the plan was computed %d times; want 2 (the first run, the run charged its measured time)", computed)
	}
	if ops[0] < 1000 || ops[1] != ops[0] || ops[2] != ops[0] {
		t.Errorf("sched ops %v: every run should count the plan's 1000 operations", ops)
	}
}
