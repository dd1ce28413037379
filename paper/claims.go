// Package paper holds what memsched is measured against: the published claims of the five
// publications it reproduces (one TOML file per publication in this directory, loaded by
// LoadDir) and the raw measurements of the original V100 runs (reference/, loaded by
// LoadReference).
//
// A claims file is a list of [[claim]] tables, one per published number (a table row with four
// baselines is four claims) or per qualitative statement:
//
//	[[claim]]
//	id          = "thesis-t3.1-hfp-vs-eager"   # unique across all files, stable
//	publication = "thesis2023"                   # see Publications
//	where       = "Table 3.1, Fig. 3.8a"
//	statement   = "HFP improves on EAGER by 106.3% on average ..."
//	workload    = "matmul2d"
//	gpus        = 1
//	memory_mb   = 500                            # per GPU, MiB; 0 = no limit; omitted = not applicable
//	setting     = "real"                         # real | sim | model
//	metric      = "gflops"
//	kind        = "improvement"                  # improvement | value | qualitative
//	scheduler   = "HFP"                          # a display name, see DisplayNames
//	baseline    = "EAGER"
//	published   = 106.3
//	unit        = "%"
//	tolerance   = 5.0                            # absolute, in unit
//	point       = { n = 20 }                     # sweep point of a value claim
//	points      = { n = [5, 10, 15] }            # the exact points an improvement averages
//	nature      = ""                             # "" | definition | implementation-time | platform-input
//	restates    = ""                             # id of the claim whose number this one restates
//	bound       = ""                             # "" | at_least | above | at_most: published is a bound
//	suite       = "suites/thesis/ch3-2d.toml"    # "" when no suite reproduces it yet
//	status      = "reproducible"                 # reproducible | not-yet | not-here
//	missing     = ""                             # for not-yet and not-here: what is missing
//	cause       = ""                             # why it is not reproduced: one of Causes
//	evidence    = ""                             # one line: the run, the authors' file or the number that shows it
//	notes       = ""
//
// A claim that is not reproduced says why with a cause from a fixed list (Causes) and one line
// of evidence. Whether a claim is reproduced depends on the results, so loading cannot require a
// cause; harness/report's tests do, against the checked-in results.
//
// Loading rejects unknown keys, duplicate ids (across all files), unknown publications, kinds,
// settings, statuses, natures and causes, a cause without evidence or evidence without a cause,
// negative tolerances, tolerances wider than MaxTolerance,
// improvement claims a suite reproduces without their points, restatements of unknown claims,
// and claims that lack the fields their kind needs.
package paper

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// sensitiveRe is a sensitive_to entry: kind.option=lo..hi.
var sensitiveRe = regexp.MustCompile(`^[a-z0-9]+\.[a-z_]+=-?[0-9.]+\.\.-?[0-9.]+$`)

// Claim kinds.
const (
	// KindImprovement is the improvement of Scheduler over Baseline on Metric, averaged over a
	// sweep (percent, or a speedup factor when Unit is "x").
	KindImprovement = "improvement"
	// KindValue is one number at one point (Point), e.g. a load or fetch count.
	KindValue = "value"
	// KindQualitative is a statement without a single number to compare; Published may still
	// carry a bound stated in the text (e.g. "at most two times the lower bound").
	KindQualitative = "qualitative"
)

// Claim statuses.
const (
	// StatusReproducible: a suite of the project reproduces the claim (Suite names it).
	StatusReproducible = "reproducible"
	// StatusNotYet: the project cannot reproduce the claim yet (Missing says why).
	StatusNotYet = "not-yet"
	// StatusNotHere: the claim needs what this project cannot have (Missing
	// names it: the files of the weeks a trace claim averages over); Suite,
	// when set, computes the same quantity on what it has, reported apart.
	StatusNotHere = "not-here"
)

// Natures of a numeric claim: what kind of number it is, which decides whether computing it
// can count as a reproduction.
const (
	// NatureResult (the default, "") is a number the experiment computes: reproduced or off.
	NatureResult = ""
	// NatureDefinition is arithmetic on the workload's definition (a working-set size).
	NatureDefinition = "definition"
	// NatureImplementationTime is a timing of the authors' own implementation (scheduling
	// time); ours is shown beside it, never counted as reproducing it.
	NatureImplementationTime = "implementation-time"
	// NaturePlatformInput is a number the suite sets from the paper (the no-I/O ceiling).
	NaturePlatformInput = "platform-input"
)

