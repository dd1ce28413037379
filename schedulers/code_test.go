package schedulers

import (
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
