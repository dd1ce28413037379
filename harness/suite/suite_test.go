package suite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/memsched/memsched/schedulers/baseline"
)

const good = `[suite]
name = "t"
repetitions = 2
seed = 7

[platform]
preset = "v100-gemini"
gpus = [1, 2]
memory_mb = 500
gpu_link_gbps = 6.0
[platform.kernel.gemm]
gflops = 12557

[workload]
kind = "matmul2d"
n = {from = 5, to = 15, step = 5}

[[scheduler]]
name = "eager"
label = "EAGER"

[[scheduler]]
name = "dmdar"
label = "DMDAR"
window = 4

[report]
baseline = "DMDAR"
`

func parse(t *testing.T, text string) (*Suite, error) {
	t.Helper()
	return Parse("test.toml", []byte(text))
}

func TestParseGood(t *testing.T) {
	s, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Points(); got != 6 { // 2 GPU counts × 3 N
		t.Errorf("points = %d, want 6", got)
	}
	if s.Platform.Base.Topology.GPULinkGBps != 6 || s.Platform.Base.Kernels["gemm"].GFlops != 12557 {
		t.Errorf("overrides not applied: %+v %+v", s.Platform.Base.Topology, s.Platform.Base.Kernels["gemm"])
	}
	sc, _ := s.Label("DMDAR")
	if sc.Params["window"] != "4" || sc.Params["alpha"] == "" {
		t.Errorf("resolved params = %v; want window=4 and defaults filled", sc.Params)
	}
	runs := s.Runs()
	if len(runs) != 6*2*2 {
		t.Fatalf("runs = %d, want 24", len(runs))
	}
	keys := map[string]bool{}
	for _, r := range runs {
		if keys[r.Key] {
			t.Errorf("duplicate key %s", r.Key)
		}
		keys[r.Key] = true
	}
	// The same suite gives the same keys and seeds; another seed other ones.
	s2, _ := parse(t, good)
	s3, _ := parse(t, strings.Replace(good, "seed = 7", "seed = 8", 1))
	for i, r := range s2.Runs() {
		if r.Key != runs[i].Key || r.Seed != runs[i].Seed {
			t.Fatalf("run %d: key/seed differ between two parses", i)
		}
		if s3.Runs()[i].Key == r.Key {
			t.Fatalf("run %d: suite seed does not enter the key", i)
		}
	}
	// Workload seeds are shared by the schedulers of a point and repetition.
	if runs[0].Spec.Seed != runs[1].Spec.Seed || runs[0].Spec.Seed == runs[2].Spec.Seed {
		t.Errorf("workload seeds: %d %d %d; want equal across schedulers, different across repetitions", runs[0].Spec.Seed, runs[1].Spec.Seed, runs[2].Spec.Seed)
	}
}

