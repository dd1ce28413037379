// Package run turns a configuration (workload, platform, scheduler, seed)
// into a result record on an executor: the simulator, or real GPUs. The CLI
// and the sweep runner both go through Run.
package run

import (
	"fmt"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Config is one run.
type Config struct {
	Workload    *workloads.Workload
	Platform    *hardware.Platform // GPUs and memory already set
	Scheduler   string
	Params      map[string]string
	Seed        uint64
	ChargeSched bool
	Executor    string // "sim" (default) or "cuda"
	Trace       func(sim.Event)
}

// Executor runs a built scheduler on a platform. The simulator is the
// default; the CUDA executor registers itself.
type Executor func(cfg sim.Config) (*sim.Stats, string, error)

var executors = map[string]Executor{
	"sim": func(cfg sim.Config) (*sim.Stats, string, error) {
		st, err := sim.Run(cfg)
		return st, "", err
	},
}

// RegisterExecutor adds an executor (the CUDA one lives in its own package).
func RegisterExecutor(name string, ex Executor) { executors[name] = ex }

var monoStart = time.Now()

func monotonic() time.Duration { return time.Since(monoStart) }

// Run executes one configuration and returns its record. A scheduler panic
// is turned into an error so one bad scheduler cannot stop a sweep.
func Run(cfg Config) (rec Record, err error) {
	if cfg.Executor == "" {
		cfg.Executor = "sim"
	}
	ex, ok := executors[cfg.Executor]
	if !ok {
		return rec, fmt.Errorf("unknown executor %q (sim or cuda)", cfg.Executor)
	}
	sch, spec, params, err := schedulers.Build(cfg.Scheduler, cfg.Params)
	if err != nil {
		return rec, err
	}
	p := cfg.Platform
	rec.Identity = NewIdentity(cfg.Workload.Name, cfg.Workload.WorkingSetMiB(), p, spec.Name, params, cfg.Seed, cfg.Executor, cfg.ChargeSched)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("scheduler %s panicked: %v", spec.Name, r)
		}
	}()
	sc := sim.Config{
		Workload: cfg.Workload, Platform: p, Scheduler: sch,
		Buffer: spec.BufferDepth(params, p.Runtime.Buffer), NodeBuffer: spec.NodeBuffer,
		Pipeline: p.Runtime.Pipeline, Seed: cfg.Seed,
		Clock: monotonic, ChargeSchedTime: cfg.ChargeSched,
		Trace: cfg.Trace,
	}
	t0 := time.Now()
	st, device, err := ex(sc)
	if err != nil {
		return rec, err
	}
	rec.SimWallS = time.Since(t0).Seconds()
	rec.Provenance.Device = device
	rec.MakespanS = st.Makespan
	if st.Makespan > 0 {
		rec.GFlops = st.Flops / st.Makespan / 1e9
	}
	rec.BytesH2D, rec.BytesD2D, rec.BytesD2H = st.BytesH2D, st.BytesD2D, st.BytesD2H
	rec.WriteBacks, rec.Invalid = st.WriteBacks, st.Invalidations
	rec.Loads, rec.Prefetches, rec.Fetches, rec.Evictions = st.Loads, st.Prefetches, st.Fetches, st.Evictions
	rec.Tasks, rec.PerWorker = st.Tasks, st.PerWorker
	rec.SchedWallS = st.SchedWall.Seconds()
	if pr, ok := sch.(interface{ Partitioner() string }); ok {
		rec.Partition = pr.Partitioner()
	}
	return rec, nil
}
