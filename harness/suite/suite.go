// Package suite reads TOML suites (workloads, platforms, schedulers,
// repetitions and how to report them), validates them completely before
// anything runs, and expands them into runs with deterministic seeds and
// result keys.
//
// A suite:
//
//	[suite]
//	name        = "ipdps2022-2d-1gpu"
//	title       = "2D matrix multiplication, 1 V100, 500 MB"
//	claims      = "paper/ipdps2022.toml"
//	repetitions = 1
//	seed        = 1
//	charge_sched_time = false
//	timeout     = "10m"
//
//	[platform]
//	preset    = "v100-gemini"
//	gpus      = 1                 # or [1, 2, 4], or {from = 1, to = 4, step = 1}
//	memory_mb = 500               # MiB per GPU; 0 = the GPU's physical memory
//	gpu_link_gbps = 6.0           # overrides: any [topology] number
//	sched_cost = "model"          # and any [runtime] setting of the preset;
//	reclaim_factor = [1, 2]       # a list or a range is an axis of the sweep
//	[platform.kernel.gemm]
//	gflops = 12557
//
//	[workload]
//	kind = "matmul2d"
//	n    = {from = 5, to = 75, step = 5}
//
//	[[scheduler]]
//	name  = "dmdar"
//	label = "DMDAR"               # display name, as the papers and claims spell it
//	window = 0                    # any other key is a scheduler parameter
//
//	[report]
//	baseline = "DMDAR"
//	metric   = "gflops"
//	x        = "working_set"
//	[[report.reference]]
//	figure = "ipdps22/2d_1gpu/paper"
//	labels = { EAGER = "EAGER", DMDAR = "DMDAR" }
//
// More keys: [platform] memory_bytes (exact bytes, toy instances; an axis
// too), cpus (CPU-core workers), cpus_gpus (paired configurations, an axis:
// [[16, 4], [18, 10]] instead of cpus and gpus), every [runtime] setting of the preset
// (hardware.RuntimeKeys: buffer, pipeline, reclaim_factor, alloc_sync,
// sched_cost, op_seconds, duration_cv...; a list or range is an axis whose
// value is a coordinate of the points), any [topology] number; [workload] nz and keep (axes), tile, z,
// order ("random"), deps (the task graph, updated tiles in mode RW),
// write_c (2D: each task writes its C tile in mode W), c_scratch (2D:
// false leaves out the C tile xgemm.c holds on every GPU), opts (the options
// of an application kind, a table: opts = { dim = 3 }), seed (fixes the instance for every repetition; by default it derives from
// the suite seed, the point and the repetition, shared by the schedulers)
// or file (a workload JSON instead of a generator, or a StarPU tasks.rec:
// memsched workload --starpu-tasks F --repetition K -o w.json imports one
// repetition); [[scheduler]]
// charge_sched_time overrides the suite's for one block; [report] lines
// (ceiling, one_matrix, both_matrices, all_inputs, lower_bound, pcie),
// reference_csv (the papers' measurements by default; a results file of
// real runs, .jsonl, whose series are its suite names, for a simulated
// twin of a CUDA suite), peer (a results file of the same suite swept on
// StarPU itself with --executor starpu, compared point by point) and style (the figures: curves against the x axis, or the
// bar charts of the CPU+GPU papers, see Styles). Without labels, a reference series maps its schedulers to
// the suite labels of the same display name.
//
// Every mistake is reported before anything runs, as "file:line: problem;
// fix": unknown keys (with the closest known one), unknown schedulers and
// parameters, bad values, duplicate labels or configurations, and points
// that cannot run (a GPU memory smaller than one task's inputs).
//
// Relative paths (claims, reference CSV, workload files) resolve against the
// suite's root: the nearest directory above the suite holding go.mod (the
// repository), else the current directory.
package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Suite is a parsed and validated suite.
type Suite struct {
	File        string // as given
	Root        string // directory relative paths resolve against
	Name        string
	Title       string
	Claims      string // claims file, relative to Root
	Repetitions int
	Seed        uint64
	ChargeSched bool
	Timeout     time.Duration // per run; 0 = none
	Executor    string

	Platform   Platform
	Workload   Workload
	Schedulers []Scheduler
	Report     Report
	// Batch is set for a batch suite (thesis chapter 6, [batch] instead of
	// [platform] and [workload]; see BatchSuite).
	Batch *BatchSuite

	points []point
}

// Platform is the [platform] table.
type Platform struct {
	Preset      string
	GPUs        []int
	CPUs        int       // CPU-core workers
	PairedCPUs  []int     // with cpus_gpus: the CPU workers of each GPUs value (same index)
	MemoryMiB   []float64 // per GPU; 0 = physical memory. Empty when MemoryBytes is used
	MemoryBytes []int64
	// Runtime overrides the preset's [runtime] settings, each by its key;
	// a setting given as a list (or a range) is an axis of the sweep.
	Runtime []RuntimeSetting
	Base    *hardware.Platform // preset with overrides, GPUs, memory and runtime axes not yet set
}

