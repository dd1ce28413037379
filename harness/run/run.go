// Package run turns a configuration (workload, platform, scheduler, seed)
// into a result record on an executor: the simulator, or real GPUs. The CLI
// and the sweep runner both go through Run.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/internal/cpuclock"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/order"
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
	Trace       func(event.Event)
	Decisions   bool            // Trace also gets pop and sched events (sim.Config.Decisions)
	Context     context.Context // cancels the run (nil: never)
	// Share computes once what the schedulers of several runs compute from
	// the workload alone (sim.Config.Share; a sweep's runs of a point).
	Share func(key string, compute func() (any, error)) (any, error)
	// Spec, when set, is the scheduler to run instead of looking Scheduler
	// up in the registry (a scheduler under test, not registered).
	Spec *schedulers.Spec
	// Batch is a batch run's configuration (thesis chapter 6), for the
	// batch executor (Executor = BatchExecutor); the GPU fields above are
	// unused.
	Batch *batch.Setup
}

// PanicError is a scheduler's crash, as opposed to an error it reports.
type PanicError struct {
	Scheduler string
	Value     any
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("scheduler %s panicked: %v", e.Scheduler, e.Value)
}

// Executor runs one configuration and returns its record: the one results
// contract. A record is the run's configuration (Identity) and its metrics
// (Record.Values, from the one list of them, metricList), whatever ran it:
// the simulator, the CUDA executor and StarPU run GPU configurations
// (GPUExecutor), the batch simulator batch ones (Config.Batch). Run looks
// the executor up by Config.Executor.
type Executor interface {
	Execute(cfg Config) (Record, error)
}

// GPUExecutor runs a built scheduler on a platform: the simulator is the
// default; the CUDA executor and StarPU register themselves. The job names
// the scheduler as the record does, for an executor that hands the run to
// another runtime (StarPU itself) rather than to the built scheduler. The
// string returned describes what ran the job (a GPU, another runtime's
// build) for the record's provenance. Its Execute builds the scheduler,
// runs it and turns the run's statistics into the record's metrics.
type GPUExecutor func(cfg sim.Config, job Job) (*sim.Stats, string, error)

// Execute runs a GPU configuration (runGPU).
func (ex GPUExecutor) Execute(cfg Config) (Record, error) { return runGPU(cfg, ex) }

// Job is a run as its record names it: the scheduler, its resolved
// parameters and the workload's name.
type Job struct {
	Scheduler string
	Params    map[string]string
	Workload  string
}

var executors = map[string]Executor{
	"sim": GPUExecutor(func(cfg sim.Config, _ Job) (*sim.Stats, string, error) {
		st, err := sim.Run(cfg)
		return st, "", err
	}),
	BatchExecutor: batchExecutor{},
}

