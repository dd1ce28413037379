package paper

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const refPath = "reference/gonthier-raw-results.csv"

// improvement returns the improvement of scheduler a over b (display names) on one series, both
// as the ratio of means (the papers' formula) and as the mean of per-point ratios, over the N
// where both have data; n is the number of such points.
func improvement(pts []RefPoint, figure, a, b string) (ratioOfMeans, meanOfRatios float64, n int) {
	ga, gb := map[int]float64{}, map[int]float64{}
	for _, p := range pts {
		if p.Figure != figure {
			continue
		}
		switch p.DisplayScheduler() {
		case a:
			ga[p.N] = p.GFlops
		case b:
			gb[p.N] = p.GFlops
		}
	}
	var sa, sb, sr float64
	for N, x := range ga {
		y, ok := gb[N]
		if !ok {
			continue
		}
		sa += x
		sb += y
		sr += x / y
		n++
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return (sa/sb - 1) * 100, (sr/float64(n) - 1) * 100, n
}

// TestReferenceSanity reproduces the sanity check of reference/README.md: the IPDPS 2022
// improvements of DARTS+LUF over DMDAR are ratios of means over all plotted points.
func TestReferenceSanity(t *testing.T) {
	pts, err := LoadReference(refPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 832 {
		t.Errorf("%d points, want 832", len(pts))
	}
	for _, tc := range []struct {
		figure       string
		points       int
		ratioOfMeans float64 // the README's bold numbers
		meanOfRatios float64
		paper        float64
	}{
		{"ipdps22/2d_1gpu/paper", 15, 8.52, 8.90, 8.5},
		{"ipdps22/2d_2gpu/paper", 15, 9.40, 10.73, 9.4},
		{"ipdps22/2d_randomorder_2gpu/paper", 13, 75.26, 87.80, 75},
	} {
		rm, mr, n := improvement(pts, tc.figure, "DARTS+LUF", "DMDAR")
		if n != tc.points {
			t.Errorf("%s: %d common points, want %d", tc.figure, n, tc.points)
		}
		if math.Abs(rm-tc.ratioOfMeans) > 0.005 {
			t.Errorf("%s: ratio of means %.4f%%, want %.2f%%", tc.figure, rm, tc.ratioOfMeans)
		}
		if math.Abs(mr-tc.meanOfRatios) > 0.005 {
			t.Errorf("%s: mean of ratios %.4f%%, want %.2f%%", tc.figure, mr, tc.meanOfRatios)
		}
		t.Logf("%-36s DARTS+LUF vs DMDAR over %2d points: ratio of means %6.2f%% (paper %g%%), mean of ratios %6.2f%%",
			tc.figure, n, rm, tc.paper, mr)
	}

	// The remaining rows of the README's sanity table (artifact reruns).
	rm, _, n := improvement(pts, "ipdps22/2d_sparse_4gpu/ae_veryquick", "DARTS+LUF", "DMDAR")
	if n != 1 || math.Abs(rm-22.14) > 0.005 {
		t.Errorf("sparse: %d points, %.4f%%, want 1 point, 22.14%%", n, rm)
	}
	rm, _, n = improvement(pts, "ipdps22/cholesky_4gpu/ae_veryquick", "DARTS+LUF+OPTI-3inputs", "hMETIS+R no part. time")
	if n != 2 || math.Abs(rm-(-15.34)) > 0.005 {
		t.Errorf("cholesky: %d points, %.4f%%, want 2 points, -15.34%%", n, rm)
	}
	// Thesis Table 3.4 is the ratio of means of the Cholesky task set's
	// real runs (FGCS.sh, recovered from commit 1e961f49f), to the digit.
	for base, published := range map[string]float64{"EAGER": 66.8, "MST": 57.5, "RCM": 56.3, "DMDAR": 65.8} {
		rm, _, n := improvement(pts, "fgcs23/cholesky_1gpu/dec2021", "HFP", base)
		if n != 10 || math.Abs(rm-published) > 0.05 {
			t.Errorf("T3.4 HFP vs %s: %d points, %.2f%%, want 10 points, %g%%", base, n, rm, published)
		}
	}
}

// TestReferenceSeries checks the row counts of the README's series table (block lengths minus
// the skipped rows it lists) and the per-row invariants.
func TestReferenceSeries(t *testing.T) {
	pts, err := LoadReference(refPath)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"ipdps22/2d_1gpu/paper":                     70, // 90 lines, 20 hand-padded HFP rows skipped
		"ipdps22/2d_2gpu/paper":                     75,
		"ipdps22/2d_randomorder_2gpu/paper":         65,
		"ipdps22/2d_randomorder_2gpu/oct2021_early": 46, // 50 lines, DMDAR N = 70..100 failed
		"ipdps22/2d_1gpu/ae_veryquick":              18,
		"ipdps22/2d_2gpu/ae_veryquick":              12,
		"ipdps22/2d_4gpu/ae_veryquick":              14,
		"ipdps22/2d_randomorder_2gpu/ae_veryquick":  12,
		"ipdps22/2d_sparse_4gpu/ae_veryquick":       11, // DARTS+LUF at N = 50 failed
		"ipdps22/cholesky_4gpu/ae_veryquick":        14,
		"fgcs23/2d_1gpu/nov2021":                    117,
		"fgcs23/2d_1gpu_memsweep/nov2021":           90,
		"fgcs23/2d_randomorder_1gpu/dec2021":        128,
		"fgcs23/2d_sparse_nomemlimit_1gpu/jan2022":  80,
		"fgcs23/cholesky_1gpu/dec2021":              80, // from history (1e961f49f), thesis Table 3.4
	}
	got := map[string]int{}
	for _, p := range pts {
		got[p.Figure]++
		if p.DisplayScheduler() == "" {
			t.Errorf("%s N=%d: scheduler label %q has no display name", p.Figure, p.N, p.Scheduler)
		}
		if p.ProjectWorkload() == "" {
			t.Errorf("%s: workload %q has no project name", p.Figure, p.Workload)
		}
		if p.GFlops <= 0 {
			t.Errorf("%s %s N=%d: GFlops %v", p.Figure, p.Scheduler, p.N, p.GFlops)
		}
		if p.Confidence != "high" && p.Confidence != "medium" {
			t.Errorf("%s: confidence %q", p.Figure, p.Confidence)
		}
		if p.Workload == "cholesky_taskset" {
			if p.HasDev() {
				t.Errorf("%s: Cholesky rows have no deviation", p.Figure)
			}
			if ws := float64(p.N*(p.N+1)/2) * 3.515625; math.Abs(ws-p.WorkingSetMiB) > 0.01 {
				t.Errorf("%s N=%d: working set %v, want %v", p.Figure, p.N, p.WorkingSetMiB, ws)
			}
		} else if strings.HasPrefix(p.Workload, "matmul2d") {
			if ws := 28.125 * float64(p.N); math.Abs(ws-p.WorkingSetMiB) > 0.01 {
				t.Errorf("%s N=%d: working set %v, want %v", p.Figure, p.N, p.WorkingSetMiB, ws)
			}
		}
	}
	for fig, n := range want {
		if got[fig] != n {
			t.Errorf("%s: %d rows, want %d", fig, got[fig], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d series, want %d", len(got), len(want))
	}
	// Memory sweep: 50..500 MiB at N = 15; the sparse series has no limit.
	for _, p := range pts {
		switch p.Figure {
		case "fgcs23/2d_1gpu_memsweep/nov2021":
			if p.N != 15 || p.MemoryMB < 50 || p.MemoryMB > 500 {
				t.Errorf("memsweep row N=%d mem=%v", p.N, p.MemoryMB)
			}
		case "fgcs23/2d_sparse_nomemlimit_1gpu/jan2022":
			if p.MemoryMB != 0 {
				t.Errorf("sparse no-limit row with memory %v", p.MemoryMB)
			}
		}
	}
}

func TestReferenceDisplayNames(t *testing.T) {
	m := ReferenceDisplayNames()
	for label, name := range m {
		if !IsDisplayName(name) {
			t.Errorf("%q maps to %q, not a display name", label, name)
		}
	}
	m["EAGER"] = "changed"
	if ReferenceDisplayNames()["EAGER"] != "EAGER" {
		t.Error("ReferenceDisplayNames returns the internal map")
	}
	opti := RefPoint{Scheduler: "DARTS+OPTI", SchedulerEnv: "THRESHOLD=2 APP=1 CHOOSE_BEST_DATA_FROM=1"}
	if got := opti.DisplayScheduler(); got != "DARTS+LUF+OPTI-3inputs" {
		t.Errorf("OPTI with APP=1: %q", got)
	}
	opti.SchedulerEnv = "THRESHOLD=2 APP=0"
	if got := opti.DisplayScheduler(); got != "DARTS+LUF+OPTI" {
		t.Errorf("OPTI with APP=0: %q", got)
	}
	if got := (RefPoint{Scheduler: "nope"}).DisplayScheduler(); got != "" {
		t.Errorf("unknown label: %q", got)
	}
}

const refHeader = "source_file,figure,workload,ngpu,gpu_mem_mb,tile,x,y,z,N,working_set_mib,scheduler,scheduler_env,time_ms,gflops,gflops_dev,transfers_mb,mapping_confidence\n"
const refRow = "f.txt,ipdps22/x/paper,matmul2d,2,500,960,9600,9600,3840,10,281.25,DMDAR,STARPU_SCHED=dmdar,64,10994.5,1.97,1234.5,high\n"

func TestLoadReferenceColumnOrder(t *testing.T) {
	// Reverse the column order: the loader is header-driven.
	h := strings.Split(strings.TrimSpace(refHeader), ",")
	r := strings.Split(strings.TrimSpace(refRow), ",")
	for i, j := 0, len(h)-1; i < j; i, j = i+1, j-1 {
		h[i], h[j] = h[j], h[i]
		r[i], r[j] = r[j], r[i]
	}
	p := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(p, []byte(strings.Join(h, ",")+",extra\n"+strings.Join(r, ",")+",x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pts, err := LoadReference(p)
	if err != nil {
		t.Fatal(err)
	}
	want := RefPoint{Figure: "ipdps22/x/paper", Workload: "matmul2d", Scheduler: "DMDAR", GPUs: 2, MemoryMB: 500,
		N: 10, WorkingSetMiB: 281.25, GFlops: 10994.5, GFlopsDev: 1.97, TransfersMB: 1234.5,
		SchedulerEnv: "STARPU_SCHED=dmdar", Confidence: "high", Source: "f.txt"}
	if len(pts) != 1 || pts[0] != want {
		t.Errorf("got %+v\nwant %+v", pts, want)
	}
}

func TestLoadReferenceOptionalFields(t *testing.T) {
	row := strings.Replace(refRow, ",500,", ",,", 1)      // no memory limit
	row = strings.Replace(row, ",1.97,1234.5,", ",,,", 1) // no deviation, no transfers
	p := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(p, []byte(refHeader+row), 0o644); err != nil {
		t.Fatal(err)
	}
	pts, err := LoadReference(p)
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].MemoryMB != 0 || pts[0].HasDev() || pts[0].HasTransfers() {
		t.Errorf("got %+v", pts[0])
	}
}

func TestLoadReferenceRejections(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"bad number", refHeader + strings.Replace(refRow, "10994.5", "fast", 1), []string{":2:", "column gflops", `"fast"`}},
		{"empty gflops", refHeader + strings.Replace(refRow, ",10994.5,", ",,", 1), []string{":2:", "column gflops: empty"}},
		{"bad N", refHeader + refRow + strings.Replace(refRow, ",10,281.25,", ",ten,281.25,", 1), []string{":3:", "column N"}},
		{"zero GPUs", refHeader + strings.Replace(refRow, "matmul2d,2,", "matmul2d,0,", 1), []string{"column ngpu"}},
		{"negative transfers", refHeader + strings.Replace(refRow, "1234.5", "-3", 1), []string{"column transfers_mb: negative"}},
		{"empty scheduler", refHeader + strings.Replace(refRow, ",DMDAR,", ",,", 1), []string{"column scheduler: empty"}},
		{"short row", refHeader + "a,b,c\n", []string{":2:", "wrong number of fields"}},
		{"missing column", strings.Replace(refHeader, ",gflops,", ",gflopz,", 1) + refRow, []string{"missing columns: gflops"}},
		{"duplicate column", strings.Replace(refHeader, ",tile,", ",N,", 1) + refRow, []string{`duplicate column "N"`}},
		{"header only", refHeader, []string{"no data rows"}},
		{"empty", "", []string{"empty file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.csv")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadReference(p)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, p) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	if _, err := LoadReference(filepath.Join(t.TempDir(), "none.csv")); err == nil {
		t.Error("missing file accepted")
	}
}
