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

// The parameters the Planned schedulers here share, bound by name in
// each one's declaration order.
func readyArg(a *schedulers.Args, dst *bool, def bool) {
	a.Bool(dst, "ready", def, "Ready reordering of the buffered tasks at run time (thesis Alg. 2)")
}

func readyAtArg(a *schedulers.Args, dst *bool) {
	a.SharedIs(schedulers.ReadyAtParam, dst, schedulers.ReadyAtBuffer)
}

func windowArg(a *schedulers.Args, dst *int) {
	a.Int(dst, "window", 0, "Ready looks at the first window tasks only, of the buffer or the plan (ready_at; 0 = all)").Min(0)
}

// orderOptions are the parameters of mst, rcm and cm.
type orderOptions struct {
	Ready, ReadyBelow bool
	Window            int
	MSTThesis         bool // mst: order = thesis
}

// hfpOptions are the parameters of hfp and mhfp.
type hfpOptions struct {
	Flip, Ready, ReadyBelow, Belady, FastStart, MergeFit bool
	BeladyUses, PackingCode                              string
	Window                                               int
	Balance, Steal                                       bool   // mhfp
	BalanceBy                                            string // mhfp
}

// hfpArgs binds the parameters hfp and mhfp share; multi sets mhfp's
// defaults (flip, Ready and Belady on).
func hfpArgs(a *schedulers.Args, o *hfpOptions, multi bool) {
	a.Bool(&o.Flip, "flip", multi, "package flipping (U-order) at each merge (thesis §3.5.2)")
	readyArg(a, &o.Ready, multi)
	readyAtArg(a, &o.ReadyBelow)
	a.Bool(&o.Belady, "belady", multi, "Belady eviction over the planned order (thesis §3.5.3)")
	a.Shared(schedulers.BeladyUsesParam, &o.BeladyUses)
	a.Bool(&o.FastStart, "fast_start", false, "first iteration merges tasks sharing any data without the max search (thesis §3.5.7)")
	a.Bool(&o.MergeFit, "merge_fit", false, "while packages are bounded by the memory, a merge also needs the pair to fit (the thesis's Alg. 5 as read); false: StarPU's HFP.c hierarchical_fair_packing, whose bound only limits the maximum shared weight, the merge loop joining P_i with the first P_j sharing that maximum whether their union fits or not")
	a.String(&o.PackingCode, "packing_code", PackingNov2021, []string{PackingNov2021, PackingOct2021},
		"the version of StarPU's HFP.c packing whose operations the planning time counts (changes no decision): nov2021, the linear comparison of 219ce987c (2021-11-23) to papers/ICPP2023 (FGCS 2023 and thesis ch. 3 campaigns, February 2022 artifact); oct2021, c80ea6665 (2021-10-13, the IPDPS 2022 campaign), its matrix compared pairwise and its maximum searched again after each merge")
	windowArg(a, &o.Window)
}

func (o hfpOptions) packing() order.HFPOptions {
	code := order.HFPCodeNov2021
	if o.PackingCode == PackingOct2021 {
		code = order.HFPCodeOct2021
	}
	return order.HFPOptions{Flip: o.Flip, FastStart: o.FastStart, MergeFit: o.MergeFit, Code: code}
}

