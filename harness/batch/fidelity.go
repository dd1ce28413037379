package batch

import (
	"fmt"
	"math"
	"slices"

	"github.com/memsched/memsched/workloads/jobs"
)

// Fidelity compares a run with the release's per-job outcomes of the same
// scheduler (jobs.Outcomes): per job, our stretch over theirs and the start
// times; in aggregate, the metrics of Summary side by side.
type Fidelity struct {
	Scheduler string `json:"scheduler"` // the release's name: FCFS, LEA-BF, ...
	Jobs      int    `json:"jobs"`      // jobs compared
	// Quantiles of our stretch / their stretch over the jobs.
	P5       float64 `json:"ratio_p5"`
	P25      float64 `json:"ratio_p25"`
	P50      float64 `json:"ratio_p50"`
	P75      float64 `json:"ratio_p75"`
	P95      float64 `json:"ratio_p95"`
	Within1  float64 `json:"within_1pct"`  // share of jobs whose ratio is within 1% of 1
	Within10 float64 `json:"within_10pct"` // within 10%
	// Start times: share of jobs starting in the same second, and the mean
	// absolute difference in seconds.
	SameStart  float64 `json:"same_start"`
	StartDiffS float64 `json:"mean_start_diff_s"`
	// Aggregates over the compared jobs: ours, then the release's.
	MeanStretch      float64   `json:"mean_stretch"`
	TheirMeanStretch float64   `json:"their_mean_stretch"`
	FileWaitS        int64     `json:"file_wait_s"`
	TheirFileWaitS   int64     `json:"their_file_wait_s"`
	CoreTimeS        int64     `json:"core_time_s"`
	TheirCoreTimeS   int64     `json:"their_core_time_s"`
	Ratios           []float64 `json:"-"` // per job, for plots
}

// Compare measures a run's agreement with the release's outcomes of
// scheduler (its name in the release: FCFS, FCFS-BF, EFT, ...).
func Compare(t *jobs.Trace, r *Result, scheduler string, bw float32) (*Fidelity, error) {
	o := t.Outcomes
	if o == nil || !o.Has(scheduler) {
		return nil, fmt.Errorf("trace %s has no release outcome for %s", t.Name, scheduler)
	}
	f := &Fidelity{Scheduler: scheduler}
	var diff float64
	var same int
	var theirStretch float64
	for i := range t.Jobs {
		j, x := &t.Jobs[i], &r.Jobs[i]
		oc, ok := o.Get(scheduler, j.ID)
		if !j.Eval || !ok || !x.Started {
			continue
		}
		ours := Stretch(j, x.End, bw)
		f.Ratios = append(f.Ratios, ours/oc.Stretch)
		f.MeanStretch += ours
		theirStretch += oc.Stretch
		f.FileWaitS += int64(x.Transfer) + int64(x.Wait)
		f.TheirFileWaitS += oc.FileWaitS
		f.CoreTimeS += (x.End - x.Start) * int64(j.Cores)
		f.TheirCoreTimeS += oc.RunS * int64(j.Cores)
		if s, ok := o.Start(scheduler, j, bw); ok {
			diff += math.Abs(float64(x.Start - s))
			if s == x.Start {
				same++
			}
		}
	}
	f.Jobs = len(f.Ratios)
	if f.Jobs == 0 {
		return nil, fmt.Errorf("no job of %s both ran and has an outcome for %s", t.Name, scheduler)
	}
	n := float64(f.Jobs)
	f.MeanStretch /= n
	f.TheirMeanStretch = theirStretch / n
	f.SameStart, f.StartDiffS = float64(same)/n, diff/n
	sorted := slices.Clone(f.Ratios)
	slices.Sort(sorted)
	q := func(p float64) float64 { return sorted[int(math.Round(p*(n-1)))] }
	f.P5, f.P25, f.P50, f.P75, f.P95 = q(0.05), q(0.25), q(0.5), q(0.75), q(0.95)
	for _, x := range f.Ratios {
		if math.Abs(x-1) <= 0.01 {
			f.Within1++
		}
		if math.Abs(x-1) <= 0.1 {
			f.Within10++
		}
	}
	f.Within1 /= n
	f.Within10 /= n
	return f, nil
}