func TestAxes(t *testing.T) {
	s, err := parse(t, strings.Replace(strings.Replace(good, "gpus = [1, 2]", "gpus = 1", 1),
		"memory_mb = 500", "memory_mb = {from = 50, to = 500, step = 50}", 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Points(); got != 30 {
		t.Errorf("points = %d, want 10 memories × 3 N", got)
	}
	s.Thin(4)
	if got := s.Points(); got != 12 {
		t.Errorf("after Thin(4): %d points, want 4 memories × 3 N", got)
	}
	if got := spread([]string{"a", "b", "c", "d", "e", "f", "g"}, 3); strings.Join(got, "") != "adg" {
		t.Errorf("spread = %v", got)
	}
}

// Every [runtime] setting of the preset can be set in [platform], decoded
// through the preset's struct; a list is an axis whose value is a point
// coordinate and reaches the run's platform.
func TestRuntimeSettings(t *testing.T) {
	text := strings.Replace(strings.Replace(good, "gpus = [1, 2]", "gpus = 1", 1), "gpu_link_gbps = 6.0",
		"gpu_link_gbps = 6.0\nsched_cost = \"model\"\nreclaim_factor = [1, 2]\nbuffer = 4", 1)
	s, err := parse(t, text)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Points(); got != 6 {
		t.Fatalf("points = %d, want 2 reclaim factors × 3 N", got)
	}
	seen := map[float64]bool{}
	for _, r := range s.Runs() {
		rt := r.Platform.Runtime
		if rt.SchedCost != "model" || rt.Buffer != 4 {
			t.Fatalf("runtime %+v: the scalar settings are not applied", rt)
		}
		if c, ok := r.Point["reclaim_factor"]; !ok || toFloat(c) != rt.ReclaimFactor {
			t.Fatalf("point %v: reclaim_factor coordinate does not match the platform's %v", r.Point, rt.ReclaimFactor)
		}
		if _, ok := r.Point["sched_cost"]; ok {
			t.Fatalf("point %v: a scalar setting is not a coordinate", r.Point)
		}
		seen[rt.ReclaimFactor] = true
	}
	if !seen[1] || !seen[2] {
		t.Errorf("reclaim factors run: %v, want 1 and 2", seen)
	}
	s.Thin(1)
	if got := s.Points(); got != 1 {
		t.Errorf("after Thin(1): %d points, want 1", got)
	}
	for _, bad := range []struct{ set, want string }{
		{"reclaim_factor = -1", "reclaim_factor = -1"},
		{`alloc_sync = ["none", "sometimes"]`, `use none, evict or all`},
		{`sched_cost = 3`, "sched_cost"},
		{`reclaim_factor = [1, 1]`, "twice"},
		{`reclaim_facter = 2`, `did you mean "reclaim_factor"`},
	} {
		text := strings.Replace(good, "gpu_link_gbps = 6.0", "gpu_link_gbps = 6.0\n"+bad.set, 1)
		wantErr(t, text, lineOf(text, bad.set), bad.want)
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return -1
}

// wantErr parses text and checks that the error names line and contains
// every fragment.
func wantErr(t *testing.T, text string, line int, frags ...string) {
	t.Helper()
	_, err := parse(t, text)
	if err == nil {
		t.Fatalf("no error; want one at line %d", line)
	}
	msg := err.Error()
	if !strings.Contains(msg, "test.toml:"+strconv.Itoa(line)+": ") {
		t.Errorf("error does not name line %d:\n%s", line, msg)
	}
	for _, f := range frags {
		if !strings.Contains(msg, f) {
			t.Errorf("error lacks %q:\n%s", f, msg)
		}
	}
}

func lineOf(text, frag string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, frag) {
			return i + 1
		}
	}
	return 0
}

func TestRejections(t *testing.T) {
	t.Run("typo key", func(t *testing.T) {
		text := strings.Replace(good, "repetitions = 2", "repetitons = 2", 1)
		wantErr(t, text, lineOf(text, "repetitons"), `unknown key "repetitons"`, `did you mean "repetitions"`)
	})
	t.Run("typo in a scheduler parameter", func(t *testing.T) {
		text := strings.Replace(good, "window = 4", "windw = 4", 1)
		wantErr(t, text, lineOf(text, "windw"), `no parameter "windw"`, `did you mean "window"`)
	})
	t.Run("unknown scheduler", func(t *testing.T) {
		text := strings.Replace(good, `name = "dmdar"`, `name = "dmdr"`, 1)
		wantErr(t, text, lineOf(text, `"dmdr"`), `unknown scheduler "dmdr"`, `did you mean "dmda`)
	})
	t.Run("bad parameter value", func(t *testing.T) {
		text := strings.Replace(good, "window = 4", `window = "four"`, 1)
		wantErr(t, text, lineOf(text, "window"), "window", "int")
	})
	t.Run("memory too small", func(t *testing.T) {
		text := strings.Replace(good, "memory_mb = 500", "memory_mb = 20", 1)
		wantErr(t, text, lineOf(text, "memory_mb"), "smaller than the inputs of one task", "n = 5", "memory_mb >= 28.125")
	})
	t.Run("duplicate label", func(t *testing.T) {
		text := strings.Replace(good, `label = "DMDAR"`, `label = "EAGER"`, 1)
		wantErr(t, text, lineOf(text, `window = 4`)-1, `label "EAGER" is already used`)
	})
	t.Run("same configuration twice", func(t *testing.T) {
		text := good + "\n[[scheduler]]\nname = \"eager\"\nlabel = \"EAGER again\"\n"
		wantErr(t, text, lineOf(text, `label = "EAGER again"`)-2, "same scheduler, parameters")
	})
	t.Run("baseline not a label", func(t *testing.T) {
		text := strings.Replace(good, `baseline = "DMDAR"`, `baseline = "DMDA"`, 1)
		wantErr(t, text, lineOf(text, "baseline"), `baseline "DMDA" is not a scheduler label`, `did you mean "DMDAR"`)
	})
	t.Run("bad range", func(t *testing.T) {
		text := strings.Replace(good, "step = 5}", "stp = 5}", 1)
		wantErr(t, text, lineOf(text, "n = {"), `unknown key "stp"; did you mean "step"`)
	})
	t.Run("too many GPUs", func(t *testing.T) {
		text := strings.Replace(good, "gpus = [1, 2]", "gpus = [1, 16]", 1)
		wantErr(t, text, lineOf(text, "gpus ="), "gpus = 16", "0 to 8 GPUs")
	})
	t.Run("wrong type", func(t *testing.T) {
		text := strings.Replace(good, "repetitions = 2", `repetitions = "2"`, 1)
		wantErr(t, text, lineOf(text, "repetitions"), "repetitions must be an integer")
	})
	t.Run("syntax", func(t *testing.T) {
		text := strings.Replace(good, `kind = "matmul2d"`, `kind = matmul2d`, 1)
		wantErr(t, text, lineOf(text, "kind ="), "fix the TOML syntax")
	})
	t.Run("unknown kernel key", func(t *testing.T) {
		text := strings.Replace(good, "gflops = 12557", "gflop = 12557", 1)
		wantErr(t, text, lineOf(text, "gflop ="), `unknown key "gflop"`, `did you mean "gflops"`)
	})
}

func TestAllErrorsReported(t *testing.T) {
	text := strings.Replace(strings.Replace(good, "repetitions = 2", "repetitons = 2", 1), `name = "dmdar"`, `name = "dmdr"`, 1)
	_, err := parse(t, text)
	es, ok := err.(Errors)
	if !ok || len(es) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
}

func TestRootAndPaths(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "suites", "a"), 0o755)
	p := filepath.Join(dir, "suites", "a", "b.toml")
	os.WriteFile(p, []byte(good), 0o644)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.RelFile() != "suites/a/b.toml" {
		t.Errorf("RelFile = %q", s.RelFile())
	}
}

