package paper

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRealClaims loads the claims files of this directory and checks project-level rules
// that loading does not enforce.
func TestLoadRealClaims(t *testing.T) {
	claims, err := LoadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	perPub := map[string]int{}
	perStatus := map[string]map[string]int{}
	files := map[string]string{} // publication -> file
	for _, c := range claims {
		perPub[c.Publication]++
		if perStatus[c.Publication] == nil {
			perStatus[c.Publication] = map[string]int{}
		}
		perStatus[c.Publication][c.Status]++
		if f, ok := files[c.Publication]; ok && f != c.File {
			t.Errorf("publication %s spread over %s and %s", c.Publication, f, c.File)
		}
		files[c.Publication] = c.File

		if c.Status == StatusReproducible {
			for _, name := range []string{c.Scheduler, c.Baseline} {
				if name != "" && !IsDisplayName(name) {
					t.Errorf("%s: reproducible claim names %q, not a display name", c.ID, name)
				}
			}
		}
		if c.Kind == KindImprovement && c.Unit != "%" && c.Unit != "x" {
			t.Errorf("%s: improvement in unit %q (want %% or x)", c.ID, c.Unit)
		}
		if !strings.HasPrefix(c.ID, strings.TrimSuffix(c.Publication, "2023")) {
			t.Errorf("%s: id does not start with its publication %s", c.ID, c.Publication)
		}
	}
	for _, pub := range Publications() {
		if perPub[pub] == 0 {
			t.Errorf("no claims for publication %s", pub)
		}
		t.Logf("%-16s %3d claims (%d reproducible, %d not-yet) in %s", pub, perPub[pub],
			perStatus[pub][StatusReproducible], perStatus[pub][StatusNotYet], files[pub])
	}
	t.Logf("total            %3d claims", len(claims))

	// A restatement repeats its claim's number (in the same unit: 5 h of the
	// whole platform restate 49 000 core-hours); numbers of a kind that
	// cannot be reproduced say so.
	byID := map[string]Claim{}
	for _, c := range claims {
		byID[c.ID] = c
	}
	for _, c := range claims {
		if r, ok := byID[c.Restates]; ok {
			a, _ := c.Value()
			b, _ := r.Value()
			if a != b && c.Unit == r.Unit {
				t.Errorf("%s restates %s but publishes %v, not %v", c.ID, r.ID, a, b)
			}
		}
		if c.Kind == KindQualitative || c.Status != StatusReproducible {
			continue
		}
		want := map[string]string{"working_set_mb": NatureDefinition, "sched_time_s": NatureImplementationTime}[c.Metric]
		if want != "" && c.Nature != want {
			t.Errorf("%s: metric %s needs nature %q, has %q", c.ID, c.Metric, want, c.Nature)
		}
	}

	// Chapter 6 (batch-trace) is computed on the weeks the release published;
	// the claims on weeks it did not publish say what they miss.
	for _, c := range claims {
		if c.Workload == "batch-trace" && c.Status == StatusReproducible && c.Suite == "" {
			t.Errorf("%s: a reproducible batch claim names its suite", c.ID)
		}
		if (c.Status == StatusNotYet || c.Status == StatusNotHere) && c.Missing == "" {
			t.Errorf("%s: a %s claim says what it misses", c.ID, c.Status)
		}
		if c.Check != "" && (c.Status == StatusNotYet || c.Suite == "") {
			t.Errorf("%s: a claim with a check names the suite that computes it", c.ID)
		}
	}
}

// TestPublishedTables pins a few numbers of the publications' tables, so that an edit of a
// claims file that changes a published number shows up.
func TestPublishedTables(t *testing.T) {
	claims, err := LoadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Claim{}
	for _, c := range claims {
		byID[c.ID] = c
	}
	want := map[string]float64{
		"coloc2021-2d-hfp-vs-eager":           51.5,
		"coloc2021-2d-hfp-vs-hfp-only-ready":  -0.2,
		"coloc2021-3d-hfp-vs-hfp-only-belady": 2.7,
		"ipdps2022-fig6-darts-luf-vs-dmdar":   9.4,
		"thesis-t3.1-hfp-vs-eager":            106.3,
		"thesis-t3.3-hfp-vs-dmdar":            46.0,
		"thesis-t3.7-hfp-vs-dmdar":            41.6,
		"thesis-f4.11-dmdar-fetches-n20":      69,
		"thesis-t6.4-lea-vs-fcfs":             0.37,
	}
	for id, v := range want {
		c, ok := byID[id]
		if !ok {
			t.Errorf("claim %s missing", id)
			continue
		}
		if got, ok := c.Value(); !ok || got != v {
			t.Errorf("%s: published = %v, want %v", id, got, v)
		}
	}
	if c := byID["thesis-t3.1-hfp-vs-eager"]; !c.Within(110) || c.Within(112) {
		t.Errorf("Within: tolerance 5 around 106.3 misbehaves")
	}
}

