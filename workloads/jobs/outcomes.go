package jobs

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// Outcome is one job's result in the released simulator for one scheduler,
// as its print_csv writes it (src/print_functions.c).
type Outcome struct {
	Stretch   float64 // (end − submit) / (duration + size/0.1), a C float
	RunS      int64   // end − start: the load or wait plus the run, capped at the walltime
	FileWaitS int64   // transfer time + time waiting for a load by a co-located job
}

// Outcomes are the release's per-job results of one trace, for several
// schedulers (named as the thesis names them: FCFS, FCFS-BF, EFT, ...).
type Outcomes struct {
	Schedulers []string
	// Phase is the second, mod 30, on which the release's passes fell (its
	// throttle keeps them on a 30 s grid anchored at its first simulated
	// second): the most common start time mod 30 under FCFS, or -1.
	Phase int
	index map[int]int // job id -> row
	rows  [][]Outcome // [row][scheduler]
}

// ReleaseSchedulers are the ten schedulers of the release's outputs, in the
// order of its Expe2.sh.
var ReleaseSchedulers = []string{"FCFS", "FCFS-BF", "EFT", "EFT-BF", "LEA", "LEA-BF", "LEO", "LEO-BF", "LEM", "LEM-BF"}

// Get returns job id's outcome under scheduler.
func (o *Outcomes) Get(scheduler string, id int) (Outcome, bool) {
	s := slices.Index(o.Schedulers, scheduler)
	r, ok := o.index[id]
	if s < 0 || !ok {
		return Outcome{}, false
	}
	return o.rows[r][s], true
}

// Has reports whether the outcomes cover scheduler.
func (o *Outcomes) Has(scheduler string) bool { return slices.Contains(o.Schedulers, scheduler) }

// Jobs returns the job ids the outcomes cover.
func (o *Outcomes) Jobs() []int {
	ids := make([]int, 0, len(o.index))
	for id := range o.index {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// readOutcomes reads an outcomes table: a job column, then for each
// scheduler S the columns S_stretch, S_run_s and S_file_wait_s.
func readOutcomes(name string, in io.Reader) (*Outcomes, error) {
	o := &Outcomes{index: map[int]int{}}
	t, err := openTableFunc(name, in, func(head []string) ([]string, error) {
		want := []string{"job"}
		for _, h := range head {
			s, ok := strings.CutSuffix(strings.TrimSpace(h), "_stretch")
			if !ok {
				continue
			}
			if !slices.Contains(ReleaseSchedulers, s) {
				return nil, fmt.Errorf("unknown scheduler %q in column %q%s; the release's are %s", s, h, suggest.Closest(s, ReleaseSchedulers), strings.Join(ReleaseSchedulers, ", "))
			}
			o.Schedulers = append(o.Schedulers, s)
			want = append(want, s+"_stretch", s+"_run_s", s+"_file_wait_s")
		}
		if len(o.Schedulers) == 0 {
			return nil, fmt.Errorf("no SCHEDULER_stretch column; want job and, per scheduler, SCHEDULER_stretch, SCHEDULER_run_s, SCHEDULER_file_wait_s")
		}
		return want, nil
	})
	if err != nil {
		return nil, err
	}
	for {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		id, err := t.int("job")
		if err != nil {
			return nil, err
		}
		if _, dup := o.index[int(id)]; dup {
			return nil, fmt.Errorf("%s:%d: job %d appears twice", name, t.line, id)
		}
		row := make([]Outcome, len(o.Schedulers))
		for i, s := range o.Schedulers {
			st, err := t.float(s + "_stretch")
			if err != nil {
				return nil, err
			}
			run, err := t.int(s + "_run_s")
			if err != nil {
				return nil, err
			}
			wait, err := t.int(s + "_file_wait_s")
			if err != nil {
				return nil, err
			}
			// A wait may exceed the run: a job killed at its walltime while
			// its file loads.
			if run < 1 || wait < 0 || st <= 0 {
				return nil, fmt.Errorf("%s:%d: job %d under %s: stretch %g, run %d s, file wait %d s; want a positive stretch, a run of at least 1 s and a wait >= 0", name, t.line, id, s, st, run, wait)
			}
			row[i] = Outcome{Stretch: st, RunS: run, FileWaitS: wait}
		}
		o.index[int(id)] = len(o.rows)
		o.rows = append(o.rows, row)
	}
	return o, nil
}

// Start reconstructs job j's start under scheduler: the release writes
// stretch = (end − submit) / reference flow and run = end − start, so
// start = submit + stretch × reference − run (to the second; the stretch has
// six decimals).
func (o *Outcomes) Start(scheduler string, j *Job, bw float32) (int64, bool) {
	oc, ok := o.Get(scheduler, j.ID)
	if !ok {
		return 0, false
	}
	ref := float64(float32(float64(j.Duration) + float64(j.SizeGB)/float64(bw)))
	end := float64(j.Submit) + oc.Stretch*ref
	return int64(end+0.5) - oc.RunS, true
}

// inferPhase sets Phase from the FCFS starts of the trace's jobs.
func (o *Outcomes) inferPhase(t *Trace, bw float32) {
	o.Phase = -1
	if !o.Has("FCFS") {
		return
	}
	var count [30]int
	for i := range t.Jobs {
		if s, ok := o.Start("FCFS", &t.Jobs[i], bw); ok && s >= 0 {
			count[s%30]++
		}
	}
	best := 0
	for r := range count {
		if count[r] > count[best] {
			best = r
		}
	}
	if count[best] > 0 {
		o.Phase = best
	}
}
