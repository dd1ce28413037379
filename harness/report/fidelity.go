package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/schedulers"
)

// Pair is one measured point beside its simulated counterpart.
type Pair struct {
	N         int
	GPUs      int
	MemoryMB  float64
	Measured  float64 // GFlop/s
	Simulated float64
	// Transfers per iteration (MiB): the reference sums 11 iterations, so
	// its volume is divided by 11. NaN when the reference has none.
	MeasuredMiB, SimulatedMiB float64
}

// Fidelity compares one label's simulated GFlop/s with one reference series.
type Fidelity struct {
	Figure        string
	Label         string
	RefName       string // the reference's scheduler label
	Pairs         []Pair
	MAPE          float64 // mean absolute percentage error of GFlop/s, %
	Bias          float64 // mean signed percentage error, %: > 0 means the simulator is optimistic
	TransfersN    int
	TransfersMAPE float64 // NaN when no pair has measured transfers
	Unmatched     int     // measured points without a simulated counterpart
}

var refCache sync.Map // path -> []paper.RefPoint

// LoadReference reads the reference CSV once per process. A results file
// (.jsonl) is a reference too: its runs are the measured points, each series
// the suite that wrote them and each scheduler a label (real runs of the
// CUDA executor, beside their simulated twin).
func LoadReference(path string) ([]paper.RefPoint, error) {
	if v, ok := refCache.Load(path); ok {
		return v.([]paper.RefPoint), nil
	}
	var pts []paper.RefPoint
	var err error
	if IsResultsReference(path) {
		pts, err = resultsReference(path)
	} else {
		pts, err = paper.LoadReference(path)
	}
	if err != nil {
		return nil, err
	}
	refCache.Store(path, pts)
	return pts, nil
}

// IsResultsReference says whether a reference is a results file of
// memsched's own (real) runs rather than the papers' measurements.
func IsResultsReference(path string) bool { return strings.HasSuffix(path, ".jsonl") }

func resultsReference(path string) ([]paper.RefPoint, error) {
	recs, err := LoadRecords(path)
	if err != nil {
		return nil, err
	}
	var pts []paper.RefPoint
	for _, r := range recs {
		if r.Error != "" || r.Suite == "" || r.Label == "" {
			continue
		}
		n, ok := r.Point["n"].(float64) // the sweep's coordinate (JSON number)
		if !ok {
			continue
		}
		pts = append(pts, paper.RefPoint{Figure: r.Suite, Workload: r.Workload, Scheduler: r.Label, GPUs: r.GPUs,
			MemoryMB: float64(r.MemoryBytes) / (1 << 20), N: int(n), WorkingSetMiB: r.WorkingSet, GFlops: r.GFlops,
			GFlopsDev: math.NaN(), TransfersMB: math.NaN(), Source: path})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no successful run of a suite to compare with", path)
	}
	return pts, nil
}