const validClaim = `
[[claim]]
id          = "x-1"
publication = "thesis2023"
where       = "Table 3.1"
statement   = "HFP improves on EAGER"
workload    = "matmul2d"
gpus        = 1
memory_mb   = 500
setting     = "real"
metric      = "gflops"
kind        = "improvement"
scheduler   = "HFP"
baseline    = "EAGER"
published   = 106.3
unit        = "%"
tolerance   = 5.0
points      = { n = [5, 10, 15] }
suite       = "suites/thesis/ch3-2d.toml"
status      = "reproducible"
missing     = ""
notes       = ""
`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidClaimLoads(t *testing.T) {
	p := writeFile(t, t.TempDir(), "a.toml", validClaim)
	cs, err := LoadClaims(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].File != p {
		t.Fatalf("got %+v", cs)
	}
	if mb, ok := cs[0].Memory(); !ok || mb != 500 {
		t.Errorf("Memory() = %v, %v", mb, ok)
	}
	// memory_mb = 0 means no limit and is distinct from an omitted memory_mb.
	p0 := writeFile(t, t.TempDir(), "b.toml", strings.Replace(validClaim, "memory_mb   = 500", "memory_mb   = 0", 1))
	cs, err = LoadClaims(p0)
	if err != nil {
		t.Fatal(err)
	}
	if mb, ok := cs[0].Memory(); !ok || mb != 0 {
		t.Errorf("Memory() with memory_mb = 0: %v, %v", mb, ok)
	}
	pn := writeFile(t, t.TempDir(), "c.toml", strings.Replace(validClaim, "memory_mb   = 500\n", "", 1))
	cs, err = LoadClaims(pn)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cs[0].Memory(); ok {
		t.Errorf("Memory() without memory_mb should report not applicable")
	}
}

// A claim may say why it is not reproduced: a cause of the fixed list and
// one line of evidence.
func TestCauseLoads(t *testing.T) {
	p := writeFile(t, t.TempDir(), "a.toml", validClaim+"cause = \"runtime effect not modelled\"\nevidence = \"issue 33, rule 2: StarPU allocates just before the copy\"\n")
	cs, err := LoadClaims(p)
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].Cause != CauseRuntime || cs[0].Evidence == "" {
		t.Errorf("cause %q, evidence %q", cs[0].Cause, cs[0].Evidence)
	}
	if len(Causes()) != 6 {
		t.Errorf("causes %q", Causes())
	}
}

