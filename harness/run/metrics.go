package run

import "github.com/memsched/memsched/hardware"

// Metric is one quantity of a record: the one list of them, which the
// report's tables, figures and claims, the suites' [report] metric and
// memsched compare all read. A new metric is a line here.
type Metric struct {
	Name   string
	Title  string
	Higher bool // higher is better
	Get    func(r Record) float64
}

const mib = float64(hardware.MiB)

// metricList is every metric, in the order suites list them.
var metricList = []Metric{
	{"gflops", "GFlop/s", true, func(r Record) float64 { return r.GFlops }},
	{"transfers_mib", "transfers (MiB, host→GPU + GPU→GPU)", false, func(r Record) float64 { return float64(r.BytesH2D+r.BytesD2D) / mib }},
	{"h2d_mib", "host→GPU (MiB)", false, func(r Record) float64 { return float64(r.BytesH2D) / mib }},
	{"d2d_mib", "GPU→GPU (MiB)", false, func(r Record) float64 { return float64(r.BytesD2D) / mib }},
	{"loads", "loads", false, func(r Record) float64 { return float64(r.Loads) }},
	{"fetches", "fetches", false, func(r Record) float64 { return float64(r.Fetches) }},
	{"prefetches", "prefetches", false, func(r Record) float64 { return float64(r.Prefetches) }},
	{"evictions", "evictions", false, func(r Record) float64 { return float64(r.Evictions) }},
	// The authors' fetch count: inputs missing when a task is popped (StarPU HFP.c get_data_to_load).
	{"pop_missing", "inputs missing at pop (the papers' fetches)", false, func(r Record) float64 { return float64(r.PopMissing) }},
	// Loads of a static plan in the abstract model of thesis §2.2 (the toy examples' count).
	{"model_loads", "loads in the model of thesis §2.2", false, func(r Record) float64 { return float64(r.ModelLoads) }},
	{"makespan_s", "makespan (s)", false, func(r Record) float64 { return r.MakespanS }},
	{"sched_time_s", "scheduling wall time (s)", false, func(r Record) float64 { return r.SchedWallS }},
	// PeerJ 2019's "total memory transfer": every copy, write-backs included.
	{"all_transfers_mib", "all transfers (MiB, host→GPU + GPU→GPU + GPU→host)", false, func(r Record) float64 { return float64(r.BytesH2D+r.BytesD2D+r.BytesD2H) / mib }},
	// LAHeteroprio's best-memory-node difference, % of popped tasks.
	{"bmd_pct", "BMD (% of tasks)", false, func(r Record) float64 { return r.SchedStats["bmd_pct"] }},
}

// Metrics by name.
var Metrics = func() map[string]Metric {
	out := make(map[string]Metric, len(metricList))
	for _, m := range metricList {
		out[m.Name] = m
	}
	return out
}()

// MetricNames lists the metrics' names in order.
func MetricNames() []string {
	out := make([]string, len(metricList))
	for i, m := range metricList {
		out[i] = m.Name
	}
	return out
}
