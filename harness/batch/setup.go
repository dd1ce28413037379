package batch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memsched/memsched/internal/suggest"
	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

// Workload names a batch workload and every choice it needs.
type Workload struct {
	Kind string `json:"kind"` // rackham, swf, synthetic
	// rackham: an embedded week and the choices for what the release lost.
	Week           string  `json:"week,omitempty"`
	Walltime       string  `json:"walltime,omitempty"`
	WalltimeFactor float64 `json:"walltime_factor,omitempty"`
	WalltimeMax    int64   `json:"walltime_max,omitempty"`
	LeadIn         string  `json:"lead_in,omitempty"`
	Tail           string  `json:"tail,omitempty"`
	// swf: a file and the shared-file rule.
	File   string `json:"file,omitempty"`
	Share  string `json:"share,omitempty"`
	Window int64  `json:"window,omitempty"`
	// synthetic
	Jobs int     `json:"jobs,omitempty"`
	Load float64 `json:"load,omitempty"`
	Seed uint64  `json:"seed,omitempty"`
	// User sessions for the metrics: "release" or "window" (with
	// SessionWindow seconds, 300 by the thesis).
	Sessions      string `json:"sessions,omitempty"`
	SessionWindow int64  `json:"session_window,omitempty"`
}

// WorkloadKinds are the batch workload kinds.
var WorkloadKinds = []string{"rackham", "swf", "synthetic"}

// Defaults fills the zero fields: the release's sessions for the Rackham
// weeks (their users were renumbered, so the thesis' rule cannot be
// applied), the thesis' 5-minute window otherwise.
func (w Workload) Defaults() Workload {
	if w.Sessions == "" {
		w.Sessions = "window"
		if w.Kind == "rackham" {
			w.Sessions = "release"
		}
	}
	if w.SessionWindow == 0 {
		w.SessionWindow = 300
	}
	if w.Kind == "rackham" {
		o := jobs.WeekOptions{Walltime: w.Walltime, WalltimeFactor: w.WalltimeFactor, WalltimeMax: w.WalltimeMax, LeadIn: w.LeadIn, Tail: w.Tail}.Defaults()
		w.Walltime, w.WalltimeFactor, w.WalltimeMax, w.LeadIn, w.Tail = o.Walltime, o.WalltimeFactor, o.WalltimeMax, o.LeadIn, o.Tail
	}
	if w.Kind == "swf" {
		o := jobs.SWFOptions{Share: w.Share, Window: w.Window, WalltimeFactor: w.WalltimeFactor}.Defaults()
		w.Share, w.Window, w.WalltimeFactor = o.Share, o.Window, o.WalltimeFactor
	}
	return w
}

// Name is a short name for records: the week, the file or synthetic-N.
func (w Workload) Name() string {
	switch w.Kind {
	case "rackham":
		return "rackham-" + w.Week
	case "swf":
		return "swf-" + w.File
	}
	return fmt.Sprintf("synthetic-%d-s%d", w.Jobs, w.Seed)
}

var traces sync.Map // Workload+cluster -> *jobs.Trace (immutable once read)

// Trace reads or generates the workload's jobs for cluster cl; a trace is
// read once per process.
func (w Workload) Trace(cl Cluster) (*jobs.Trace, error) {
	w = w.Defaults()
	key := fmt.Sprintf("%+v|%+v", w, cl)
	if t, ok := traces.Load(key); ok {
		return t.(*jobs.Trace), nil
	}
	var t *jobs.Trace
	var err error
	switch w.Kind {
	case "rackham":
		t, err = jobs.Week(w.Week, jobs.WeekOptions{Walltime: w.Walltime, WalltimeFactor: w.WalltimeFactor, WalltimeMax: w.WalltimeMax,
			LeadIn: w.LeadIn, Tail: w.Tail, CoresPerNode: cl.CoresPerNode, NodeMemoryGB: cl.MemoryGB, BandwidthGBs: cl.BandwidthGBs})
	case "swf":
		t, err = jobs.ReadSWFFile(w.File, jobs.SWFOptions{Share: w.Share, Window: w.Window, WalltimeFactor: w.WalltimeFactor,
			CoresPerNode: cl.CoresPerNode, NodeMemoryGB: cl.MemoryGB, BandwidthGBs: cl.BandwidthGBs})
	case "synthetic":
		t, err = jobs.Synthetic(jobs.SyntheticOptions{Jobs: w.Jobs, Load: w.Load, Seed: w.Seed, Nodes: cl.Nodes,
			CoresPerNode: cl.CoresPerNode, NodeMemoryGB: cl.MemoryGB, BandwidthGBs: cl.BandwidthGBs})
	default:
		return nil, fmt.Errorf("unknown batch workload kind %q%s; the kinds are %s", w.Kind, suggest.Closest(w.Kind, WorkloadKinds), strings.Join(WorkloadKinds, ", "))
	}
	if err != nil {
		return nil, err
	}
	traces.Store(key, t)
	return t, nil
}

