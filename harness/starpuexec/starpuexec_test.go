package starpuexec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"

	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/static"
)

func platform(t *testing.T, gpus int, mib float64) *hardware.Platform {
	t.Helper()
	p, err := hardware.Load("gemini-2-ipdps")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryBytes(int64(mib * hardware.MiB))
	return p
}

func TestTranslateScripts(t *testing.T) {
	p := platform(t, 2, 500)
	pt, err := Translate(run.Job{Scheduler: "darts", Params: map[string]string{"eviction": "luf", "rng": "glibc"}, Workload: "matmul2d-n20"}, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"STARPU_SCHED=dynamic-data-aware", "EVICTION_STRATEGY_DYNAMIC_DATA_AWARE=1", "STARPU_SCHED_READY=0",
		"STARPU_NCUDA=2", "STARPU_LIMIT_CUDA_MEM=500", "STARPU_NTASKS_THRESHOLD=10", "STARPU_CUDA_PIPELINE=5", "STARPU_NCPU=0"} {
		if !slices.Contains(pt.Env, want) {
			t.Errorf("env lacks %s: %v", want, pt.Env)
		}
	}
	if got := strings.Join(pt.Args, " "); got != "-xy 19200 -nblocks 20 -iter 1" {
		t.Errorf("args %q", got)
	}
	pt, err = Translate(run.Job{Scheduler: "darts", Params: map[string]string{"rng": "glibc", "srandom": "3"}, Workload: "matmul2d-n20"}, p)
	if err != nil || !slices.Contains(pt.Env, "SEED=3") {
		t.Errorf("darts rng=glibc srandom=3: env %v, error %v; want SEED=3", pt.Env, err)
	}
	pt, err = Translate(run.Job{Scheduler: "hfp", Params: map[string]string{"flip": "true", "ready": "true", "belady": "true"}, Workload: "matmul3d-n10-nz4"}, platform(t, 1, 250))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"STARPU_SCHED=HFP", "ORDER_U=1", "BELADY=1", "STARPU_SCHED_READY=1", "FASTER_FIRST_ITERATION=0"} {
		if !slices.Contains(pt.Env, want) {
			t.Errorf("env lacks %s: %v", want, pt.Env)
		}
	}
	if got := strings.Join(pt.Args, " "); got != "-3d -xy 9600 -z 3840 -nblocks 10 -nblocksz 4 -iter 1" {
		t.Errorf("args %q", got)
	}
}

// What StarPU cannot be told is refused, never run as something else.
func TestTranslateRefuses(t *testing.T) {
	p := platform(t, 1, 500)
	for _, c := range []struct {
		job  run.Job
		want string
	}{
		{run.Job{Scheduler: "dmdar", Params: map[string]string{"penalty": "inmem"}, Workload: "matmul2d-n10"}, "penalty=inmem"}, // the thesis' rule
		{run.Job{Scheduler: "darts", Params: map[string]string{"threshold": "110", "rng": "glibc"}, Workload: "matmul2d-n10"}, "threshold=110"},
		{run.Job{Scheduler: "darts", Workload: "matmul2d-n10"}, "rng=run"}, // StarPU draws from glibc whatever memsched would
		{run.Job{Scheduler: "darts", Params: map[string]string{"app_draws": "2", "rng": "glibc"}, Workload: "matmul2d-n10"}, "app_draws=2"},
		{run.Job{Scheduler: "darts", Params: map[string]string{"plan_order": "pool"}, Workload: "matmul2d-n10"}, "plan_order=pool"},
		{run.Job{Scheduler: "lws", Workload: "matmul2d-n10"}, "no StarPU policy"},
		{run.Job{Scheduler: "eager", Workload: "matmul2d-n10-random-s1"}, "workload matmul2d-n10-random-s1"},
		{run.Job{Scheduler: "eager", Workload: "cholesky-n10"}, "workload cholesky-n10"},
		{run.Job{Scheduler: "eager", Workload: "matmul2d-n10-t480"}, "default tiles"},
	} {
		_, err := Translate(c.job, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to mention %q", c.job, err, c.want)
		}
	}
	if _, err := Translate(run.Job{Scheduler: "eager", Workload: "matmul2d-n10"}, platform(t, 1, 100.5)); err == nil || !strings.Contains(err.Error(), "whole MiB") {
		t.Errorf("fractional memory: %v", err)
	}
	if _, err := Translate(run.Job{Scheduler: "eager", Workload: "matmul2d-n10"}, platform(t, 8, 500)); err == nil {
		t.Error("8 GPUs on a default build (4 at most): no error")
	}
	q := platform(t, 1, 500)
	q.Runtime.DurationCV = 0.01
	if _, err := Translate(run.Job{Scheduler: "eager", Workload: "matmul2d-n10"}, q); err == nil || !strings.Contains(err.Error(), "duration_cv") {
		t.Errorf("duration_cv: %v", err)
	}
}