func TestRejections(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr []string // substrings of the error
	}{
		{"unknown key", func(s string) string { return s + "colour = \"red\"\n" },
			[]string{"unknown keys", "claim.colour"}},
		{"unknown top-level table", func(s string) string { return s + "[[claims]]\nid = \"y\"\n" },
			[]string{"unknown keys", "claims.id"}},
		{"unknown publication", func(s string) string { return strings.Replace(s, `"thesis2023"`, `"fgcs2023"`, 1) },
			[]string{`publication "fgcs2023" is not one of`}},
		{"bad status", func(s string) string { return strings.Replace(s, `"reproducible"`, `"done"`, 1) },
			[]string{`status "done" is not one of`}},
		{"bad kind", func(s string) string { return strings.Replace(s, `"improvement"`, `"ratio"`, 1) },
			[]string{`kind "ratio" is not one of`}},
		{"bad setting", func(s string) string { return strings.Replace(s, `"real"`, `"native"`, 1) },
			[]string{`setting "native" is not one of`}},
		{"negative tolerance", func(s string) string { return strings.Replace(s, "tolerance   = 5.0", "tolerance   = -1.0", 1) },
			[]string{"tolerance -1 must be >= 0"}},
		{"improvement without baseline", func(s string) string { return strings.Replace(s, `baseline    = "EAGER"`, "", 1) },
			[]string{"missing baseline (kind improvement)"}},
		{"improvement without published", func(s string) string { return strings.Replace(s, "published   = 106.3", "", 1) },
			[]string{"missing published (kind improvement)"}},
		{"improvement without tolerance", func(s string) string { return strings.Replace(s, "tolerance   = 5.0", "", 1) },
			[]string{"missing tolerance (kind improvement)"}},
		{"value without published", func(s string) string {
			s = strings.Replace(s, `"improvement"`, `"value"`, 1)
			return strings.Replace(s, "published   = 106.3", "", 1)
		}, []string{"missing published (kind value)"}},
		{"value without metric", func(s string) string {
			s = strings.Replace(s, `"improvement"`, `"value"`, 1)
			return strings.Replace(s, `metric      = "gflops"`, "", 1)
		}, []string{"missing metric (kind value)"}},
		{"published without unit", func(s string) string { return strings.Replace(s, `unit        = "%"`, "", 1) },
			[]string{"missing unit"}},
		{"missing statement", func(s string) string { return strings.Replace(s, `statement   = "HFP improves on EAGER"`, "", 1) },
			[]string{"missing statement"}},
		{"not-yet without missing", func(s string) string {
			s = strings.Replace(s, `"reproducible"`, `"not-yet"`, 1)
			return strings.Replace(s, `suite       = "suites/thesis/ch3-2d.toml"`, `suite = ""`, 1)
		}, []string{"missing missing (status not-yet"}},
		{"reproducible without suite", func(s string) string {
			return strings.Replace(s, `suite       = "suites/thesis/ch3-2d.toml"`, `suite = ""`, 1)
		}, []string{"missing suite (status reproducible)"}},
		{"reproducible with missing", func(s string) string { return strings.Replace(s, `missing     = ""`, `missing = "x"`, 1) },
			[]string{"missing must be empty"}},
		{"bad suite path", func(s string) string { return strings.Replace(s, "suites/thesis/ch3-2d.toml", "ch3-2d.yaml", 1) },
			[]string{`suite "ch3-2d.yaml"`}},
		{"upper-case id", func(s string) string { return strings.Replace(s, `"x-1"`, `"X-1"`, 1) },
			[]string{`id "X-1" must be lower case`}},
		{"negative gpus", func(s string) string { return strings.Replace(s, "gpus        = 1", "gpus = -2", 1) },
			[]string{"gpus -2 is negative"}},
		{"negative memory", func(s string) string { return strings.Replace(s, "memory_mb   = 500", "memory_mb = -1", 1) },
			[]string{"memory_mb -1 must be >= 0"}},
		{"malformed toml", func(s string) string { return s + "id = \n" },
			[]string{"a.toml"}},
		{"wrong type", func(s string) string { return strings.Replace(s, "gpus        = 1", `gpus = "one"`, 1) },
			[]string{"a.toml"}},
		{"no claims", func(string) string { return "# nothing\n" },
			[]string{"no [[claim]] tables"}},
		{"tolerance wider than the limit", func(s string) string { return strings.Replace(s, "tolerance   = 5.0", "tolerance   = 5.5", 1) },
			[]string{"tolerance 5.5 is wider than the project's limit 5"}},
		{"value tolerance wider than 10 %", func(s string) string {
			s = strings.Replace(s, `"improvement"`, `"value"`, 1)
			return strings.Replace(s, "tolerance   = 5.0", "tolerance   = 11", 1)
		}, []string{"tolerance 11 is wider than the project's limit 10.63"}},
		{"improvement without points", func(s string) string { return strings.Replace(s, "points      = { n = [5, 10, 15] }\n", "", 1) },
			[]string{"missing points (kind improvement)"}},
		{"points under two keys", func(s string) string {
			return strings.Replace(s, "points      = { n = [5, 10, 15] }", "points = { n = [5], memory_mb = [500] }", 1)
		}, []string{"points has several keys"}},
		{"unknown nature", func(s string) string { return s + "nature = \"guess\"\n" },
			[]string{`nature "guess" is not one of`}},
		{"restates no claim", func(s string) string { return s + "restates = \"x-2\"\n" },
			[]string{`restates "x-2", which is no claim`}},
		{"unknown cause", func(s string) string { return s + "cause = \"bad luck\"\nevidence = \"a run\"\n" },
			[]string{`cause "bad luck" is not one of: protocol differs; scheduler code differs; runtime effect not modelled; data unavailable; workload invented; claim ambiguous or unverifiable`}},
		{"cause without evidence", func(s string) string { return s + "cause = \"protocol differs\"\n" },
			[]string{"cause without evidence"}},
		{"evidence without cause", func(s string) string { return s + "evidence = \"a run\"\n" },
			[]string{"evidence without a cause"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "a.toml", tc.edit(validClaim))
			_, err := LoadClaims(p)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file %s", err, p)
			}
		})
	}
}

func TestDuplicateIDsAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.toml", validClaim)
	b := writeFile(t, dir, "b.toml", validClaim)
	_, err := LoadClaims(a, b)
	if err == nil {
		t.Fatal("duplicate id across files accepted")
	}
	for _, w := range []string{`claim "x-1"`, "duplicate id", a, b} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	// LoadDir sees both files too.
	if _, err := LoadDir(dir); err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("LoadDir: %v", err)
	}
	// Within one file as well.
	c := writeFile(t, t.TempDir(), "c.toml", validClaim+validClaim)
	if _, err := LoadClaims(c); err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Errorf("duplicate id in one file: %v", err)
	}
}

func TestQualitativeNeedsNoNumber(t *testing.T) {
	s := validClaim
	s = strings.Replace(s, `"improvement"`, `"qualitative"`, 1)
	for _, line := range []string{`baseline    = "EAGER"`, "published   = 106.3", `unit        = "%"`, "tolerance   = 5.0"} {
		s = strings.Replace(s, line, "", 1)
	}
	p := writeFile(t, t.TempDir(), "q.toml", s)
	if _, err := LoadClaims(p); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDirEmpty(t *testing.T) {
	if _, err := LoadDir(t.TempDir()); err == nil {
		t.Fatal("empty directory accepted")
	}
	if _, err := LoadClaims(); err == nil {
		t.Fatal("no paths accepted")
	}
}

// heteroPublication: the CPU+GPU papers, whose claims suites reproduce
// (their Cholesky is not chapter 5's).
func heteroPublication(p string) bool { return WholeSuites(p) }

// A bound compares one way; "above" is strict ("more than half").
func TestWithinBounds(t *testing.T) {
	pub, tol := 50.0, 0.0
	for _, c := range []struct {
		bound string
		x     float64
		want  bool
	}{
		{BoundAtLeast, 50, true}, {BoundAtLeast, 49.9, false}, {BoundAtLeast, 80, true},
		{BoundAbove, 50, false}, {BoundAbove, 50.01, true}, {BoundAbove, 49, false},
		{BoundAtMost, 50, true}, {BoundAtMost, 50.1, false},
		{"", 50, true}, {"", 50.1, false},
	} {
		cl := Claim{Published: &pub, Tolerance: &tol, Bound: c.bound}
		if got := cl.Within(c.x); got != c.want {
			t.Errorf("bound %q: Within(%g) = %v, want %v", c.bound, c.x, got, c.want)
		}
	}
}

// Chapter 6's accounting: one fact counted once (LEA slower for 25 % is the
// complement of above 1 for 75 %; 5 h of the platform is 49 000 core-hours
// / 9 720 cores), tolerances at the rule (±10 % of Table 6.4's tiny
// reductions, not ±0.05 points), the statements of a bound tested as
// bounds, and every claim on weeks this project cannot read not
// reproducible here, naming the files the release's tree lists.
func TestChapter6Accounting(t *testing.T) {
	claims, err := LoadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Claim{}
	for _, c := range claims {
		byID[c.ID] = c
	}
	for id, of := range map[string]string{"thesis-ch6-lea-slower-25pct": "thesis-f6.7-lea-above-1", "thesis-ch6-lea-platform-hours": "thesis-ch6-lea-core-hours"} {
		if byID[id].Restates != of {
			t.Errorf("%s restates %q, want %s", id, byID[id].Restates, of)
		}
	}
	for _, id := range []string{"thesis-t6.4-eft-vs-fcfs", "thesis-t6.4-lea-vs-fcfs", "thesis-t6.4-leo-vs-fcfs", "thesis-t6.4-lem-vs-fcfs"} {
		c := byID[id]
		if *c.Tolerance > 0.1*math.Abs(*c.Published)*(1+1e-9) {
			t.Errorf("%s: tolerance %g wider than 10 %% of %g", id, *c.Tolerance, *c.Published)
		}
	}
	for id, bound := range map[string]string{"thesis-f6.7-lem-above-1": BoundAtLeast, "thesis-f6.8-lem-bf-75pct-better": BoundAbove, "thesis-f6.8-lem-bf-slowdowns-0.95": BoundAtLeast} {
		if byID[id].Bound != bound {
			t.Errorf("%s: bound %q, want %q", id, byID[id].Bound, bound)
		}
	}
	for _, c := range claims {
		if c.Workload != "batch-trace" {
			continue
		}
		if c.Status != StatusNotHere {
			t.Errorf("%s: status %q; every chapter 6 claim needs weeks this project cannot read", c.ID, c.Status)
		}
		if strings.Contains(c.Missing, "published no job") || !strings.Contains(c.Missing, "converted/2022-") {
			t.Errorf("%s: missing %q: name the files the release's tree lists", c.ID, c.Missing)
		}
	}
}