func init() {
	for _, c := range []struct {
		name, doc string
		version   int
		mst       bool
		plan      func(v schedulers.View, o orderOptions) []int
	}{
		{"mst", "maximum spanning tree (Prim) of the task graph; tasks in order of inclusion; LRU (Yoo et al., thesis §3.3); by default the order StarPU's mst_policy.c produces (the reverse of the submission order on a 2D product)", 4, true,
			func(v schedulers.View, o orderOptions) []int {
				if o.MSTThesis {
					return order.MST(v.Workload())
				}
				return order.MSTStarPU(v.Workload())
			}},
		{"rcm", "reverse Cuthill-McKee on the task graph, restarting each component at its minimum weighted degree; LRU (thesis Alg. 3)", 3, false,
			func(v schedulers.View, _ orderOptions) []int { return order.CuthillMcKee(v.Workload(), true) }},
		{"cm", "Cuthill-McKee (not reversed); LRU", 3, false,
			func(v schedulers.View, _ orderOptions) []int { return order.CuthillMcKee(v.Workload(), false) }},
	} {
		params, build := schedulers.Typed(func(a *schedulers.Args, o *orderOptions) {
			readyArg(a, &o.Ready, false)
			readyAtArg(a, &o.ReadyBelow)
			windowArg(a, &o.Window)
			if c.mst {
				a.Choice(&o.MSTThesis, MSTThesis, "order", MSTStarPU, []string{MSTStarPU, MSTThesis},
					"starpu: the order StarPU's mst_policy.c runs at papers/ICPP2023 (Prim over the tasks in reverse submission order, mst_push_task's push_front, raising only the keys of tasks submitted earlier: one-sided adjacency, weight = shared handles); thesis: Algorithm 4 (Prim from the first task submitted over G^T weighted by shared bytes)")
			}
		}, func(o orderOptions) (schedulers.Scheduler, error) {
			return &schedulers.Planned{Name: c.name, Ready: o.Ready, ReadyBelow: o.ReadyBelow, Window: o.Window,
				Plan: singleGPU(c.name, func(v schedulers.View) []int { return c.plan(v, o) })}, nil
		})
		schedulers.Register(schedulers.Spec{Name: c.name, Version: c.version, Doc: c.doc, Params: params, New: build})
	}

	// Version 4: Belady reads StarPU's next uses by default (belady_uses).
	// Version 5: merges as StarPU's (merge_fit = false).
	// Version 6: the planning time counts the packing of papers/ICPP2023
	// (packing_code = nov2021); oct2021 counts what version 5 did.
	hfpParams, hfpNew := schedulers.Typed(func(a *schedulers.Args, o *hfpOptions) { hfpArgs(a, o, false) },
		func(o hfpOptions) (schedulers.Scheduler, error) {
			opts := o.packing()
			opts.Packages = 1
			return &schedulers.Planned{Name: "hfp", Ready: o.Ready, ReadyBelow: o.ReadyBelow, Window: o.Window, Belady: o.Belady, BeladyUses: o.BeladyUses,
				Plan: singleGPU("hfp", func(v schedulers.View) []int {
					opts.Memory = v.Platform().MemoryBytes
					opts.Count = v.CountArray
					return order.HFP(v.Workload(), opts)[0]
				})}, nil
		})
	schedulers.Register(schedulers.Spec{Name: "hfp", Version: 6,
		Doc:    "Hierarchical Fair Packing on one GPU (thesis Alg. 5): pack tasks sharing most data while inputs fit in memory, then merge packages ignoring the bound; the papers' HFP is flip=true ready=true (COLOC 2021) plus belady=true (thesis)",
		Params: hfpParams, New: hfpNew})

	// Version 4: Belady reads StarPU's next uses by default (belady_uses):
	// HFP.c's multi-GPU path fills one next_use_tab per GPU package.
	// Version 5: merges as StarPU's (merge_fit = false; its multi-GPU
	// packing is the same hierarchical_fair_packing).
	// Version 6: balances as StarPU's (balance_by = starpu), and counts
	// the packing of its campaign's code (packing_code, as hfp's).
	mhfpParams, mhfpNew := schedulers.Typed(func(a *schedulers.Args, o *hfpOptions) {
		hfpArgs(a, o, true)
		a.Bool(&o.Balance, "balance", true, "load balancing toward the average compute time")
		a.String(&o.BalanceBy, "balance_by", BalanceStarPU, []string{BalanceStarPU, BalanceThesis},
			"starpu: StarPU's HFP.c load_balance_expected_time at papers/ICPP2023 (MULTIGPU=4): packages timed on worker 0's model, the average, the amount and the moved tasks on worker 1's (starpu_worker_get_perf_archtype(STARPU_CUDA_WORKER, 0)), tail tasks popped while the moved time is below the amount and pushed at the back of the least loaded package, reversed (order.BalanceStarPU); thesis: Algorithm 8 on worker 0's times, the tail moved in order, rounded to whole tasks (order.Balance)")
		a.Bool(&o.Steal, "steal", true, "work stealing when a GPU runs out of planned tasks")
	}, func(o hfpOptions) (schedulers.Scheduler, error) {
		opts := o.packing()
		return &schedulers.Planned{Name: "mhfp", Ready: o.Ready, ReadyBelow: o.ReadyBelow, Window: o.Window, Belady: o.Belady, BeladyUses: o.BeladyUses, Steal: o.Steal,
			Plan: func(v schedulers.View) ([][]int, error) {
				opts.Memory = v.Platform().MemoryBytes
				opts.Packages = v.Workers()
				opts.Count = v.CountArray
				pkgs := order.HFP(v.Workload(), opts)
				for len(pkgs) < v.Workers() {
					pkgs = append(pkgs, nil)
				}
				if o.Balance {
					// Homogeneous GPUs: the perf model of GPU 0 (thesis §3.7).
					on0 := func(t int) float64 { return v.ComputeSeconds(0, t) }
					if o.BalanceBy == BalanceThesis {
						pkgs = order.Balance(pkgs, on0)
					} else {
						on1 := func(t int) float64 { return v.ComputeSeconds(min(1, v.Workers()-1), t) }
						pkgs = order.BalanceStarPU(pkgs, on0, on1)
					}
				}
				return pkgs, nil
			}}, nil
	})
	schedulers.Register(schedulers.Spec{Name: "mhfp", Version: 6,
		Doc:    "multi-GPU HFP (thesis Alg. 8): HFP stopped at K packages, tail tasks moved to balance expected compute time, package k on GPU k, stealing half of the most loaded GPU's remaining tasks from its tail, Ready, Belady",
		Params: mhfpParams, New: mhfpNew})
}

// Versions of StarPU's HFP.c packing (parameter packing_code of hfp and
// mhfp): order.HFPCodeNov2021 and order.HFPCodeOct2021.
const (
	PackingNov2021 = "nov2021"
	PackingOct2021 = "oct2021"
)

// singleGPU adapts a one-list plan, refusing multi-GPU runs with the fix.
func singleGPU(name string, plan func(v schedulers.View) []int) func(v schedulers.View) ([][]int, error) {
	return func(v schedulers.View) ([][]int, error) {
		if v.Workers() != 1 {
			return nil, fmt.Errorf("%s orders tasks for one GPU; this run has %d (use mhfp, hmetis+r, darts or dmdar)", name, v.Workers())
		}
		return [][]int{plan(v)}, nil
	}
}
