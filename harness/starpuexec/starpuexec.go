// Package starpuexec runs a point on StarPU itself: the authors' runtime
// (starpu-runtime/starpu, tag papers/ICPP2023) built in SimGrid mode, with
// the calibration of their machine, as the reference every rule of
// memsched's simulator is checked against (issue 33). A suite with
// executor = "starpu" runs each point through StarPU's sgemm example
// (examples/mult/xgemm.c) under the policy and environment the authors'
// scripts (Scripts_maxime/) give the scheduler, and records what StarPU
// reports: the GFlop/s and the transfers of STARPU_BUS_STATS.
//
// memsched neither ships nor builds StarPU. The executor is told where a
// build is by two environment variables:
//
//	MEMSCHED_STARPU             the installation prefix (lib/starpu/examples/sgemm)
//	MEMSCHED_STARPU_PERFMODELS  a directory holding StarPU's sampling/ tree
//	                            (bus/HOST.*, codelets/45/*.HOST), e.g. a copy of
//	                            the tag's tools/perfmodels/sampling
//
// The platform preset's name is the StarPU host (STARPU_HOSTNAME): the
// preset gemini-2-ipdps is the one `memsched calibrate --from-starpu`
// writes from those files. Only what StarPU can be told is accepted: a
// scheduler, parameter or workload it has no equivalent for is refused
// with its name, never run as something else.
package starpuexec

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Name is the executor's name in suites and records.
const Name = run.StarPU

// Environment variables naming the StarPU build and its calibration.
const (
	EnvPrefix     = "MEMSCHED_STARPU"
	EnvPerfModels = "MEMSCHED_STARPU_PERFMODELS"
)

// Install is a StarPU build and the calibration it runs with.
type Install struct {
	Prefix     string // installation prefix
	PerfModels string // holds bus/ and codelets/45/
}

func (in Install) sgemm() string {
	return filepath.Join(in.Prefix, "lib", "starpu", "examples", "sgemm")
}

// FromEnv reads the build's location from the environment.
func FromEnv() (Install, error) {
	in := Install{Prefix: os.Getenv(EnvPrefix), PerfModels: os.Getenv(EnvPerfModels)}
	if in.Prefix == "" || in.PerfModels == "" {
		return in, fmt.Errorf("set %s to a StarPU installation built with --enable-simgrid and %s to its sampling/ directory (README: \"Against StarPU itself\")", EnvPrefix, EnvPerfModels)
	}
	return in, in.check()
}

func (in Install) check() error {
	if st, err := os.Stat(in.sgemm()); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s: no executable StarPU sgemm example (%s=%s: a StarPU installation)", in.sgemm(), EnvPrefix, in.Prefix)
	}
	if _, err := os.Stat(filepath.Join(in.PerfModels, "bus")); err != nil {
		return fmt.Errorf("%s=%s: no bus/ directory of StarPU calibrations", EnvPerfModels, in.PerfModels)
	}
	return nil
}

