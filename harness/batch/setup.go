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

// workloadFieldKinds lists the options that only some workload kinds read
// (named as suites write them; the command line's flags are the same with
// '-' for '_') and those kinds: given for another kind, an option would be
// ignored, yet written into the record and the run's key. Sessions apply
// to every kind, session_window with sessions = window only.
var workloadFieldKinds = map[string][]string{
	"walltime": {"rackham"}, "walltime_factor": {"rackham", "swf"}, "walltime_max": {"rackham"},
	"lead_in": {"rackham"}, "tail": {"rackham"},
	"share": {"swf"}, "window": {"swf"},
	"load": {"synthetic"}, "seed": {"synthetic"},
}

// zeroIsDefault are the options whose zero value selects their default:
// given as 0, they would silently become it.
var zeroIsDefault = []string{"walltime_factor", "walltime_max", "window", "session_window"}

var kindDescriptions = map[string]string{"rackham": "a Rackham week", "swf": "an SWF file", "synthetic": "a synthetic trace"}

// CheckGiven refuses the options given explicitly (by a suite or on the
// command line) that w's kind does not read, and those given as 0 where 0
// means "the default". name spells an option as its user wrote it (e.g.
// "--lead-in"); the error names the first such option.
func (w Workload) CheckGiven(given []string, name func(option string) string) error {
	d := w.Defaults()
	for _, f := range given {
		if kinds, ok := workloadFieldKinds[f]; ok && !slices.Contains(kinds, w.Kind) {
			var ds []string
			for _, k := range kinds {
				ds = append(ds, kindDescriptions[k])
			}
			return fmt.Errorf("%s applies only to %s, not to %s: remove it", name(f), strings.Join(ds, " or "), kindDescriptions[w.Kind])
		}
		if f == "session_window" && d.Sessions != "window" {
			return fmt.Errorf("%s applies only with sessions = window, not with sessions = %s: remove it", name(f), d.Sessions)
		}
		if slices.Contains(zeroIsDefault, f) {
			var v, def float64
			switch f {
			case "walltime_factor":
				v, def = w.WalltimeFactor, d.WalltimeFactor
			case "walltime_max":
				v, def = float64(w.WalltimeMax), float64(d.WalltimeMax)
			case "window":
				v, def = float64(w.Window), float64(d.Window)
			case "session_window":
				v, def = float64(w.SessionWindow), float64(d.SessionWindow)
			}
			if v == 0 {
				return fmt.Errorf("%s 0: 0 would silently become the default (%g); give a positive value, or leave it out for the default", name(f), def)
			}
		}
	}
	return nil
}

// check refuses values of options that w's kind does not read (Defaults
// fills only its own kind's options; seed is 1 by default for every kind,
// and only synthetic traces draw from it).
func (w Workload) check() error {
	for f, kinds := range workloadFieldKinds {
		if f == "seed" || slices.Contains(kinds, w.Kind) {
			continue
		}
		var set bool
		switch f {
		case "walltime":
			set = w.Walltime != ""
		case "walltime_factor":
			set = w.WalltimeFactor != 0
		case "walltime_max":
			set = w.WalltimeMax != 0
		case "lead_in":
			set = w.LeadIn != ""
		case "tail":
			set = w.Tail != ""
		case "share":
			set = w.Share != ""
		case "window":
			set = w.Window != 0
		case "load":
			set = w.Load != 0
		}
		if set {
			return fmt.Errorf("batch workload %s: %s applies only to %s", w.Name(), f, strings.Join(kinds, " or "))
		}
	}
	return nil
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
	if err := w.check(); err != nil {
		return nil, err
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
	// Progress is Config.Progress (nil: none).
	Progress func(started, total int)
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
	res, err := Run(Config{Trace: t, Cluster: s.Cluster, Rules: s.Rules, Scheduler: sch, Phase: phase, Event: s.Event, Plans: s.Plans, Context: s.Context, Progress: s.Progress})
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