// RuntimeSetting is one [runtime] key a suite sets: one value, or an axis.
type RuntimeSetting struct {
	Key    string
	Values []any // TOML values (int64, float64, bool, string)
	Axis   bool  // written as a list or a range: a coordinate of the points
}

// Workload is the [workload] table: a workloads.Spec with axes.
type Workload struct {
	Kind   string
	N      []int
	NZ     []int // empty: NZ = N
	Keep   []float64
	Tile   int
	Z      int
	Order  string
	Deps   bool
	WriteC bool
	// NoScratch: c_scratch = false (workloads.Spec.NoScratch).
	NoScratch bool
	Seed      *uint64 // nil: derived per point and repetition from the suite seed
	File      string  // a workload JSON file instead of a generator
	Opts      string  // options of an application kind (workloads.Spec.Opts)
}

// Scheduler is one [[scheduler]] block.
type Scheduler struct {
	Name        string
	Version     int // schedulers.Spec.Version
	Label       string
	Raw         map[string]string // parameters as written
	Params      schedulers.Params // resolved, defaults filled
	ChargeSched bool
	Code        *schedulers.Code // code from outside memsched (exec:PATH, plugins)
	Line        int
	// Deferred: an external program not asked yet (Describe asks it);
	// Params are then the parameters as written.
	Deferred bool
}

// keyParams are the parameters that enter the scheduler's run keys: the
// resolved ones, but for an external program those written in the suite,
// so that keys are the same before and after the program is asked (its
// defaults are part of its code, whose hash is in the key too).
func (sc Scheduler) keyParams() string {
	if sc.Code != nil && sc.Code.Path != "" {
		return schedulers.Params(sc.Raw).Canonical()
	}
	return sc.Params.Canonical()
}

// Report is the [report] table.
type Report struct {
	Baseline     string
	Metric       string
	X            string   // "working_set" or "memory"
	Lines        []string // bounds to draw
	ReferenceCSV string
	References   []Reference
	Style        string // one of Styles
	// Peer is a results file of this suite's runs on StarPU itself
	// (`memsched sweep --executor starpu`), which the report compares
	// with the simulated runs point by point ("Against StarPU+SimGrid").
	Peer string
}

// Styles of a suite's figures: curves of the metrics against the x axis
// (the memory papers), or the bar charts of the CPU+GPU papers:
// makespan-bars (COMPAS 2022 Fig. 3: makespan per configuration and
// scheduler, with the critical-path length), locality-coefficient (PeerJ
// 2019 Fig. 5: speedups over Heteroprio per (l_CPU, l_GPU) pair) and
// dlaf-details (PeerJ 2019 Figs. 6-8: speedup, transfers and BMD per
// formula and GPU count).
var Styles = []string{"curves", "makespan-bars", "locality-coefficient", "dlaf-details"}

// Reference overlays measured points of one series of the reference CSV.
type Reference struct {
	Figure     string
	Labels     map[string]string // reference scheduler name -> suite label
	Line       int               // of figure, for errors
	LabelsLine int
}

// Metrics a suite's [report] metric may name (a GPU run's metrics,
// run.MetricNames); transfers_mb is the claims files' spelling of
// transfers_mib (the papers' MB are MiB).
var Metrics = run.MetricNames()

// Lines the report can draw.
// one_matrix and both_matrices are the 2D memory lines (red, orange; for 3D
// both_matrices is A and B), all_inputs is every input of 3D products and
// task sets (green).
var LineNames = []string{"ceiling", "one_matrix", "both_matrices", "all_inputs", "lower_bound", "pcie"}

// Error is one problem of a suite: where, what, and how to fix it.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Errors are every problem found in a suite, reported together.
type Errors []*Error

