package report

import (
	"bytes"
	"encoding/csv"
	"testing"

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
