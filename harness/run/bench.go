package run

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Result is the record in golang.org/x/perf's benchfmt, the format
// benchstat reads: its configuration as file keys (suite, workload,
// platform, gpus and memory_bytes for a GPU run, executor, scheduler,
// params.*, commit), the benchmark named after its label (the scheduler
// without one) and its point's coordinates (Label/k=v/...), one iteration,
// and its metrics (Values) as values, each in a unit named after its
// metric, since benchfmt tells a result's values apart by unit. The
// repetition and the seed are left out, so that a point's repetitions are
// one benchmark's samples. An error row has no values: nil.
func (r Record) Result() *benchfmt.Result {
	vals := r.Values()
	if len(vals) == 0 {
		return nil
	}
	res := &benchfmt.Result{Iters: 1}
	set := func(k, v string) {
		res.Config = append(res.Config, benchfmt.Config{Key: k, Value: []byte(v), File: true})
	}
	keys := [][2]string{{"suite", r.Suite}, {"workload", r.Workload}, {"platform", r.Platform}}
	if r.Executor != BatchExecutor { // a cluster has neither
		keys = append(keys, [2]string{"gpus", strconv.Itoa(r.GPUs)}, [2]string{"memory_bytes", strconv.FormatInt(r.MemoryBytes, 10)})
	}
	for _, kv := range append(keys, [2]string{"executor", r.Executor}, [2]string{"scheduler", r.Scheduler}) {
		if kv[1] != "" {
			set(kv[0], kv[1])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Params)) {
		set("params."+k, r.Params[k])
	}
	if c := r.Provenance.GitSHA; c != "" {
		if r.Provenance.Dirty {
			c += "-dirty"
		}
		set("commit", c)
	}
	name := r.Label
	if name == "" {
		name = r.Scheduler
	}
	name = benchName(name)
	for _, k := range slices.Sorted(maps.Keys(r.Point)) {
		name += "/" + benchName(k) + "=" + benchName(fmt.Sprint(r.Point[k]))
	}
	res.Name = benchfmt.Name(name)
	for _, v := range vals {
		res.Values = append(res.Values, benchfmt.Value{Value: v.Value, Unit: v.Name})
	}
	return res
}

// BenchUnits is the better= metadata of every metric's benchfmt unit
// (Result), for a writer to put before the results.
func BenchUnits() []*benchfmt.UnitMetadata {
	out := make([]*benchfmt.UnitMetadata, len(metricList))
	for i, m := range metricList {
		better := "lower"
		if m.Higher {
			better = "higher"
		}
		out[i] = &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: m.Name, Key: "better"}, OrigUnit: m.Name, Value: better}
	}
	return out
}

// benchName makes s a part of a benchmark name: no spaces, no slashes.
func benchName(s string) string {
	return strings.Map(func(c rune) rune {
		if c == ' ' || c == '\t' || c == '/' {
			return '_'
		}
		return c
	}, s)
}
