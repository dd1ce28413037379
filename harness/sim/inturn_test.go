package sim_test

import (
	"testing"

	"github.com/memsched/memsched/harness/sim"
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
			Decisions: true, Trace: func(e sim.Event) {
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
