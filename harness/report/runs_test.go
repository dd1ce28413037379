package report

import (
	"bytes"
	"encoding/csv"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/memsched/memsched/harness/run"
)

// One row per run, every field, nested ones dotted, 64-bit integers exact.
func TestWriteRunsCSV(t *testing.T) {
	a := peerRec("sim", "A", 10, 123.5, 7)
	a.Seed = 18446744073709551557 // above 2^53: a float64 would round it
	a.Params = map[string]string{"buffer": "4"}
	b := peerRec("sim", "B", 20, 99, 8)
	b.Error = "out of memory"
	var buf bytes.Buffer
	if err := WriteRunsCSV(&buf, []run.Record{a, b}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and 2", len(rows))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	for _, c := range []string{"label", "gflops", "loads", "seed", "point.n", "params.buffer", "error"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("no column %q in %v", c, rows[0])
		}
	}
	want := map[string][2]string{
		"label": {"A", "B"}, "gflops": {"123.5", "99"}, "loads": {"7", "8"}, "seed": {"18446744073709551557", "0"},
		"point.n": {"10", "20"}, "params.buffer": {"4", ""}, "error": {"", "out of memory"},
	}
	for c, v := range want {
		if rows[1][col[c]] != v[0] || rows[2][col[c]] != v[1] {
			t.Errorf("%s: %q, %q; want %q", c, rows[1][col[c]], rows[2][col[c]], v)
		}
	}
}

// The checked-in batch records read through the one metric list: their
// benchfmt results carry the batch report's numbers, none of the GPU
// fields they hold at 0, and a GPU record's results the GPU metrics.
func TestWriteBenchBatchAndGPU(t *testing.T) {
	recs, err := LoadRecords("../../results/thesis/ch6-weeks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	g := peerRec("sim", "A", 10, 123.5, 7)
	var buf bytes.Buffer
	if err := WriteBench(&buf, append(recs[:1:1], g)); err != nil {
		t.Fatal(err)
	}
	rd := benchfmt.NewReader(&buf, "bench")
	var got []*benchfmt.Result
	for rd.Scan() {
		if r, ok := rd.Result().(*benchfmt.Result); ok {
			got = append(got, r.Clone())
		}
	}
	if err := rd.Err(); err != nil || len(got) != 2 {
		t.Fatalf("%d results, err %v", len(got), err)
	}
	b := recs[0].Batch
	if v, ok := got[0].Value("file_wait_s"); !ok || v != float64(b.FileWaitS) {
		t.Errorf("file_wait_s = %v (%v), want %d", v, ok, b.FileWaitS)
	}
	if v, ok := got[0].Value("mean_stretch"); !ok || v != b.MeanStretch {
		t.Errorf("mean_stretch = %v (%v), want %v", v, ok, b.MeanStretch)
	}
	if _, ok := got[0].Value("gflops"); ok {
		t.Error("a batch record's result has gflops")
	}
	if v, ok := got[1].Value("gflops"); !ok || v != g.GFlops {
		t.Errorf("gflops = %v (%v), want %v", v, ok, g.GFlops)
	}
}