func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Load reads and validates a suite file.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse validates a suite given its text; path names it in errors and
// anchors relative paths.
func Parse(path string, data []byte) (*Suite, error) {
	p := &parser{file: path, loc: newLocator(string(data))}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			return nil, Errors{{path, pe.Position.Line, pe.Message + "; fix the TOML syntax (strings need quotes, inline tables stay on one line)"}}
		}
		return nil, Errors{{path, 0, err.Error()}}
	}
	s := &Suite{File: path, Root: findRoot(path)}
	top := &tbl{p: p, m: raw, used: map[string]bool{}}
	s.parseSuite(top.sub("suite", true))
	if _, ok := raw["batch"]; ok {
		s.parseBatch(top)
		if len(p.errs) > 0 {
			sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
			return nil, p.errs
		}
		return s, nil
	}
	before := len(p.errs)
	s.parsePlatform(top.sub("platform", true))
	s.parseWorkload(top.sub("workload", true))
	pointsOK := len(p.errs) == before
	for i, st := range top.array("scheduler") {
		s.parseScheduler(i, st)
	}
	if _, ok := raw["scheduler"]; !ok {
		p.errf("", "", "no [[scheduler]] block; add at least one, e.g. [[scheduler]] name = \"eager\" label = \"EAGER\"")
	}
	s.parseReport(top.sub("report", false))
	top.unknown("suite", "platform", "workload", "scheduler", "report")
	// The points can be checked whenever the platform and workload are
	// valid, so an impossible memory shows with the other mistakes.
	if pointsOK {
		s.checkPoints(p)
	}
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
		return nil, p.errs
	}
	return s, nil
}

// findRoot returns the nearest directory above path holding go.mod, else ".".
func findRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "."
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}

// Path resolves a suite-relative path.
func (s *Suite) Path(rel string) string {
	if rel == "" || filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(s.Root, rel)
}

// RelFile is the suite file relative to the root, slash-separated: how
// claims files name suites.
func (s *Suite) RelFile() string {
	abs, err := filepath.Abs(s.File)
	if err != nil {
		return filepath.ToSlash(s.File)
	}
	root, _ := filepath.Abs(s.Root)
	if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(s.File)
}

// Label returns the scheduler block with a label.
func (s *Suite) Label(label string) (Scheduler, bool) {
	for _, sc := range s.Schedulers {
		if sc.Label == label {
			return sc, true
		}
	}
	return Scheduler{}, false
}

// Labels lists the labels in suite order.
func (s *Suite) Labels() []string {
	out := make([]string, len(s.Schedulers))
	for i, sc := range s.Schedulers {
		out[i] = sc.Label
	}
	return out
}

// CheckName says whether a suite name can be written where names go: into
// records, Slurm job names, and directory names (report --figures
// DIR/<name>): no control characters, and nothing that leaves a directory
// (no '/' or '\\', not "." or "..").
func CheckName(name string) error {
	if err := checkText("name", name); err != nil {
		return err
	}
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.IsAbs(name) {
		return fmt.Errorf("name = %q: a suite name becomes a directory name (report --figures DIR/<name>); use letters, digits, '-', '_' and '.', without '/' or '\\', and not \".\" or \"..\"", name)
	}
	return nil
}

// checkText refuses control characters (newlines included) in a name or
// label: they would forge lines of logs, reports and Slurm scripts.
func checkText(key, v string) error {
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("%s = %q holds a control character (%U); use printable text on one line", key, v, r)
		}
	}
	return nil
}

func (s *Suite) parseSuite(t *tbl) {
	s.Name = t.str("name", "")
	if s.Name == "" {
		t.errf("name", "[suite] has no name; add name = \"my-suite\" (it goes into every result record)")
	}
	if err := CheckName(s.Name); s.Name != "" && err != nil {
		t.errf("name", "%v", err)
	}
	s.Title = t.str("title", s.Name)
	if err := checkText("title", s.Title); err != nil && t.has("title") {
		t.errf("title", "%v", err)
	}
	s.Claims = t.str("claims", "")
	if s.Claims != "" {
		if _, err := os.Stat(s.Path(s.Claims)); err != nil {
			t.errf("claims", "claims file %s not found (paths are relative to the repository root, e.g. \"paper/ipdps2022.toml\")", s.Claims)
		}
	}
	s.Repetitions = int(t.integer("repetitions", 1))
	if s.Repetitions < 1 || s.Repetitions > 10000 {
		t.errf("repetitions", "repetitions = %d; use 1 to 10000 (the simulator is deterministic: 1 is enough unless scheduling time is charged)", s.Repetitions)
	}
	seed := t.integer("seed", 1)
	if seed < 0 {
		t.errf("seed", "seed = %d; use a non-negative integer", seed)
	}
	s.Seed = uint64(seed)
	s.ChargeSched = t.boolean("charge_sched_time", false)
	s.Timeout = t.duration("timeout")
	s.Executor = t.str("executor", "sim")
	if s.Executor != "sim" && s.Executor != "cuda" && s.Executor != "starpu" {
		t.errf("executor", "executor = %q; use \"sim\" (simulator), \"cuda\" (real GPUs) or \"starpu\" (StarPU itself in SimGrid)", s.Executor)
	}
	t.unknown("name", "title", "claims", "repetitions", "seed", "charge_sched_time", "timeout", "executor")
}

var topologyKeys = []string{"gpu_link_gbps", "switch_link_gbps", "numa_link_gbps", "inter_numa_gbps", "nvlink_gbps", "strided_gbps", "gpus_per_switch", "gpus_per_numa"}

