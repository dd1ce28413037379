package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
)

func init() {
	register("run", "run one scheduler on one workload and print the result record (JSON)", cmdRun)
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "[flags]", stderr)
	var wf workloadFlags
	var pf platformFlags
	wf.register(fs, true)
	pf.register(fs)
	sched := fs.String("scheduler", "eager", "scheduler (memsched schedulers lists them), or exec:PATH for an external program (docs/protocol.md)")
	params := paramFlag{}
	fs.Var(params, "param", "scheduler parameter key=value (repeatable)")
	seed := fs.Uint64("seed", 1, "random seed (workload generation and scheduler ties)")
	charge := fs.Bool("charge-sched-time", false, "charge the scheduler's wall time to the simulated timeline (as real runs do)")
	tracePath := fs.String("trace", "", "write a trace of every event to this file: JSON Lines (.jsonl; memsched validate reads it), or converted by its extension as trace export does (.paje, .json for Perfetto, .png/.svg/.pdf)")
	executor := fs.String("executor", "sim", "sim (discrete-event simulator), cuda (real GPUs) or starpu (StarPU itself in SimGrid: MEMSCHED_STARPU, MEMSCHED_STARPU_PERFMODELS)")
	simProfile := fs.String("sim-profile", "", "write where each worker's simulated time went (compute, wait fetch by data, idle, scheduling) to this file in pprof's format (go tool pprof -top FILE)")
	var prof profileFlags
	prof.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	if err := schedulers.CheckStarPUEnv(os.Environ()); err != nil {
		return err
	}
	w, err := wf.build(fs, *seed)
	if err != nil {
		return err
	}
	p, err := pf.build(fs)
	if err != nil {
		return err
	}
	// Resolve the scheduler first: a bad name or parameter costs no run and
	// leaves no trace file behind.
	if err := run.CheckExecutor(*executor); err != nil {
		return err
	}
	spec, err := schedulers.LookupWith(*sched, params)
	if err != nil {
		return err
	}
	resolved, err := spec.Resolve(params)
	if err != nil {
		return err
	}
	cfg := run.Config{Workload: w, Platform: p, Scheduler: spec.Name, Params: params,
		Seed: *seed, ChargeSched: *charge, Executor: *executor}
	sp, err := startSimProfile(*simProfile, &cfg, &wf)
	if err != nil {
		return err
	}
	stop, err := prof.start()
	if err != nil {
		sp.discard()
		return err
	}
	var rec run.Record
	if *tracePath == "" {
		rec, err = run.Run(cfg)
	} else {
		hdr := trace.Header{Scheduler: spec.Name, SchedulerVersion: spec.Version, Params: resolved,
			Platform: p, Workload: &wf.spec, WorkloadFile: wf.file, Seed: *seed}
		if wf.generated() {
			hdr.Workload.Seed = *seed
		} else {
			hdr.Workload = nil
		}
		if wf.starpu != "" {
			hdr.StarPUTasks = &trace.StarPUTasks{File: wf.starpu, StarPUTasksOptions: wf.starpuOpt}
		}
		rec, err = runTraced(cfg, hdr, *tracePath)
	}
	if perr := stop(); err == nil && perr != nil {
		err = perr
	}
	if err != nil {
		sp.discard()
		return err
	}
	if err := sp.write(rec); err != nil {
		return err
	}
	if wf.starpuRead != nil {
		fmt.Fprintln(stderr, wf.starpuRead.Compare(rec.MakespanS))
	}
	return json.NewEncoder(stdout).Encode(rec)
}

// runTraced runs cfg writing its trace to path; any write error (a full
// disk) is an error, so an exit status 0 means a complete trace.
func runTraced(cfg run.Config, hdr trace.Header, path string) (run.Record, error) {
	if format := exportFormat(path); format != "" {
		// A trace converted by its extension: the JSON Lines trace in
		// memory, then trace export's conversion of it.
		var buf bytes.Buffer
		tw, err := trace.NewWriter(&buf, hdr)
		if err != nil {
			return run.Record{}, err
		}
		cfg.Trace = tee(cfg.Trace, tw.Event)
		rec, err := run.Run(cfg)
		if err != nil {
			return rec, err
		}
		if err := tw.Result(rec); err != nil {
			return rec, err
		}
		t, err := trace.Read(&buf)
		if err == nil {
			err = exportTrace(t, format, path, io.Discard)
		}
		if err != nil {
			return rec, fmt.Errorf("writing the trace %s: %w", path, err)
		}
		return rec, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return run.Record{}, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	tw, err := trace.NewWriter(bw, hdr)
	if err != nil {
		return run.Record{}, fmt.Errorf("writing the trace %s: %w", path, err)
	}
	cfg.Trace = tee(cfg.Trace, tw.Event)
	rec, err := run.Run(cfg)
	if err != nil {
		bw.Flush() // keep the events up to the failure; validate calls the trace truncated
		return rec, err
	}
	err = tw.Result(rec)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return rec, fmt.Errorf("writing the trace %s: %w; the trace is incomplete", path, err)
	}
	return rec, nil
}
