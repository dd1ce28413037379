package golden

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/intree"
	"github.com/memsched/memsched/workloads"
)

var update = flag.Bool("update", false, "rewrite the golden files (refused for a version whose outputs are recorded in testdata/versions.txt)")

// config is one golden run: a scheduler with parameters on a workload, a
// number of GPUs and a memory cap per GPU, seed 1.
type config struct {
	name      string
	scheduler string
	params    map[string]string
	gpus      int
	memMiB    float64
	spec      workloads.Spec
	nvlink    bool
}

// Tile sizes are the papers' (960, z = 3840), so memory caps are in the
// papers' range: a 2D input is 14.06 MiB, a 3D or Cholesky tile 3.52 MiB.
var (
	mm2d   = workloads.Spec{Kind: "matmul2d", N: 5}
	random = workloads.Spec{Kind: "matmul2d", N: 5, Order: "random"}
	sparse = workloads.Spec{Kind: "sparse2d", N: 6, Keep: 0.5}
	pairs  = workloads.Spec{Kind: "randompairs", N: 5}
	mm3d   = workloads.Spec{Kind: "matmul3d", N: 3}
	mm3dD  = workloads.Spec{Kind: "matmul3d", N: 3, Deps: true}
	chol   = workloads.Spec{Kind: "cholesky", N: 4}
	cholD  = workloads.Spec{Kind: "cholesky", N: 4, Deps: true}
	lu     = workloads.Spec{Kind: "lu", N: 4}
	luD    = workloads.Spec{Kind: "lu", N: 4, Deps: true}
)