func (s *Suite) parsePlatform(t *tbl) {
	ps := &s.Platform
	ps.Preset = t.str("preset", "v100-gemini")
	base, err := hardware.Load(s.presetPath(ps.Preset))
	if err != nil {
		t.errf("preset", "%v", err)
		base = nil
	}
	defGPUs, defCPUs := int64(1), int64(0)
	if base != nil {
		defGPUs, defCPUs = int64(base.GPUs), int64(base.CPUs)
	}
	if t.has("cpus_gpus") {
		for _, k := range []string{"cpus", "gpus"} {
			if t.has(k) {
				t.errf(k, "%s is set with cpus_gpus, which gives both; remove %s", k, k)
			}
		}
		ps.parsePairs(t)
	} else {
		for _, g := range t.axisInt("gpus", defGPUs) {
			ps.GPUs = append(ps.GPUs, int(g))
		}
	}
	ps.CPUs = int(t.integer("cpus", defCPUs))
	for _, c := range ps.PairedCPUs {
		if base != nil && (c < 0 || c > base.MaxCPUs) {
			t.errf("cpus_gpus", "cpus_gpus: %d CPUs; platform %s has 0 to %d CPU cores for workers", c, ps.Preset, base.MaxCPUs)
		}
	}
	if base != nil && (ps.CPUs < 0 || ps.CPUs > base.MaxCPUs) {
		t.errf("cpus", "cpus = %d; platform %s has 0 to %d CPU cores for workers", ps.CPUs, ps.Preset, base.MaxCPUs)
	}
	if t.has("memory_mb") && t.has("memory_bytes") {
		t.errf("memory_bytes", "both memory_mb and memory_bytes are set; keep one")
	}
	if t.has("memory_bytes") {
		ps.MemoryBytes = t.axisInt("memory_bytes", 0)
	} else {
		def := 0.0
		if base != nil {
			def = base.MemoryMiB
		}
		ps.MemoryMiB = t.axisFloat("memory_mb", def)
	}
	// The same rules as --memory-mb and --memory-bytes (0 MiB = the whole
	// memory), checked on the preset before the points are built.
	for _, m := range ps.MemoryMiB {
		if base != nil {
			if err := base.Clone().SetMemoryCap(m); err != nil {
				t.errf("memory_mb", "memory_mb = %g: %v", m, err)
			}
		}
	}
	for _, b := range ps.MemoryBytes {
		if base != nil {
			if err := base.Clone().SetMemoryCapBytes(b); err != nil {
				t.errf("memory_bytes", "memory_bytes = %d: %v", b, err)
			}
		}
	}
	for i, g := range ps.GPUs {
		switch {
		case base != nil && (g < 0 || g > base.MaxGPUs):
			t.errf("gpus", "gpus = %d; platform %s has 0 to %d GPUs", g, ps.Preset, base.MaxGPUs)
		case g+ps.CPUsAt(i) < 1:
			t.errf("gpus", "gpus = %d with cpus = %d: no worker; ask for at least one GPU or CPU core", g, ps.CPUsAt(i))
		}
	}
	if base != nil {
		tp := &base.Topology
		floats := map[string]*float64{"gpu_link_gbps": &tp.GPULinkGBps, "switch_link_gbps": &tp.SwitchLinkGBps,
			"numa_link_gbps": &tp.NUMALinkGBps, "inter_numa_gbps": &tp.InterNUMAGBps, "nvlink_gbps": &tp.NVLinkGBps}
		before := len(t.p.errs)
		for k, f := range floats {
			if t.has(k) {
				if v := t.number(k); v > 0 {
					*f = v
				} else if len(t.p.errs) == before { // not already refused as a number
					t.errf(k, "%s = %g; a bandwidth must be positive (GB/s)", k, v)
				}
			}
		}
		ints := map[string]*int{"gpus_per_switch": &tp.GPUsPerSwitch, "gpus_per_numa": &tp.GPUsPerNUMA}
		for k, f := range ints {
			if t.has(k) {
				*f = int(t.integer(k, 0))
			}
		}
		if t.has("nvlink") {
			tp.NVLink = t.boolean("nvlink", false)
		}
		if t.has("strided_gbps") { // 0 is allowed: no cap
			tp.StridedGBps = t.number("strided_gbps")
		}
		if kt := t.sub("kernel", false); kt != nil {
			names := make([]string, 0, len(kt.m))
			for k := range kt.m {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				kk := kt.sub(k, true)
				kern := base.Kernels[k]
				if kk.has("gflops") {
					kern.Rate = hardware.Rate{GFlops: kk.number("gflops")}
				}
				if kk.has("seconds") {
					kern.Rate = hardware.Rate{Seconds: kk.number("seconds")}
				}
				if kk.has("gflops") || kk.has("seconds") {
					kern.History = nil // the rate given replaces an imported history (Platform.SetKernel)
				}
				if kern.GFlops <= 0 && kern.Seconds <= 0 {
					kk.errf("gflops", "kernel %s needs gflops > 0 or seconds > 0", k)
				}
				base.Kernels[k] = kern
				kk.unknown("gflops", "seconds")
			}
		}
		q := base.Clone()
		if err := q.Check(); err != nil && len(t.p.errs) == before { // the preset's default workers
			t.errf("", "after the overrides: %v", err)
		}
		ps.Runtime = parseRuntime(t, base)
		ps.Base = base
	}
	t.unknown(append(append([]string{"preset", "gpus", "cpus", "cpus_gpus", "memory_mb", "memory_bytes", "nvlink", "kernel"}, topologyKeys...), hardware.RuntimeKeys()...)...)
}

