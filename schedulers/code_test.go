package schedulers

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPackageOf(t *testing.T) {
	for sym, want := range map[string]string{
		"example.com/a/b.init.func1":           "example.com/a/b",
		"example.com/a/b.(*T).New":             "example.com/a/b",
		"example.com/a/b.New[...]":             "example.com/a/b",
		"github.com/x/y.v2/sched.init.0.func1": "github.com/x/y.v2/sched",
		"main.main.func1":                      "main",
	} {
		if got := packageOf(sym); got != want {
			t.Errorf("packageOf(%q) = %q; want %q", sym, got, want)
		}
	}
}

func TestModuleOfTakesTheLongestPrefix(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Path: "example.com/lab"}, Deps: []*debug.Module{
		{Path: "example.com/lab/plugins", Version: "v1.2.0", Sum: "h1:x"},
		{Path: "example.com/labx", Version: "v0.1.0"},
	}}
	for pkg, want := range map[string]string{
		"example.com/lab/cmd":            "example.com/lab",
		"example.com/lab/plugins/greedy": "example.com/lab/plugins",
		"example.com/labx/s":             "example.com/labx",
		"other.org/s":                    "",
	} {
		got := ""
		if m := moduleOf(pkg, bi); m != nil {
			got = m.Path
		}
		if got != want {
			t.Errorf("moduleOf(%q) = %q; want %q", pkg, got, want)
		}
	}
}

// Schedulers of this module are covered by run.Version, not by a code.
func TestInTreeSchedulersHaveNoCode(t *testing.T) {
	if c := pluginCode(func(Params) (Scheduler, error) { return nil, nil }); c != nil {
		t.Errorf("a constructor of this module got code %+v", c)
	}
}

// A scheduler registered by another module is identified by that module:
// a tiny module using memsched (through a replace) registers one and
// prints the codes the registry gives.
func TestPluginModuleIsIdentified(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: builds a module (-short)")
	}
	root, _ := filepath.Abs("..")
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/lab\n\ngo 1.26.0\n\nrequire github.com/memsched/memsched v0.0.0\n\nreplace github.com/memsched/memsched => " + root + "\n",
		"go.sum": string(sum),
		"greedy/greedy.go": `package greedy

import "github.com/memsched/memsched/schedulers"

func init() {
	schedulers.Register(schedulers.Spec{Name: "lab-greedy", Version: 1, New: func(schedulers.Params) (schedulers.Scheduler, error) { return nil, nil }})
}
`,
		"main.go": `package main

import (
	"encoding/json"
	"os"

	_ "example.com/lab/greedy"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline"
)

func main() {
	out := map[string]*schedulers.Code{}
	for _, n := range []string{"lab-greedy", "eager"} {
		s, _ := schedulers.Lookup(n)
		out[n] = s.Code
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	b, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		// Skip only when the modules are positively missing (offline, an
		// empty module cache); any other failure (a panic, a build error)
		// is this test's to report.
		if bytes.Contains(ee.Stderr, []byte("GOPROXY=off")) || bytes.Contains(ee.Stderr, []byte("missing go.sum entry")) {
			t.Skipf("SKIP: the modules memsched needs are not in the module cache (offline): %s", ee.Stderr)
		}
		t.Fatalf("the plugin module does not build or run: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Skipf("SKIP: cannot run the go tool: %v", err)
	}
	var codes map[string]*Code
	if err := json.Unmarshal(b, &codes); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if c := codes["lab-greedy"]; c == nil || c.Module != "example.com/lab" || c.Version != "(devel)" || len(c.Binary) != 64 {
		t.Errorf("plugin code %+v; want module example.com/lab, version (devel) and the binary's hash", c)
	}
	if c := codes["eager"]; c != nil {
		t.Errorf("memsched's eager got code %+v; want none (run.Version covers it)", c)
	}
}
