package batch

import (
	"fmt"
	"slices"
	"sort"

	"github.com/memsched/memsched/workloads/jobs"
)

// Stretch is a job's flow over its flow on an empty cluster (thesis §6.3):
// (end − submit) / (Duration + Size/Bandwidth), the reference flow rounded to
// a C float as the release's print_csv keeps it.
func Stretch(j *jobs.Job, end int64, bw float32) float64 {
	return float64(end-j.Submit) / ReferenceFlow(j, bw)
}

// ReferenceFlow is Size(File(J))/Bandwidth + Duration(J).
func ReferenceFlow(j *jobs.Job, bw float32) float64 {
	return float64(float32(float64(j.Duration) + float64(j.SizeGB)/float64(bw)))
}

// Summary aggregates a run over the evaluated jobs.
type Summary struct {
	Jobs        int       `json:"jobs"`            // evaluated jobs
	Scheduled   int       `json:"scheduled"`       // jobs started, evaluated or not
	FileWaitS   int64     `json:"file_wait_s"`     // Σ transfer + wait for a co-located load
	CoreTimeS   int64     `json:"core_time_s"`     // Σ (end − start) × cores
	QueueS      int64     `json:"queue_s"`         // Σ start − submit
	MeanStretch float64   `json:"mean_stretch"`    // mean job stretch
	MaxStretch  float64   `json:"max_stretch"`     // largest job stretch
	Loads       int       `json:"loads"`           // evaluated jobs that loaded their file
	Reuses      int       `json:"reuses"`          // evaluated jobs that found their file loaded or loading
	Sessions    int       `json:"sessions"`        // user sessions
	Makespan    int64     `json:"last_start_s"`    // last evaluated start, from the first submission
	SessionSums []float64 `json:"session_stretch"` // Σ job stretch per user session, in session order
}

// Summarise computes a run's summary; sessions group the evaluated jobs
// (see Sessions).
func Summarise(t *jobs.Trace, r *Result, bw float32, sessions [][]int) Summary {
	var s Summary
	for i := range t.Jobs {
		j, x := &t.Jobs[i], &r.Jobs[i]
		if x.Started {
			s.Scheduled++
		}
		if !j.Eval {
			continue
		}
		s.Jobs++
		st := Stretch(j, x.End, bw)
		s.MeanStretch += st
		s.MaxStretch = max(s.MaxStretch, st)
		s.FileWaitS += int64(x.Transfer) + int64(x.Wait)
		s.CoreTimeS += (x.End - x.Start) * int64(j.Cores)
		s.QueueS += x.Start - j.Submit
		if x.Transfer > 0 {
			s.Loads++
		} else if j.File != 0 {
			s.Reuses++
		}
	}
	if s.Jobs > 0 {
		s.MeanStretch /= float64(s.Jobs)
	}
	s.Makespan = r.End - t.Jobs[0].Submit
	s.Sessions = len(sessions)
	s.SessionSums = make([]float64, len(sessions))
	for i, sess := range sessions {
		for _, j := range sess {
			s.SessionSums[i] += Stretch(&t.Jobs[j], r.Jobs[j].End, bw)
		}
	}
	return s
}

// Session rules.
var SessionChoices = []string{"release", "window"}

// Sessions groups the evaluated jobs (indices into t.Jobs) into user sessions.
//   - "release": the release's plotting script (src/plot_boxplot.py,
//     byuser): jobs sorted by input file, a session is a run of
//     consecutive files of the same user.
//   - "window": the thesis' definition (§6.5.3): the jobs a user submits
//     within window seconds of the session's first job.
//
// Sessions come in a deterministic order (by first file, or first
// submission then user).
func Sessions(t *jobs.Trace, rule string, window int64) ([][]int, error) {
	var ev []int
	for i := range t.Jobs {
		if t.Jobs[i].Eval {
			ev = append(ev, i)
		}
	}
	var out [][]int
	switch rule {
	case "release":
		sort.SliceStable(ev, func(a, b int) bool { return t.Jobs[ev[a]].File < t.Jobs[ev[b]].File })
		for i, j := range ev {
			if i == 0 || t.Jobs[j].User != t.Jobs[ev[i-1]].User {
				out = append(out, nil)
			}
			out[len(out)-1] = append(out[len(out)-1], j)
		}
	case "window":
		if window <= 0 {
			return nil, fmt.Errorf("session window %d s: want a positive window", window)
		}
		open := map[int]int{} // user -> session index
		first := map[int]int64{}
		for _, j := range ev { // in submission order
			u := t.Jobs[j].User
			s, ok := open[u]
			if !ok || t.Jobs[j].Submit-first[u] > window {
				s = len(out)
				out = append(out, nil)
				open[u], first[u] = s, t.Jobs[j].Submit
			}
			out[s] = append(out[s], j)
		}
	default:
		return nil, fmt.Errorf("unknown session rule %q; the rules are %v", rule, SessionChoices)
	}
	return out, nil
}

// Improvements are per-session stretch ratios base/sched (above 1: sched
// is faster), the thesis' figures' quantity.
func Improvements(base, sched []float64) ([]float64, error) {
	if len(base) != len(sched) {
		return nil, fmt.Errorf("%d sessions against %d: not the same workload", len(sched), len(base))
	}
	out := make([]float64, len(base))
	for i := range base {
		out[i] = base[i] / sched[i]
	}
	return out, nil
}

// ReleaseSessionSums are the release's own Σ job stretch per user session
// for scheduler (its name in the release: FCFS, LEA-BF, ...), from its
// per-job outcomes of the trace: the quantity of SessionSums as the release
// computed it, to compare a run's sessions with the release's.
func ReleaseSessionSums(t *jobs.Trace, scheduler string, sessions [][]int) ([]float64, error) {
	o := t.Outcomes
	if o == nil || !o.Has(scheduler) {
		return nil, fmt.Errorf("trace %s has no release outcome for %s", t.Name, scheduler)
	}
	out := make([]float64, len(sessions))
	for i, sess := range sessions {
		for _, j := range sess {
			oc, ok := o.Get(scheduler, t.Jobs[j].ID)
			if !ok {
				return nil, fmt.Errorf("trace %s: job %d has no release outcome for %s", t.Name, t.Jobs[j].ID, scheduler)
			}
			out[i] += oc.Stretch
		}
	}
	return out, nil
}

// Different keeps the ratios at least 1% away from 1: plot_boxplot.py's
// count_improvement_equal_at_1 = 0 keeps improvement <= 0.99 or >= 1.01,
// the one-week Fig. 6.3 ("only these user sessions are depicted"); the
// twelve-week Figs. 6.7 and 6.8 were drawn with 1 (Expe2.sh), every session.
func Different(r []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(r), func(x float64) bool { return x > 0.99 && x < 1.01 })
}
