package slurm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memsched/memsched/harness/sweep"
)

func TestRanges(t *testing.T) {
	for in, want := range map[string]string{"": "", "3": "3", "0 1 2 3": "0-3", "9 0 1 2 7 10": "0-2,7,9-10"} {
		var xs []int
		for _, f := range strings.Fields(in) {
			var x int
			json.Unmarshal([]byte(f), &x)
			xs = append(xs, x)
		}
		if got := Ranges(xs); got != want {
			t.Errorf("Ranges(%v) = %q; want %q", xs, got, want)
		}
	}
}

func TestScriptQuotesAndShards(t *testing.T) {
	a := Array{Name: "memsched-x", Workdir: "/w", Logs: "/w/r.shards/logs", Count: 4, Indices: []int{0, 2, 3}, CPUs: 2,
		Command: []string{"/bin/memsched", "sweep", "/w/my suite.toml", "--only", "DARTS+LUF,it's", "--shard", ShardArg},
		Options: []string{"--partition=gpu", "--time=1:00:00"}}
	s, err := a.Script()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0,2-3\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --chdir=/w\n",
		"#SBATCH --output=/w/r.shards/logs/%A_%a.out\n", "#SBATCH --partition=gpu\n#SBATCH --time=1:00:00\n",
		`exec /bin/memsched sweep '/w/my suite.toml' --only 'DARTS+LUF,it'\''s' --shard "$SLURM_ARRAY_TASK_ID/4"` + "\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}

// A value of an #SBATCH line cannot end the line, and one that sbatch
// would read differently is refused; spaces are quoted.
func TestScriptRefusesWhatWouldEscapeItsLine(t *testing.T) {
	base := Array{Name: "memsched-x", Workdir: "/w", Logs: "/w/logs", Count: 1, Indices: []int{0}, Command: []string{"/bin/memsched"}}
	for _, c := range []struct {
		edit func(a *Array)
		want string
	}{
		{func(a *Array) { a.Name = "memsched-x\necho pwned" }, "--job-name"},
		{func(a *Array) { a.Name = "x\rz" }, "--job-name"},
		{func(a *Array) { a.Workdir = "/w\ntouch /tmp/pwned" }, "--chdir"},
		{func(a *Array) { a.Logs = "/w/it's" }, "--output"},
		{func(a *Array) { a.Workdir = "/w/#x" }, "--chdir"},
		{func(a *Array) { a.Options = []string{"--comment=\"x"} }, "sbatch option"},
		{func(a *Array) { a.Options = []string{"--comment=a\x00b"} }, "sbatch option"},
	} {
		a := base
		c.edit(&a)
		if s, err := a.Script(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v; want one naming %s\n%s", a, err, c.want, s)
		}
	}
	a := base
	a.Workdir = "/my work"
	s, err := a.Script()
	if err != nil || !strings.Contains(s, "#SBATCH --chdir=\"/my work\"\n") {
		t.Errorf("a directory with a space: %v\n%s", err, s)
	}
}

// TestSweepOnSlurm runs a suite as a job array on a real single-node Slurm
// (.ci/slurm-single-node starts one when it can), then loses a shard and
// checks that resubmitting reruns only its runs. Both times the merged
// results equal a local sweep's.
func TestSweepOnSlurm(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: the single-node Slurm setup is for Linux")
	}
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	bin := filepath.Join(dir, "memsched")
	var buildErr error
	built := make(chan struct{}) // closed when memsched is built, while Slurm starts
	go func() {
		defer close(built)
		gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if b, err := exec.Command(gotool, "build", "-o", bin, filepath.Join(root, "cmd", "memsched")).CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building memsched: %v\n%s", err, b)
		}
	}()
	t0 := time.Now()
	up := exec.Command(filepath.Join(root, ".ci", "slurm-single-node"), "up")
	out, err := up.CombinedOutput()
	defer func() { <-built }() // no build left running after a skip
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 && os.Getenv("MEMSCHED_REQUIRE_SLURM") != "1" {
			t.Skipf("SKIP: no Slurm to test against: %s", msg)
		}
		t.Fatalf(".ci/slurm-single-node up: %v: %s", err, msg)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	conf, ok := strings.CutPrefix(lines[len(lines)-1], "SLURM_CONF=")
	if !ok {
		t.Fatalf(".ci/slurm-single-node up printed %q; want SLURM_CONF=... last", out)
	}
	t.Setenv("SLURM_CONF", conf)
	if lines[0] == "started" {
		t.Cleanup(func() { exec.Command(filepath.Join(root, ".ci", "slurm-single-node"), "down").Run() })
	}
	t.Logf("Slurm %s in %s", lines[0], time.Since(t0).Round(time.Millisecond))
	if <-built; buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Logf("Slurm up and memsched built in %s", time.Since(t0).Round(time.Millisecond))
	suiteFile := filepath.Join(dir, "s.toml")
	os.WriteFile(suiteFile, []byte(`[suite]
name = "slurm-test"
seed = 5
[platform]
gpus = [1, 2]
memory_mb = 100
[workload]
kind = "matmul2d"
order = "random"
n = [4, 6, 8]
[[scheduler]]
name = "eager"
[[scheduler]]
name = "dmdar"
[[scheduler]]
name = "darts"
`), 0o644)
	memsched := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("memsched %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	ref, res := filepath.Join(dir, "local.jsonl"), filepath.Join(dir, "slurm.jsonl")
	memsched("sweep", suiteFile, "-o", ref, "-q")

	t0 = time.Now()
	log := memsched("sweep", suiteFile, "-o", res, "--slurm", "--shards", "3", "--wait")
	t.Logf("first job (18 runs, 3 array tasks): %s\n%s", time.Since(t0).Round(time.Millisecond), log)
	if !strings.Contains(log, "18 runs in array tasks 0-2 of 3 shards") || !strings.Contains(log, "done; 18 runs merged") {
		t.Errorf("unexpected output:\n%s", log)
	}
	same(t, ref, res)

	// An array task that failed: its shard file and its records are gone.
	lost := sweep.ShardFile(res, sweep.Shard{Index: 1, Count: 3})
	recs, _, _ := sweep.ReadFile(lost)
	if len(recs) == 0 {
		t.Fatalf("shard 1 wrote nothing")
	}
	os.Remove(lost)
	all, _, _ := sweep.ReadFile(res)
	var keep bytes.Buffer
	for _, r := range all {
		if !(sweep.Shard{Index: 1, Count: 3}).Has(r.Key) {
			b, _ := json.Marshal(r)
			keep.Write(append(b, '\n'))
		}
	}
	os.WriteFile(res, keep.Bytes(), 0o644)

	t0 = time.Now()
	log = memsched("sweep", suiteFile, "-o", res, "--slurm", "--shards", "3", "--wait")
	t.Logf("resubmission: %s\n%s", time.Since(t0).Round(time.Millisecond), log)
	if want := "in array tasks 1 of 3 shards"; !strings.Contains(log, want) || !strings.Contains(log, "submitted Slurm job") {
		t.Errorf("the resubmission does not run only the lost shard (%q):\n%s", want, log)
	}
	same(t, ref, res)
	if log := memsched("sweep", suiteFile, "-o", res, "--slurm", "--shards", "3"); !strings.Contains(log, "nothing to submit") {
		t.Errorf("a complete sweep resubmits:\n%s", log)
	}
}

// same compares two results files by key, wall times aside.
func same(t *testing.T, a, b string) {
	t.Helper()
	canon := func(path string) map[string]string {
		recs, _, err := sweep.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, r := range recs {
			r.SimWallS, r.SchedWallS = 0, 0
			j, _ := json.Marshal(r)
			m[r.Key] = string(j)
		}
		return m
	}
	ma, mb := canon(a), canon(b)
	if len(ma) != len(mb) {
		t.Fatalf("%s has %d records, %s %d", a, len(ma), b, len(mb))
	}
	for k, v := range ma {
		if mb[k] != v {
			t.Errorf("record %s differs:\n%s\n%s", k, v, mb[k])
		}
	}
}