// parseRuntime reads the [platform] keys that are [runtime] settings of the
// preset (hardware.RuntimeKeys: buffer, pipeline, reclaim_factor,
// sched_cost...). A scalar overrides the preset; a list or a range
// {from, to, step} of numbers is an axis. Every value is decoded and checked
// through the preset's own struct (hardware.Platform.SetRuntime), alone,
// so a mistake names its key and value before anything runs.
func parseRuntime(t *tbl, base *hardware.Platform) []RuntimeSetting {
	var out []RuntimeSetting
	for _, k := range hardware.RuntimeKeys() {
		v, ok := t.get(k)
		if !ok {
			continue
		}
		rs := RuntimeSetting{Key: k}
		switch x := v.(type) {
		case []any:
			rs.Values, rs.Axis = x, true
		case map[string]any:
			for _, f := range t.axisFloat(k, 0) {
				rs.Values = append(rs.Values, f)
			}
			rs.Axis = true
		default:
			rs.Values = []any{v}
		}
		if len(rs.Values) == 0 {
			t.errf(k, "%s is an empty list; give at least one value", k)
			continue
		}
		seen := map[string]bool{}
		for _, val := range rs.Values {
			if s := fmt.Sprint(val); seen[s] {
				t.errf(k, "%s lists %v twice; each value once", k, val)
			} else {
				seen[s] = true
			}
			if err := base.Clone().SetRuntime(map[string]any{k: val}); err != nil {
				t.errf(k, "%s = %v: %v", k, val, err)
			}
		}
		out = append(out, rs)
	}
	return out
}