// Causes of a gap between a claim and its reproduction (Claim.Cause).
const (
	// CauseProtocol: the experiment differs from the publication's (points,
	// sizes, averaging, settings the publication does not give).
	CauseProtocol = "protocol differs"
	// CauseSchedulerCode: memsched's scheduler differs from the code the
	// publication ran.
	CauseSchedulerCode = "scheduler code differs"
	// CauseRuntime: an effect of the runtime (StarPU's memory manager, its
	// driver, real hardware) that the simulator does not model.
	CauseRuntime = "runtime effect not modelled"
	// CauseData: the data the claim needs are not available here (weeks of
	// a trace, the authors' measurements).
	CauseData = "data unavailable"
	// CauseWorkload: the workload is this project's invention where the
	// publication does not give it (sizes, graphs, costs).
	CauseWorkload = "workload invented"
	// CauseAmbiguous: the statement can be read several ways, or cannot be
	// checked at all.
	CauseAmbiguous = "claim ambiguous or unverifiable"
)

// Causes returns the causes a claim may give, in the order reports list them.
func Causes() []string { return slices.Clone(causes) }

// Settings of the published experiment behind a claim.
const (
	SettingReal  = "real"  // measured on real hardware
	SettingSim   = "sim"   // simulated (SimGrid, or the authors' batch simulator)
	SettingModel = "model" // a model computation (toy examples, derived sizes)
)

// Checks of the claims of thesis chapter 5 (harness/report/checks.go):
// ratios to another scheduler or to a bound line (value claims), bounds
// and winners (qualitative claims, reproduced when they hold).
const (
	CheckRatio            = "ratio"
	CheckOverLowerBound   = "over_lower_bound"
	CheckUnderPCIe        = "under_pcie"
	CheckWorstImprovement = "worst_improvement"
	CheckBest             = "best"
	CheckLowest           = "lowest"
	CheckAbovePCIe        = "above_pcie"
	CheckOnlyBelowPCIe    = "only_below_pcie"
)

