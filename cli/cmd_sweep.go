package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/memsched/memsched/harness/report"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/harness/sweep"
	"github.com/memsched/memsched/schedulers"
)

func init() {
	register("sweep", "run every point × scheduler × repetition of a TOML suite into a results file (resumable)", cmdSweep)
}

// listFlag collects a repeatable or comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// parseInterleaved lets flags follow positional arguments
// (memsched sweep suites/x.toml -j 4), which package flag alone stops at.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// defaultOutput maps suites/a/b.toml to results/a/b.jsonl.
func defaultOutput(suitePath string) string {
	p := filepath.ToSlash(filepath.Clean(suitePath))
	if i := strings.LastIndex(p, "suites/"); i >= 0 {
		p = p[i+len("suites/"):]
	} else {
		p = filepath.Base(p)
	}
	return filepath.Join("results", filepath.FromSlash(strings.TrimSuffix(p, ".toml")+".jsonl"))
}

func cmdSweep(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("sweep", "SUITE.toml [flags]", stderr)
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "runs in parallel")
	out := fs.String("o", "", "results file, JSON Lines, appended to (default results/<suite path>.jsonl)")
	timeout := fs.Duration("timeout", 0, "per-run time limit, e.g. 10m; a run over it is recorded as an error row (default: the suite's timeout, else none)")
	var only listFlag
	fs.Var(&only, "only", "run only these scheduler labels (repeatable or comma-separated)")
	retry := fs.Bool("retry-errors", false, "redo the runs recorded as errors (timeouts, failures) instead of skipping them")
	fresh := fs.Bool("fresh", false, "empty the results file first and rerun everything (records of older code versions are rerun anyway)")
	dry := fs.Bool("dry-run", false, "validate the suite and list what would run, without running")
	quiet := fs.Bool("q", false, "no progress bar")
	executor := fs.String("executor", "", "run the suite on this executor instead of its own: sim, cuda, or starpu (StarPU itself in SimGrid, for a suite's [report] peer file; MEMSCHED_STARPU, MEMSCHED_STARPU_PERFMODELS)")
	quick := fs.Int("quick", 0, "keep at most this many values of each axis (first, last, evenly spaced): a preview whose runs are the full suite's; 0 = every value")
	var cluster clusterFlags
	cluster.register(fs)
	var prof profileFlags
	prof.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := cluster.checkScopes(fs); err != nil {
		return err
	}
	if err := schedulers.CheckStarPUEnv(os.Environ()); err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("want exactly one suite file, got %d arguments (memsched sweep SUITE.toml [flags])", len(pos))
	}
	if !strings.HasSuffix(pos[0], ".toml") {
		return fmt.Errorf("%s: a suite is a .toml file (suites/ holds them); results files (.jsonl) are read by memsched report", pos[0])
	}
	if *quick < 0 {
		return fmt.Errorf("--quick %d: give how many values of each axis to keep (at least 1), or 0 for all", *quick)
	}
	if *timeout < 0 {
		return fmt.Errorf("--timeout %s: give a positive duration such as 10m, or 0 for the suite's", *timeout)
	}
	if *jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1 parallel run", *jobs)
	}
	if *fresh && *retry {
		return fmt.Errorf("--fresh reruns everything; --retry-errors has nothing to add: give one")
	}
	s, err := suite.Load(pos[0])
	if err != nil {
		return err
	}
	if err := report.CheckReferences(s); err != nil {
		return err
	}
	if *executor != "" {
		if err := run.CheckExecutor(*executor); err != nil {
			return fmt.Errorf("--executor: %w", err)
		}
		if *out == "" {
			return fmt.Errorf("--executor %s: give the results file with -o, so that the suite's own results (results/<suite>.jsonl) are not mixed with another executor's", *executor)
		}
		s.Executor = *executor
	}
	if *out == "" {
		*out = defaultOutput(pos[0])
	}
	if *quick > 0 {
		s.Thin(*quick)
	}
	opt := sweep.Options{Jobs: *jobs, Output: *out, Timeout: *timeout, Only: only, RetryErrors: *retry, Fresh: *fresh, Log: stderr}
	if err := cluster.options(&opt, *fresh); err != nil {
		return err
	}
	if *dry && !cluster.slurm {
		runs, err := sweep.Select(s, only)
		if err != nil {
			return err
		}
		path := *out
		if *fresh {
			path = "" // as if empty
		}
		p, err := sweep.PlanFile(s, runs, path, *retry)
		if err != nil {
			return err
		}
		if shards, _ := sweep.ShardFiles(*out); len(shards) > 0 && !*fresh {
			fmt.Fprintf(stdout, "%s: %d shard files not merged yet (a sweep merges them first, which may leave less to do)\n", s.Name, len(shards))
		}
		fmt.Fprintf(stdout, "%s: %d points × %d schedulers × %d repetitions = %d runs (%d selected, %d to do) → %s\n",
			s.Name, s.Points(), len(s.Schedulers), s.Repetitions, len(s.Runs()), len(runs), p.Todo(), *out)
		if msg := p.String(); msg != "" {
			fmt.Fprintf(stdout, "%s: %s\n", s.Name, msg)
		}
		return nil
	}

	// First SIGINT/SIGTERM: stop launching and let the runs in flight
	// finish and be written; a second one exits at once (at worst the last
	// line is cut, and the next sweep removes it).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer func() { signal.Stop(sig); close(sig) }() // close only after Stop: no send can follow
	go func() {
		if _, ok := <-sig; !ok {
			return
		}
		fmt.Fprintln(stderr, "\nmemsched sweep: interrupted; finishing the runs in flight (interrupt again to quit now)")
		cancel()
		if _, ok := <-sig; ok {
			os.Exit(130)
		}
	}()

	if *fresh && !*dry {
		if err := os.RemoveAll(sweep.ShardDir(*out)); err != nil { // or a resume would merge them back
			return err
		}
		if cluster.slurm { // the array tasks write shards: the results file starts empty
			if err := os.Remove(*out); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	if cluster.slurm {
		cpus := 1 // per array task, unless -j says
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "j" {
				cpus = *jobs
			}
		})
		return cluster.submit(ctx, s, pos[0], opt, *quick, cpus, *dry, stderr)
	}
	stop, err := prof.start()
	if err != nil {
		return err
	}
	defer func() {
		if perr := stop(); err == nil {
			err = perr
		}
	}()
	if f, ok := stderr.(*os.File); ok && !*quiet && term.IsTerminal(int(f.Fd())) {
		opt.Bar = stderr
	}
	sum, err := sweep.Run(ctx, s, opt)
	if err != nil {
		return err
	}
	dest := *out
	if opt.Shard.Count > 0 {
		dest = sweep.ShardFile(*out, opt.Shard)
	}
	fmt.Fprintf(stderr, "%s: %s → %s\n", s.Name, sum, dest)
	if sum.Interrupted > 0 {
		return fmt.Errorf("interrupted: rerun the same command to finish (%d runs left)", sum.Interrupted)
	}
	if sum.Done > 0 && sum.Failed == sum.Done {
		return fmt.Errorf("%s: every run failed (%d of %d; the FAILED lines above say why, the error rows of %s too): fix the cause, then rerun with --retry-errors", s.Name, sum.Failed, sum.Done, dest)
	}
	return nil
}
