package buildinfo

import (
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// The citation names the code's version: one source of truth (Version).
func TestCitationVersionIsTheCodesVersion(t *testing.T) {
	b, err := os.ReadFile("../../CITATION.cff")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version:\s*"?([^"\s]+)"?\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("CITATION.cff has no top-level version line")
	}
	if string(m[1]) != Version {
		t.Errorf("CITATION.cff version %s, code version %s: set CITATION.cff's version to buildinfo.Version", m[1], Version)
	}
}

func TestLicenseMatchesCitation(t *testing.T) {
	cff, err := os.ReadFile("../../CITATION.cff")
	if err != nil {
		t.Fatal(err)
	}
	lic, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^license:\s*Apache-2.0\s*$`).Match(cff) || !regexp.MustCompile(`Apache License\s+Version 2\.0`).Match(lic) {
		t.Error("LICENSE and CITATION.cff's license disagree (both should be Apache-2.0)")
	}
}

func TestParseDescribe(t *testing.T) {
	for in, want := range map[string]Code{
		"46ecc763757a5f992ae3ecea8f93dac39a72cc47":         {"46ecc763757a5f992ae3ecea8f93dac39a72cc47", false},
		"46ecc763757a5f992ae3ecea8f93dac39a72cc47-dirty\n": {"46ecc763757a5f992ae3ecea8f93dac39a72cc47", true},
		"": {Unknown, false},
	} {
		if got := parseDescribe(in); got != want {
			t.Errorf("parseDescribe(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// Under go test (no stamp, no VCS build info) the checkout is asked.
func TestCurrentInACheckout(t *testing.T) {
	c := Current()
	if c.Commit == "" {
		t.Fatal("empty commit")
	}
	if _, err := os.Stat("../../.git"); err == nil && c.Commit == Unknown {
		t.Errorf("in a git checkout the commit should be known, got %+v", c)
	}
}

// A binary of another module names memsched's code from its requirement:
// a pseudo-version's commit, a tag, or a replacing checkout.
func TestDependencyCode(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	root := strings.TrimSpace(string(top))
	for _, tc := range []struct {
		mod  debug.Module
		want string
	}{
		{debug.Module{Path: ModulePath, Version: "v0.2.1-0.20261201120000-abcdef123456"}, "abcdef123456"},
		{debug.Module{Path: ModulePath, Version: "v0.2.0"}, "v0.2.0"},
		{debug.Module{Path: ModulePath, Version: "v0.0.0", Replace: &debug.Module{Path: "/nonexistent", Version: "(devel)"}}, "unknown (memsched replaced by the directory /nonexistent)"},
		{debug.Module{Path: ModulePath, Version: "v0.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.3.0"}}, "v0.3.0"},
	} {
		c, ok := dependencyCode(&tc.mod)
		if !ok || c.Commit != tc.want {
			t.Errorf("%+v: got %+v %v, want %s", tc.mod, c, ok, tc.want)
		}
	}
	c, ok := dependencyCode(&debug.Module{Path: ModulePath, Version: "v0.0.0", Replace: &debug.Module{Path: root}})
	if want, _ := describeCheckout(); !ok || c.Commit != want.Commit || len(c.Commit) != 40 {
		t.Errorf("replaced by this checkout: got %+v, want %+v", c, want)
	}
}