var (
	checks       = []string{CheckRatio, CheckOverLowerBound, CheckUnderPCIe, CheckWorstImprovement, CheckBest, CheckLowest, CheckAbovePCIe, CheckOnlyBelowPCIe}
	publications = []string{"coloc2021", "ipdps2022", "thesis2023", "multreeprio2022", "heteroprio2019"}
	kinds        = []string{KindImprovement, KindValue, KindQualitative}
	statuses     = []string{StatusReproducible, StatusNotYet, StatusNotHere}
	settings     = []string{SettingReal, SettingSim, SettingModel}
	natures      = []string{NatureDefinition, NatureImplementationTime, NaturePlatformInput}
	causes       = []string{CauseProtocol, CauseSchedulerCode, CauseRuntime, CauseData, CauseWorkload, CauseAmbiguous}

	idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._+-]*$`)
)

// Publications returns the publication keys a claim may name, in the order of the project's
// reading list: COLOC 2021, IPDPS 2022, the 2023 PhD thesis, MulTreePrio (COMPAS 2022) and
// Heteroprio (PeerJ CS 2019).
func Publications() []string { return slices.Clone(publications) }

// displayNames are the scheduler names that claims and suites share. "HFP" is HFP with Ready,
// flip and Belady (the thesis' default); COLOC 2021's 2D "HFP" (Ready + flip) uses the same name
// and says so in its notes. "HFP with sched. time" is HFP counted with its scheduling time but
// without fast start: only the reference data use it.
var displayNames = []string{
	"EAGER", "DMDAR", "MST", "RCM",
	"HFP", "HFP only flip", "HFP only Ready", "HFP only Belady", "HFP without Belady",
	"HFP with sched. time + fast start", "HFP with sched. time", "HFP without Ready",
	"mHFP", "mHFP no sched. time",
	"hMETIS+R", "hMETIS+R no part. time",
	"DARTS", "DARTS+LUF", "DARTS+LUF-3inputs", "DARTS+LUF+OPTI", "DARTS+LUF+OPTI-3inputs",
	"DARTS+LUF threshold",
	"given order",
	// COMPAS 2022 and PeerJ CS 2019 (the PeerJ suites label each push
	// formula of LAHeteroprio by its name alone).
	"HeteroPrio", "MulTreePrio", "MulTreePrio+CP", "CP",
	"Heteroprio", "LAHeteroprio", "LAHeteroprio AUTO", "LAHeteroprio LaRU", "LAHeteroprio MC_StarPU",
	"LAHeteroprio LS_SDH", "LAHeteroprio LS_SDH2", "LAHeteroprio LS_SDHB", "LAHeteroprio LC_SMWB",
	"DMDAS", "LWS", "PaRSEC AP",
	// Thesis chapter 6, batch schedulers (suites/thesis/ch6-*.toml).
	"FCFS", "EFT", "LEA", "LEO", "LEM", "FCFS-BF", "EFT-BF", "LEA-BF", "LEO-BF", "LEM-BF",
}

// DisplayNames returns the scheduler display names used by claims that a suite reproduces and
// by the suites themselves (a claim's Scheduler and Baseline, a suite's scheduler labels).
// Not-yet claims may name other schedulers (DMDAS, LWS, LEA, MulTreePrio, LAHeteroprio, ...).
func DisplayNames() []string { return slices.Clone(displayNames) }

// IsDisplayName reports whether name is one of DisplayNames.
func IsDisplayName(name string) bool { return slices.Contains(displayNames, name) }

// Claim is one published claim. Field names follow the TOML keys (lower case in the files).
type Claim struct {
	ID          string `toml:"id"`
	Publication string `toml:"publication"`
	Where       string `toml:"where"`     // table, figure or section in the publication
	Statement   string `toml:"statement"` // close to the source's words
	Workload    string `toml:"workload"`  // matmul2d, matmul3d, cholesky-taskset, batch-trace, ...
	GPUs        int    `toml:"gpus"`      // 0 when not applicable (CPU-only, batch, mixed)
	// MemoryMB is the memory per GPU in MiB: nil when not applicable (omitted in the file),
	// 0 for "no artificial limit".
	MemoryMB *float64 `toml:"memory_mb"`
	Setting  string   `toml:"setting"` // real | sim | model
	Metric   string   `toml:"metric"`  // gflops, transfers_mb, loads, fetches, sched_time_s, ...
	Kind     string   `toml:"kind"`    // improvement | value | qualitative

	Scheduler string `toml:"scheduler"`
	Baseline  string `toml:"baseline"`
	// Published is the number as published (percent for improvements); nil when the claim has
	// none. It is a pointer because 0 is a legitimate published value.
	Published *float64 `toml:"published"`
	Unit      string   `toml:"unit"`
	// Tolerance is how far (absolute, in Unit) a reproduction may be from Published and still
	// count as reproduced; nil when not given (qualitative claims).
	Tolerance *float64           `toml:"tolerance"`
	Point     map[string]float64 `toml:"point"` // sweep point: n, memory_mb, working_set_mb, ...
	// Points are the exact sweep points an improvement is averaged over, under one key
	// (n, memory_mb): the improvement is computed over exactly these, or not at all.
	Points map[string][]float64 `toml:"points"`
	// Nature says what kind of number the claim is (see the Nature constants).
	Nature string `toml:"nature"`
	// Restates names the claim whose number this one repeats (a thesis restating a paper):
	// it is listed, but counted once, there.
	Restates string `toml:"restates"`
	// Bound makes the published number a bound: at_least (reproduced when
	// value ≥ published − tolerance), above for a strict statement such as
	// "more than half" or "in most cases" (value > published − tolerance),
	// or at_most (value ≤ published + tolerance); "" compares within ±.
	Bound string `toml:"bound"`

	// Check names how the report computes a claim that is neither an
	// improvement nor a value read at a point (one of Checks; see
	// harness/report/checks.go).
	Check string `toml:"check"`

	Suite   string `toml:"suite"`   // suite file reproducing the claim, "" if none yet
	Status  string `toml:"status"`  // reproducible | not-yet | not-here
	Missing string `toml:"missing"` // for not-yet and not-here: what is missing
	// Cause says why the claim is not reproduced (one of Causes), Evidence
	// shows it in one line: a run, a file of the authors, a number.
	Cause    string `toml:"cause"`
	Evidence string `toml:"evidence"`
	// SensitiveTo names the invented workload options (workloads: an
	// Option marked Invented, with its plausible Range) whose range moves
	// the claim's outcome: "kind.option=lo..hi", each end run as the
	// claim's suites are. Sensitivity is the one line of evidence of that
	// check (the outcome at each end, or that no end moves it); a claim
	// on a workload with invented options gives it, SensitiveTo empty when
	// nothing moved.
	SensitiveTo []string `toml:"sensitive_to"`
	Sensitivity string   `toml:"sensitivity"`
	Notes       string   `toml:"notes"` // ambiguities: averaging formula, points, ...

	// File is the claims file the claim was loaded from (set by LoadClaims, not a TOML key).
	File string `toml:"-"`
}

// Memory returns the memory per GPU in MiB and whether the claim gives one; mb == 0 with
// ok == true means no artificial memory limit.
func (c Claim) Memory() (mb float64, ok bool) {
	if c.MemoryMB == nil {
		return 0, false
	}
	return *c.MemoryMB, true
}

// Value returns the published number and whether there is one.
func (c Claim) Value() (float64, bool) {
	if c.Published == nil {
		return 0, false
	}
	return *c.Published, true
}

// Within reports whether a reproduced number is within the claim's tolerance of the published
// one. It is false when the claim has no published number or no tolerance, or x is NaN.
func (c Claim) Within(x float64) bool {
	if c.Published == nil || c.Tolerance == nil || math.IsNaN(x) {
		return false
	}
	tol := *c.Tolerance + 1e-9*math.Abs(*c.Published) // rounding of a computed ratio (0.7/0.1)
	switch c.Bound {
	case BoundAtLeast:
		return x >= *c.Published-tol
	case BoundAbove:
		return x > *c.Published-*c.Tolerance+1e-9*math.Abs(*c.Published)
	case BoundAtMost:
		return x <= *c.Published+tol
	}
	return math.Abs(x-*c.Published) <= tol
}

// MaxTolerance is the widest tolerance the project allows a claim: ±5 points for an
// improvement in percent (±0.05 for a speedup factor "x"), ±10 % of the published value
// otherwise. ok is false when the claim has no published number.
func MaxTolerance(c Claim) (limit float64, ok bool) {
	if c.Published == nil {
		return 0, false
	}
	if c.Kind == KindImprovement {
		if c.Unit == "x" {
			return 0.05, true
		}
		return 5, true
	}
	return 0.1 * math.Abs(*c.Published), true
}

// Bounds of a claim (Claim.Bound).
const (
	BoundAtLeast = "at_least"
	BoundAbove   = "above"
	BoundAtMost  = "at_most"
)

// claimsFile is the layout of one claims file.
type claimsFile struct {
	Claim []Claim `toml:"claim"`
}

// LoadClaims reads and validates the given claims files. Ids must be unique across all of
// them. Every problem found is reported (joined), each naming its file and claim.
func LoadClaims(paths ...string) ([]Claim, error) {
	if len(paths) == 0 {
		return nil, errors.New("paper: no claims files given")
	}
	var all []Claim
	var errs []error
	for _, p := range paths {
		cs, err := decodeFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, cs...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := ValidateClaims(all); err != nil {
		return nil, err
	}
	return all, nil
}

// LoadDir loads every *.toml file directly in dir (not in subdirectories), in name order.
// Use it with the paper/ directory of the repository.
func LoadDir(dir string) ([]Claim, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, fmt.Errorf("paper: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("paper: no *.toml claims files in %s", dir)
	}
	sort.Strings(paths)
	return LoadClaims(paths...)
}

func decodeFile(path string) ([]Claim, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("paper: %w", err)
	}
	return decodeClaims(path, data)
}

// ParseClaims is LoadClaims on one file's content; name is the file's
// name in claims and errors.
func ParseClaims(name string, data []byte) ([]Claim, error) {
	cs, err := decodeClaims(name, data)
	if err != nil {
		return nil, err
	}
	if err := ValidateClaims(cs); err != nil {
		return nil, err
	}
	return cs, nil
}

func decodeClaims(path string, data []byte) ([]Claim, error) {
	var f claimsFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("paper: %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("paper: %s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	if len(f.Claim) == 0 {
		return nil, fmt.Errorf("paper: %s: no [[claim]] tables", path)
	}
	for i := range f.Claim {
		f.Claim[i].File = path
	}
	return f.Claim, nil
}

// ValidateClaims checks a set of claims as LoadClaims does: per-claim rules and ids unique
// across the whole set. It returns all problems joined, or nil.
func ValidateClaims(claims []Claim) error {
	var errs []error
	seen := make(map[string]string, len(claims)) // id -> file
	for i, c := range claims {
		name := fmt.Sprintf("claim %d", i+1)
		if c.ID != "" {
			name = fmt.Sprintf("claim %q", c.ID)
		}
		if c.File != "" {
			name = c.File + ": " + name
		}
		for _, e := range c.problems() {
			errs = append(errs, fmt.Errorf("paper: %s: %s", name, e))
		}
		if c.ID == "" {
			continue
		}
		if prev, dup := seen[c.ID]; dup {
			errs = append(errs, fmt.Errorf("paper: %s: duplicate id (first in %s)", name, orUnnamed(prev)))
			continue
		}
		seen[c.ID] = c.File
	}
	byID := make(map[string]Claim, len(claims))
	for _, c := range claims {
		byID[c.ID] = c
	}
	for _, c := range claims {
		if c.Restates == "" {
			continue
		}
		switch r, ok := byID[c.Restates]; {
		case !ok:
			errs = append(errs, fmt.Errorf("paper: %s: claim %q: restates %q, which is no claim", c.File, c.ID, c.Restates))
		case r.Restates != "":
			errs = append(errs, fmt.Errorf("paper: %s: claim %q: restates %q, itself a restatement; name %q", c.File, c.ID, c.Restates, r.Restates))
		case r.ID == c.ID:
			errs = append(errs, fmt.Errorf("paper: %s: claim %q restates itself", c.File, c.ID))
		}
	}
	return errors.Join(errs...)
}

func orUnnamed(file string) string {
	if file == "" {
		return "the same set"
	}
	return file
}

// Validate checks one claim on its own (everything but id uniqueness).
func (c Claim) Validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, errors.New(p))
	}
	return errors.Join(errs...)
}

func (c Claim) problems() []string {
	var p []string
	req := func(v, key string) {
		if strings.TrimSpace(v) == "" {
			p = append(p, "missing "+key)
		}
	}
	oneOf := func(v, key string, allowed []string) {
		if v == "" {
			p = append(p, "missing "+key)
		} else if !slices.Contains(allowed, v) {
			p = append(p, fmt.Sprintf("%s %q is not one of %s", key, v, strings.Join(allowed, ", ")))
		}
	}

	switch {
	case c.ID == "":
		p = append(p, "missing id")
	case !idPattern.MatchString(c.ID):
		p = append(p, fmt.Sprintf("id %q must be lower case letters, digits and . _ + -", c.ID))
	}
	oneOf(c.Publication, "publication", publications)
	req(c.Where, "where")
	req(c.Statement, "statement")
	req(c.Workload, "workload")
	oneOf(c.Setting, "setting", settings)
	oneOf(c.Kind, "kind", kinds)
	oneOf(c.Status, "status", statuses)

	if c.GPUs < 0 {
		p = append(p, fmt.Sprintf("gpus %d is negative", c.GPUs))
	}
	if c.MemoryMB != nil && !(*c.MemoryMB >= 0 && !math.IsInf(*c.MemoryMB, 0)) {
		p = append(p, fmt.Sprintf("memory_mb %v must be >= 0 (0 = no limit)", *c.MemoryMB))
	}
	if c.Published != nil && (math.IsNaN(*c.Published) || math.IsInf(*c.Published, 0)) {
		p = append(p, fmt.Sprintf("published %v is not a finite number", *c.Published))
	}
	if c.Tolerance != nil && !(*c.Tolerance >= 0 && !math.IsInf(*c.Tolerance, 0)) {
		p = append(p, fmt.Sprintf("tolerance %v must be >= 0", *c.Tolerance))
	}
	for k, v := range c.Point {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			p = append(p, fmt.Sprintf("point.%s %v is not a finite number", k, v))
		}
	}
	if c.Published != nil {
		req(c.Unit, "unit (published is set)")
	}
	if lim, ok := MaxTolerance(c); ok && c.Tolerance != nil && *c.Tolerance > lim*(1+1e-9) {
		p = append(p, fmt.Sprintf("tolerance %g is wider than the project's limit %g (improvements ±5 points, other values ±10 %% of the published value)", *c.Tolerance, lim))
	}
	if c.Nature != "" && !slices.Contains(natures, c.Nature) {
		p = append(p, fmt.Sprintf("nature %q is not one of %s (or empty: a result)", c.Nature, strings.Join(natures, ", ")))
	}
	if len(c.Points) > 1 {
		p = append(p, "points has several keys; name the points under one key (n or memory_mb)")
	}
	for k, vs := range c.Points {
		if len(vs) == 0 {
			p = append(p, fmt.Sprintf("points.%s is empty", k))
		}
	}
	if c.Bound != "" && c.Bound != BoundAtLeast && c.Bound != BoundAbove && c.Bound != BoundAtMost {
		p = append(p, fmt.Sprintf("bound %q is not one of %s, %s, %s (or empty)", c.Bound, BoundAtLeast, BoundAbove, BoundAtMost))
	}

	switch c.Kind {
	case KindImprovement:
		req(c.Scheduler, "scheduler (kind improvement)")
		req(c.Baseline, "baseline (kind improvement)")
		req(c.Metric, "metric (kind improvement)")
		if c.Published == nil {
			p = append(p, "missing published (kind improvement)")
		}
		if c.Tolerance == nil {
			p = append(p, "missing tolerance (kind improvement)")
		}
		// A batch claim (thesis ch. 6) is computed over every week its suite
		// runs (the weeks the release published), which its notes name.
		if c.Status == StatusReproducible && c.Restates == "" && len(c.Points) == 0 && !WholeSuites(c.Publication) && c.Workload != "batch-trace" {
			p = append(p, "missing points (kind improvement): name the exact points it averages, e.g. points = { n = [5, 10, 15] }")
		}
	case KindValue:
		req(c.Metric, "metric (kind value)")
		if c.Published == nil {
			p = append(p, "missing published (kind value)")
		}
		if c.Tolerance == nil {
			p = append(p, "missing tolerance (kind value)")
		}
	}

	switch c.Status {
	case StatusReproducible:
		if c.Suite == "" {
			p = append(p, "missing suite (status reproducible)")
		}
		if c.Missing != "" {
			p = append(p, "missing must be empty when status is reproducible")
		}
	case StatusNotYet:
		req(c.Missing, "missing (status not-yet: say what is missing)")
	case StatusNotHere:
		req(c.Missing, "missing (status not-here: name the files or data it needs)")
	}
	if c.Cause != "" && !slices.Contains(causes, c.Cause) {
		p = append(p, fmt.Sprintf("cause %q is not one of: %s", c.Cause, strings.Join(causes, "; ")))
	}
	switch {
	case c.Cause != "" && strings.TrimSpace(c.Evidence) == "":
		p = append(p, "cause without evidence: give one line (a run, a file of the authors, a number)")
	case c.Cause == "" && c.Evidence != "":
		p = append(p, "evidence without a cause")
	case strings.Contains(c.Evidence, "\n"):
		p = append(p, "evidence must be one line")
	}
	for _, o := range c.SensitiveTo {
		if !sensitiveRe.MatchString(o) {
			p = append(p, fmt.Sprintf("sensitive_to %q: want kind.option=lo..hi (an invented option of workloads and its declared range)", o))
		}
	}
	switch {
	case len(c.SensitiveTo) > 0 && strings.TrimSpace(c.Sensitivity) == "":
		p = append(p, "sensitive_to without sensitivity: give one line of evidence (the outcome at each end of the range)")
	case strings.Contains(c.Sensitivity, "\n"):
		p = append(p, "sensitivity must be one line")
	}
	if c.Check != "" && !slices.Contains(checks, c.Check) {
		p = append(p, fmt.Sprintf("check %q is not one of %s", c.Check, strings.Join(checks, ", ")))
	}
	if c.Suite != "" && (!strings.HasPrefix(c.Suite, "suites/") || !strings.HasSuffix(c.Suite, ".toml")) {
		p = append(p, fmt.Sprintf("suite %q must be a suites/....toml path relative to the repository root", c.Suite))
	}
	return p
}

// WholeSuites says whether a publication's claims are computed over every
// point of the suites they name (a glob): the CPU+GPU papers average over
// configurations, applications and test cases, which their suite files
// declare, rather than over points of one axis.
func WholeSuites(publication string) bool {
	return publication == "multreeprio2022" || publication == "heteroprio2019"
}
