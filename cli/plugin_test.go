package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/baseline"
)

// A scheduler given to Main runs like memsched's own; a bad one is refused
// with the reason.
func TestMainWithScheduler(t *testing.T) {
	fifo := schedulers.Spec{Name: "test-fifo", Version: 1, Doc: "a FIFO registered through cli.WithScheduler",
		New: func(schedulers.Params) (schedulers.Scheduler, error) { return &baseline.Eager{}, nil }}
	var out, errb bytes.Buffer
	if code := Main([]string{"lab", "run", "--scheduler", "test-fifo", "--n", "4"}, WithScheduler(fifo), WithOutput(&out, &errb)); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rec struct {
		Scheduler string `json:"scheduler"`
		Tasks     int    `json:"tasks"`
	}
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil || rec.Scheduler != "test-fifo" || rec.Tasks != 16 {
		t.Errorf("record %s (%v)", out.String(), err)
	}
	// Main again in the same process: the scheduler is already there.
	out.Reset()
	if code := Main([]string{"lab", "schedulers"}, WithScheduler(fifo), WithOutput(&out, &errb)); code != 0 || !strings.Contains(out.String(), "test-fifo (v1)") {
		t.Errorf("exit %d, schedulers: %s", code, out.String())
	}
	for _, c := range []struct {
		spec schedulers.Spec
		want string
	}{
		{schedulers.Spec{Name: "eager", Version: 1, New: fifo.New}, "scheduler eager is already registered"},
		{schedulers.Spec{Name: "test-nover", New: fifo.New}, "has no Version"},
		{schedulers.Spec{Name: "test-nonew", Version: 1}, "has no constructor"},
		{schedulers.Spec{Name: "exec:x", Version: 1, New: fifo.New}, `scheduler name "exec:x"`},
	} {
		errb.Reset()
		if code := Main([]string{"lab", "schedulers"}, WithScheduler(c.spec), WithOutput(&out, &errb)); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%+v: exit %d, %q; want 2 and %q", c.spec.Name, code, errb.String(), c.want)
		}
	}
}

// The Go example (examples/, a module of its own) builds a memsched binary
// with its scheduler: the binary runs it, its record names the example's
// module, its trace validates, and the example's tests pass memsched's
// conformance suite.
func TestOutOfTreeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: builds the examples module (-short)")
	}
	root, _ := filepath.Abs("..")
	dir := filepath.Join(root, "examples")
	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
	gocmd := func(args ...string) ([]byte, error) {
		cmd := exec.Command(gotool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		return cmd.CombinedOutput()
	}
	if b, err := gocmd("mod", "download"); err != nil {
		t.Skipf("SKIP: cannot get the modules of examples/ (offline?): %v\n%s", err, b)
	}
	bin := filepath.Join(t.TempDir(), "memsched-greedy")
	if b, err := gocmd("build", "-o", bin, "./cmd/memsched-greedy"); err != nil {
		t.Fatalf("go build ./cmd/memsched-greedy in examples/: %v\n%s", err, b)
	}
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	out, err := exec.Command(bin, "run", "--scheduler", "greedy", "--n", "8", "--gpus", "2", "--memory-mb", "100", "--trace", tr).Output()
	if err != nil {
		t.Fatalf("memsched-greedy run: %v %s", err, stderrOf(err))
	}
	var rec struct {
		Scheduler string            `json:"scheduler"`
		Tasks     int               `json:"tasks"`
		Code      *schedulers.Code  `json:"scheduler_code"`
		Params    map[string]string `json:"params"`
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rec.Scheduler != "greedy" || rec.Tasks != 64 || rec.Params["window"] != "0" {
		t.Errorf("record: scheduler %q, %d tasks, params %v; want greedy, 64, window=0", rec.Scheduler, rec.Tasks, rec.Params)
	}
	if c := rec.Code; c == nil || c.Module != "github.com/memsched/memsched/examples" || c.Version == "" {
		t.Errorf("scheduler_code %+v; want the examples module and its version", c)
	} else if (c.Version == "(devel)" || strings.HasSuffix(c.Version, "+dirty")) && len(c.Binary) != 64 {
		t.Errorf("scheduler_code %+v: a %s build needs the binary's hash", c, c.Version)
	}
	if b, err := exec.Command(bin, "validate", tr).CombinedOutput(); err != nil {
		t.Errorf("memsched-greedy validate: %v\n%s", err, b)
	}
	if b, _ := exec.Command(bin, "schedulers").Output(); !strings.Contains(string(b), "greedy (v1)") || !strings.Contains(string(b), "darts (v") {
		t.Errorf("memsched-greedy schedulers lacks greedy or memsched's darts:\n%s", b)
	}
	if b, err := gocmd("test", "-count=1", "./..."); err != nil {
		t.Errorf("go test ./... in examples/ (conformance of greedy): %v\n%s", err, b)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