var configs = []config{
	{"eager-2d-1gpu", "eager", nil, 1, 50, mm2d, false},
	{"eager-2d-2gpu-nvlink", "eager", nil, 2, 50, mm2d, true},
	{"eager-3d-deps-4gpu", "eager", nil, 4, 12, mm3dD, false},
	{"eager-cholesky-deps-2gpu", "eager", nil, 2, 12, cholD, false},
	{"dmda-2d-2gpu", "dmda", nil, 2, 50, mm2d, false},
	{"dmda-lu-deps-4gpu", "dmda", nil, 4, 12, luD, false},
	{"dmdar-2d-1gpu", "dmdar", nil, 1, 50, mm2d, false},
	{"dmdar-3d-2gpu", "dmdar", nil, 2, 12, mm3d, false},
	{"dmdar-sparse-4gpu", "dmdar", nil, 4, 50, sparse, false},
	{"dmdar-cholesky-4gpu-window", "dmdar", map[string]string{"window": "4"}, 4, 12, chol, false},
	{"mst-2d-1gpu", "mst", nil, 1, 50, mm2d, false},
	{"mst-randompairs-1gpu", "mst", map[string]string{"ready": "true"}, 1, 50, pairs, false},
	{"rcm-2d-random-1gpu", "rcm", nil, 1, 50, random, false},
	{"rcm-3d-1gpu", "rcm", nil, 1, 12, mm3d, false},
	{"cm-sparse-1gpu", "cm", nil, 1, 50, sparse, false},
	{"hfp-2d-1gpu-papers", "hfp", map[string]string{"flip": "true", "ready": "true", "belady": "true"}, 1, 50, mm2d, false},
	{"hfp-3d-1gpu", "hfp", nil, 1, 12, mm3d, false},
	{"hfp-2d-random-1gpu-fast", "hfp", map[string]string{"fast_start": "true"}, 1, 50, random, false},
	{"mhfp-2d-2gpu", "mhfp", nil, 2, 50, mm2d, false},
	{"mhfp-cholesky-4gpu", "mhfp", nil, 4, 12, chol, false},
	{"mhfp-lu-1gpu-nosteal", "mhfp", map[string]string{"steal": "false", "balance": "false"}, 1, 12, lu, false},
	{"hmetis-2d-2gpu", "hmetis+r", map[string]string{"partitioner": "builtin"}, 2, 50, mm2d, false},
	{"hmetis-sparse-4gpu", "hmetis+r", map[string]string{"partitioner": "builtin", "runs": "4"}, 4, 50, sparse, false},
	{"hmetis-3d-1gpu", "hmetis+r", map[string]string{"partitioner": "builtin"}, 1, 12, mm3d, false},
	{"darts-2d-1gpu", "darts", nil, 1, 50, mm2d, false},
	{"darts-2d-2gpu-lru", "darts", map[string]string{"eviction": "lru"}, 2, 50, mm2d, false},
	{"darts-3d-4gpu-3inputs", "darts", map[string]string{"3inputs": "true"}, 4, 12, mm3d, false},
	{"darts-cholesky-2gpu-opti", "darts", map[string]string{"opti": "true"}, 2, 12, chol, false},
	{"darts-randompairs-4gpu", "darts", map[string]string{"threshold": "2", "threshold_min_tasks": "0", "order": "natural", "fallback": "rank"}, 4, 50, pairs, false},
	{"darts-lu-deps-2gpu", "darts", map[string]string{"free_tasks": "false"}, 2, 12, luD, false},
	// The papers' toy orders run as listed (mm2d N = 5 in the corpus: a
	// column-by-column order on two GPUs, Belady over it).
	{"given-order-2d-2gpu-belady", "given-order", map[string]string{"order": "0 5 10 15 20 1 6 11 16 21 2 7 12 | 17 22 3 8 13 18 23 4 9 14 19 24", "belady": "true"}, 2, 50, mm2d, false},
	// The data model: CPU workers, out of core, scratch outputs, coherence
	// over NVLink, duration noise (their platforms are set in setups).
	{"eager-cholesky-deps-1gpu-4cpus", "eager", nil, 1, 12, cholD, false},
	{"dmda-lu-deps-ooc-4cpus", "dmda", nil, 0, 12, luD, false},
	{"darts-2d-random-writec-2gpu", "darts", nil, 2, 50, workloads.Spec{Kind: "matmul2d", N: 5, Order: "random", WriteC: true}, false},
	{"dmdar-2d-random-writec-2gpu", "dmdar", nil, 2, 100, workloads.Spec{Kind: "matmul2d", N: 8, Order: "random", WriteC: true}, false}, // a GPU pops again after an allocation (model 6)
	{"dmdar-cholesky-deps-4gpu-nvlink", "dmdar", nil, 4, 12, cholD, true},
	{"eager-2d-2gpu-noise", "eager", nil, 2, 50, mm2d, false},
	// Thesis chapter 5's schedulers on task graphs (the gemini mesh, out of core).
	{"dmdas-cholesky-deps-4gpu-mesh", "dmdas", nil, 4, 12, cholD, true},
	{"lws-cholesky-deps-4gpu-mesh", "lws", nil, 4, 12, cholD, true},
	{"ap-lu-deps-2gpu", "ap", nil, 2, 12, luD, false},
	{"darts-dag-cholesky-deps-4gpu-mesh", "darts-dag", nil, 4, 12, cholD, true},
	{"darts-dag-lu-deps-ooc-4cpus", "darts-dag", nil, 0, 12, luD, false},
	{"lws-lu-deps-ooc-4cpus", "lws", nil, 0, 12, luD, false},
	// CPU+GPU schedulers and the seeds' applications (presets below).
	{"heteroprio-tree-2gpu-4cpus", "heteroprio", nil, 2, 0, workloads.Spec{Kind: "tree", N: 2}, false},
	{"multreeprio-fmm-2gpu-4cpus", "multreeprio", nil, 2, 0, workloads.Spec{Kind: "fmm", N: 3}, false},
	{"multreeprio+cp-cholesky-deps-2gpu-4cpus", "multreeprio+cp", nil, 2, 0, cholD, false},
	{"critical-path-tree-2gpu-4cpus", "critical-path", nil, 2, 0, workloads.Spec{Kind: "tree", N: 2}, false},
	{"laheteroprio-stencil-2gpu-k40", "laheteroprio", nil, 2, 0, workloads.Spec{Kind: "stencil", N: 1}, false},
	{"laheteroprio-spldlt-1gpu-p100", "laheteroprio", map[string]string{"dlaf": "auto"}, 1, 0, workloads.Spec{Kind: "spldlt", N: 2}, false},
	{"heteroprio-qrmumps-2gpu-k40", "heteroprio", nil, 2, 0, workloads.Spec{Kind: "qrmumps", N: 1, Opts: "root_cols=4"}, false},
	// StarPU's SimGrid hosts (imported presets): each GPU timed by its own
	// history entry, which DMDA's predictions read too.
	{"dmda-2d-2gpu-gemini2", "dmda", nil, 2, 50, mm2d, false},
	{"eager-3d-4gpu-gemini1", "eager", nil, 4, 12, mm3d, false},
}

