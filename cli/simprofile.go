package cli

import (
	"fmt"
	"os"

	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/simprof"
	"github.com/memsched/memsched/schedulers"
)

// simProfile writes run --sim-profile: the run's simulated time in pprof's
// format (harness/simprof).
type simProfile struct {
	f   *os.File
	rec *simprof.Recorder
}

// startSimProfile creates the file (so a bad path costs no run) and hooks
// the recorder to the run's events; nil without a path.
func startSimProfile(path string, cfg *run.Config, wf *workloadFlags) (*simProfile, error) {
	if path == "" {
		return nil, nil
	}
	if cfg.Executor != "sim" {
		return nil, fmt.Errorf("--sim-profile profiles the simulator's timeline; it needs --executor sim, not %s", cfg.Executor)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--sim-profile: %w", err)
	}
	var name func(int) string
	if wf.generated() {
		name = wf.spec.DataName
	}
	sp := &simProfile{f: f, rec: simprof.New(cfg.Workload, cfg.Platform, name)}
	cfg.Trace, cfg.Decisions = tee(cfg.Trace, sp.rec.Event), true
	return sp, nil
}

// write writes the profile, named after the run, once it has ended.
func (sp *simProfile) write(rec run.Record) error {
	if sp == nil {
		return nil
	}
	p := sp.rec.Profile(fmt.Sprintf("memsched simulated time: scheduler %s (%s), workload %s, platform %s with %d GPUs of %.0f MiB, seed %d, makespan %.6g s",
		rec.Scheduler, schedulers.Params(rec.Params).Canonical(), rec.Workload, rec.Platform, rec.GPUs, float64(rec.MemoryBytes)/(1<<20), rec.Seed, rec.MakespanS))
	err := p.Write(sp.f)
	if cerr := sp.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the sim profile %s: %w", sp.f.Name(), err)
	}
	return nil
}

// discard removes the file of a run that failed.
func (sp *simProfile) discard() {
	if sp != nil {
		sp.f.Close()
		os.Remove(sp.f.Name())
	}
}

// tee gives each event to a, if any, then to b.
func tee(a, b func(event.Event)) func(event.Event) {
	if a == nil {
		return b
	}
	return func(e event.Event) { a(e); b(e) }
}
