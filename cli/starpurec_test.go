package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/suite"
)

const (
	starpuDir   = "../workloads/testdata/starpu"
	starpuTasks = starpuDir + "/tasks.rec"
)

// starpuPlatform imports the test data's calibration with the task
// graph's codelets.
func starpuPlatform(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "chol.toml")
	if code, _, errs := cli("calibrate", "--from-starpu", starpuDir+"/sampling", "--host", "gemini-2-ipdps", "--starpu-tasks", starpuTasks, "-o", out); code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, errs)
	}
	return out
}

// A StarPU task graph runs on every scheduler of task graphs, each run's
// trace validates, and DMDAR on 1 GPU gives a repetition the makespan
// StarPU's SimGrid run recorded (114.887294 ms) within 0.05 %.
func TestStarPUTasksRun(t *testing.T) {
	plat := starpuPlatform(t)
	dir := t.TempDir()
	for _, s := range []string{"eager", "dmda", "dmdar", "dmdas", "lws", "ap", "heteroprio", "laheteroprio", "darts", "darts-dag", "multreeprio", "critical-path"} {
		tr := filepath.Join(dir, s+".jsonl")
		code, out, errs := cli("run", "--starpu-tasks", starpuTasks, "--repetition", "2", "--platform", plat, "--gpus", "1", "--scheduler", s, "--trace", tr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errs)
		}
		var rec struct {
			MakespanS float64 `json:"makespan_s"`
			Tasks     int     `json:"tasks"`
		}
		if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.Tasks != 35 {
			t.Fatalf("%s: %v, %d tasks: %s", s, err, rec.Tasks, out)
		}
		if !strings.Contains(errs, "recorded 114.887294 ms") {
			t.Errorf("%s: stderr %q; want the comparison with the recorded makespan", s, errs)
		}
		if code, out, errs := cli("validate", tr); code != 0 || !strings.Contains(out, "valid") {
			t.Errorf("%s: validate: exit %d: %s %s", s, code, out, errs)
		}
		if s == "dmdar" {
			if d := rec.MakespanS/0.114887294 - 1; math.Abs(d) > 5e-4 {
				t.Errorf("dmdar: makespan %.6f ms, recorded 114.887294 ms (%+.3f %%)", rec.MakespanS*1e3, d*100)
			}
		}
	}
	// The same through a workload file.
	w := filepath.Join(dir, "w.json")
	if code, _, errs := cli("workload", "--starpu-tasks", starpuTasks, "--repetition", "2", "--format", "json", "-o", w); code != 0 || !strings.Contains(errs, "repetition 2: 35 tasks, recorded 114.887294 ms") {
		t.Fatalf("workload: exit %d: %s", code, errs)
	}
	if code, out, errs := cli("run", "--workload-file", w, "--platform", plat, "--gpus", "1", "--scheduler", "dmdar"); code != 0 || !strings.Contains(out, `"workload":"starpu:tasks.rec#2"`) {
		t.Fatalf("run --workload-file: exit %d: %s %s", code, out, errs)
	}
	// Flags out of their scope.
	for _, args := range [][]string{
		{"run", "--repetition", "2"},
		{"run", "--starpu-tasks", starpuTasks, "--n", "4"},
		{"run", "--starpu-tasks", starpuTasks, "--workload-file", w},
		{"calibrate", "--starpu-tasks", starpuTasks},
	} {
		if code, _, errs := cli(args...); code == 0 || !strings.Contains(errs, "applies only") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}

// A suite names a tasks.rec as its workload file.
func TestStarPUTasksInASuite(t *testing.T) {
	plat := starpuPlatform(t)
	abs, _ := filepath.Abs(starpuTasks)
	toml := filepath.Join(t.TempDir(), "s.toml")
	os.WriteFile(toml, []byte(`[suite]
name = "starpu-chol"
repetitions = 1
[platform]
preset = "`+plat+`"
gpus = 1
[workload]
file = "`+abs+`"
[[scheduler]]
name = "dmdar"
`), 0o644)
	s, err := suite.Load(toml)
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	w, err := runs[0].Workload()
	if err != nil || len(w.Tasks) != 385 {
		t.Fatalf("%v", err)
	}
}