// Setup is one batch run.
type Setup struct {
	Workload  Workload
	Cluster   Cluster
	Rules     Rules
	Scheduler string
	Params    map[string]string
	// Phase of the release loop's grid: nil takes the one the release's
	// outputs show (Rackham weeks), else the first submission's.
	Phase   *int
	Event   func(Event)
	Plans   bool
	Context context.Context // cancels the run (nil: never)
}

// Report is a batch run's result, as records carry it.
type Report struct {
	Workload  Workload          `json:"workload"`
	Cluster   Cluster           `json:"cluster"`
	Rules     Rules             `json:"rules"`
	Scheduler string            `json:"scheduler"` // the thesis' name: LEA, LEA-BF, ...
	Params    map[string]string `json:"params"`
	Phase     int               `json:"phase"`
	Summary
	Passes    int       `json:"passes"`
	Plannings int64     `json:"plannings"`
	Fidelity  *Fidelity `json:"fidelity,omitempty"` // against the release's outcomes, when known
	Notes     []string  `json:"notes,omitempty"`
	SimWallS  float64   `json:"sim_wall_s"`
}

// Execute runs a setup and reports it; the trace and the raw result come
// along for callers that look at jobs.
func Execute(s Setup) (*Report, *jobs.Trace, *Result, error) {
	w := s.Workload.Defaults()
	if !slices.Contains(SessionChoices, w.Sessions) {
		return nil, nil, nil, fmt.Errorf("sessions = %q: must be one of %s%s", w.Sessions, strings.Join(SessionChoices, ", "), suggest.Closest(w.Sessions, SessionChoices))
	}
	if err := s.Cluster.Check(); err != nil {
		return nil, nil, nil, err
	}
	if err := s.Rules.Check(); err != nil {
		return nil, nil, nil, err
	}
	sch, _, params, err := sched.Build(s.Scheduler, s.Params)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := w.Trace(s.Cluster)
	if err != nil {
		return nil, nil, nil, err
	}
	phase := -1
	switch {
	case s.Phase != nil:
		phase = *s.Phase
	case t.Outcomes != nil:
		phase = t.Outcomes.Phase
	}
	t0 := time.Now()
	res, err := Run(Config{Trace: t, Cluster: s.Cluster, Rules: s.Rules, Scheduler: sch, Phase: phase, Event: s.Event, Plans: s.Plans, Context: s.Context})
	if err != nil {
		return nil, nil, nil, err
	}
	wall := time.Since(t0).Seconds()
	sessions, err := Sessions(t, w.Sessions, w.SessionWindow)
	if err != nil {
		return nil, nil, nil, err
	}
	rep := &Report{Workload: w, Cluster: s.Cluster, Rules: s.Rules, Scheduler: sched.DisplayName(s.Scheduler, params),
		Params: params, Phase: phase, Summary: Summarise(t, res, s.Cluster.BandwidthGBs, sessions),
		Passes: res.Passes, Plannings: res.Plannings, Notes: t.Notes, SimWallS: wall}
	if t.Outcomes != nil && t.Outcomes.Has(rep.Scheduler) {
		if rep.Fidelity, err = Compare(t, res, rep.Scheduler, s.Cluster.BandwidthGBs); err != nil {
			return nil, nil, nil, err
		}
	}
	if res.ForcedPasses > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d passes forced where the release would wait forever", res.ForcedPasses))
	}
	return rep, t, res, nil
}
