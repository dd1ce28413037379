package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/run"
)

func reps(label string, n int, gflops ...float64) []run.Record {
	var rs []run.Record
	for i, g := range gflops {
		r := peerRec("sim", label, n, g, 10)
		r.Rep = i
		rs = append(rs, r)
	}
	return rs
}

// Six repetitions a side: medians, the U test and the ratio's interval as
// worked out by hand; the same samples give "~"; one run a side is exact.
func TestCompareRepetitions(t *testing.T) {
	old := append(reps("A", 10, 100, 101, 102, 103, 104, 105), reps("A", 20, 50, 51, 52, 53, 54, 55)...)
	old = append(old, reps("B", 10, 7)...)
	new := append(reps("A", 10, 110, 111, 112, 113, 114, 115), reps("A", 20, 55, 54, 53, 52, 51, 50)...)
	new = append(new, reps("B", 10, 7.7)...)
	new = append(new, reps("C", 10, 1)...) // no counterpart
	c, err := Compare(NewSet(nil, old, nil), NewSet(nil, new, nil), "", "", "gflops", 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 3 || c.Unmatched != 1 {
		t.Fatalf("%d rows, %d unmatched: %+v", len(c.Rows), c.Unmatched, c.Rows)
	}
	a10, a20, b := c.Rows[0], c.Rows[1], c.Rows[2]
	// Medians 102.5 and 112.5; with n = 6 the 95 % median interval is the
	// sample's range (order statistics 1 and 6); the U test separates two
	// disjoint samples of 6 at p = 2/924.
	if a10.Old.Center != 102.5 || a10.New.Center != 112.5 || !a10.Significant || math.Abs(a10.P-2.0/924) > 1e-12 {
		t.Errorf("A n=10: %+v", a10)
	}
	if math.Abs(a10.Ratio-112.5/102.5) > 1e-12 || math.Abs(a10.Lo-110.0/105) > 1e-12 || math.Abs(a10.Hi-115.0/100) > 1e-12 {
		t.Errorf("A n=10 ratio %v [%v, %v]", a10.Ratio, a10.Lo, a10.Hi)
	}
	if a20.Significant || a20.Ratio != 1 || a20.P != 1 {
		t.Errorf("A n=20: the same values reordered must be ~: %+v", a20)
	}
	if !b.Significant || math.Abs(b.Ratio-1.1) > 1e-12 || b.Lo != b.Ratio || !math.IsNaN(b.P) {
		t.Errorf("B: one run a side is an exact ratio: %+v", b)
	}
	tab := c.Table()
	if got := tab.Rows[1][4]; got != "~" {
		t.Errorf("A n=20 change cell %q, want ~", got)
	}
	var buf bytes.Buffer
	if err := c.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][11] != "ratio" {
		t.Fatalf("csv %v %v", rows, err)
	}
	// The geometric mean over the three rows, and per label.
	if g := c.Geomean[""]; math.Abs(g-math.Cbrt(112.5/102.5*1*1.1)) > 1e-12 {
		t.Errorf("geomean %v", g)
	}
}

// Two labels of one file, and the errors a user meets.
func TestCompareLabelsAndErrors(t *testing.T) {
	recs := append(reps("DMDAR", 10, 100), reps("DARTS", 10, 120)...)
	set := NewSet(nil, recs, nil)
	c, err := Compare(set, set, "DMDAR", "DARTS", "gflops", 0.95)
	if err != nil || len(c.Rows) != 1 || math.Abs(c.Rows[0].Ratio-1.2) > 1e-12 || c.Rows[0].Label != "DMDAR → DARTS" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, tc := range []struct {
		old, new, metric string
		conf             float64
		want             string
	}{
		{"DMDAR", "HFP", "gflops", 0.95, `no records of label "HFP"`},
		{"", "", "flops", 0.95, `unknown metric "flops"`},
		{"", "", "gflops", 95, "confidence 95"},
		{"DMDAR", "", "gflops", 0.95, "both labels"},
		{"", "", "file_wait_s", 0.95, `metric "file_wait_s" measures batch runs (thesis chapter 6), but these records are of GPU runs`},
	} {
		if _, err := Compare(set, set, tc.old, tc.new, tc.metric, tc.conf); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v", tc, err)
		}
	}
	weeks, err := LoadRecords("../../results/thesis/ch6-weeks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	batch := NewSet(nil, weeks, nil)
	if _, err := Compare(batch, batch, "", "", "gflops", 0.95); err == nil || !strings.Contains(err.Error(), "these records are of batch runs") {
		t.Errorf("a GPU metric on batch records: %v", err)
	}
	if _, err := Compare(batch, batch, "", "", "file_wait_s", 0.95); err != nil {
		t.Errorf("a batch metric on batch records: %v", err)
	}
	other := NewSet(nil, reps("EAGER", 10, 1), nil)
	if _, err := Compare(set, other, "", "", "gflops", 0.95); err == nil || !strings.Contains(err.Error(), "nothing to compare") {
		t.Errorf("disjoint sets: %v", err)
	}
}
