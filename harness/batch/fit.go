package batch

import (
	"fmt"
	"math"
	"strings"

	sched "github.com/memsched/memsched/schedulers/batch"
)

// ReleaseScheduler maps a scheduler of the release's outputs (FCFS, LEA-BF,
// ...) to ours with the parameters the release ran: LEO keeps its switched
// multipliers for the rest of a scan (sticky).
func ReleaseScheduler(name string) (string, map[string]string, error) {
	base, bf := strings.CutSuffix(name, "-BF")
	p := map[string]string{}
	if bf {
		p["backfill"] = "true"
	}
	if base == "LEO" {
		p["sticky"] = "true"
	}
	n := strings.ToLower(base)
	if _, err := sched.Lookup(n); err != nil {
		return "", nil, fmt.Errorf("release scheduler %q: %w", name, err)
	}
	return n, p, nil
}

// FitRow is one walltime factor's agreement with the release, per
// scheduler: the aggregate error (|ln ours/theirs| of the mean stretch plus
// that of the total file wait, the quantities of the chapter's tables and
// figures) and the share of jobs within 10% of the release's stretch.
type FitRow struct {
	Factor    float64
	Train     []float64 // aggregate error
	TrainJobs []float64 // share within 10%
	Test      []float64 // only for the chosen factor and 1
	TestJobs  []float64
}

// FitResult is a walltime-factor fit.
type FitResult struct {
	Train, Test string
	Schedulers  []string
	Rows        []FitRow
	Best        float64
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// FitWalltime chooses the walltime factor (the requested walltimes the
// release's outputs lost) that minimises the aggregate error against the
// release (mean stretch and total file wait, mean over schedulers) on the
// training week, and measures it on the test week. base gives the cluster, the rules and the
// other workload choices.
func FitWalltime(base Setup, train, test string, schedulers []string, factors []float64) (*FitResult, error) {
	res := &FitResult{Train: train, Test: test, Schedulers: schedulers}
	agree := func(week string, f float64) ([]float64, []float64, error) {
		var out, jobs []float64
		for _, name := range schedulers {
			s := base
			s.Workload.Kind, s.Workload.Week, s.Workload.WalltimeFactor = "rackham", week, f
			var err error
			if s.Scheduler, s.Params, err = ReleaseScheduler(name); err != nil {
				return nil, nil, err
			}
			rep, _, _, err := Execute(s)
			if err != nil {
				return nil, nil, err
			}
			fi := rep.Fidelity
			if fi == nil {
				return nil, nil, fmt.Errorf("week %s has no release outcome for %s", week, name)
			}
			e := math.Abs(math.Log(fi.MeanStretch/fi.TheirMeanStretch)) + math.Abs(math.Log(float64(fi.FileWaitS)/float64(fi.TheirFileWaitS)))
			out = append(out, e)
			jobs = append(jobs, fi.Within10)
		}
		return out, jobs, nil
	}
	best := math.Inf(1)
	for _, f := range factors {
		a, j, err := agree(train, f)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, FitRow{Factor: f, Train: a, TrainJobs: j})
		if m := mean(a); m < best {
			best, res.Best = m, f
		}
	}
	for i := range res.Rows {
		if f := res.Rows[i].Factor; f == res.Best || f == 1 {
			a, j, err := agree(test, f)
			if err != nil {
				return nil, err
			}
			res.Rows[i].Test, res.Rows[i].TestJobs = a, j
		}
	}
	return res, nil
}

func (r *FitResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "walltime factor against the release's outcomes (%s): aggregate error |ln(mean stretch ratio)| + |ln(file-wait ratio)|, and the share of jobs within 10%% of its stretch\n", strings.Join(r.Schedulers, ", "))
	fmt.Fprintf(&b, "%8s  %-32s  %s\n", "factor", "train "+r.Train+": error, jobs", "test "+r.Test+": error, jobs")
	for _, row := range r.Rows {
		test := ""
		if row.Test != nil {
			test = fmt.Sprintf("%.3f %v, %v", mean(row.Test), fmtShares(row.Test), fmtShares(row.TestJobs))
		}
		mark := " "
		if row.Factor == r.Best {
			mark = "*"
		}
		fmt.Fprintf(&b, "%7g%s  %-32s  %s\n", row.Factor, mark, fmt.Sprintf("%.3f %v, %v", mean(row.Train), fmtShares(row.Train), fmtShares(row.TrainJobs)), test)
	}
	fmt.Fprintf(&b, "chosen: walltime_factor = %g (train %s, test %s)\n", r.Best, r.Train, r.Test)
	return b.String()
}

func fmtShares(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = fmt.Sprintf("%.3f", v)
	}
	return "[" + strings.Join(s, " ") + "]"
}
