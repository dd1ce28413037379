// Package report turns results files into tables (per-point statistics,
// average improvement over a baseline, published beside reproduced numbers,
// fidelity against the measured V100 points), figures and the reproduction
// report.
//
// Formulas:
//   - per point and label: mean and sample standard deviation over the
//     successful repetitions; transfers (MiB) = (bytes_h2d + bytes_d2d)/2^20;
//   - improvement of A over the baseline B on the points where both ran:
//     ratio of means, mean_p(A_p)/mean_p(B_p) − 1 (the papers' formula: it
//     gives 8.52%, 9.40% and 75.26% on the V100 data), or the mean of
//     per-point ratios, mean_p(A_p/B_p) − 1; inverted (B over A) for metrics
//     where lower is better;
//   - claims: improvement claims recomputed so over the claim's suite, value
//     claims read at the claim's point; reproduced when within tolerance;
//   - fidelity: MAPE = mean |sim − measured|/measured of GFlop/s over the
//     reference points with the same N, GPUs and memory.
//
// Figures (WriteFigures) plot a metric against the working set or the
// memory with the papers' bounds (see bounds); OrderPlot draws the
// processing order of a trace (thesis Figs. 2.7-2.10).
package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/harness/sweep"
)

// Metric is one quantity of a record (run.Metric: the one list of them).
type Metric = run.Metric

const mib = float64(hardware.MiB)

// Metrics by name.
var Metrics = run.Metrics

// tableMetrics are the per-point tables of a report, in order.
var tableMetrics = []string{"gflops", "transfers_mib", "h2d_mib", "d2d_mib", "loads", "makespan_s", "sched_time_s"}

// Stat summarises one metric over repetitions.
type Stat struct {
	Mean, Std float64 // Std: sample standard deviation, 0 for one value
	N         int
}

func summarise(xs []float64) Stat {
	switch len(xs) {
	case 0:
		return Stat{Mean: math.NaN(), Std: math.NaN()}
	case 1:
		return Stat{Mean: xs[0], N: 1}
	}
	m, s := stat.MeanStdDev(xs, nil)
	return Stat{Mean: m, Std: s, N: len(xs)}
}

// Point is one sweep point of a results set.
type Point struct {
	ID     string         // canonical coordinates
	Panel  string         // coordinates other than the x axis, e.g. "gpus=2"; "" when one panel
	Coords map[string]any // the sweep coordinates
	X      float64        // working set or memory per GPU, MiB
	N      int
	GPUs   int
	MemMiB float64 // per GPU (the actual cap)
	WSMiB  float64
	Flops  float64 // total flops of the workload (from a successful record)
}

// Cell holds one label's records at one point.
type Cell struct {
	Records []run.Record // successful ones
	Errors  []string     // error rows' messages
	stats   map[string]Stat
}

// Stat returns a metric's statistics over the cell's successful records.
func (c *Cell) Stat(metric string) Stat {
	if c == nil {
		return summarise(nil)
	}
	if s, ok := c.stats[metric]; ok {
		return s
	}
	m := Metrics[metric]
	xs := make([]float64, len(c.Records))
	for i, r := range c.Records {
		xs[i] = m.Get(r)
	}
	s := summarise(xs)
	if c.stats == nil {
		c.stats = map[string]Stat{}
	}
	c.stats[metric] = s
	return s
}

// Set is the results of one suite (or of one results file without a suite),
// grouped by label and point.
type Set struct {
	Suite    *suite.Suite // nil without a suite
	Name     string
	Title    string
	Files    []string
	Labels   []string
	Baseline string
	Metric   string
	XAxis    string // "working_set" or "memory"
	Points   []*Point
	Cells    map[string]map[string]*Cell // label -> point id -> cell
	Expected int                         // runs of the suite (0 without a suite)
	Present  int                         // of those, with a record
	Stale    int                         // records of this suite whose key the suite no longer produces
	Errors   int
	Preview  bool // from a quick sweep: titles say so
	// FigureFormats are the extensions figures are written as (nil:
	// FigureFormats, all three).
	FigureFormats []string
	configs       map[string]*pointRun // point id -> its workload spec and platform (checks.go)
}

