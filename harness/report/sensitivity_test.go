package report

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/harness/sweep"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads"
)

// inventedOf returns the claim's suites and the invented options of their
// workload kinds, as "kind.option=lo..hi" (the declared ranges).
func inventedOf(c paper.Claim, suites map[string]*SuiteResults) ([]*SuiteResults, []string) {
	srs := matchSuites(c, suites)
	var out []string
	for _, sr := range srs {
		for _, o := range workloads.KindOptions(sr.Suite.Workload.Kind) {
			if o.Invented {
				if e := rangeEntry(sr.Suite.Workload.Kind, o); !slices.Contains(out, e) {
					out = append(out, e)
				}
			}
		}
	}
	return srs, slices.Sorted(slices.Values(out))
}

// withOpts loads a suite file with its [workload] opts replaced (the
// points are expanded as it loads).
func withOpts(file string, opts map[string]float64) (*suite.Suite, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		kv = append(kv, k+" = "+strconv.FormatFloat(opts[k], 'g', -1, 64))
	}
	line := "opts = { " + strings.Join(kv, ", ") + " }"
	re := regexp.MustCompile(`(?m)^opts\s*=\s*\{.*$`)
	text := string(data)
	if re.MatchString(text) {
		text = re.ReplaceAllLiteralString(text, line)
	} else {
		text = regexp.MustCompile(`(?m)^kind\s*=.*$`).ReplaceAllStringFunc(text, func(k string) string { return k + "\n" + line })
	}
	return suite.Parse(file, []byte(text))
}

func rangeEntry(kind string, o workloads.Option) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("%s.%s=%s..%s", kind, o.Name, f(o.Range[0]), f(o.Range[1]))
}

// sensitivityChecked: the claims the check covers (those with an outcome
// to move).
func sensitivityChecked(c paper.Claim) bool {
	return c.Restates == "" && c.Kind != paper.KindQualitative
}

// Every claim on an emulated application with invented options records the
// check across their declared ranges (sensitivity), and sensitive_to names
// only those options with the ranges workloads declares.
func TestInventedOptionsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates every claim against the checked-in results")
	}
	claims, _, suites := checkedIn(t)
	n := 0
	for _, c := range claims {
		_, opts := inventedOf(c, suites)
		if len(opts) == 0 {
			if len(c.SensitiveTo) > 0 || c.Sensitivity != "" {
				t.Errorf("%s: sensitivity recorded, but its suites have no invented option", c.ID)
			}
			continue
		}
		if !sensitivityChecked(c) {
			continue
		}
		n++
		if strings.TrimSpace(c.Sensitivity) == "" {
			t.Errorf("%s: on invented options %s, but no sensitivity: run MEMSCHED_SENSITIVITY=1 go test ./harness/report -run TestInventedOptionRanges", c.ID, strings.Join(opts, ", "))
		}
		for _, e := range c.SensitiveTo {
			if !slices.Contains(opts, e) {
				t.Errorf("%s: sensitive_to %q is not one of its invented options and their declared ranges: %s", c.ID, e, strings.Join(opts, ", "))
			}
		}
	}
	if n == 0 {
		t.Fatal("no claim on an invented workload option")
	}
}

