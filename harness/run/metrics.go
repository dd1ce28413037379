package run

import (
	"math"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/batch"
)

// Metric is one quantity of a record, in the shape of a value of
// golang.org/x/perf's benchfmt: a name, the unit it is measured in, which
// direction is better, and how it is read from a record. metricList is
// the one list of them, which the report's tables, figures and claims,
// the suites' [report] metric, memsched compare and Record.Values all
// read. A metric computed from what a record holds is a line there; one a
// scheduler counts is a line there reading Record.SchedStats (bmd_pct),
// and the scheduler's StatsReporter: two files, and no run key changes.
type Metric struct {
	Name   string
	Title  string
	Unit   string // what a value is in: "GFlop/s", "MiB", "s"; "" for a count or a ratio
	Higher bool   // higher is better
	// Batch says the metric is a batch run's (thesis chapter 6, read from
	// Record.Batch); the others are a GPU run's (the simulator, the CUDA
	// executor, StarPU).
	Batch bool
	Get   func(r Record) float64
}

// Better is benchfmt's direction of a metric: +1 when higher is better,
// −1 when lower is.
func (m Metric) Better() int {
	if m.Higher {
		return 1
	}
	return -1
}

const mib = float64(hardware.MiB)

// metricList is every metric, in the order suites list them: a GPU run's,
// then a batch run's.
var metricList = []Metric{
	{Name: "gflops", Title: "GFlop/s", Unit: "GFlop/s", Higher: true, Get: func(r Record) float64 { return r.GFlops }},
	{Name: "transfers_mib", Title: "transfers (MiB, host→GPU + GPU→GPU)", Unit: "MiB", Get: func(r Record) float64 { return float64(r.BytesH2D+r.BytesD2D) / mib }},
	{Name: "h2d_mib", Title: "host→GPU (MiB)", Unit: "MiB", Get: func(r Record) float64 { return float64(r.BytesH2D) / mib }},
	{Name: "d2d_mib", Title: "GPU→GPU (MiB)", Unit: "MiB", Get: func(r Record) float64 { return float64(r.BytesD2D) / mib }},
	{Name: "loads", Title: "loads", Get: func(r Record) float64 { return float64(r.Loads) }},
	{Name: "fetches", Title: "fetches", Get: func(r Record) float64 { return float64(r.Fetches) }},
	{Name: "prefetches", Title: "prefetches", Get: func(r Record) float64 { return float64(r.Prefetches) }},
	{Name: "evictions", Title: "evictions", Get: func(r Record) float64 { return float64(r.Evictions) }},
	// The authors' fetch count: inputs missing when a task is popped (StarPU HFP.c get_data_to_load).
	{Name: "pop_missing", Title: "inputs missing at pop (the papers' fetches)", Get: func(r Record) float64 { return float64(r.PopMissing) }},
	// Loads of a static plan in the abstract model of thesis §2.2 (the toy examples' count).
	{Name: "model_loads", Title: "loads in the model of thesis §2.2", Get: func(r Record) float64 { return float64(r.ModelLoads) }},
	{Name: "makespan_s", Title: "makespan (s)", Unit: "s", Get: func(r Record) float64 { return r.MakespanS }},
	{Name: "sched_time_s", Title: "scheduling wall time (s)", Unit: "s", Get: func(r Record) float64 { return r.SchedWallS }},
	// PeerJ 2019's "total memory transfer": every copy, write-backs included.
	{Name: "all_transfers_mib", Title: "all transfers (MiB, host→GPU + GPU→GPU + GPU→host)", Unit: "MiB", Get: func(r Record) float64 { return float64(r.BytesH2D+r.BytesD2D+r.BytesD2H) / mib }},
	// LAHeteroprio's best-memory-node difference, % of popped tasks.
	{Name: "bmd_pct", Title: "BMD (% of tasks)", Unit: "%", Get: func(r Record) float64 { return r.SchedStats["bmd_pct"] }},

	// A batch run's (batch.Summary), over the evaluated jobs.
	batchMetric("file_wait_s", "file wait (s, Σ transfer + wait for a co-located load)", "s", false, func(b *batch.Report) float64 { return float64(b.FileWaitS) }),
	batchMetric("core_time_s", "core time (core·s, Σ (end − start) × cores)", "core·s", false, func(b *batch.Report) float64 { return float64(b.CoreTimeS) }),
	batchMetric("queue_s", "queue time (s, Σ start − submit)", "s", false, func(b *batch.Report) float64 { return float64(b.QueueS) }),
	batchMetric("mean_stretch", "mean job stretch", "", false, func(b *batch.Report) float64 { return b.MeanStretch }),
	batchMetric("max_stretch", "largest job stretch", "", false, func(b *batch.Report) float64 { return b.MaxStretch }),
	batchMetric("file_loads", "jobs that loaded their file", "", false, func(b *batch.Report) float64 { return float64(b.Loads) }),
	batchMetric("file_reuses", "jobs that found their file loaded or loading", "", true, func(b *batch.Report) float64 { return float64(b.Reuses) }),
	batchMetric("last_start_s", "last start (s, from the first submission)", "s", false, func(b *batch.Report) float64 { return float64(b.Makespan) }),
}

// batchMetric is a batch run's metric, read from its report (NaN for a
// record without one).
func batchMetric(name, title, unit string, higher bool, get func(*batch.Report) float64) Metric {
	return Metric{Name: name, Title: title, Unit: unit, Higher: higher, Batch: true, Get: func(r Record) float64 {
		if r.Batch == nil {
			return math.NaN()
		}
		return get(r.Batch)
	}}
}

// Metrics by name.
var Metrics = func() map[string]Metric {
	out := make(map[string]Metric, len(metricList))
	for _, m := range metricList {
		out[m.Name] = m
	}
	return out
}()

// MetricNames lists the names of a GPU run's metrics in order: those a
// suite's [report] metric may name.
func MetricNames() []string {
	var out []string
	for _, m := range metricList {
		if !m.Batch {
			out = append(out, m.Name)
		}
	}
	return out
}

// Value is one metric of a record: the metric (name, unit, direction) and
// its value.
type Value struct {
	Metric
	Value float64
}

// Values lists a successful record's metrics, in the list's order: a
// batch run's for a batch record, else a GPU run's. An error row has none.
func (r Record) Values() []Value {
	if r.Error != "" {
		return nil
	}
	isBatch := r.Executor == BatchExecutor
	var out []Value
	for _, m := range metricList {
		if m.Batch == isBatch {
			out = append(out, Value{m, m.Get(r)})
		}
	}
	return out
}
