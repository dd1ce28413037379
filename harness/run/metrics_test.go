package run

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/memsched/memsched/harness/batch"
)

// The metric list is one list: names unique, each readable, each with a
// direction benchfmt can say.
func TestMetricList(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range metricList {
		if m.Name == "" || m.Title == "" || m.Get == nil || strings.ContainsAny(m.Name, " /") {
			t.Errorf("metric %+v: want a name without spaces or slashes, a title and a Get", m)
		}
		if seen[m.Name] {
			t.Errorf("metric %s listed twice", m.Name)
		}
		seen[m.Name] = true
		if Metrics[m.Name].Name != m.Name {
			t.Errorf("Metrics[%q] is not the list's", m.Name)
		}
	}
	for _, n := range MetricNames() {
		if Metrics[n].Batch {
			t.Errorf("MetricNames lists the batch metric %s, which a GPU suite's [report] cannot name", n)
		}
	}
}

// A GPU record and a batch record give their own metrics through the one
// contract; a batch metric of a GPU record is NaN, not 0.
func TestValues(t *testing.T) {
	gpu := Record{Identity: Identity{Executor: "sim", Scheduler: "eager"}, GFlops: 12, BytesH2D: 1 << 20, MakespanS: 2}
	b := Record{Identity: Identity{Executor: BatchExecutor, Scheduler: "lea"},
		Batch: &batch.Report{Summary: batch.Summary{FileWaitS: 30, CoreTimeS: 40, MeanStretch: 1.5, Loads: 3}}}
	get := func(r Record) map[string]float64 {
		out := map[string]float64{}
		for _, v := range r.Values() {
			out[v.Name] = v.Value
		}
		return out
	}
	g, bv := get(gpu), get(b)
	if g["gflops"] != 12 || g["h2d_mib"] != 1 || g["makespan_s"] != 2 {
		t.Errorf("GPU values %v", g)
	}
	if _, ok := g["file_wait_s"]; ok {
		t.Error("a GPU record lists a batch metric")
	}
	if bv["file_wait_s"] != 30 || bv["core_time_s"] != 40 || bv["mean_stretch"] != 1.5 || bv["file_loads"] != 3 {
		t.Errorf("batch values %v", bv)
	}
	if _, ok := bv["gflops"]; ok {
		t.Error("a batch record lists the GPU metrics it carries at 0")
	}
	if v := Metrics["file_wait_s"].Get(gpu); !math.IsNaN(v) {
		t.Errorf("file_wait_s of a GPU record = %v, want NaN", v)
	}
	if (Record{Error: "boom"}).Values() != nil {
		t.Error("an error row has values")
	}
}

// Records written in benchfmt read back with benchfmt's reader: the same
// values, their directions, repetitions as one benchmark.
func TestResultIsBenchfmt(t *testing.T) {
	var buf bytes.Buffer
	w := benchfmt.NewWriter(&buf)
	for _, u := range BenchUnits() {
		if err := w.Write(u); err != nil {
			t.Fatal(err)
		}
	}
	for rep := range 2 {
		r := Record{Identity: Identity{Executor: "sim", Scheduler: "dmdar", Label: "DMDAR 2", Suite: "s", Rep: rep, Seed: uint64(rep),
			Point: map[string]any{"n": 20}, Params: map[string]string{"buffer": "4"}, Provenance: Provenance{GitSHA: "abc"}},
			GFlops: float64(10 + rep), MakespanS: 1, BytesH2D: 3 << 20}
		if err := w.Write(r.Result()); err != nil {
			t.Fatal(err)
		}
	}
	rd := benchfmt.NewReader(&buf, "records")
	var n int
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if got := res.Name.String(); got != "DMDAR_2/n=20" {
			t.Errorf("name %q", got)
		}
		if res.GetConfig("params.buffer") != "4" || res.GetConfig("commit") != "abc" || res.GetConfig("suite") != "s" {
			t.Errorf("config %+v", res.Config)
		}
		if v, ok := res.Value("gflops"); !ok || v != float64(10+n) {
			t.Errorf("gflops %v %v", v, ok)
		}
		if v, _ := res.Value("h2d_mib"); v != 3 {
			t.Errorf("h2d_mib %v", v)
		}
		n++
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d results read back, want 2", n)
	}
	units := rd.Units()
	if units.GetBetter("gflops") != 1 || units.GetBetter("makespan_s") != -1 {
		t.Errorf("directions: gflops %+d, makespan_s %+d", units.GetBetter("gflops"), units.GetBetter("makespan_s"))
	}
}

// Every configuration goes through an Executor: the batch executor runs
// batch setups only, the GPU executors GPU configurations only.
func TestExecutorsRefuseTheOtherKind(t *testing.T) {
	if _, err := Run(Config{Executor: BatchExecutor}); err == nil || !strings.Contains(err.Error(), "batch setups") {
		t.Errorf("the batch executor without a batch setup: %v", err)
	}
	if _, err := Run(Config{Executor: "sim", Batch: &batch.Setup{}}); err == nil || !strings.Contains(err.Error(), "GPU configurations") {
		t.Errorf("the simulator given a batch setup: %v", err)
	}
}