// presets name the platform of configurations run elsewhere than on the
// V100 node (v100-gemini).
var presets = map[string]string{
	"dmdas-cholesky-deps-4gpu-mesh":           "v100-gemini-1920",
	"lws-cholesky-deps-4gpu-mesh":             "v100-gemini-1920",
	"darts-dag-cholesky-deps-4gpu-mesh":       "v100-gemini-1920",
	"darts-dag-lu-deps-ooc-4cpus":             "epyc7642-ooc",
	"lws-lu-deps-ooc-4cpus":                   "epyc7642-ooc",
	"heteroprio-tree-2gpu-4cpus":              "compas2022-tc1",
	"multreeprio-fmm-2gpu-4cpus":              "compas2022-tc2",
	"multreeprio+cp-cholesky-deps-2gpu-4cpus": "compas2022-tc1",
	"critical-path-tree-2gpu-4cpus":           "compas2022-tc2-swapped",
	"laheteroprio-stencil-2gpu-k40":           "plafrim-k40",
	"laheteroprio-spldlt-1gpu-p100":           "plafrim-p100",
	"heteroprio-qrmumps-2gpu-k40":             "plafrim-k40",
	"dmda-2d-2gpu-gemini2":                    "gemini-2-ipdps",
	"eager-3d-4gpu-gemini1":                   "gemini-1-fgcs",
}

// setups change the platform of the configurations that need more than a
// GPU count, a memory cap and NVLink. CPU rates are test values (a core
// 30x slower than a GPU), not a preset's.
var setups = map[string]func(p *hardware.Platform){
	"eager-cholesky-deps-1gpu-4cpus": func(p *hardware.Platform) { p.CPUs, p.MaxCPUs = 4, 4; withCPURates(p) },
	"dmda-lu-deps-ooc-4cpus": func(p *hardware.Platform) {
		p.Home, p.CPUs, p.MaxCPUs, p.Topology.DiskGBps = hardware.HomeDisk, 4, 4, 0.25
		withCPURates(p)
	},
	"eager-2d-2gpu-noise":                     func(p *hardware.Platform) { p.Runtime.DurationCV = 0.1 },
	"darts-dag-lu-deps-ooc-4cpus":             func(p *hardware.Platform) { p.CPUs = 4 },
	"lws-lu-deps-ooc-4cpus":                   func(p *hardware.Platform) { p.CPUs = 4 },
	"heteroprio-tree-2gpu-4cpus":              func(p *hardware.Platform) { p.CPUs = 4 },
	"multreeprio-fmm-2gpu-4cpus":              func(p *hardware.Platform) { p.CPUs = 4 },
	"multreeprio+cp-cholesky-deps-2gpu-4cpus": func(p *hardware.Platform) { p.CPUs = 4 },
	"critical-path-tree-2gpu-4cpus":           func(p *hardware.Platform) { p.CPUs = 4 },
	"laheteroprio-stencil-2gpu-k40":           func(p *hardware.Platform) { p.CPUs = 22 },
	"laheteroprio-spldlt-1gpu-p100":           func(p *hardware.Platform) { p.CPUs = 23 },
	"heteroprio-qrmumps-2gpu-k40":             func(p *hardware.Platform) { p.CPUs = 22 },
}

func withCPURates(p *hardware.Platform) {
	for name, k := range p.Kernels {
		k.CPU = &hardware.Rate{GFlops: k.GFlops / 30, Seconds: k.Seconds * 30} // a kernel given in seconds (fitted potrf) too
		p.Kernels[name] = k
	}
}

