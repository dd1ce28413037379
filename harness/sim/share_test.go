package sim_test

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/memsched/memsched/harness/event"
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
		ops = append(ops, st.SchedOps[schedulers.OpStep])
	}
	if computed != 2 {
		t.Errorf("the plan was computed %d times; want 2 (the first run, the run charged its measured time)", computed)
	}
	if ops[0] < 1000 || ops[1] != ops[0] || ops[2] != ops[0] {
		t.Errorf("sched ops %v: every run should count the plan's 1000 operations", ops)
	}
}

// A run that did not compute a shared value counts the computation's wall
// time, measured once, in its scheduling time, and not its wait for the
// value: here computing takes 1 s and waiting 5 s of a fake clock, which
// advances only then.
func TestSharedPlanCountsItsWallTime(t *testing.T) {
	var now time.Duration
	plan := func(v schedulers.View) ([][]int, error) {
		order, err := schedulers.Shared(v, "plan", func() ([]int, error) {
			now += time.Second
			return []int{3, 1, 2, 0}, nil
		})
		return [][]int{append([]int(nil), order...)}, err
	}
	m := &memo{values: map[string]any{}}
	wait := func(key string, compute func() (any, error)) (any, error) {
		m.mu.Lock()
		_, computed := m.values[key]
		m.mu.Unlock()
		if computed {
			now += 5 * time.Second // waiting for it
		}
		return m.share(key, compute)
	}
	var walls, adjusts []time.Duration
	for range 2 {
		st := run(t, sim.Config{Workload: unitGrid(2), Platform: platform(t, 1, 4),
			Scheduler: &schedulers.Planned{Name: "shared", Plan: plan}, Buffer: 1, Pipeline: 1,
			Share: wait, Clock: func() time.Duration { return now }})
		walls, adjusts = append(walls, st.SchedWall), append(adjusts, st.WallAdjust)
	}
	if walls[0] != time.Second || walls[1] != time.Second {
		t.Errorf("scheduling wall times %v; want 1 s each (computing, and its replay without the 5 s wait)", walls)
	}
	if adjusts[0] != 0 || adjusts[1] != -4*time.Second {
		t.Errorf("run wall time adjustments %v; want 0 and -4 s (the replayed 1 s less the 5 s wait)", adjusts)
	}
}

// Counts saturate instead of wrapping negative: StarPU's HFP modelled at a
// million tasks counts past 2⁶³ comparisons.
func TestCountsSaturate(t *testing.T) {
	plan := func(v schedulers.View) ([][]int, error) {
		v.Count(math.MaxInt)
		v.Count(math.MaxInt)
		v.CountArray(math.MaxInt - 1)
		v.CountArray(2)
		v.CountOps(schedulers.OpStatus, math.MaxInt)
		v.CountOps(schedulers.OpStatus, 1)
		return [][]int{{0, 1, 2, 3}}, nil
	}
	st := run(t, sim.Config{Workload: unitGrid(2), Platform: platform(t, 1, 4),
		Scheduler: &schedulers.Planned{Name: "counting", Plan: plan}, Buffer: 1, Pipeline: 1})
	if want := [schedulers.NumOps]int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, 0, 0}; st.SchedOps != want {
		t.Errorf("counts %v, want %v", st.SchedOps, want)
	}
}

// Each kind of operation is charged at its own cost (runtime op_seconds,
// array_op_seconds, status_op_seconds, belady_op_seconds, ...): a plan counting
// 1000 of one kind delays the start by 1000 times that kind's cost.
func TestEachKindHasItsCost(t *testing.T) {
	costs := [schedulers.NumOps]float64{1e-6, 2e-6, 4e-6, 8e-6, 16e-6, 32e-6, 64e-6}
	for k := range schedulers.NumOps {
		plan := func(v schedulers.View) ([][]int, error) {
			v.CountOps(k, 1000)
			return [][]int{{0, 1, 2, 3}}, nil
		}
		p := platform(t, 1, 4)
		p.Runtime.SchedCost = "model"
		rt := &p.Runtime
		rt.OpSeconds, rt.ArrayOpSeconds, rt.StatusOpSeconds = costs[schedulers.OpStep], costs[schedulers.OpArray], costs[schedulers.OpStatus]
		rt.PredictOpSeconds, rt.BeladyOpSeconds = costs[schedulers.OpPredict], costs[schedulers.OpBelady]
		rt.StatusWrittenOpSeconds, rt.ProgramRunSeconds = costs[schedulers.OpStatusWritten], costs[schedulers.OpProgramRun]
		var c collector
		run(t, sim.Config{Workload: unitGrid(2), Platform: p, Scheduler: &schedulers.Planned{Name: "counting", Plan: plan},
			Buffer: 1, Pipeline: 1, ChargeSchedTime: true, Trace: c.add})
		first := firstTime(c.events, "load_start", func(event.Event) bool { return true })
		if want := 1000 * costs[k]; math.Abs(first-want) > 1e-12 {
			t.Errorf("kind %d: the first load starts at %g s, want %g (1000 operations at %g s)", k, first, want, costs[k])
		}
	}
}
