package static

import (
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/hypergraph"
)

func init() {
	schedulers.Register(schedulers.Spec{Name: "hmetis+r", Version: 3,
		Doc: "hMETIS+R (thesis Alg. 7): partition the task hypergraph (one hyperedge per data, weighted by bytes; vertices weighted by expected duration) into K balanced parts, part k on GPU k in submission order, Ready, stealing half of the most loaded GPU's remaining tasks from its tail",
		Params: []schedulers.Param{
			{Name: "ready", Kind: "bool", Default: "true", Doc: "Ready reordering at run time"},
			{Name: "steal", Kind: "bool", Default: "true", Doc: "work stealing when a GPU runs out of tasks"},
			{Name: "ubfactor", Kind: "float", Default: "1", Doc: "hMETIS UBfactor: balance tolerance per bisection, percent"},
			{Name: "runs", Kind: "int", Default: "20", Min: "0", Doc: "hMETIS Nruns: bisections computed per level, best kept"},
			{Name: "vcycles", Kind: "int", Default: "2", Doc: "hMETIS Vcycle mode (1, 2, 3; -1 none)"},
			{Name: "partitioner", Kind: "string", Default: "auto", Choices: []string{"auto", "builtin", "bounded", "external"},
				Doc: "auto: an installed hmetis/shmetis/khmetis/KaHyPar if on PATH, else the built-in partitioner bounding its work (bounded: sampled ratings of large edges, shared coarsenings, as hMETIS and KaHyPar bound theirs; 0.9 s instead of 22 s on the 90,000-task hypergraph, same cut); builtin: the built-in one rating every pin; the record names which ran"},
		},
		New: func(p schedulers.Params) (schedulers.Scheduler, error) {
			s := &hmetisR{mode: p.String("partitioner")}
			s.Planned = schedulers.Planned{Name: "hmetis+r", Ready: p.Bool("ready"), Steal: p.Bool("steal"),
				Plan: func(v schedulers.View) ([][]int, error) {
					return s.partition(v, hypergraph.Options{Parts: v.Workers(), UBFactor: p.Float("ubfactor"),
						Runs: p.Int("runs"), VCycles: p.Int("vcycles")})
				}}
			return s, nil
		}})
}

// hmetisR is Planned with a plan from the hypergraph partitioner; it
// reports which partitioner ran, for the result record.
type hmetisR struct {
	schedulers.Planned
	mode string // auto, builtin, bounded or external
	tool string
}

func (s *hmetisR) Partitioner() string { return s.tool }

func (s *hmetisR) partition(v schedulers.View, opt hypergraph.Options) ([][]int, error) {
	w := v.Workload()
	k := v.Workers()
	plans := make([][]int, k)
	if k == 1 {
		for i := range w.Tasks {
			plans[0] = append(plans[0], i)
		}
		s.tool = "none (1 GPU)"
		return plans, nil
	}
	weights := make([]int64, len(w.Tasks))
	for i := range w.Tasks {
		// Expected duration in nanoseconds, at least 1 so every task weighs.
		weights[i] = max(1, int64(v.ComputeSeconds(0, i)*1e9))
	}
	users := w.Users()
	var edges [][]int
	var ew []int64
	for d, u := range users {
		if len(u) > 1 {
			edges = append(edges, u)
			ew = append(ew, w.Data[d].Bytes)
		}
	}
	h, err := hypergraph.New(weights, edges, ew)
	if err != nil {
		return nil, err
	}
	opt.Seed = v.Rand().Uint64()
	var parts []int
	var tool string
	switch s.mode {
	case "builtin":
		parts, err = hypergraph.Partition(h, opt)
		tool = hypergraph.BuiltinName
	case "bounded":
		opt.Bounded = true
		parts, err = hypergraph.Partition(h, opt)
		tool = hypergraph.BuiltinName + "-bounded"
	case "external":
		parts, tool, err = hypergraph.External(h, opt)
	default:
		opt.Bounded = true
		parts, tool, err = hypergraph.Best(h, opt, true)
		if tool == hypergraph.BuiltinName {
			tool += "-bounded"
		}
	}
	if err != nil {
		return nil, err
	}
	s.tool = tool
	for t, part := range parts {
		plans[part] = append(plans[part], t)
	}
	return plans, nil
}