// runtimePoints lists the combinations of the runtime settings (the
// product of the axes, scalars once), in suite order.
func (ps Platform) runtimePoints() []map[string]any {
	combos := []map[string]any{{}}
	for _, rs := range ps.Runtime {
		var next []map[string]any
		for _, c := range combos {
			for _, v := range rs.Values {
				m := make(map[string]any, len(c)+1)
				for k, x := range c {
					m[k] = x
				}
				m[rs.Key] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	return combos
}

// parsePairs reads cpus_gpus = [[cpus, gpus], ...]: configurations whose
// CPU and GPU counts change together (COMPAS 2022 Table 1).
func (ps *Platform) parsePairs(t *tbl) {
	v, _ := t.get("cpus_gpus")
	list, ok := v.([]any)
	bad := func() {
		t.errf("cpus_gpus", "cpus_gpus must be a list of [cpus, gpus] pairs, e.g. [[16, 4], [18, 10]]")
	}
	if !ok || len(list) == 0 {
		bad()
		return
	}
	for _, e := range list {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			bad()
			return
		}
		c, ok1 := pair[0].(int64)
		g, ok2 := pair[1].(int64)
		if !ok1 || !ok2 {
			bad()
			return
		}
		ps.PairedCPUs = append(ps.PairedCPUs, int(c))
		ps.GPUs = append(ps.GPUs, int(g))
	}
}

// CPUsAt is the CPU workers of the i-th GPUs value.
func (ps *Platform) CPUsAt(i int) int {
	if ps.PairedCPUs != nil {
		return ps.PairedCPUs[i]
	}
	return ps.CPUs
}

func (s *Suite) presetPath(name string) string {
	if strings.HasSuffix(name, ".toml") && !filepath.IsAbs(name) {
		return s.Path(name)
	}
	return name
}

func (s *Suite) parseWorkload(t *tbl) {
	w := &s.Workload
	w.File = t.str("file", "")
	if w.File != "" {
		for _, k := range []string{"kind", "n", "nz", "keep", "tile", "z", "order", "deps", "write_c", "c_scratch", "seed", "opts"} {
			if t.has(k) {
				t.errf(k, "%s is set with file; a workload file fixes the task set: remove %s", k, k)
			}
		}
		if _, err := os.Stat(s.Path(w.File)); err != nil {
			t.errf("file", "workload file %s: %v; give a path relative to the repository root", w.File, err)
		}
		t.unknown("file", "kind", "n", "nz", "keep", "tile", "z", "order", "deps", "write_c", "c_scratch", "seed", "opts")
		return
	}
	w.Kind = t.str("kind", "")
	if w.Kind == "" {
		t.errf("kind", "[workload] has no kind; use one of %s", strings.Join(workloads.Kinds(), ", "))
	} else if !slices.Contains(workloads.Kinds(), w.Kind) {
		t.errf("kind", "unknown workload kind %q%s; use one of %s", w.Kind, schedulers.Suggest(w.Kind, workloads.Kinds()), strings.Join(workloads.Kinds(), ", "))
	}
	if !t.has("n") {
		t.errf("", "[workload] has no n (matrix size in tiles); add n = 10, n = [5, 10] or n = {from = 5, to = 90, step = 5}")
	} else {
		for _, v := range t.axisInt("n", 0) {
			if v < 1 {
				t.errf("n", "n = %d; N is a matrix size in tiles, at least 1", v)
			}
			w.N = append(w.N, int(v))
		}
	}
	if t.has("nz") {
		for _, v := range t.axisInt("nz", 0) {
			if v < 1 {
				t.errf("nz", "nz = %d; use a depth of at least 1 tile", v)
			}
			w.NZ = append(w.NZ, int(v))
		}
	}
	if t.has("keep") {
		for _, v := range t.axisFloat("keep", 0) {
			if !(v > 0 && v <= 1) {
				t.errf("keep", "keep = %g; it is the probability of keeping a task, in (0, 1]", v)
			}
			w.Keep = append(w.Keep, v)
		}
	}
	w.Tile = int(t.integer("tile", 0))
	w.Z = int(t.integer("z", 0))
	w.Order = t.str("order", "")
	if w.Order != "" && w.Order != workloads.OrderSubmission && w.Order != workloads.OrderRandom {
		t.errf("order", "order = %q; use \"submission\" or \"random\"%s", w.Order, schedulers.Suggest(w.Order, []string{"submission", "random"}))
	}
	w.Deps = t.boolean("deps", false)
	w.WriteC = t.boolean("write_c", false)
	w.NoScratch = !t.boolean("c_scratch", true)
	if t.has("seed") {
		seed := t.integer("seed", 0)
		if seed < 0 {
			t.errf("seed", "seed = %d; use a non-negative integer", seed)
		}
		v := uint64(seed)
		w.Seed = &v
	}
	if ot := t.sub("opts", false); ot != nil {
		opts := map[string]float64{}
		for k, v := range ot.m {
			ot.used[k] = true
			switch x := v.(type) {
			case int64:
				opts[k] = float64(x)
			case float64:
				opts[k] = x
			default:
				t.errf("opts", "opts.%s = %v: an option is a number", k, v)
			}
		}
		w.Opts = workloads.FormatOpts(opts)
	}
	// A key the kind does not read would be ignored, yet change the runs'
	// keys and seeds.
	for _, k := range []string{workloads.FieldTile, workloads.FieldZ, workloads.FieldNZ, workloads.FieldKeep, workloads.FieldDeps, workloads.FieldWriteC, workloads.FieldNoC, workloads.FieldOpts} {
		if t.has(k) {
			if err := workloads.CheckGiven(w.Kind, []string{k}, func(f string) string { return f }); err != nil {
				t.errf(k, "%v", err)
			}
		}
	}
	t.unknown("kind", "n", "nz", "keep", "tile", "z", "order", "deps", "write_c", "c_scratch", "seed", "file", "opts")
}

func (s *Suite) parseScheduler(i int, t *tbl) {
	sc := Scheduler{Raw: map[string]string{}, Line: t.p.loc.line(t.path, "")}
	sc.Name = t.str("name", "")
	sc.Label = t.str("label", sc.Name)
	sc.ChargeSched = t.boolean("charge_sched_time", s.ChargeSched)
	if sc.Name == "" {
		t.errf("", "[[scheduler]] #%d has no name; add name = \"dmdar\" (memsched schedulers lists them)", i+1)
		return
	}
	checkLabel(t, sc.Label)
	name := sc.Name
	prog, isExec := strings.CutPrefix(name, "exec:")
	if isExec && prog != "" && !filepath.IsAbs(prog) {
		name = "exec:" + filepath.Join(filepath.Dir(s.File), prog) // relative to the suite file
	}
	// Inspect starts no program: an external one is checked (it exists,
	// its hash) and asked for its parameters only when a run starts
	// (Describe), so reading or checking a suite runs no code of its.
	spec, err := schedulers.Inspect(name)
	if err != nil {
		t.errf("name", "%v", err)
	}
	skip := []string{"name", "label", "charge_sched_time"}
	if isExec {
		skip = append(skip, "sha256")
		if pin := t.str("sha256", ""); err == nil && t.has("sha256") && !strings.EqualFold(pin, spec.Code.SHA256) {
			t.errf("sha256", "sha256 = %q, but %s has SHA-256 %s: the program changed since the suite pinned it; check it, then update sha256", pin, spec.Code.Path, spec.Code.SHA256)
		}
	}
	var keys []string
	sc.Raw, keys = t.rawParams(skip...)
	for _, k := range keys {
		if err == nil {
			if spec.Deferred && !spec.Declares(k) {
				continue // the program's own parameter, checked by Describe
			}
			if _, perr := spec.Resolve(map[string]string{k: sc.Raw[k]}); perr != nil {
				t.errf(k, "%v", perr)
			}
		}
	}
	if err == nil {
		switch {
		case spec.Deferred:
			sc.Params = schedulers.Params{}
			for k, v := range sc.Raw {
				sc.Params[k] = v
			}
		default:
			if sc.Params, err = spec.Resolve(sc.Raw); err != nil {
				sc.Params = nil
			}
		}
		sc.Name, sc.Version, sc.Code, sc.Deferred = spec.Name, spec.Version, spec.Code, spec.Deferred
	}
	for j, o := range s.Schedulers {
		if !s.labelTaken(t, sc, j) && o.Name == sc.Name && o.ChargeSched == sc.ChargeSched && o.Params != nil && sc.Params != nil && o.Params.Canonical() == sc.Params.Canonical() {
			t.errf("", "[[scheduler]] %q has the same scheduler, parameters and charge_sched_time as %q (line %d): they would be the same runs; remove one or change a parameter", sc.Label, o.Label, o.Line)
		}
	}
	s.Schedulers = append(s.Schedulers, sc)
}

// checkLabel refuses a label that cannot be a table cell or a line.
func checkLabel(t *tbl, label string) {
	switch {
	case checkText("label", label) != nil || strings.Contains(label, "|") || strings.TrimSpace(label) == "":
		t.errf("label", "label %q: use a non-empty display name without '|' or newlines (or other control characters)", label)
	case strings.TrimSpace(label) != label:
		// --only trims what it is given: such a label could not be selected.
		t.errf("label", "label %q starts or ends with a space; remove it", label)
	}
}

// labelKey is what tells labels apart: labels differing only by spaces
// ("DMDA R" and "DMDAR") would read as one in tables and figures.
func labelKey(label string) string { return strings.Join(strings.Fields(label), "") }

// Describe asks the external programs of the suite's schedulers (those of
// labels, or every one when none is given) for their parameters and checks
// the blocks' parameters against them: a sweep calls it when runs are
// about to start. Parsing a suite starts no program. A program changed
// since the suite was read is an error: its runs' keys hold the old hash.
func (s *Suite) Describe(labels ...string) error {
	var errs Errors
	for i := range s.Schedulers {
		sc := &s.Schedulers[i]
		if !sc.Deferred || len(labels) > 0 && !slices.Contains(labels, sc.Label) {
			continue
		}
		fail := func(format string, a ...any) {
			errs = append(errs, &Error{s.File, sc.Line, fmt.Sprintf("[[scheduler]] %q: ", sc.Label) + fmt.Sprintf(format, a...)})
		}
		spec, err := schedulers.LookupWith(sc.Name, sc.Raw)
		if err != nil {
			fail("%v", err)
			continue
		}
		if spec.Code.Key() != sc.Code.Key() {
			fail("%s changed since the suite was read (SHA-256 %s, now %s); run the command again", sc.Name, sc.Code.SHA256, spec.Code.SHA256)
			continue
		}
		params, err := spec.Resolve(sc.Raw)
		if err != nil {
			fail("%v", err)
			continue
		}
		sc.Params, sc.Version, sc.Deferred = params, spec.Version, false
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// rawParams reads a [[scheduler]] block's parameters: every key but skip,
// each a single scalar, and the keys in sorted order.
func (t *tbl) rawParams(skip ...string) (map[string]string, []string) {
	raw := map[string]string{}
	keys := make([]string, 0, len(t.m))
	for k := range t.m {
		if !slices.Contains(skip, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var ok []string
	for _, k := range keys {
		v, isScalar := scalarString(t.m[k])
		t.used[k] = true
		if !isScalar {
			t.errf(k, "parameter %s = %v: use a single string, number or boolean", k, t.m[k])
			continue
		}
		raw[k] = v
		ok = append(ok, k)
	}
	return raw, ok
}

// labelTaken reports (and says) that [[scheduler]] #j already uses sc's
// label.
func (s *Suite) labelTaken(t *tbl, sc Scheduler, j int) bool {
	o := s.Schedulers[j]
	switch {
	case o.Label == sc.Label:
		t.errf("label", "label %q is already used by [[scheduler]] #%d (line %d); give each [[scheduler]] a distinct label", sc.Label, j+1, o.Line)
	case labelKey(o.Label) == labelKey(sc.Label):
		t.errf("label", "label %q differs only by spaces from %q of [[scheduler]] #%d (line %d); give each [[scheduler]] a distinct label", sc.Label, o.Label, j+1, o.Line)
	default:
		return false
	}
	return true
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return fmt.Sprint(x), true
	case int64:
		return fmt.Sprint(x), true
	case float64:
		return fmt.Sprint(x), true
	}
	return "", false
}

func (s *Suite) parseReport(t *tbl) {
	r := &s.Report
	r.Metric = "gflops"
	r.X = "working_set"
	r.Lines = append([]string(nil), LineNames...)
	r.ReferenceCSV = "paper/reference/gonthier-raw-results.csv"
	r.Style = "curves"
	if t == nil {
		if len(s.Schedulers) > 0 {
			r.Baseline = s.Schedulers[0].Label
		}
		return
	}
	r.Baseline = t.str("baseline", "")
	labels := s.Labels()
	if r.Baseline == "" && len(labels) > 0 {
		r.Baseline = labels[0]
	} else if r.Baseline != "" && !slices.Contains(labels, r.Baseline) {
		t.errf("baseline", "baseline %q is not a scheduler label of this suite%s; labels: %s", r.Baseline, schedulers.Suggest(r.Baseline, labels), strings.Join(labels, ", "))
	}
	r.Metric = NormaliseMetric(t.str("metric", "gflops"))
	if !slices.Contains(Metrics, r.Metric) {
		t.errf("metric", "unknown metric %q%s; use one of %s", r.Metric, schedulers.Suggest(r.Metric, Metrics), strings.Join(Metrics, ", "))
	}
	r.X = t.str("x", "working_set")
	if r.X != "working_set" && r.X != "memory" {
		t.errf("x", "x = %q; use \"working_set\" (sweeps over N) or \"memory\" (sweeps over memory)", r.X)
	}
	if t.has("lines") {
		r.Lines = t.strings("lines")
		for _, l := range r.Lines {
			if !slices.Contains(LineNames, l) {
				t.errf("lines", "unknown line %q%s; use some of %s", l, schedulers.Suggest(l, LineNames), strings.Join(LineNames, ", "))
			}
		}
	}
	r.ReferenceCSV = t.str("reference_csv", r.ReferenceCSV)
	r.Peer = t.str("peer", "")
	if r.Peer != "" && !strings.HasSuffix(r.Peer, ".jsonl") {
		t.errf("peer", "peer = %q: a results file (.jsonl) of this suite swept with --executor starpu", r.Peer)
	}
	r.Style = t.str("style", "curves")
	if !slices.Contains(Styles, r.Style) {
		t.errf("style", "unknown style %q%s; use one of %s", r.Style, schedulers.Suggest(r.Style, Styles), strings.Join(Styles, ", "))
	}
	for i, rt := range t.array("reference") {
		ref := Reference{Figure: rt.str("figure", ""), Labels: map[string]string{}, Line: t.p.loc.line(rt.path, "figure"), LabelsLine: t.p.loc.line(rt.path, "labels")}
		if ref.Figure == "" {
			rt.errf("figure", "[[report.reference]] #%d has no figure; give the series id of the reference CSV, e.g. figure = \"ipdps22/2d_1gpu/paper\"", i+1)
		}
		// Without labels, reference scheduler names are the suite labels.
		if lt := rt.sub("labels", false); lt != nil {
			for k, v := range lt.m {
				lt.used[k] = true
				sv, ok := v.(string)
				if !ok {
					rt.errf("labels", "labels.%s: map a reference scheduler to a suite label (a string)", k)
					continue
				}
				if !slices.Contains(labels, sv) {
					rt.errf("labels", "labels: %q -> %q is not a scheduler label of this suite%s; labels: %s", k, sv, schedulers.Suggest(sv, labels), strings.Join(labels, ", "))
				}
				ref.Labels[k] = sv
			}
		}
		rt.unknown("figure", "labels")
		r.References = append(r.References, ref)
	}
	t.unknown("baseline", "metric", "x", "lines", "reference_csv", "reference", "style", "peer")
}

// NormaliseMetric maps the claims files' names to the report's.
func NormaliseMetric(m string) string {
	switch m {
	case "transfers_mb", "transfers":
		return "transfers_mib"
	case "sched_time", "sched_wall_s":
		return "sched_time_s"
	case "makespan":
		return "makespan_s"
	}
	return m
}