// Executors lists the names of the executors of GPU runs (GPUExecutor),
// sorted: those a run, a sweep or a suite may name. The batch executor is
// reached through a suite's [batch] table.
func Executors() []string {
	names := make([]string, 0, len(executors))
	for n, ex := range executors {
		if _, ok := ex.(GPUExecutor); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// RegisterExecutor adds an executor (the CUDA one and StarPU live in their
// own packages and register a GPUExecutor).
func RegisterExecutor(name string, ex Executor) { executors[name] = ex }

// probes say whether an executor can run on this machine (RegisterProbe).
var probes = map[string]func() error{}

// RegisterProbe gives an executor a check that it can run here (the CUDA
// executor's: a GPU and its libraries); nil removes it.
func RegisterProbe(name string, probe func() error) {
	if probe == nil {
		delete(probes, name)
		return
	}
	probes[name] = probe
}

// Ready runs the executor's probe, if it has one: a sweep asks before it
// runs or removes anything, so that a machine without a GPU neither writes
// a row of errors nor empties a results file of real runs.
func Ready(name string) error {
	if p := probes[name]; p != nil {
		return p()
	}
	return nil
}

// CheckExecutor says whether a name is an executor of GPU runs ("" is the
// simulator).
func CheckExecutor(name string) error {
	if name != "" && !slices.Contains(Executors(), name) {
		return fmt.Errorf("unknown executor %q%s; use one of %s", name, schedulers.Suggest(name, Executors()), strings.Join(Executors(), ", "))
	}
	return nil
}

// Run executes one configuration on its executor (Config.Executor, the
// simulator by default) and returns its record.
func Run(cfg Config) (Record, error) {
	if cfg.Executor == "" {
		cfg.Executor = "sim"
	}
	ex, ok := executors[cfg.Executor]
	if !ok {
		return Record{}, CheckExecutor(cfg.Executor)
	}
	return ex.Execute(cfg)
}

// runGPU runs a GPU configuration on ex and returns its record. A
// scheduler panic is turned into an error so one bad scheduler cannot stop
// a sweep.
func runGPU(cfg Config, ex GPUExecutor) (rec Record, err error) {
	if cfg.Batch != nil {
		return rec, fmt.Errorf("executor %s runs GPU configurations, not a batch setup (executor %q)", cfg.Executor, BatchExecutor)
	}
	sch, spec, params, err := build(cfg)
	if err != nil {
		return rec, err
	}
	if c, ok := sch.(io.Closer); ok { // an external scheduler's process is reaped
		defer func() {
			// A program that broke the protocol at its end (an answer to no
			// request) fails the run.
			if cerr := c.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}()
	}
	p := cfg.Platform
	rec.Identity = NewIdentity(cfg.Workload.Name, cfg.Workload.WorkingSetMiB(), p, spec.Name, params, cfg.Seed, cfg.Executor, cfg.ChargeSched)
	rec.SchedulerCode = spec.Code
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(schedulers.Abort); ok {
				err = a.Err
			} else {
				err = &PanicError{spec.Name, r}
			}
		}
	}()
	sc := sim.Config{
		Workload: cfg.Workload, Platform: p, Scheduler: sch,
		Buffer: spec.BufferDepth(params, p.Runtime.Buffer), NodeBuffer: spec.NodeBuffer,
		Pipeline: p.Runtime.Pipeline, Seed: cfg.Seed,
		Clock: cpuclock.Since, ChargeSchedTime: cfg.ChargeSched,
		Trace: cfg.Trace, Decisions: cfg.Decisions, Context: cfg.Context, Share: cfg.Share,
	}
	t0 := time.Now()
	st, device, err := ex(sc, Job{Scheduler: spec.Name, Params: params, Workload: cfg.Workload.Name})
	if err != nil {
		return rec, err
	}
	rec.SimWallS = (time.Since(t0) + st.WallAdjust).Seconds()
	rec.Provenance.Device = device
	rec.MakespanS = st.Makespan
	if !(st.Makespan > 0) {
		// Every task took no time and read nothing: there is no rate to
		// measure, and a record with makespan 0 is refused when read.
		return rec, fmt.Errorf("the run took no time (makespan %v s): every task of %s has zero duration and reads no data; give its tasks flops or inputs", st.Makespan, cfg.Workload.Name)
	}
	rec.GFlops = st.Flops / st.Makespan / 1e9
	rec.BytesH2D, rec.BytesD2D, rec.BytesD2H = st.BytesH2D, st.BytesD2D, st.BytesD2H
	rec.WriteBacks, rec.Invalid = st.WriteBacks, st.Invalidations
	rec.Loads, rec.Prefetches, rec.Fetches, rec.Evictions = st.Loads, st.Prefetches, st.Fetches, st.Evictions
	rec.PopMissing = st.PopMissing
	rec.Tasks, rec.PerWorker = st.Tasks, st.PerWorker
	rec.SchedWallS = st.SchedWall.Seconds()
	ops := st.SchedOps
	rec.SchedOps, rec.SchedArrayOps = ops[schedulers.OpStep], ops[schedulers.OpArray]
	rec.SchedStatusOps, rec.SchedPredictOps, rec.SchedBeladyOps = ops[schedulers.OpStatus], ops[schedulers.OpPredict], ops[schedulers.OpBelady]
	rec.SchedStatusWrittenOps, rec.SchedProgramRuns = ops[schedulers.OpStatusWritten], ops[schedulers.OpProgramRun]
	if pr, ok := sch.(schedulers.Partitioned); ok {
		rec.Partition = pr.Partitioner()
	}
	if mp, ok := sch.(schedulers.ModelPlanner); ok {
		if rec.ModelLoads, err = modelLoads(cfg.Workload, p.MemoryBytes, mp.ModelPlan); err != nil {
			return rec, err
		}
	}
	if ss, ok := sch.(schedulers.StatsReporter); ok {
		rec.SchedStats = ss.SchedStats()
	}
	return rec, nil
}

// modelLoads counts the loads of a static plan in the abstract model of
// thesis §2.2 (schedulers/order.Loads): each worker runs its list with the
// whole memory, no prefetch and no pipeline, evicting with Belady when the
// scheduler does, else LRU. The papers' toy examples count loads this way.
func modelLoads(w *workloads.Workload, memory int64, plan func() ([][]int32, bool)) (int, error) {
	plans, belady := plan()
	policy := order.PolicyLRU
	if belady {
		policy = order.PolicyBelady
	}
	total := 0
	for _, l := range plans {
		n, _, err := order.Loads(w, l, memory, policy)
		if err != nil {
			return 0, fmt.Errorf("model loads: %w", err)
		}
		total += n
	}
	return total, nil
}

func build(cfg Config) (schedulers.Scheduler, schedulers.Spec, schedulers.Params, error) {
	if cfg.Spec == nil {
		return schedulers.Build(cfg.Scheduler, cfg.Params)
	}
	spec := *cfg.Spec
	params, err := spec.Resolve(cfg.Params)
	if err != nil {
		return nil, spec, nil, err
	}
	sch, err := spec.New(params)
	return sch, spec, params, err
}

// IsPanic reports whether a run's error is a scheduler crash.
func IsPanic(err error) bool {
	var pe *PanicError
	return errors.As(err, &pe)
}
