package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary run as memsched under a file size limit
// (MEMSCHED_TEST_FSIZE bytes): a write past it fails as on a full disk.
func TestMain(m *testing.M) {
	if args := os.Getenv("MEMSCHED_TEST_CLI"); args != "" {
		var argv []string
		json.Unmarshal([]byte(args), &argv)
		limit, _ := strconv.ParseUint(os.Getenv("MEMSCHED_TEST_FSIZE"), 10, 64)
		signal.Ignore(syscall.SIGXFSZ) // a write past the limit then fails with EFBIG
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			os.Exit(99)
		}
		os.Exit(Main(append([]string{"memsched"}, argv...)))
	}
	os.Exit(m.Run())
}

// An output file is replaced whole or not at all: when the disk fills up
// while report -o, workload -o, calibrate -o or the README headline is
// written, the command fails and the old file is left as it was (it was
// rewritten in place, leaving a truncated file).
func TestFullDiskLeavesOldOutputsWhole(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s.toml")
	os.WriteFile(s, []byte(badSuite), 0o644)
	res := filepath.Join(dir, "r.jsonl")
	if code, _, errs := cli("sweep", s, "-o", res, "-q"); code != 0 {
		t.Fatalf("making results: %s", errs)
	}
	repro := filepath.Join(dir, "R.md")
	if code, _, errs := cli("report", "--reproduction", repro, "--claims", "../paper", "--suites", filepath.Join(dir, "none")); code != 0 {
		t.Fatalf("making a reproduction report: %s", errs)
	}
	fi, _ := os.Stat(repro)
	old := "# old\n<!-- headline -->before<!-- /headline -->\n" + strings.Repeat("filler line\n", int(fi.Size())/12+10000)
	limit := fi.Size() + 60000 // room for the reproduction report, not for the README
	for _, c := range []struct {
		name, file string
		limit      int64
		args       []string
	}{
		{"report -o", "out.md", 512, []string{"report", res, "-o", "$F"}},
		{"workload -o", "w.json", 512, []string{"workload", "--n", "10", "--format", "json", "-o", "$F"}},
		{"calibrate -o", "p.toml", 512, []string{"calibrate", "--from-starpu", "../hardware/testdata/starpu", "--host", "synth2", "-o", "$F"}},
		{"the README headline", "README.md", limit, []string{"report", "--reproduction", repro, "--claims", "../paper", "--suites", filepath.Join(dir, "none"), "--headline", "$F"}},
	} {
		f := filepath.Join(dir, c.file)
		text := "the old " + c.name + "\n"
		if c.file == "README.md" {
			text = old
		}
		os.WriteFile(f, []byte(text), 0o644)
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = strings.ReplaceAll(a, "$F", f)
		}
		argv, _ := json.Marshal(args)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MEMSCHED_TEST_CLI="+string(argv), "MEMSCHED_TEST_FSIZE="+strconv.FormatInt(c.limit, 10))
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "file too large") {
			t.Errorf("%s on a full disk: %v: %s", c.name, err, out)
		}
		if got, _ := os.ReadFile(f); string(got) != text {
			t.Errorf("%s on a full disk left %d bytes where the old file had %d", c.name, len(got), len(text))
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("%s left %s behind", c.name, e.Name())
			}
		}
	}
}