// Revision is the StarPU commit the build was made from
// (share/doc/starpu/STARPU-REVISION), "unknown" without one.
func (in Install) Revision() string {
	b, err := os.ReadFile(filepath.Join(in.Prefix, "share", "doc", "starpu", "STARPU-REVISION"))
	if err != nil || len(b) > 256 {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// Available is the executor's probe: a sweep asks it before it runs or
// removes anything.
func Available() error {
	_, err := FromEnv()
	return err
}

// Register adds the executor, its probe and what it tells StarPU (the key
// of its records) to the run package.
func Register() {
	run.RegisterExecutor(Name, run.GPUExecutor(Run))
	run.RegisterProbe(Name, Available)
	run.RegisterPeer(Name, Told)
}

// Told is everything StarPU is told for a job: the host, the arguments and
// the environment (Translate). It keys StarPU's records, so that nothing
// else of memsched's (a parameter StarPU has no use for, a refitted
// preset, a changed rule) reruns the peer.
func Told(job run.Job, p *hardware.Platform) (string, error) {
	pt, err := Translate(job, p)
	if err != nil {
		return "", err
	}
	return "starpu host=" + p.Name + " args=" + strings.Join(pt.Args, " ") + " env=" + strings.Join(pt.Env, " "), nil
}

// Run runs one job on StarPU: the run.GPUExecutor of suites with
// executor = "starpu".
func Run(cfg sim.Config, job run.Job) (*sim.Stats, string, error) {
	in, err := FromEnv()
	if err != nil {
		return nil, "", err
	}
	return in.Run(cfg, job)
}

// maxGPUs is StarPU's default STARPU_MAXCUDADEVS (configure
// --enable-maxcudadev): a build sees at most 4 GPUs unless configured for
// more.
const maxGPUs = 4

// Run runs one job with this build.
func (in Install) Run(cfg sim.Config, job run.Job) (*sim.Stats, string, error) {
	p := cfg.Platform
	pt, err := Translate(job, p)
	if err != nil {
		return nil, "", err
	}
	host := p.Name
	cal, err := in.calibration(host)
	if err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "memsched-starpu-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	// HFP.c and dynamic_data_aware.c write their statistics under
	// Output_maxime/ without checking fopen; a missing directory crashes
	// them.
	for _, d := range []string{"Output_maxime/Data/DARTS", "Output_maxime/Data/HFP"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, "", err
		}
	}
	bus := filepath.Join(dir, "bus-stats.txt")
	env := append(slices.Clone(pt.Env), "STARPU_PERF_MODEL_DIR="+in.PerfModels, "STARPU_HOSTNAME="+host,
		"STARPU_BUS_STATS=1", "STARPU_BUS_STATS_FILE="+bus, "STARPU_SILENT=1",
		"PATH=/usr/bin:/bin", "HOME="+dir)
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// HFP.c and mst_policy.c keep N²×N² arrays on the stack: the authors ran
	// them under `ulimit -s` of 1 GiB (shared/starpu-peer/README.md).
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -s 1048576 && exec "$0" "$@"`, in.sgemm()}, pt.Args...)...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{&out, 1 << 20}, &limited{&errb, 1 << 20}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", fmt.Errorf("StarPU sgemm (%s): %v\n%s", strings.Join(pt.Env, " "), err, tail(errb.String(), 2000))
	}
	gflops, err := ParseGFlops(out.String())
	if err != nil {
		return nil, "", fmt.Errorf("StarPU sgemm output: %w\n%s", err, tail(out.String(), 2000))
	}
	b, err := os.ReadFile(bus)
	if err != nil {
		return nil, "", fmt.Errorf("StarPU wrote no bus statistics: %w", err)
	}
	tr, err := ParseBusStats(string(b))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", bus, err)
	}
	flops := cfg.Workload.TotalFlops()
	st := &sim.Stats{Flops: flops, Makespan: flops / (gflops * 1e9), Tasks: len(cfg.Workload.Tasks),
		BytesH2D: tr.H2DBytes, BytesD2D: tr.D2DBytes, BytesD2H: tr.D2HBytes, Loads: tr.H2D + tr.D2D, WriteBacks: tr.D2H}
	desc := fmt.Sprintf("StarPU %s (SimGrid), %s, calibration %s; %s", shortRev(in.Revision()), strings.Join(pt.Env, " "), cal, strings.Join(pt.Args, " "))
	return st, desc, nil
}

// calibration checks that the perf-model directory calibrates the host,
// and names its files with a hash of each, for the record.
func (in Install) calibration(host string) (string, error) {
	files := []string{"bus/" + host + ".platform.v4.xml", "bus/" + host + ".platform.xml", "codelets/45/starpu_sgemm_gemm." + host}
	var parts []string
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(in.PerfModels, f))
		if errors.Is(err, os.ErrNotExist) && strings.HasSuffix(f, ".v4.xml") {
			continue // older SimGrid platforms only
		}
		if err != nil {
			return "", fmt.Errorf("the platform %q is a StarPU host: %s has no %s (%v)", host, in.PerfModels, f, err)
		}
		sum := sha256.Sum256(b)
		parts = append(parts, f+"@"+hex.EncodeToString(sum[:6]))
	}
	return strings.Join(parts, " "), nil
}

func shortRev(r string) string {
	if len(r) > 9 {
		return r[:9]
	}
	return r
}

// Point is what StarPU is told for one job: the sgemm arguments and the
// environment of the authors' scripts.
type Point struct {
	Args []string
	Env  []string // sorted
}

// tile is the edge of the tiles memsched's default workloads have and
// xgemm's blocks take from -xy / -nblocks.
const tile = workloads.DefaultTile

var (
	name2D = regexp.MustCompile(`^matmul2d-n([0-9]+)$`)
	name3D = regexp.MustCompile(`^matmul3d-n([0-9]+)(-nz([0-9]+))?$`)
)

// Translate maps a job and platform to StarPU's sgemm arguments and
// environment, or says what StarPU has no equivalent for.
func Translate(job run.Job, p *hardware.Platform) (Point, error) {
	var pt Point
	switch {
	case name2D.MatchString(job.Workload):
		n, _ := strconv.Atoi(name2D.FindStringSubmatch(job.Workload)[1])
		// xgemm.c: -xy sets both matrix edges, z stays at its default, 960×4
		// = the 2D block-row width (workloads.DefaultZ): the names matched
		// have the default tile and z.
		pt.Args = []string{"-xy", strconv.Itoa(tile * n), "-nblocks", strconv.Itoa(n), "-iter", "1"}
	case name3D.MatchString(job.Workload):
		m := name3D.FindStringSubmatch(job.Workload)
		n, _ := strconv.Atoi(m[1])
		nz := n
		if m[3] != "" {
			nz, _ = strconv.Atoi(m[3])
		}
		pt.Args = []string{"-3d", "-xy", strconv.Itoa(tile * n), "-z", strconv.Itoa(tile * nz), "-nblocks", strconv.Itoa(n), "-nblocksz", strconv.Itoa(nz), "-iter", "1"}
	default:
		return pt, fmt.Errorf("workload %s: StarPU's sgemm runs matmul2d and matmul3d in submission order with the default tiles (960, z = 3840), not this one", job.Workload)
	}
	if p.GPUs < 1 || p.GPUs > maxGPUs || p.CPUs != 0 {
		return pt, fmt.Errorf("%d GPUs and %d CPU workers: the StarPU peer runs 1 to %d GPUs and no CPU worker (a default StarPU build's STARPU_MAXCUDADEVS)", p.GPUs, p.CPUs, maxGPUs)
	}
	mib := float64(p.MemoryBytes) / hardware.MiB
	if mib < 1 || mib != math.Trunc(mib) {
		return pt, fmt.Errorf("memory %.3f MiB per GPU: STARPU_LIMIT_CUDA_MEM takes whole MiB", mib)
	}
	if err := runtimeStarPUHas(p.Runtime); err != nil {
		return pt, err
	}
	pol, ok := policies[job.Scheduler]
	if !ok {
		return pt, fmt.Errorf("scheduler %s has no StarPU policy at papers/ICPP2023 that memsched maps (mapped: %s)", job.Scheduler, strings.Join(Mapped(), ", "))
	}
	spec, err := schedulers.Lookup(job.Scheduler)
	if err != nil {
		return pt, err
	}
	env := map[string]string{
		"STARPU_SCHED": pol.sched, "STARPU_NCPU": "0", "STARPU_NOPENCL": "0", "STARPU_NCUDA": strconv.Itoa(p.GPUs),
		"STARPU_LIMIT_CUDA_MEM":           strconv.Itoa(int(mib)),
		"STARPU_NTASKS_THRESHOLD":         strconv.Itoa(p.Runtime.Buffer),
		"STARPU_CUDA_PIPELINE":            strconv.Itoa(p.Runtime.Pipeline),
		"STARPU_MINIMUM_CLEAN_BUFFERS":    "0",
		"STARPU_TARGET_CLEAN_BUFFERS":     "0",
		"STARPU_SIMGRID_CUDA_MALLOC_COST": "0",
	}
	for k, v := range pol.env {
		env[k] = v
	}
	for _, prm := range spec.Params {
		v, given := job.Params[prm.Name]
		if !given {
			v = prm.Default
		}
		if set, ok := pol.params[prm.Name]; ok {
			k, val, err := set(v)
			if err != nil {
				return pt, fmt.Errorf("scheduler %s: parameter %s=%s: %w", job.Scheduler, prm.Name, v, err)
			}
			if k != "" {
				env[k] = val
			}
			continue
		}
		if v != prm.Default && !sameValue(prm, v) {
			return pt, fmt.Errorf("scheduler %s: parameter %s=%s has no StarPU equivalent at papers/ICPP2023 (only its default %q runs there)", job.Scheduler, prm.Name, v, prm.Default)
		}
	}
	for k, v := range env {
		pt.Env = append(pt.Env, k+"="+v)
	}
	sort.Strings(pt.Env)
	return pt, nil
}

// sameValue says whether a parameter's value is its default written
// another way (1 for 1.0).
func sameValue(p schedulers.Param, v string) bool {
	if p.Kind == "float" || p.Kind == "int" {
		a, e1 := strconv.ParseFloat(v, 64)
		b, e2 := strconv.ParseFloat(p.Default, 64)
		return e1 == nil && e2 == nil && a == b
	}
	if p.Kind == "bool" {
		a, e1 := strconv.ParseBool(v)
		b, e2 := strconv.ParseBool(p.Default)
		return e1 == nil && e2 == nil && a == b
	}
	return false
}

// runtimeStarPUHas refuses runtime settings that change memsched's
// simulation but cannot be given to StarPU: the peer would silently run
// something else.
func runtimeStarPUHas(rt hardware.Runtime) error {
	switch {
	case rt.SchedCost != "" && rt.SchedCost != "none":
		return fmt.Errorf("sched_cost = %q: StarPU in SimGrid does not time the schedulers' code", rt.SchedCost)
	case rt.DurationCV != 0:
		return fmt.Errorf("duration_cv = %g: SimGrid runs each task at its performance model's mean", rt.DurationCV)
	case rt.Buffer < 1 || rt.Pipeline < 1:
		return fmt.Errorf("buffer = %d, pipeline = %d: StarPU needs both ≥ 1", rt.Buffer, rt.Pipeline)
	}
	return nil
}

// A policy is the StarPU scheduler a memsched scheduler runs as, with the
// variables the authors' scripts set for it and how each memsched
// parameter that StarPU has is passed. Parameters not listed must keep
// their defaults.
type policy struct {
	sched  string
	env    map[string]string
	params map[string]setter
}

type setter func(v string) (key, value string, err error)

// flag passes a bool parameter as 0/1.
func flag(key string) setter {
	return func(v string) (string, string, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", "", err
		}
		if b {
			return key, "1", nil
		}
		return key, "0", nil
	}
}

// choice passes a string parameter through a table.
func choice(key string, values map[string]string) setter {
	return func(v string) (string, string, error) {
		if s, ok := values[v]; ok {
			return key, s, nil
		}
		return "", "", fmt.Errorf("StarPU's %s has no equivalent", key)
	}
}

// only accepts the one value that is what the StarPU policy does, and
// sets nothing.
func only(want, why string) setter {
	return func(v string) (string, string, error) {
		if v != want {
			return "", "", fmt.Errorf("StarPU's policy does only %s (%s)", want, why)
		}
		return "", "", nil
	}
}

// policies maps memsched's schedulers to the tag's policies and the
// variables of Scripts_maxime/HFP.sh, dynamic_data_aware.sh and
// Coloc2021/ for them.
var policies = map[string]policy{
	// modular_eager_prefetching.c; STARPU_SCHED_READY defaults to 1 there.
	"eager": {sched: "modular-eager-prefetching", params: map[string]setter{"ready": flag("STARPU_SCHED_READY")}},
	// deque_modeling_policy_data_aware.c: StarPU's transfer penalty is the
	// expected transfer time of the data not on the worker.
	"dmda":  {sched: "dmda", params: map[string]setter{"penalty": only("expected", "starpu_task_expected_data_transfer_time of the data not on the worker")}},
	"dmdar": {sched: "dmdar", params: map[string]setter{"penalty": only("expected", "starpu_task_expected_data_transfer_time of the data not on the worker")}},
	// dynamic_data_aware.c: the scripts set STARPU_SCHED_READY=0 for DARTS.
	"darts": {sched: "dynamic-data-aware", env: map[string]string{"STARPU_SCHED_READY": "0"}, params: map[string]setter{
		"eviction":        choice("EVICTION_STRATEGY_DYNAMIC_DATA_AWARE", map[string]string{"luf": "1", "lru": "0"}),
		"3inputs":         flag("APP"),
		"planned_present": flag("SIMULATE_MEMORY"),
		// StarPU's DARTS draws from glibc's rand() after srandom(SEED):
		// a record saying rng=run would not be the run StarPU made. SEED
		// is left unset for 0, its default.
		"rng": only("glibc", "dynamic_data_aware.c draws from glibc's rand() after srandom(SEED)"),
		"srandom": func(v string) (string, string, error) {
			if v == "0" {
				return "", "", nil
			}
			return "SEED", v, nil
		},
		"app_draws": only("1", "examples/mult/xgemm.c draws one random() per submitted task"),
	}},
	// HFP.c on one GPU: ORDER_U, BELADY, FASTER_FIRST_ITERATION.
	"hfp": {sched: "HFP", params: map[string]setter{
		"flip": flag("ORDER_U"), "ready": flag("STARPU_SCHED_READY"), "belady": flag("BELADY"), "fast_start": flag("FASTER_FIRST_ITERATION"),
	}},
	// HFP.c with MULTIGPU=4 (balance on expected task times) and
	// TASK_STEALING=3 (steal from the most loaded GPU's tail).
	"mhfp": {sched: "HFP", env: map[string]string{"MULTIGPU": "4"}, params: map[string]setter{
		"flip": flag("ORDER_U"), "ready": flag("STARPU_SCHED_READY"), "belady": flag("BELADY"), "fast_start": flag("FASTER_FIRST_ITERATION"),
		"balance":    only("true", "MULTIGPU=4 balances on expected task times"),
		"balance_by": only("starpu", "HFP.c load_balance_expected_time"),
		"steal": func(v string) (string, string, error) {
			if b, err := strconv.ParseBool(v); err != nil || !b {
				return "TASK_STEALING", "0", err
			}
			return "TASK_STEALING", "3", nil
		},
	}},
	"mst": {sched: "mst", params: map[string]setter{"ready": flag("STARPU_SCHED_READY")}},
	"rcm": {sched: "cuthillmckee", env: map[string]string{"REVERSE": "1"}, params: map[string]setter{"ready": flag("STARPU_SCHED_READY")}},
	"cm":  {sched: "cuthillmckee", env: map[string]string{"REVERSE": "0"}, params: map[string]setter{"ready": flag("STARPU_SCHED_READY")}},
}

// Mapped lists the schedulers the executor can run, sorted.
func Mapped() []string {
	names := make([]string, 0, len(policies))
	for n := range policies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseGFlops reads xgemm's result line ("x y z ms GFlops Deviance").
func ParseGFlops(out string) (float64, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Fields(lines[i])
		if len(f) != 6 {
			continue
		}
		g, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		if !(g > 0) || math.IsInf(g, 0) || g > 1e9 {
			return 0, fmt.Errorf("GFlop/s %q out of range", f[4])
		}
		return g, nil
	}
	return 0, errors.New("no result line (x y z ms GFlops Deviance)")
}

// Transfers are StarPU's bus statistics summed by direction: counts and
// bytes.
type Transfers struct {
	H2D, D2D, D2H                int
	H2DBytes, D2DBytes, D2HBytes int64
}

var busLine = regexp.MustCompile(`^\s*(NUMA|CUDA) (\d+) -> (NUMA|CUDA) (\d+)\s+[0-9.]+ GB\s+[0-9.a-z-]+ MB/s\s+\(transfers : (\d+) - avg ([0-9.na-]+) MB\)`)

// ParseBusStats reads the STARPU_BUS_STATS_FILE summary
// (src/profiling/bound... starpu_profiling_bus_helper_display_summary): one
// line per bus with its transfer count and their average size in MiB.
// Bytes are count × average, exact when a bus moves one size (to 1e-4 MiB
// per transfer otherwise).
func ParseBusStats(s string) (Transfers, error) {
	var t Transfers
	seen := false
	for _, line := range strings.Split(s, "\n") {
		m := busLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen = true
		n, err := strconv.Atoi(m[5])
		if err != nil || n < 0 || n > 1<<40 {
			return t, fmt.Errorf("transfer count %q out of range", m[5])
		}
		var bytes int64
		if n > 0 {
			avg, err := strconv.ParseFloat(m[6], 64)
			if err != nil || !(avg >= 0) || avg > 1<<40 {
				return t, fmt.Errorf("average size %q MB out of range", m[6])
			}
			b := math.Round(float64(n) * avg * hardware.MiB)
			if b > 1<<60 {
				return t, fmt.Errorf("%d transfers of %s MB: %g bytes, out of range", n, m[6], b)
			}
			bytes = int64(b)
		}
		switch {
		case m[1] == "NUMA" && m[3] == "CUDA":
			t.H2D += n
			t.H2DBytes += bytes
		case m[1] == "CUDA" && m[3] == "CUDA":
			t.D2D += n
			t.D2DBytes += bytes
		case m[1] == "CUDA" && m[3] == "NUMA":
			t.D2H += n
			t.D2HBytes += bytes
		}
	}
	if !seen {
		return t, errors.New("no bus line (NUMA 0 -> CUDA 0 ... (transfers : N - avg M MB))")
	}
	return t, nil
}

// limited keeps at most n bytes of a program's output (the rest is
// dropped), so a runaway program cannot exhaust memory.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
