package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/suite"
)

func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := mainArgs(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunPrintsARecordAndTheTraceValidates(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	code, out, errs := cli("run", "--n", "12", "--gpus", "2", "--memory-mb", "200", "--scheduler", "darts", "--param", "eviction=luf", "--trace", tr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"makespan_s", "gflops", "bytes_h2d", "bytes_d2d", "loads", "prefetches", "fetches", "evictions", "tasks", "sched_wall_s", "sim_wall_s", "scheduler", "params", "seed", "platform",
		"schema", "model_version", "scheduler_version", "platform_hash", "provenance"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %q", k)
		}
	}
	prov, _ := rec["provenance"].(map[string]any)
	if sha, _ := prov["git_sha"].(string); sha == "" || prov["dirty"] == nil {
		t.Errorf("provenance lacks the commit: %v", prov)
	}
	data, _ := os.ReadFile(tr)
	var hdr map[string]any
	json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &hdr)
	for _, k := range []string{"schema", "model_version", "scheduler", "scheduler_version", "params", "provenance", "platform", "workload", "seed"} {
		if _, ok := hdr[k]; !ok {
			t.Errorf("trace header lacks %q", k)
		}
	}
	if code, out, errs := cli("validate", tr); code != 0 || !strings.Contains(out, "valid") {
		t.Fatalf("validate: exit %d: %s %s", code, out, errs)
	}
}

func TestBadInputsSayWhatIsWrong(t *testing.T) {
	wf := filepath.Join(t.TempDir(), "w.json")
	os.WriteFile(wf, []byte(`{"data":[{"id":0,"bytes":4}],"tasks":[{"id":0,"kernel":"gemm","flops":1,"inputs":[3],"deps":[]}]}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scheduler", "dmdr"}, `did you mean "dmda"`},
		{[]string{"run", "--scheduler", "darts", "--param", "evicton=luf"}, `did you mean "eviction"`},
		{[]string{"run", "--scheduler", "darts", "--param", "eviction=lfu"}, "luf"},
		{[]string{"run", "--memory-mb", "10"}, "smaller than one task's inputs"},
		{[]string{"run", "--workload", "matmul2"}, "matmul2d"},
		{[]string{"run", "--workload-file", wf}, "3"},
		{[]string{"run", "--gpus", "9"}, "8 GPUs"},
		{[]string{"rn"}, `did you mean "run"`},
		{[]string{"run", "--schduler", "dmdar"}, `unknown flag --schduler; did you mean "scheduler"?`},
		{[]string{"validate", wf}, "trace"},
	}
	for _, c := range cases {
		code, _, errs := cli(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want it to mention %q", c.args, code, errs, c.want)
		}
	}
}

func TestSchedulersListsParameters(t *testing.T) {
	_, out, _ := cli("schedulers")
	for _, s := range []string{"eager", "dmdar", "darts", "hfp", "mhfp", "mst", "rcm", "--param flip=<bool>", "--param eviction=<string> {luf|lru}"} {
		if !strings.Contains(out, s) {
			t.Errorf("memsched schedulers does not show %q", s)
		}
	}
}

func TestOptimumTable(t *testing.T) {
	code, out, errs := cli("optimum", "--workload", "randompairs", "--n", "3", "--memory-data", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"optimal", "| MST |", "| HFP+flip |", "gap"} {
		if !strings.Contains(out, s) {
			t.Errorf("optimum output lacks %q:\n%s", s, out)
		}
	}
	if code, _, errs := cli("optimum", "--n", "5", "--memory-data", "3"); code == 0 || !strings.Contains(errs, "12") {
		t.Errorf("25 tasks accepted or unclear error: %s", errs)
	}
}

// Memory 0 has one meaning on the command line and in suites: no cap, the
// GPU's whole memory; a run and a suite point with it have the same platform.
func TestMemoryZeroIsTheWholeMemoryEverywhere(t *testing.T) {
	code, out, errs := cli("run", "--n", "4", "--memory-mb", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec struct {
		MemoryBytes int64  `json:"memory_bytes"`
		Hash        string `json:"platform_hash"`
	}
	json.Unmarshal([]byte(out), &rec)
	if rec.MemoryBytes != 32768<<20 {
		t.Errorf("--memory-mb 0: %d bytes per GPU, want the V100's 32 GiB", rec.MemoryBytes)
	}
	s, err := suite.Parse("s.toml", []byte("[suite]\nname = \"m\"\n[platform]\nmemory_mb = 0\n[workload]\nkind = \"matmul2d\"\nn = 4\n[[scheduler]]\nname = \"eager\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Runs()[0].Record(); r.MemoryBytes != rec.MemoryBytes || r.PlatformSHA != rec.Hash {
		t.Errorf("suite memory_mb = 0: %d bytes, hash %s; the CLI: %d bytes, hash %s", r.MemoryBytes, r.PlatformSHA, rec.MemoryBytes, rec.Hash)
	}
}

// TestCalibrateFromStarPU imports the synthetic StarPU files of
// hardware/testdata/starpu: the preset is written whole (no temporary file
// left), loads, and carries the imported numbers.
func TestCalibrateFromStarPU(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "synth.toml")
	code, stdout, errs := cli("calibrate", "--from-starpu", "../hardware/testdata/starpu", "--host", "synth2", "--name", "synth", "--memory-mb", "250", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if stdout != "" || !strings.Contains(errs, "wrote "+out) || !strings.Contains(errs, "gemm    13878.2 GFlop/s") {
		t.Errorf("stdout %q, stderr %q; want the summary and the file on stderr only", stdout, errs)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files in the output directory: %v; want synth.toml only", ents)
	}
	p, err := hardware.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "synth" || p.MemoryMiB != 250 || p.MaxGPUs != 2 || p.Topology.GPULinkGBps != 11 || !p.Topology.NVLink {
		t.Errorf("loaded %s: memory %g, %d GPUs, gpu link %g, nvlink %v; want synth, 250, 2, 11, true", p.Name, p.MemoryMiB, p.MaxGPUs, p.Topology.GPULinkGBps, p.Topology.NVLink)
	}
	// To stdout without -o: the same preset.
	code, stdout, _ = cli("calibrate", "--from-starpu", "../hardware/testdata/starpu", "--host", "synth2", "--name", "synth", "--memory-mb", "250")
	if b, _ := os.ReadFile(out); code != 0 || stdout != string(b) {
		t.Errorf("exit %d; stdout differs from the file written with -o", code)
	}
}

// A suite's report reads the claims files beside its own: the thesis'
// claims restate the other papers' (report --suite on a thesis suite).
func TestReportOfAThesisSuite(t *testing.T) {
	dir := t.TempDir()
	r := filepath.Join(dir, "toy.jsonl")
	if code, _, errs := cli("sweep", "../suites/thesis/toy.toml", "-o", r, "-q"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := cli("report", r, "--suite", "../suites/thesis/toy.toml")
	if code != 0 || !strings.Contains(out, "thesis-f3.4-loads-with-flip") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
}

// run --trace converts by the file's extension, as trace export does.
func TestRunTraceConvertsByExtension(t *testing.T) {
	dir := t.TempDir()
	for ext, want := range map[string]string{".paje": "%EventDef PajeDefineContainerType", ".json": `{"traceEvents":[`, ".jsonl": `{"ev":"run"`} {
		path := filepath.Join(dir, "t"+ext)
		if code, _, errs := cli("run", "--n", "4", "--gpus", "2", "--trace", path); code != 0 {
			t.Fatalf("%s: %s", ext, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(b), want) {
			t.Errorf("%s starts %.40q, want %q (%v)", ext, b, want, err)
		}
	}
}
