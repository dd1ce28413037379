// Package static registers the schedulers that plan an order once over the
// whole task set (thesis Ch. 3-4): MST, RCM and CM (single GPU), HFP (single
// GPU) and mHFP (K GPUs). Each is a schedulers.Planned with a plan from
// memsched/schedulers/order; the runtime parts (Ready, Belady, stealing)
// are the shared components. Planning time is measured as scheduler time
// and charged to the timeline only when the run asks for it.
package static

import (
	"fmt"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/order"
)

// Orders of the mst scheduler (parameter order).
const (
	// MSTStarPU is order.MSTStarPU: what StarPU's mst scheduler runs
	// (src/sched_policies/mst_policy.c at papers/ICPP2023).
	MSTStarPU = "starpu"
	// MSTThesis is order.MST: thesis Algorithm 4.
	MSTThesis = "thesis"
)

// Balancing of the mhfp scheduler (parameter balance_by).
const (
	// BalanceStarPU is order.BalanceStarPU: StarPU's HFP.c
	// load_balance_expected_time at papers/ICPP2023 (MULTIGPU=4).
	BalanceStarPU = "starpu"
	// BalanceThesis is order.Balance: thesis Algorithm 8.
	BalanceThesis = "thesis"
)

func init() {
	ready := schedulers.Param{Name: "ready", Kind: "bool", Default: "false", Doc: "Ready reordering of the buffered tasks at run time (thesis Alg. 2)"}
	readyAt := schedulers.ReadyAtParam
	window := schedulers.Param{Name: "window", Kind: "int", Default: "0", Min: "0", Doc: "Ready looks at the first window tasks only, of the buffer or the plan (ready_at; 0 = all)"}
	mstOrder := schedulers.Param{Name: "order", Kind: "string", Default: MSTStarPU, Choices: []string{MSTStarPU, MSTThesis},
		Doc: "starpu: the order StarPU's mst_policy.c runs at papers/ICPP2023 (Prim over the tasks in reverse submission order, mst_push_task's push_front, raising only the keys of tasks submitted earlier: one-sided adjacency, weight = shared handles); thesis: Algorithm 4 (Prim from the first task submitted over G^T weighted by shared bytes)"}
	for _, c := range []struct {
		name, doc string
		version   int
		params    []schedulers.Param
		plan      func(v schedulers.View, p schedulers.Params) []int
	}{
		{"mst", "maximum spanning tree (Prim) of the task graph; tasks in order of inclusion; LRU (Yoo et al., thesis §3.3); by default the order StarPU's mst_policy.c produces (the reverse of the submission order on a 2D product)", 4,
			[]schedulers.Param{mstOrder},
			func(v schedulers.View, p schedulers.Params) []int {
				if p.String("order") == MSTThesis {
					return order.MST(v.Workload())
				}
				return order.MSTStarPU(v.Workload())
			}},
		{"rcm", "reverse Cuthill-McKee on the task graph, restarting each component at its minimum weighted degree; LRU (thesis Alg. 3)", 3, nil,
			func(v schedulers.View, _ schedulers.Params) []int { return order.CuthillMcKee(v.Workload(), true) }},
		{"cm", "Cuthill-McKee (not reversed); LRU", 3, nil,
			func(v schedulers.View, _ schedulers.Params) []int { return order.CuthillMcKee(v.Workload(), false) }},
	} {
		c := c
		schedulers.Register(schedulers.Spec{Name: c.name, Version: c.version, Doc: c.doc, Params: append([]schedulers.Param{ready, readyAt, window}, c.params...),
			New: func(p schedulers.Params) (schedulers.Scheduler, error) {
				return &schedulers.Planned{Name: c.name, Ready: p.Bool("ready"), ReadyBelow: p.String("ready_at") == schedulers.ReadyAtBuffer, Window: p.Int("window"),
					Plan: singleGPU(c.name, func(v schedulers.View) []int { return c.plan(v, p) })}, nil
			}})
	}

	flip := schedulers.Param{Name: "flip", Kind: "bool", Default: "false", Doc: "package flipping (U-order) at each merge (thesis §3.5.2)"}
	belady := schedulers.Param{Name: "belady", Kind: "bool", Default: "false", Doc: "Belady eviction over the planned order (thesis §3.5.3)"}
	fast := schedulers.Param{Name: "fast_start", Kind: "bool", Default: "false", Doc: "first iteration merges tasks sharing any data without the max search (thesis §3.5.7)"}
	mergeFit := schedulers.Param{Name: "merge_fit", Kind: "bool", Default: "false",
		Doc: "while packages are bounded by the memory, a merge also needs the pair to fit (the thesis's Alg. 5 as read); false: StarPU's HFP.c hierarchical_fair_packing, whose bound only limits the maximum shared weight, the merge loop joining P_i with the first P_j sharing that maximum whether their union fits or not"}
	packing := schedulers.Param{Name: "packing_code", Kind: "string", Default: PackingNov2021, Choices: []string{PackingNov2021, PackingOct2021},
		Doc: "the version of StarPU's HFP.c packing whose operations the planning time counts (changes no decision): nov2021, the linear comparison of 219ce987c (2021-11-23) to papers/ICPP2023 (FGCS 2023 and thesis ch. 3 campaigns, February 2022 artifact); oct2021, c80ea6665 (2021-10-13, the IPDPS 2022 campaign), its matrix compared pairwise and its maximum searched again after each merge"}
	// Version 4: Belady reads StarPU's next uses by default (belady_uses).
	// Version 5: merges as StarPU's (merge_fit = false).
	// Version 6: the planning time counts the packing of papers/ICPP2023
	// (packing_code = nov2021); oct2021 counts what version 5 did.
	schedulers.Register(schedulers.Spec{Name: "hfp", Version: 6,
		Doc:    "Hierarchical Fair Packing on one GPU (thesis Alg. 5): pack tasks sharing most data while inputs fit in memory, then merge packages ignoring the bound; the papers' HFP is flip=true ready=true (COLOC 2021) plus belady=true (thesis)",
		Params: []schedulers.Param{flip, ready, readyAt, belady, schedulers.BeladyUsesParam, fast, mergeFit, packing, window},
		New: func(p schedulers.Params) (schedulers.Scheduler, error) {
			opts := order.HFPOptions{Flip: p.Bool("flip"), FastStart: p.Bool("fast_start"), MergeFit: p.Bool("merge_fit"), Code: packingCode(p), Packages: 1}
			return &schedulers.Planned{Name: "hfp", Ready: p.Bool("ready"), ReadyBelow: p.String("ready_at") == schedulers.ReadyAtBuffer, Window: p.Int("window"), Belady: p.Bool("belady"), BeladyUses: p.String("belady_uses"),
				Plan: singleGPU("hfp", func(v schedulers.View) []int {
					opts.Memory = v.Platform().MemoryBytes
					opts.Count = v.CountArray
					return order.HFP(v.Workload(), opts)[0]
				})}, nil
		}})

	on := func(pp schedulers.Param) schedulers.Param { pp.Default = "true"; return pp }
	// Version 4: Belady reads StarPU's next uses by default (belady_uses):
	// HFP.c's multi-GPU path fills one next_use_tab per GPU package.
	// Version 5: merges as StarPU's (merge_fit = false; its multi-GPU
	// packing is the same hierarchical_fair_packing).
	// Version 6: balances as StarPU's (balance_by = starpu), and counts
	// the packing of its campaign's code (packing_code, as hfp's).
	schedulers.Register(schedulers.Spec{Name: "mhfp", Version: 6,
		Doc: "multi-GPU HFP (thesis Alg. 8): HFP stopped at K packages, tail tasks moved to balance expected compute time, package k on GPU k, stealing half of the most loaded GPU's remaining tasks from its tail, Ready, Belady",
		Params: []schedulers.Param{on(flip), on(ready), readyAt, on(belady), schedulers.BeladyUsesParam, fast, mergeFit, packing, window,
			{Name: "balance", Kind: "bool", Default: "true", Doc: "load balancing toward the average compute time"},
			{Name: "balance_by", Kind: "string", Default: BalanceStarPU, Choices: []string{BalanceStarPU, BalanceThesis},
				Doc: "starpu: StarPU's HFP.c load_balance_expected_time at papers/ICPP2023 (MULTIGPU=4): packages timed on worker 0's model, the average, the amount and the moved tasks on worker 1's (starpu_worker_get_perf_archtype(STARPU_CUDA_WORKER, 0)), tail tasks popped while the moved time is below the amount and pushed at the back of the least loaded package, reversed (order.BalanceStarPU); thesis: Algorithm 8 on worker 0's times, the tail moved in order, rounded to whole tasks (order.Balance)"},
			{Name: "steal", Kind: "bool", Default: "true", Doc: "work stealing when a GPU runs out of planned tasks"}},
		New: func(p schedulers.Params) (schedulers.Scheduler, error) {
			opts := order.HFPOptions{Flip: p.Bool("flip"), FastStart: p.Bool("fast_start"), MergeFit: p.Bool("merge_fit"), Code: packingCode(p)}
			balance, balanceBy := p.Bool("balance"), p.String("balance_by")
			return &schedulers.Planned{Name: "mhfp", Ready: p.Bool("ready"), ReadyBelow: p.String("ready_at") == schedulers.ReadyAtBuffer, Window: p.Int("window"), Belady: p.Bool("belady"), BeladyUses: p.String("belady_uses"), Steal: p.Bool("steal"),
				Plan: func(v schedulers.View) ([][]int, error) {
					opts.Memory = v.Platform().MemoryBytes
					opts.Packages = v.Workers()
					opts.Count = v.CountArray
					pkgs := order.HFP(v.Workload(), opts)
					for len(pkgs) < v.Workers() {
						pkgs = append(pkgs, nil)
					}
					if balance {
						// Homogeneous GPUs: the perf model of GPU 0 (thesis §3.7).
						on0 := func(t int) float64 { return v.ComputeSeconds(0, t) }
						if balanceBy == BalanceThesis {
							pkgs = order.Balance(pkgs, on0)
						} else {
							on1 := func(t int) float64 { return v.ComputeSeconds(min(1, v.Workers()-1), t) }
							pkgs = order.BalanceStarPU(pkgs, on0, on1)
						}
					}
					return pkgs, nil
				}}, nil
		}})
}

// Versions of StarPU's HFP.c packing (parameter packing_code of hfp and
// mhfp): order.HFPCodeNov2021 and order.HFPCodeOct2021.
const (
	PackingNov2021 = "nov2021"
	PackingOct2021 = "oct2021"
)

func packingCode(p schedulers.Params) order.HFPCode {
	if p.String("packing_code") == PackingOct2021 {
		return order.HFPCodeOct2021
	}
	return order.HFPCodeNov2021
}

// singleGPU adapts a one-list plan, refusing multi-GPU runs with the fix.
func singleGPU(name string, plan func(v schedulers.View) []int) func(v schedulers.View) ([][]int, error) {
	return func(v schedulers.View) ([][]int, error) {
		if v.Workers() != 1 {
			return nil, fmt.Errorf("%s orders tasks for one GPU; this run has %d (use mhfp, hmetis+r, darts or dmdar)", name, v.Workers())
		}
		return [][]int{plan(v)}, nil
	}
}