// output runs a configuration and returns its golden record and trace.
func (c config) output(t *testing.T) (record, tr []byte) {
	spec := c.spec
	spec.Seed = 1
	w, err := workloads.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	preset := "v100-gemini"
	if name, ok := presets[c.name]; ok {
		preset = name
	}
	p, err := hardware.Load(preset)
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = c.gpus
	p.Topology.NVLink = c.nvlink
	if c.spec.Kind == "lu" {
		// The preset has no getrf timing (no published one); this regression
		// test borrows potrf's, the other one-tile factorisation.
		p.Kernels["getrf"] = p.Kernels["potrf"]
	}
	if setup := setups[c.name]; setup != nil {
		setup(p)
	}
	if err := p.SetMemoryCap(c.memMiB); err != nil {
		t.Fatal(err)
	}
	sp, err := schedulers.Lookup(c.scheduler)
	if err != nil {
		t.Fatal(err)
	}
	params, err := sp.Resolve(c.params)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw, err := trace.NewWriter(&buf, trace.Header{Scheduler: sp.Name, SchedulerVersion: sp.Version, Params: params,
		Platform: p, Workload: &spec, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: c.scheduler, Params: c.params, Seed: 1, Trace: tw.Event})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	rec.SchedWallS, rec.SimWallS, rec.Provenance = 0, 0, run.Provenance{}
	if err := tw.Result(rec); err != nil {
		t.Fatal(err)
	}
	// Every golden trace is a valid schedule.
	if tr, err := trace.Read(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	} else if bad := trace.Validate(tr, w); len(bad) > 0 {
		t.Fatalf("%s: invalid schedule: %v", c.name, bad)
	}
	record, err = json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(record, '\n'), zeroHeaderProvenance(t, buf.Bytes())
}

// zeroHeaderProvenance blanks the trace header's provenance (commit, host,
// Go and release versions), which varies legitimately.
func zeroHeaderProvenance(t *testing.T, tr []byte) []byte {
	first, rest, _ := bytes.Cut(tr, []byte("\n"))
	var h trace.Header
	if err := json.Unmarshal(first, &h); err != nil {
		t.Fatal(err)
	}
	h.Provenance = run.Provenance{}
	var out bytes.Buffer
	json.NewEncoder(&out).Encode(h)
	out.Write(rest)
	return out.Bytes()
}

// golden is a configuration of the corpus: a GPU run (config) or a batch
// run of thesis chapter 6 (batchConfig).
type golden interface {
	id() string
	output(t *testing.T) (record, trace []byte)
	version(t *testing.T) string
}

func corpus() []golden {
	var out []golden
	for _, c := range configs {
		out = append(out, c)
	}
	for _, c := range batchConfigs {
		out = append(out, c)
	}
	return out
}

func (c config) id() string { return c.name }

// version is what a configuration's outputs are recorded under.
func (c config) version(t *testing.T) string {
	sp, err := schedulers.Lookup(c.scheduler)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("schema=%d model=%d %s=v%d", run.Schema, sim.ModelVersion, sp.Name, sp.Version)
}

func digest(record, tr []byte) string {
	h := sha256.New()
	h.Write(record)
	h.Write(tr)
	return hex.EncodeToString(h.Sum(nil))
}

const manifestPath = "testdata/versions.txt"

const manifestHead = `# Golden outputs per code version, append-only (see doc.go): each line is
# <version> <configuration> <sha256 of its record and trace>, where the version
# is the record schema, the simulator model and the scheduler's version.
# go test ./harness/golden -update appends the lines of new versions and
# configurations, and refuses to change a line: outputs that change need a bump.
`

// manifest reads testdata/versions.txt: "version configuration" -> hash.
func manifest(t *testing.T) (map[string]string, []string) {
	data, err := os.ReadFile(manifestPath)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Fatalf("%s: malformed line %q", manifestPath, line)
		}
		m[strings.Join(f[:4], " ")] = f[4]
		lines = append(lines, line)
	}
	return m, lines
}

func TestGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the golden corpus is recorded on amd64; %s may fuse multiply-adds", runtime.GOARCH)
	}
	recorded, lines := manifest(t)
	type result struct {
		name           string
		record, trace  []byte
		version, entry string
		hash           string
	}
	var results []result
	names := map[string]bool{}
	for _, c := range corpus() {
		if names[c.id()] {
			t.Fatalf("two configurations named %s", c.id())
		}
		names[c.id()] = true
		rec, tr := c.output(t)
		v := c.version(t)
		results = append(results, result{c.id(), rec, tr, v, v + " " + c.id(), digest(rec, tr)})
	}

	if !*update {
		for _, r := range results {
			for _, f := range []struct {
				path string
				got  []byte
			}{{r.name + ".record.json", r.record}, {r.name + ".trace.jsonl", r.trace}} {
				want, err := os.ReadFile(filepath.Join("testdata", f.path))
				if err != nil {
					t.Errorf("%s: %v; run go test ./harness/golden -update", r.name, err)
				} else if !bytes.Equal(f.got, want) {
					t.Errorf("testdata/%s changed (%s): %s. If the change is intended, bump the version of the code that decides (see harness/golden/doc.go) and run go test ./harness/golden -update",
						f.path, r.version, firstDiff(want, f.got))
				}
			}
			if h, ok := recorded[r.entry]; !ok {
				t.Errorf("%s (%s) is not recorded in %s: run go test ./harness/golden -update", r.name, r.version, manifestPath)
			} else if h != r.hash && !t.Failed() {
				t.Errorf("%s: the outputs of %s differ from the hash recorded in %s", r.name, r.version, manifestPath)
			}
		}
		for _, f := range goldenFiles(t) {
			if name := strings.SplitN(f, ".", 2)[0]; !names[name] {
				t.Errorf("testdata/%s belongs to no configuration: run go test ./harness/golden -update to remove it", f)
			}
		}
		return
	}

	// -update: refuse to change the outputs of a recorded version.
	changed := map[string][]string{} // scheduler version -> configurations
	for _, r := range results {
		if h, ok := recorded[r.entry]; ok && h != r.hash {
			changed[r.version] = append(changed[r.version], r.name)
		}
	}
	if len(changed) > 0 {
		var parts, names []string
		for v, cs := range changed {
			parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(cs, ", ")))
			names = append(names, strings.Split(strings.Fields(v)[2], "=")[0])
		}
		sort.Strings(parts)
		sort.Strings(names)
		bump := fmt.Sprintf("Bump the Version in the schedulers.Spec (schedulers/batch.Spec for batch-*) of %s, or batch.ModelVersion if every batch scheduler changed", strings.Join(names, ", "))
		if len(changed) == len(schedulers.List()) {
			bump = "Every scheduler's outputs changed: bump sim.ModelVersion (the engine, the workload generators or the platform model changed), or run.Schema if the record or trace format did"
		}
		t.Fatalf("refusing to update: the outputs of versions already recorded in %s changed: %s. %s, then run go test ./harness/golden -update again",
			manifestPath, strings.Join(parts, "; "), bump)
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range goldenFiles(t) {
		os.Remove(filepath.Join("testdata", f))
	}
	var added []string
	for _, r := range results {
		os.WriteFile(filepath.Join("testdata", r.name+".record.json"), r.record, 0o644)
		os.WriteFile(filepath.Join("testdata", r.name+".trace.jsonl"), r.trace, 0o644)
		if _, ok := recorded[r.entry]; !ok {
			added = append(added, r.entry+" "+r.hash)
		}
	}
	var b strings.Builder
	b.WriteString(manifestHead)
	for _, l := range append(lines, added...) {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(manifestPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d configurations; %d new lines in %s", len(results), len(added), manifestPath)
}

// goldenFiles lists the record and trace files of testdata.
func goldenFiles(t *testing.T) []string {
	ents, err := os.ReadDir("testdata")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".record.json") || strings.HasSuffix(e.Name(), ".trace.jsonl") {
			out = append(out, e.Name())
		}
	}
	return out
}

// firstDiff shows where two outputs first differ, by line.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d was %q, is %q", i+1, clip(w), clip(g))
		}
	}
	return "same lines, different bytes"
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// Every registered scheduler is in the corpus, with 1, 2 and 4 GPUs and
// every workload kind covered.
func TestCorpusCoversEverySchedulerAndWorkload(t *testing.T) {
	sched, gpus, kinds := map[string]bool{}, map[int]bool{}, map[string]bool{}
	for _, c := range configs {
		sched[c.scheduler], gpus[c.gpus], kinds[c.spec.Kind] = true, true, true
	}
	for _, s := range schedulers.List() {
		if !sched[s.Name] {
			t.Errorf("scheduler %s has no golden configuration", s.Name)
		}
	}
	for _, g := range []int{1, 2, 4} {
		if !gpus[g] {
			t.Errorf("no golden configuration on %d GPUs", g)
		}
	}
	for _, k := range workloads.Kinds() {
		if !kinds[k] {
			t.Errorf("workload %s has no golden configuration", k)
		}
	}
}