const busStats = `
#---------------------
Data transfer stats:
	NUMA 0 -> CUDA 0	0.5493 GB	2265.8443 MB/s	(transfers : 40 - avg 14.0625 MB)
	CUDA 0 -> NUMA 0	0.0000 GB	0.0000 MB/s	(transfers : 0 - avg -nan MB)
	NUMA 0 -> CUDA 1	0.1373 GB	2265.8443 MB/s	(transfers : 10 - avg 14.0625 MB)
	CUDA 1 -> NUMA 0	0.0000 GB	0.0000 MB/s	(transfers : 0 - avg -nan MB)
	CUDA 0 -> CUDA 1	0.0412 GB	1000.0000 MB/s	(transfers : 3 - avg 14.0625 MB)
Total transfers: 0.7278 GB
#---------------------
`

func TestParseBusStats(t *testing.T) {
	tr, err := ParseBusStats(busStats)
	if err != nil {
		t.Fatal(err)
	}
	const tile = 960 * 3840 * 4
	want := Transfers{H2D: 50, D2D: 3, H2DBytes: 50 * tile, D2DBytes: 3 * tile}
	if tr != want {
		t.Errorf("got %+v, want %+v", tr, want)
	}
	for _, bad := range []string{"", "Data transfer stats:\n", "\tNUMA 0 -> CUDA 0\t0.5 GB\t1 MB/s\t(transfers : 4 - avg 1e999 MB)",
		"\tNUMA 0 -> CUDA 0\t0.5 GB\t1 MB/s\t(transfers : 1099511627776 - avg 1099511627776 MB)"} { // 2^80 bytes
		if _, err := ParseBusStats(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseGFlops(t *testing.T) {
	g, err := ParseGFlops("# x\ty\tz\tms\tGFlops\tDeviance\n19200\t19200\t3840\t244\t11580.1\t0.000000\n")
	if err != nil || g != 11580.1 {
		t.Errorf("got %v, %v", g, err)
	}
	for _, bad := range []string{"", "19200 19200 3840 244 -1 0", "19200 19200 3840 244 nan 0", "truncated 19200"} {
		if _, err := ParseGFlops(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A stand-in for StarPU's sgemm: checks it got the scripts' environment,
// prints xgemm's result line and writes the bus statistics.
const fakeSgemm = `#!/bin/sh
[ "$STARPU_SCHED" = modular-eager-prefetching ] || { echo "STARPU_SCHED=$STARPU_SCHED" >&2; exit 3; }
[ "$STARPU_HOSTNAME" = gemini-2-ipdps ] || exit 4
[ "$(ulimit -s)" = 1048576 ] || { echo "stack $(ulimit -s)" >&2; exit 5; }
[ -d Output_maxime/Data/DARTS ] || exit 6
echo "# x	y	z	ms	GFlops	Deviance"
echo "19200	19200	3840	244	11580.1	0.000000"
cat > "$STARPU_BUS_STATS_FILE" <<'B'
	NUMA 0 -> CUDA 0	0.5493 GB	2265.8443 MB/s	(transfers : 40 - avg 14.0625 MB)
B
`

func TestRunFakeStarPU(t *testing.T) {
	dir := t.TempDir()
	in := Install{Prefix: filepath.Join(dir, "prefix"), PerfModels: filepath.Join(dir, "sampling")}
	for _, d := range []string{filepath.Dir(in.sgemm()), filepath.Join(in.PerfModels, "bus"), filepath.Join(in.PerfModels, "codelets", "45"), filepath.Join(in.Prefix, "share", "doc", "starpu")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		in.sgemm(): fakeSgemm,
		filepath.Join(in.PerfModels, "bus", "gemini-2-ipdps.platform.xml"):                 "<platform/>",
		filepath.Join(in.PerfModels, "codelets", "45", "starpu_sgemm_gemm.gemini-2-ipdps"): "45",
		filepath.Join(in.Prefix, "share", "doc", "starpu", "STARPU-REVISION"):              "673878e0905469f5c4fdaeb8890f8623b88f751f\n",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.check(); err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 20})
	if err != nil {
		t.Fatal(err)
	}
	st, desc, err := in.Run(sim.Config{Workload: w, Platform: platform(t, 1, 500)}, run.Job{Scheduler: "eager", Workload: w.Name})
	if err != nil {
		t.Fatal(err)
	}
	if st.Loads != 40 || st.BytesH2D != 40*960*3840*4 || st.Tasks != 400 {
		t.Errorf("stats %+v", st)
	}
	if g := st.Flops / st.Makespan / 1e9; g < 11580.09 || g > 11580.11 {
		t.Errorf("GFlop/s %v, want 11580.1", g)
	}
	for _, want := range []string{"StarPU 673878e09", "STARPU_SCHED=modular-eager-prefetching", "bus/gemini-2-ipdps.platform.xml@", "-nblocks 20"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description %q lacks %q", desc, want)
		}
	}
	// A host the directory does not calibrate is refused before running.
	q := platform(t, 1, 500)
	q.Name = "elsewhere"
	if _, _, err := in.Run(sim.Config{Workload: w, Platform: q}, run.Job{Scheduler: "eager", Workload: w.Name}); err == nil || !strings.Contains(err.Error(), "elsewhere") {
		t.Errorf("uncalibrated host: %v", err)
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvPrefix, "")
	t.Setenv(EnvPerfModels, "")
	if err := Available(); err == nil || !strings.Contains(err.Error(), EnvPrefix) {
		t.Errorf("no build named: %v", err)
	}
	t.Setenv(EnvPrefix, t.TempDir())
	t.Setenv(EnvPerfModels, t.TempDir())
	if err := Available(); err == nil || !strings.Contains(err.Error(), "sgemm") {
		t.Errorf("empty prefix: %v", err)
	}
}

// What keys a StarPU record is what StarPU is told: a memsched parameter
// at its default, which StarPU never hears of, changes nothing.
func TestToldIgnoresMemschedOnlyDefaults(t *testing.T) {
	p := platform(t, 2, 500)
	a, err := Told(run.Job{Scheduler: "dmdar", Params: map[string]string{"penalty": "expected"}, Workload: "matmul2d-n10"}, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Told(run.Job{Scheduler: "dmdar", Params: map[string]string{"penalty": "expected", "alpha": "1.0", "window": "0"}, Workload: "matmul2d-n10"}, p)
	if err != nil || a != b {
		t.Errorf("%q != %q (%v)", a, b, err)
	}
	c, _ := Told(run.Job{Scheduler: "dmdar", Params: map[string]string{"penalty": "expected"}, Workload: "matmul2d-n12"}, p)
	q := platform(t, 2, 250)
	d, _ := Told(run.Job{Scheduler: "dmdar", Params: map[string]string{"penalty": "expected"}, Workload: "matmul2d-n10"}, q)
	if c == a || d == a {
		t.Error("the workload and the memory cap must enter what StarPU is told")
	}
}
