package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/trace"
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
	tracePath := fs.String("trace", "", "write a JSON Lines trace of every event to this file")
	executor := fs.String("executor", "sim", "sim (discrete-event simulator) or cuda (real GPUs)")
	var prof profileFlags
	prof.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	w, err := wf.build(*seed)
	if err != nil {
		return err
	}
	p, err := pf.build()
	if err != nil {
		return err
	}
	cfg := run.Config{Workload: w, Platform: p, Scheduler: *sched, Params: params,
		Seed: *seed, ChargeSched: *charge, Executor: *executor}
	var tw *trace.Writer
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			return err
		}
		defer f.Close()
		bw := bufio.NewWriterSize(f, 1<<20)
		defer bw.Flush()
		hdr := trace.Header{Platform: p, Workload: &wf.spec, WorkloadFile: wf.file, Seed: *seed}
		if wf.file == "" {
			hdr.Workload.Seed = *seed
		} else {
			hdr.Workload = nil
		}
		if tw, err = trace.NewWriter(bw, hdr); err != nil {
			return err
		}
		cfg.Trace = func(ev sim.Event) { tw.Event(ev) }
	}
	stop, err := prof.start(stderr)
	if err != nil {
		return err
	}
	rec, err := run.Run(cfg)
	stop()
	if err != nil {
		return err
	}
	if tw != nil {
		if err := tw.Result(rec); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(stdout)
	return enc.Encode(rec)
}
