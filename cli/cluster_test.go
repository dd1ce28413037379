package cli

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const tinySuite = `[suite]
name = "tiny"
[platform]
memory_mb = 100
[workload]
kind = "matmul2d"
n = [3, 4]
[[scheduler]]
name = "eager"
`

func TestShardAndMergeFromTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	s, out := filepath.Join(dir, "s.toml"), filepath.Join(dir, "r.jsonl")
	os.WriteFile(s, []byte(tinySuite), 0o644)
	for i := range 2 {
		if code, _, errs := cli("sweep", s, "-o", out, "-q", "--shard", []string{"0/2", "1/2"}[i]); code != 0 {
			t.Fatalf("shard %d: %s", i, errs)
		}
	}
	code, _, errs := cli("merge", out)
	if code != 0 || !strings.Contains(errs, "merged 2 new records from 2 shard files") {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	if code, _, errs := cli("sweep", s, "-o", out, "-q"); code != 0 || !strings.Contains(errs, "0 done, 2 already present") {
		t.Errorf("sweep after the merge: exit %d: %s", code, errs)
	}
}

func TestSlurmDryRunWritesTheScript(t *testing.T) {
	dir := t.TempDir()
	s, out := filepath.Join(dir, "s.toml"), filepath.Join(dir, "r.jsonl")
	os.WriteFile(s, []byte(tinySuite), 0o644)
	code, _, errs := cli("sweep", s, "-o", out, "--slurm", "--shards", "4", "--sbatch", "--partition=gpu --time=1:00:00", "--dry-run")
	if code != 0 || !strings.Contains(errs, "not submitted") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	script, err := os.ReadFile(filepath.Join(dir, "r.shards", "job.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --partition=gpu", "#SBATCH --time=1:00:00", "--shard \"$SLURM_ARRAY_TASK_ID/4\"", " -o " + out} {
		if !strings.Contains(string(script), want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
}

func TestClusterFlagMistakes(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s.toml")
	os.WriteFile(s, []byte(tinySuite), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", s, "--shard", "2/2"}, "want i/n with 0 <= i < n"},
		{[]string{"sweep", s, "--shard", "0/2", "--slurm"}, "--slurm submits every shard"},
		{[]string{"sweep", s, "--shard", "0/2", "--fresh"}, "would delete the other shards"},
		{[]string{"merge", filepath.Join(dir, "none.jsonl")}, "no shard files in"},
	} {
		code, _, errs := cli(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want it to say %q", c.args, code, errs, c.want)
		}
	}
}

func TestProfilesAreWritten(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	if code, _, errs := cli("run", "--n", "20", "--scheduler", "dmdar", "--cpuprofile", cpu, "--memprofile", mem); code != 0 {
		t.Fatal(errs)
	}
	s := filepath.Join(dir, "s.toml")
	os.WriteFile(s, []byte(tinySuite), 0o644)
	scpu := filepath.Join(dir, "sweep-cpu.prof")
	if code, _, errs := cli("sweep", s, "-o", filepath.Join(dir, "r.jsonl"), "-q", "--cpuprofile", scpu); code != 0 {
		t.Fatal(errs)
	}
	for _, f := range []string{cpu, mem, scpu} {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof: gzipped protobuf
			t.Errorf("%s is not a pprof profile (%v)", f, err)
		}
	}
}

// The reproduction report builds its suites and figures in parallel: the
// same document and figures whatever the parallelism, and a broken suite
// is reported and skipped.
func TestReproductionReportIsTheSameInParallel(t *testing.T) {
	dir := t.TempDir()
	suites, claims := filepath.Join(dir, "suites"), filepath.Join(dir, "claims")
	os.MkdirAll(suites, 0o755)
	os.MkdirAll(claims, 0o755)
	os.WriteFile(filepath.Join(claims, "c.toml"), []byte(`[[claim]]
id          = "t-ready"
publication = "thesis2023"
where       = "Sec. 3.3.8"
statement   = "a claim"
workload    = "matmul2d"
gpus        = 1
setting     = "real"
metric      = "order"
kind        = "qualitative"
scheduler   = "EAGER"
suite       = ""
status      = "not-yet"
missing     = "a test"
`), 0o644)
	var results []string
	for i, name := range []string{"a", "b", "c"} {
		s := filepath.Join(suites, name+".toml")
		text := strings.Replace(tinySuite, `"tiny"`, `"tiny-`+name+`"`, 1)
		text = strings.Replace(text, "n = [3, 4]", fmt.Sprintf("n = [%d, %d]", 3+2*i, 4+2*i), 1)
		os.WriteFile(s, []byte(text), 0o644)
		r := filepath.Join(dir, name+".jsonl")
		if code, _, errs := cli("sweep", s, "-o", r, "-q"); code != 0 {
			t.Fatal(errs)
		}
		results = append(results, r)
	}
	os.WriteFile(filepath.Join(suites, "broken.toml"), []byte("[suite]\nnmae = 1\n"), 0o644)
	report := func(procs int) (string, map[string]string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out, figs := filepath.Join(dir, "R.md"), filepath.Join(dir, "fig")
		os.RemoveAll(figs)
		args := append([]string{"report", "--reproduction", out, "--claims", claims, "--suites", suites, "--figures", figs}, results...)
		code, _, errs := cli(args...)
		if code != 0 || !strings.Contains(errs, "skipping suite "+filepath.Join(suites, "broken.toml")) {
			t.Fatalf("exit %d: %s", code, errs)
		}
		md, _ := os.ReadFile(out)
		files := map[string]string{}
		filepath.WalkDir(figs, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				files[strings.TrimPrefix(path, figs)] = string(b)
			}
			return nil
		})
		return string(md), files
	}
	md1, figs1 := report(1)
	md4, figs4 := report(4)
	for _, name := range []string{"tiny-a", "tiny-b", "tiny-c"} {
		if !strings.Contains(md4, name) {
			t.Errorf("the report lacks suite %s", name)
		}
	}
	if md1 != md4 {
		t.Errorf("the report differs with 4 goroutines:\n%s\n---\n%s", md1, md4)
	}
	if len(figs4) < 6 || !maps.Equal(figs1, figs4) {
		t.Errorf("figures differ with 4 goroutines: %d files against %d", len(figs4), len(figs1))
	}
}
