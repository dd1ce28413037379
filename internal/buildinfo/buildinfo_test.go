package buildinfo

import (
	"os"
	"regexp"
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
