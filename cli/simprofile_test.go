package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// run --sim-profile writes a pprof profile of the simulated time: two GPUs
// account for twice the makespan; a trace written beside it keeps its
// format (no decision events) and validates.
func TestSimProfile(t *testing.T) {
	dir := t.TempDir()
	prof, tr := filepath.Join(dir, "d.pb.gz"), filepath.Join(dir, "t.jsonl")
	code, out, errs := cli("run", "--n", "10", "--gpus", "2", "--memory-mb", "100", "--scheduler", "darts", "--sim-profile", prof, "--trace", tr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec struct {
		Makespan float64 `json:"makespan_s"`
	}
	json.Unmarshal([]byte(out), &rec)
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
	}
	if want := 2 * rec.Makespan * 1e9; total < int64(want)-100 || total > int64(want)+100 {
		t.Errorf("samples add up to %d ns; want two GPUs x the makespan, %.0f ns", total, want)
	}
	if len(p.Comments) != 1 || !strings.Contains(p.Comments[0], "scheduler darts (") || !strings.Contains(p.Comments[0], "matmul2d-n10") {
		t.Errorf("comments %q", p.Comments)
	}
	if b, _ := os.ReadFile(tr); strings.Contains(string(b), `"ev":"pop"`) || strings.Contains(string(b), `"until"`) {
		t.Error("the trace carries decision events")
	}
	if code, _, errs := cli("validate", tr); code != 0 {
		t.Errorf("validate: %s", errs)
	}
	// A run that fails leaves no profile behind.
	if code, _, _ := cli("run", "--n", "4", "--memory-mb", "10", "--sim-profile", prof); code == 0 {
		t.Error("a run in 10 MiB succeeded")
	} else if _, err := os.Stat(prof); !os.IsNotExist(err) {
		t.Errorf("the failed run left %s (%v)", prof, err)
	}
	if code, _, errs := cli("run", "--n", "4", "--executor", "cuda", "--sim-profile", prof); code == 0 || !strings.Contains(errs, "needs --executor sim") {
		t.Errorf("--executor cuda: exit %d, %q", code, errs)
	}
	// A path that cannot be written costs no run.
	code, out, errs = cli("run", "--n", "4", "--sim-profile", filepath.Join(dir, "none", "p.pb.gz"))
	if code == 0 || out != "" || !strings.Contains(errs, "--sim-profile: open") {
		t.Errorf("exit %d, %q, %q; want an error naming --sim-profile and no record", code, out, errs)
	}
}