// commit names the code of a record: its commit, "-dirty" when the tree had
// uncommitted changes.
func commit(r run.Record) string {
	c := r.Provenance.GitSHA
	if c == "" {
		c = "unknown"
	}
	if len(c) > 12 {
		c = c[:12]
	}
	if r.Provenance.Dirty {
		c += "-dirty"
	}
	return c
}

// Commits lists the commits the set's records were made by, sorted.
func (s *Set) Commits() []string {
	seen := map[string]bool{}
	for _, byPoint := range s.Cells {
		for _, c := range byPoint {
			for _, r := range c.Records {
				seen[commit(r)] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// MixedCells describes the cells whose records (the repetitions of one
// label at one point) come from more than one commit: a sweep reuses
// records across commits that change no version, so a cell can mix them.
func (s *Set) MixedCells() []string {
	var out []string
	for _, label := range s.Labels {
		for _, p := range s.Points {
			c := s.Cell(label, p)
			if c == nil {
				continue
			}
			seen := map[string]bool{}
			for _, r := range c.Records {
				seen[commit(r)] = true
			}
			if len(seen) > 1 {
				out = append(out, fmt.Sprintf("%s at %s (%s)", label, describePoint(p), strings.Join(slices.Sorted(maps.Keys(seen)), ", ")))
			}
		}
	}
	return out
}

// Cell returns the cell of a label at a point (nil when absent).
func (s *Set) Cell(label string, p *Point) *Cell { return s.Cells[label][p.ID] }

// Panels lists the panel names in order.
func (s *Set) Panels() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.Points {
		if !seen[p.Panel] {
			seen[p.Panel] = true
			out = append(out, p.Panel)
		}
	}
	return out
}

// PanelPoints returns the points of one panel, in x order.
func (s *Set) PanelPoints(panel string) []*Point {
	var out []*Point
	for _, p := range s.Points {
		if p.Panel == panel {
			out = append(out, p)
		}
	}
	return out
}

// LoadRecords reads results files. A file holding a key twice is refused
// (sweep.Duplicates names them); a key in several files keeps its last
// successful record (or its last error row when it never succeeded).
func LoadRecords(files ...string) ([]run.Record, error) {
	recs, _, err := LoadSourced(files...)
	return recs, err
}

// LoadSourced is LoadRecords that also returns each record's file.
func LoadSourced(files ...string) ([]run.Record, []string, error) {
	recs, src, _, err := LoadAt(files...)
	return recs, src, err
}

// LoadAt is LoadSourced with each record's place, "file:line", for errors
// about it (CheckSuite).
func LoadAt(files ...string) ([]run.Record, []string, []string, error) {
	var out []run.Record
	var src, at []string
	index := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, ".toml") {
			return nil, nil, nil, fmt.Errorf("%s is a suite, not a results file: give it with --suite, and the results file (.jsonl) memsched sweep wrote", f)
		}
		if _, err := os.Stat(f); err != nil {
			return nil, nil, nil, fmt.Errorf("%w; run memsched sweep first", err)
		}
		// An interrupted last line is ignored here; the next sweep cuts it.
		lines, _, err := sweep.ReadLines(f)
		if err != nil {
			return nil, nil, nil, err
		}
		if err := sweep.Duplicates(f, lines); err != nil {
			return nil, nil, nil, err
		}
		for _, l := range lines {
			r := l.Rec
			if i, ok := index[r.Key]; ok {
				if r.Error == "" || out[i].Error != "" {
					out[i], src[i], at[i] = r, f, fmt.Sprintf("%s:%d", f, l.N)
				}
				continue
			}
			index[r.Key] = len(out)
			out = append(out, r)
			src = append(src, f)
			at = append(at, fmt.Sprintf("%s:%d", f, l.N))
		}
	}
	return out, src, at, nil
}

// CheckSuite refuses a record whose key is one of suite s's runs while
// the record names another scheduler, scheduler version, repetition, seed
// or executor than that run: its key and its content disagree (an edited
// or mixed-up line), and a report would file its numbers under the run's
// label. at gives each record's place (LoadAt).
func CheckSuite(s *suite.Suite, recs []run.Record, at []string) error {
	if s == nil {
		return nil
	}
	expected := map[string]suite.Run{}
	for _, r := range s.Runs() {
		expected[r.Key] = r
	}
	for i, r := range recs {
		er, ok := expected[r.Key]
		if !ok {
			continue
		}
		var bad []string
		executor := r.Executor
		if executor == "" {
			executor = "sim"
		}
		wantExec := er.Executor
		if wantExec == "" {
			wantExec = "sim"
		}
		if r.Scheduler != er.Scheduler && !strings.HasPrefix(er.Scheduler, "exec:") {
			bad = append(bad, fmt.Sprintf("scheduler %q, not %q", r.Scheduler, er.Scheduler))
		}
		if r.SchedVer != er.SchedulerVersion && !strings.HasPrefix(er.Scheduler, "exec:") {
			bad = append(bad, fmt.Sprintf("scheduler_version %d, not %d", r.SchedVer, er.SchedulerVersion))
		}
		if r.Rep != er.Rep {
			bad = append(bad, fmt.Sprintf("rep %d, not %d", r.Rep, er.Rep))
		}
		if r.Seed != er.Seed {
			bad = append(bad, fmt.Sprintf("seed %d, not %d", r.Seed, er.Seed))
		}
		if executor != wantExec {
			bad = append(bad, fmt.Sprintf("executor %q, not %q", executor, wantExec))
		}
		if len(bad) > 0 {
			where := ""
			if i < len(at) {
				where = at[i] + ": "
			}
			return fmt.Errorf("%srecord of key %s disagrees with that run of suite %s (%s, label %s): it names %s; the line was edited or mixed up: delete it (the run is redone on the next sweep)",
				where, r.Key, s.Name, s.File, er.Label, strings.Join(bad, ", "))
		}
	}
	return nil
}

// NewSet groups records. With a suite, records are matched by key: they
// take the suite's current labels and coordinates, records of the suite
// with unknown keys are counted as stale and ignored, and records of other
// suites are ignored. Without one, records are grouped by their own labels.
// src names each record's file (nil when unknown); Files lists those that
// contributed, sorted.
func NewSet(s *suite.Suite, recs []run.Record, src []string) *Set {
	set := &Set{Suite: s, Cells: map[string]map[string]*Cell{}, Metric: "gflops", XAxis: "working_set"}
	seenFile := map[string]bool{}
	var expected map[string]suite.Run
	if s != nil {
		set.Name, set.Title = s.Name, s.Title
		set.Labels = s.Labels()
		set.Baseline, set.Metric, set.XAxis = s.Report.Baseline, s.Report.Metric, s.Report.X
		expected = map[string]suite.Run{}
		for _, r := range s.Runs() {
			expected[r.Key] = r
		}
		set.Expected = len(expected)
	}
	points := map[string]*Point{}
	seenLabel := map[string]bool{}
	for _, l := range set.Labels {
		seenLabel[l] = true
	}
	for i, r := range recs {
		if s != nil {
			er, ok := expected[r.Key]
			if !ok {
				if r.Suite == s.Name {
					set.Stale++
				}
				continue
			}
			set.Present++
			r.Label, r.Point, r.Suite = er.Label, er.Point, er.Suite
		} else {
			if set.Name == "" {
				set.Name = r.Suite
			}
			if r.Label == "" {
				r.Label = r.Scheduler
			}
			if !seenLabel[r.Label] {
				seenLabel[r.Label] = true
				set.Labels = append(set.Labels, r.Label)
			}
		}
		if len(src) == len(recs) && !seenFile[src[i]] {
			seenFile[src[i]] = true
			set.Files = append(set.Files, src[i])
		}
		id := pointID(r)
		p := points[id]
		if p == nil {
			p = &Point{ID: id, Coords: coords(r), GPUs: r.GPUs, MemMiB: float64(r.MemoryBytes) / mib, WSMiB: r.WorkingSet}
			if n, ok := p.Coords["n"]; ok {
				p.N = int(toFloat(n))
			}
			points[id] = p
		}
		if p.Flops == 0 && r.Error == "" {
			p.Flops = r.GFlops * 1e9 * r.MakespanS
		}
		if set.Cells[r.Label] == nil {
			set.Cells[r.Label] = map[string]*Cell{}
		}
		c := set.Cells[r.Label][id]
		if c == nil {
			c = &Cell{}
			set.Cells[r.Label][id] = c
		}
		if r.Error != "" {
			c.Errors = append(c.Errors, r.Error)
			set.Errors++
		} else {
			c.Records = append(c.Records, r)
		}
	}
	if set.Title == "" {
		set.Title = set.Name
	}
	if set.Baseline == "" && len(set.Labels) > 0 {
		set.Baseline = set.Labels[0]
	}
	xKey := "n"
	if set.XAxis == "memory" {
		xKey = "memory_mb"
	}
	for _, p := range points {
		p.X = p.WSMiB
		if set.XAxis == "memory" {
			p.X = p.MemMiB
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(p.Coords)) {
			if k == xKey || k == "memory_bytes" && xKey == "memory_mb" {
				continue
			}
			if len(distinct(points, k)) > 1 {
				parts = append(parts, k+"="+fmtCoord(p.Coords[k]))
			}
		}
		p.Panel = strings.Join(parts, " ")
		set.Points = append(set.Points, p)
	}
	// In name order: a file's line order is the order its runs finished,
	// which would otherwise decide the order here.
	sort.Strings(set.Files)
	sort.Slice(set.Points, func(i, j int) bool {
		a, b := set.Points[i], set.Points[j]
		if a.Panel != b.Panel {
			return a.Panel < b.Panel
		}
		if a.X != b.X {
			return a.X < b.X
		}
		return a.ID < b.ID
	})
	return set
}

func distinct(points map[string]*Point, key string) map[string]bool {
	out := map[string]bool{}
	for _, p := range points {
		out[fmt.Sprint(p.Coords[key])] = true
	}
	return out
}

// pointID identifies a record's point: its sweep coordinates, or, for
// records made outside a sweep, its workload and platform size.
func pointID(r run.Record) string {
	if len(r.Point) > 0 {
		b, _ := json.Marshal(normalise(r.Point)) // map keys are sorted
		return string(b)
	}
	return fmt.Sprintf("%s|%d|%d", r.Workload, r.GPUs, r.MemoryBytes)
}

func coords(r run.Record) map[string]any {
	if len(r.Point) > 0 {
		return normalise(r.Point)
	}
	return map[string]any{"gpus": r.GPUs, "memory_bytes": r.MemoryBytes, "workload": r.Workload}
}

// normalise makes numbers float64, as they are after a JSON round trip, so
// points from a suite and from a file compare equal.
func normalise(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case int:
			out[k] = float64(x)
		case int64:
			out[k] = float64(x)
		default:
			out[k] = v
		}
	}
	return out
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return math.NaN()
}

// Executors names what made the set's records, for figure titles: the
// simulator, real GPUs (the CUDA executor) or StarPU; "" without records.
func (s *Set) Executors() string {
	names := map[string]string{"sim": "simulated", "": "simulated", "cuda": "real runs", "starpu": "StarPU+SimGrid"}
	seen := map[string]bool{}
	var out []string
	for _, byPoint := range s.Cells {
		for _, c := range byPoint {
			for _, r := range c.Records {
				n, ok := names[r.Executor]
				if !ok {
					n = r.Executor
				}
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