// CheckReferences verifies that a suite's reference series exist in the
// reference CSV and that their label mappings name schedulers of the
// series, so mistakes show before a sweep rather than after.
func CheckReferences(s *suite.Suite) error {
	if len(s.Report.References) == 0 {
		return nil
	}
	pts, err := LoadReference(s.Path(s.Report.ReferenceCSV))
	if err != nil {
		return fmt.Errorf("%s: [report] reference_csv: %w", s.File, err)
	}
	figures := map[string]map[string]bool{}
	for _, p := range pts {
		if figures[p.Figure] == nil {
			figures[p.Figure] = map[string]bool{}
		}
		figures[p.Figure][p.Scheduler] = true
		figures[p.Figure][p.DisplayScheduler()] = true
	}
	var errs []string
	for _, r := range s.Report.References {
		scheds, ok := figures[r.Figure]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s:%d: reference figure %q is not a series of %s%s; series ids are listed in paper/reference/README.md", s.File, r.Line, r.Figure, s.Report.ReferenceCSV, schedulers.Suggest(r.Figure, slices.Sorted(maps.Keys(figures)))))
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
			if !scheds[k] {
				errs = append(errs, fmt.Sprintf("%s:%d: reference series %s has no scheduler %q%s; it has: %s", s.File, r.LabelsLine, r.Figure, k, schedulers.Suggest(k, slices.Sorted(maps.Keys(scheds))), strings.Join(slices.Sorted(maps.Keys(scheds)), ", ")))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

// Fidelity compares the set with the suite's reference series: for each
// measured point of a mapped scheduler, the simulated point with the same
// N, GPUs and memory per GPU.
func (s *Set) Fidelity() ([]Fidelity, error) {
	if s.Suite == nil || len(s.Suite.Report.References) == 0 {
		return nil, nil
	}
	pts, err := LoadReference(s.Suite.Path(s.Suite.Report.ReferenceCSV))
	if err != nil {
		return nil, err
	}
	var out []Fidelity
	for _, ref := range s.Suite.Report.References {
		byLabel := map[string]*Fidelity{}
		var order []string
		for _, rp := range pts {
			if rp.Figure != ref.Figure {
				continue
			}
			label := refLabel(ref, rp, s.Labels)
			if label == "" {
				continue
			}
			f := byLabel[label]
			if f == nil {
				f = &Fidelity{Figure: ref.Figure, Label: label, RefName: rp.Scheduler}
				byLabel[label] = f
				order = append(order, label)
			}
			p := s.matchPoint(rp)
			if p == nil || s.Cell(label, p).Stat("gflops").N == 0 {
				f.Unmatched++
				continue
			}
			st := s.Cell(label, p).Stat("gflops")
			pair := Pair{N: rp.N, GPUs: rp.GPUs, MemoryMB: rp.MemoryMB, Measured: rp.GFlops * nominalRatio(s.Cell(label, p), p), Simulated: st.Mean,
				MeasuredMiB: math.NaN(), SimulatedMiB: s.Cell(label, p).Stat("transfers_mib").Mean}
			if rp.HasTransfers() {
				pair.MeasuredMiB = rp.TransfersPerIteration()
			}
			f.Pairs = append(f.Pairs, pair)
		}
		for _, l := range order {
			f := byLabel[l]
			f.summarise()
			out = append(out, *f)
		}
	}
	return out, nil
}

// nominalRatio converts a sparse run's measured GFlop/s to the flops its
// tasks did: sgemm counts keep·N² tasks, not the tasks it created
// (paper/reference/README.md, "Sparse GFlop/s"), so the measured value is
// scaled by created/nominal (1 for every other workload).
func nominalRatio(c *Cell, p *Point) float64 {
	keep, ok := p.Coords["keep"]
	if !ok || c == nil || len(c.Records) == 0 || toFloat(keep) <= 0 || p.N <= 0 {
		return 1
	}
	return float64(c.Records[0].Tasks) / (toFloat(keep) * float64(p.N*p.N))
}

// refLabel maps a reference point to a suite label: through the suite's
// label map (keyed by the reference's label or its display name), or, with
// no map, by display name.
func refLabel(ref suite.Reference, rp paper.RefPoint, labels []string) string {
	if len(ref.Labels) > 0 {
		if l, ok := ref.Labels[rp.Scheduler]; ok {
			return l
		}
		return ref.Labels[rp.DisplayScheduler()]
	}
	d := rp.DisplayScheduler()
	for _, l := range labels {
		if l == d {
			return l
		}
	}
	return ""
}

func (s *Set) matchPoint(rp paper.RefPoint) *Point {
	for _, p := range s.Points {
		if p.N != rp.N || p.GPUs != rp.GPUs {
			continue
		}
		if rp.MemoryMB == 0 {
			if m, ok := p.Coords["memory_mb"]; !ok || toFloat(m) != 0 {
				continue
			}
		} else if math.Abs(p.MemMiB-rp.MemoryMB) > 0.5 {
			continue
		}
		return p
	}
	return nil
}

func (f *Fidelity) summarise() {
	sort.Slice(f.Pairs, func(i, j int) bool { return f.Pairs[i].N < f.Pairs[j].N })
	f.MAPE, f.Bias, f.TransfersMAPE = math.NaN(), math.NaN(), math.NaN()
	var ape, bias, tape float64
	for _, p := range f.Pairs {
		e := (p.Simulated - p.Measured) / p.Measured
		ape += math.Abs(e)
		bias += e
		if !math.IsNaN(p.MeasuredMiB) && p.MeasuredMiB > 0 {
			tape += math.Abs(p.SimulatedMiB-p.MeasuredMiB) / p.MeasuredMiB
			f.TransfersN++
		}
	}
	if n := float64(len(f.Pairs)); n > 0 {
		f.MAPE, f.Bias = ape/n*100, bias/n*100
	}
	if f.TransfersN > 0 {
		f.TransfersMAPE = tape / float64(f.TransfersN) * 100
	}
}

// ReferenceSeries returns the measured points of a suite's reference
// series per suite label, for figures.
func ReferenceSeries(s *suite.Suite) (map[string][]paper.RefPoint, error) {
	out := map[string][]paper.RefPoint{}
	if s == nil || len(s.Report.References) == 0 {
		return out, nil
	}
	pts, err := LoadReference(s.Path(s.Report.ReferenceCSV))
	if err != nil {
		return nil, err
	}
	for _, ref := range s.Report.References {
		for _, rp := range pts {
			if rp.Figure == ref.Figure {
				if l := refLabel(ref, rp, s.Labels()); l != "" {
					out[l] = append(out[l], rp)
				}
			}
		}
	}
	for _, l := range slices.Sorted(maps.Keys(out)) {
		sort.Slice(out[l], func(i, j int) bool { return out[l][i].N < out[l][j].N })
	}
	return out, nil
}
