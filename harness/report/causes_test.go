package report

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/givenorder"
	_ "github.com/memsched/memsched/schedulers/multreeprio"
	_ "github.com/memsched/memsched/schedulers/static"
)

// checkedIn evaluates every claim of paper/ against the checked-in results,
// as make reproduce does (the suites the claims name or the results were
// swept from, without figures).
func checkedIn(t *testing.T) ([]paper.Claim, []ClaimResult, map[string]*SuiteResults) {
	t.Helper()
	claims, err := paper.LoadDir("../../paper")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir("../../results", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") && !strings.HasSuffix(p, ".starpu.jsonl") {
			files = append(files, p)
		}
		return nil
	})
	recs, src, err := LoadSourced(files...)
	if err != nil {
		t.Fatal(err)
	}
	swept := map[string]bool{}
	for _, r := range recs {
		swept[r.Suite] = true
	}
	named := map[string]bool{}
	for _, c := range claims {
		named[c.Suite] = true
	}
	suites := map[string]*SuiteResults{}
	filepath.WalkDir("../../suites", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".toml") {
			return nil
		}
		s, err := suite.Load(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if !named[s.RelFile()] && !swept[s.Name] {
			return nil
		}
		set := NewSet(s, recs, src)
		if set.Present == 0 {
			set = nil
		}
		suites[s.RelFile()] = &SuiteResults{Suite: s, Set: set}
		return nil
	})
	out := make([]ClaimResult, len(claims))
	for i, c := range claims {
		out[i] = evaluateAny(c, suites, RatioOfMeans)
	}
	return claims, out, suites
}

// Every claim that the checked-in results do not reproduce says why, with
// a cause of the fixed list and a line of evidence (the loader checks the
// list; only the results say which claims are not reproduced). A claim
// reproduced today may keep a cause from before: it shows only where a
// claim is not reproduced.
func TestEveryGapHasACause(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates every claim against the checked-in results")
	}
	_, results, _ := checkedIn(t)
	missing := 0
	for _, r := range results {
		if NeedsCause(r.Status) && r.Claim.Cause == "" {
			missing++
			t.Errorf("%s (%s): %s, and no cause", r.Claim.ID, r.Claim.File, shorten(r.Status))
		}
	}
	if missing > 0 {
		t.Logf("%d claims not reproduced without a cause", missing)
	}
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