// TestInventedOptionRanges is the check itself (slow: it sweeps the claims'
// suites again, MEMSCHED_SENSITIVITY=1): for each claim on a kind with
// invented options and each such option, the claim's suites of that kind
// are run with the option at each end of its declared range (the others at
// the suite's values), and the claim is evaluated as the report does. An
// option moves the claim when an end changes its status; the test fails
// where paper/*.toml's sensitive_to says otherwise, and logs the lines.
func TestInventedOptionRanges(t *testing.T) {
	if os.Getenv("MEMSCHED_SENSITIVITY") == "" {
		t.Skip("sweeps the claims' suites at the ends of every invented option's range: MEMSCHED_SENSITIVITY=1")
	}
	claims, results, suites := checkedIn(t)
	dir := t.TempDir()
	swept := map[string]*SuiteResults{} // suite, option, value
	variant := func(sr *SuiteResults, name string, v float64) *SuiteResults {
		key := fmt.Sprintf("%s|%s=%g", sr.Suite.RelFile(), name, v)
		if x := swept[key]; x != nil {
			return x
		}
		s, err := suite.Load(sr.Suite.File)
		if name != "" {
			var opts map[string]float64
			if opts, err = workloads.ParseOpts(sr.Suite.Workload.Opts); err != nil {
				t.Fatal(err)
			}
			opts[name] = v
			s, err = withOpts(sr.Suite.File, opts)
		}
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out := filepath.Join(dir, strconv.Itoa(len(swept))+".jsonl")
		if _, err := sweep.Run(context.Background(), s, sweep.Options{Output: out}); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		recs, err := LoadRecords(out)
		if err != nil {
			t.Fatal(err)
		}
		x := &SuiteResults{Suite: s, Set: NewSet(s, recs, nil)}
		swept[key] = x
		return x
	}
	for i, c := range claims {
		srs, entries := inventedOf(c, suites)
		if len(entries) == 0 || !sensitivityChecked(c) {
			continue
		}
		// The claim as the suites stand, swept now (the checked-in results
		// may be older than the code).
		cur := map[string]*SuiteResults{}
		for k, sr := range suites {
			cur[k] = sr
		}
		for _, sr := range srs {
			cur[sr.Suite.RelFile()] = variant(sr, "", 0)
		}
		base := evaluateAny(c, cur, RatioOfMeans)
		_ = results[i]
		var moved, line []string
		for _, e := range entries {
			kind, rest, _ := strings.Cut(e, ".")
			name, _, _ := strings.Cut(rest, "=")
			var o workloads.Option
			for _, x := range workloads.KindOptions(kind) {
				if x.Name == name {
					o = x
				}
			}
			var ends []string
			move := false
			for _, v := range o.Range {
				alt := map[string]*SuiteResults{}
				for k, sr := range cur {
					alt[k] = sr
				}
				for _, sr := range srs {
					if sr.Suite.Workload.Kind == kind {
						alt[sr.Suite.RelFile()] = variant(sr, name, v)
					}
				}
				r := evaluateAny(c, alt, RatioOfMeans)
				ends = append(ends, fmt.Sprintf("%g: %s %s", v, trimFloat(r.Value), statusKey(r.Status)))
				move = move || statusKey(r.Status) != statusKey(base.Status)
			}
			if move {
				moved = append(moved, e)
			}
			line = append(line, fmt.Sprintf("%s.%s %s", kind, name, strings.Join(ends, ", ")))
		}
		t.Logf("%s: default %s %s; %s; moves: %v", c.ID, trimFloat(base.Value), statusKey(base.Status), strings.Join(line, "; "), moved)
		if !slices.Equal(moved, slices.Sorted(slices.Values(c.SensitiveTo))) {
			t.Errorf("%s: sensitive_to %v, the check finds %v", c.ID, c.SensitiveTo, moved)
		}
	}
}

// The report shows the check beside a claim's status and counts the checked
// and moving claims per publication in the summary.
func TestSensitivityShown(t *testing.T) {
	moving := paper.Claim{ID: "a", Publication: "p", SensitiveTo: []string{"fmm.group=16..256"}, Sensitivity: "default 1 reproduced; fmm.group 16: 2 off"}
	steady := paper.Claim{ID: "b", Publication: "p", Sensitivity: "default 1 off; fmm.group 16: 1 off"}
	if c := sensitivityCell(moving); !strings.HasPrefix(c, "moves with fmm.group=16..256: default 1") {
		t.Errorf("moving: %q", c)
	}
	if c := sensitivityCell(steady); !strings.HasPrefix(c, "steady: ") {
		t.Errorf("steady: %q", c)
	}
	if c := sensitivityCell(paper.Claim{}); c != "" {
		t.Errorf("unchecked: %q", c)
	}
	tab := sensitivityTable([]ClaimResult{{Claim: moving}, {Claim: steady}, {Claim: paper.Claim{ID: "c", Publication: "p"}}}, []string{"p"})
	want := [][]string{{"p", "2", "1", "1"}, {"**total**", "2", "1", "1"}}
	if fmt.Sprint(tab.Rows) != fmt.Sprint(want) {
		t.Errorf("summary rows %q, want %q", tab.Rows, want)
	}
	row := claimRow(ClaimResult{Claim: moving, Status: StatusReproduced}, false)
	if i := slices.Index(claimTable(nil, false, RatioOfMeans).Header, "invented options"); i < 0 || row[i] != sensitivityCell(moving) || row[i+1] != StatusReproduced {
		t.Errorf("row %q: want the check beside the status", row)
	}
}
