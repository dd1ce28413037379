package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/run"
	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

func init() {
	register("batch", "run one batch scheduler (thesis ch. 6: FCFS, EFT, LEA, LEO, LEM) on a cluster week and print its record; batch fit fits the walltime factor", cmdBatch)
}

// batchFlags are shared by batch and batch fit.
type batchFlags struct {
	w       batch.Workload
	cluster batch.Cluster
	rules   string
	rule    paramFlag
	phase   int
	bw      float64
}

func (b *batchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.w.Week, "week", "", "Rackham week of the thesis (first day): "+strings.Join(jobs.Weeks(), ", "))
	fs.StringVar(&b.w.File, "swf", "", "a Standard Workload Format trace instead of a week")
	fs.IntVar(&b.w.Jobs, "synthetic", 0, "a synthetic trace of this many jobs instead of a week (bursts resampled from the Rackham weeks)")
	fs.Float64Var(&b.w.Load, "load", 0, "synthetic: offered load (0 = the Rackham weeks' mean)")
	fs.Uint64Var(&b.w.Seed, "seed", 1, "synthetic: random seed")
	fs.StringVar(&b.w.Walltime, "walltime", "", "Rackham weeks: revealed (the release's outputs show some, default) or exact")
	fs.Float64Var(&b.w.WalltimeFactor, "walltime-factor", 0, "walltimes not known: factor × (duration + load) (default 30, fitted by memsched batch fit)")
	fs.Int64Var(&b.w.WalltimeMax, "walltime-max", 0, "cap on factor walltimes in seconds (default 864000, Rackham's 10 days)")
	fs.StringVar(&b.w.LeadIn, "lead-in", "", "jobs before the week: none (default), day or week (the week's own jobs shifted back, unevaluated)")
	fs.StringVar(&b.w.Tail, "tail", "", "jobs after the week: none (default) or day")
	fs.StringVar(&b.w.Share, "share", "", "swf: shared-file rule: previous-job (the release's, default), user or anchored")
	fs.Int64Var(&b.w.Window, "window", 0, "swf: shared-file window in seconds (default 800)")
	fs.StringVar(&b.w.Sessions, "sessions", "", "user sessions: release (Rackham default) or window")
	fs.Int64Var(&b.w.SessionWindow, "session-window", 0, "session window in seconds (default 300)")
	b.cluster = batch.Rackham()
	fs.IntVar(&b.cluster.Nodes, "nodes", b.cluster.Nodes, "nodes (Rackham: 486)")
	fs.IntVar(&b.cluster.CoresPerNode, "cores", b.cluster.CoresPerNode, "cores per node")
	fs.Float64Var(&b.cluster.MemoryGB, "memory-gb", b.cluster.MemoryGB, "memory per node in GB (file sizes are cores/node cores of it)")
	fs.Float64Var(&b.bw, "bandwidth", float64(b.cluster.BandwidthGBs), "file system bandwidth per node, GB/s (the release's 0.1)")
	fs.StringVar(&b.rules, "rules", "thesis", "simulator rules: thesis or release (the released code's loop, reuse, case-3 load and backfilling)")
	b.rule = paramFlag{}
	fs.Var(b.rule, "rule", "one rule key=value (loop, reuse, load_base, backfill), repeatable")
	fs.IntVar(&b.phase, "phase", -2, "release loop: second (mod 30) of its passes; -1 = the first submission's; default: the release's, from its outputs")
}

// batchWorkloadFlags are the flags of batch.Workload's options, spelled
// as the suites' keys with '-' for '_' (batch.Workload.CheckGiven).
var batchWorkloadFlags = []string{"walltime", "walltime-factor", "walltime-max", "lead-in", "tail", "share", "window", "load", "seed", "sessions", "session-window"}

func (b *batchFlags) setup(fs *flag.FlagSet) (batch.Setup, error) {
	n := 0
	for _, set := range []bool{b.w.Week != "", b.w.File != "", b.w.Jobs > 0} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return batch.Setup{}, fmt.Errorf("give one workload: --week (%s), --swf FILE or --synthetic N", strings.Join(jobs.Weeks(), ", "))
	case b.w.Week != "":
		b.w.Kind = "rackham"
	case b.w.File != "":
		b.w.Kind = "swf"
	default:
		b.w.Kind = "synthetic"
	}
	var opts []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(batchWorkloadFlags, f.Name) {
			opts = append(opts, strings.ReplaceAll(f.Name, "-", "_"))
		}
	})
	if err := b.w.CheckGiven(opts, func(o string) string { return "--" + strings.ReplaceAll(o, "_", "-") }); err != nil {
		return batch.Setup{}, err
	}
	b.cluster.BandwidthGBs = float32(b.bw)
	r, err := batch.Preset(b.rules)
	if err != nil {
		return batch.Setup{}, err
	}
	for k, v := range b.rule {
		if err := r.Set(k, v); err != nil {
			return batch.Setup{}, err
		}
	}
	if err := checkScopes(fs, flagScope{[]string{"phase"}, r.Loop == "release", "with the release loop (--rules release or --rule loop=release)", "with loop = " + r.Loop}); err != nil {
		return batch.Setup{}, err
	}
	s := batch.Setup{Workload: b.w, Cluster: b.cluster, Rules: r}
	if b.phase != -2 {
		s.Phase = &b.phase
	}
	return s, nil
}