const heteroGood = `[suite]
name = "h"
[platform]
preset = "compas2022-tc1"
cpus_gpus = [[16, 4], [18, 10], [20, 50]]
[workload]
kind = "fmm"
n = [3, 4]
opts = { group = 16, dim = 2 }
[[scheduler]]
name = "eager"
[report]
metric = "makespan_s"
style = "makespan-bars"
`

// Paired CPU/GPU configurations, application options and a figure style;
// platforms without transfers need no memory cap.
func TestCPUGPUSuite(t *testing.T) {
	s, err := parse(t, heteroGood)
	if err != nil {
		t.Fatal(err)
	}
	if s.Points() != 6 || s.Workload.Opts != "dim=2,group=16" || s.Report.Style != "makespan-bars" {
		t.Fatalf("points %d, opts %q, style %q", s.Points(), s.Workload.Opts, s.Report.Style)
	}
	seen := map[[2]int]bool{}
	for _, r := range s.Runs() {
		seen[[2]int{r.Platform.CPUs, r.Platform.GPUs}] = true
		if r.Point["cpus"] != r.Platform.CPUs || r.Spec.Opts != "dim=2,group=16" {
			t.Fatalf("run %v: platform %d CPUs, spec %+v", r.Point, r.Platform.CPUs, r.Spec)
		}
	}
	if len(seen) != 3 || !seen[[2]int{18, 10}] {
		t.Errorf("configurations %v, want the three pairs", seen)
	}
	s.Thin(2)
	if s.Points() != 4 {
		t.Errorf("thinned to %d points, want 2 pairs × 2 sizes", s.Points())
	}
	for _, c := range []struct{ from, to, want string }{
		{"cpus_gpus = [[16, 4], [18, 10], [20, 50]]", "cpus_gpus = [[16, 4], [18]]", "list of [cpus, gpus] pairs"},
		{"cpus_gpus = [[16, 4], [18, 10], [20, 50]]", "cpus_gpus = [[16, 4]]\ngpus = 2", "gpus is set with cpus_gpus"},
		{"cpus_gpus = [[16, 4], [18, 10], [20, 50]]", "cpus_gpus = [[30, 4]]", "30 CPUs"},
		{"group = 16", "grup = 16", `did you mean "group"`},
		{`style = "makespan-bars"`, `style = "makespan-bar"`, `did you mean "makespan-bars"`},
	} {
		text := strings.Replace(heteroGood, c.from, c.to, 1)
		if _, err := parse(t, text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.to, err, c.want)
		}
	}
}

// A run moved to another platform (a fit's candidate values) is the run
// the suite expands on that platform: the same seed and keys, so a fit
// evaluates what a sweep with the fitted values then runs.
func TestWithPlatformIsTheExpansion(t *testing.T) {
	a, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parse(t, strings.Replace(good, "gpu_link_gbps = 6.0", "gpu_link_gbps = 7.0", 1))
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := a.Runs(), b.Runs()
	for i := range ra {
		if same := ra[i].WithPlatform(ra[i].Platform); same.Seed != ra[i].Seed || same.Key != ra[i].Key {
			t.Fatalf("run %d on its own platform: seed %d key %s, want %d %s", i, same.Seed, same.Key, ra[i].Seed, ra[i].Key)
		}
		moved := ra[i].WithPlatform(rb[i].Platform)
		if moved.Seed != rb[i].Seed || moved.Key != rb[i].Key || moved.ConfigID != rb[i].ConfigID {
			t.Fatalf("run %d moved to the other platform: seed %d key %s, want the expansion's %d %s", i, moved.Seed, moved.Key, rb[i].Seed, rb[i].Key)
		}
		if moved.Seed == ra[i].Seed {
			t.Fatalf("run %d: the seed does not follow the platform", i)
		}
	}
}
