package sim_test

import (
	"testing"

	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/baseline"
	"github.com/memsched/memsched/workloads"
)

// GPUs woken together pull one task each in turn, as StarPU's CUDA workers
// (SimGrid actors) do: under EAGER on 2 GPUs, GPU 0 first pops task 0 and
// GPU 1 task 1 (traced at papers/ICPP2023: GPU 0 gets tasks 0 and 2, GPU 1
// tasks 1 and 3). Runtime.NodeAfterNode keeps the former order, where GPU
// 0 fills its buffer first (tasks 0 and 1) and GPU 1 starts with task 2.
func TestWorkersPullInTurn(t *testing.T) {
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 6})
	if err != nil {
		t.Fatal(err)
	}
	firstPops := func(nodeAfterNode bool) [2]int {
		p := platform(t, 2, 60<<20)
		p.Runtime.NodeAfterNode = nodeAfterNode
		first := [2]int{-1, -1}
		run(t, sim.Config{Workload: w, Platform: p, Scheduler: &baseline.Eager{}, Buffer: 1, Pipeline: 2,
			Decisions: true, Trace: func(e event.Event) {
				if e.Ev == "pop" && first[e.Worker] < 0 {
					first[e.Worker] = e.Task
				}
			}})
		return first
	}
	if got := firstPops(false); got != [2]int{0, 1} {
		t.Errorf("StarPU's order: GPUs 0 and 1 first pop tasks %v, want [0 1]", got)
	}
	if got := firstPops(true); got != [2]int{0, 2} {
		t.Errorf("node_after_node: GPUs 0 and 1 first pop tasks %v, want [0 2]", got)
	}
}

// rounder is EAGER recording, per pull, whether the engine said the pull
// is in turn, and the rounds it closed (schedulers.Rounder).
type rounder struct {
	baseline.Eager
	v       schedulers.RoundView
	inTurn  []bool
	rounds  int
	pending int // pulls in turn since the last EndRound
}

func (r *rounder) Init(v schedulers.View) error {
	r.v, _ = v.(schedulers.RoundView)
	return r.Eager.Init(v)
}

func (r *rounder) Pull(k int) (int, bool) {
	in := r.v != nil && r.v.InTurn()
	r.inTurn = append(r.inTurn, in)
	if in {
		r.pending++
	}
	return r.Eager.Pull(k)
}

func (r *rounder) EndRound() { r.rounds, r.pending = r.rounds+1, 0 }

// The engine closes each round of in-turn pulls with EndRound, and says a
// pull is in turn only inside one: the first pulls of 2 GPUs woken
// together are in turn, and none is left unclosed.
func TestRoundsClosed(t *testing.T) {
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 6})
	if err != nil {
		t.Fatal(err)
	}
	r := &rounder{}
	run(t, sim.Config{Workload: w, Platform: platform(t, 2, 60<<20), Scheduler: r, Buffer: 1, Pipeline: 2})
	if r.v == nil {
		t.Fatal("the simulator's view is no schedulers.RoundView")
	}
	if len(r.inTurn) < 2 || !r.inTurn[0] || !r.inTurn[1] {
		t.Errorf("the first two pulls are not in turn: %v", r.inTurn)
	}
	if r.rounds == 0 || r.pending != 0 {
		t.Errorf("%d rounds closed, %d pulls in turn after the last", r.rounds, r.pending)
	}
}