func cmdBatch(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "fit" {
		return cmdBatchFit(args[1:], stdout, stderr)
	}
	fs := newFlags("batch", "[flags]   (memsched batch fit -h: fit the walltime factor)", stderr)
	var b batchFlags
	b.register(fs)
	scheduler := fs.String("scheduler", "fcfs", "batch scheduler: "+strings.Join(sched.Names(), ", "))
	params := paramFlag{}
	fs.Var(params, "param", "scheduler parameter key=value (repeatable): backfill, w, evict_weight, sticky, busy_threshold")
	backfill := fs.Bool("backfill", false, "conservative backfilling (the -BF variants); same as --param backfill=true")
	tracePath := fs.String("trace", "", "write a JSON Lines trace of the run (memsched validate checks it)")
	plans := fs.Bool("trace-plans", false, "with --trace: also every pass's reservations (large; lets validate check them)")
	list := fs.Bool("list", false, "list the batch schedulers, their parameters, the weeks and the rules")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	if *list {
		return listBatch(stdout)
	}
	if err := checkScopes(fs, flagScope{[]string{"trace-plans"}, *tracePath != "", "with --trace", "without --trace"}); err != nil {
		return err
	}
	s, err := b.setup(fs)
	if err != nil {
		return err
	}
	if *backfill {
		if v, ok := params["backfill"]; ok {
			return fmt.Errorf("--backfill and --param backfill=%s both given: --backfill is --param backfill=true; give one", v)
		}
		params["backfill"] = "true"
	}
	s.Scheduler, s.Params = *scheduler, params
	// Resolve the scheduler first: a bad name or parameter costs no run and
	// leaves no trace file behind.
	sch, spec, p, err := sched.Build(*scheduler, params)
	if err != nil {
		return err
	}
	var tw *batch.Writer
	if *tracePath != "" {
		f, err := os.Create(*tracePath)
		if err != nil {
			return err
		}
		defer f.Close()
		tw = batch.NewWriter(f, batch.Header{Schema: run.Schema, ModelVersion: batch.ModelVersion, SchedulerVersion: spec.Version,
			Workload: s.Workload.Defaults().Name(), Cluster: s.Cluster, Rules: s.Rules,
			Scheduler: *scheduler, Params: p, Backfill: sch.Backfill(), Plans: *plans})
		s.Event, s.Plans = tw.Event, *plans
	}
	var bar *progress
	barMade := false
	s.Progress = func(started, total int) {
		if !barMade {
			bar, barMade = newProgress(stderr, "jobs started", total), true
		}
		bar.set(started)
	}
	rec, err := run.RunBatch(s)
	bar.done()
	if err != nil {
		return err
	}
	if tw != nil {
		if err := tw.Close(); err != nil {
			return err
		}
	}
	return json.NewEncoder(stdout).Encode(rec)
}

func listBatch(w io.Writer) error {
	for _, s := range sched.List() {
		fmt.Fprintf(w, "%s: %s\n", s.Name, s.Doc)
		for _, p := range s.Params {
			fmt.Fprintf(w, "    %s (%s, default %s): %s\n", p.Name, p.Kind, p.Default, p.Doc)
		}
	}
	fmt.Fprintf(w, "\nRackham weeks: %s\n", strings.Join(jobs.Weeks(), ", "))
	for _, name := range batch.RulePresets {
		r, _ := batch.Preset(name)
		fmt.Fprintf(w, "rules %s: loop=%s reuse=%s load_base=%s backfill=%s\n", name, r.Loop, r.Reuse, r.LoadBase, r.Backfill)
	}
	return nil
}

func cmdBatchFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("batch fit", "--train WEEK --test WEEK [flags]", stderr)
	var b batchFlags
	b.register(fs)
	train := fs.String("train", "2022-09-05", "week whose release outcomes choose the factor")
	test := fs.String("test", "2022-02-21", "week that measures the chosen factor")
	schedulers := fs.String("schedulers", "LEA", "schedulers (the release's names) whose agreement is maximised")
	factors := fs.String("factors", "1,3,10,30,100,300,1000", "walltime factors to try")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	// The fit runs the weeks --train and --test at each of --factors.
	if err := checkScopes(fs, flagScope{[]string{"week", "swf", "synthetic", "load", "seed", "walltime-factor", "share", "window"}, false,
		"to memsched batch", "to batch fit, which runs the weeks --train and --test at each of --factors"}); err != nil {
		return err
	}
	b.w.Week = *train
	base, err := b.setup(fs)
	if err != nil {
		return err
	}
	var fl []float64
	for _, f := range strings.Split(*factors, ",") {
		var v float64
		if _, err := fmt.Sscan(f, &v); err != nil || v < 1 {
			return fmt.Errorf("--factors: %q is not a factor >= 1", f)
		}
		fl = append(fl, v)
	}
	res, err := batch.FitWalltime(base, *train, *test, strings.Split(*schedulers, ","), fl)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, res.String())
	return nil
}
