package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memsched/memsched/harness/slurm"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/harness/sweep"
	"github.com/memsched/memsched/internal/atomicfile"
)

func init() {
	register("merge", "join the shard files of a sharded or Slurm sweep into its results file", cmdMerge)
}

// clusterFlags spread a sweep over machines: --shard runs one part,
// --slurm submits every part as a job array.
type clusterFlags struct {
	shard  string
	slurm  bool
	shards int
	sbatch string
	wait   bool
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.shard, "shard", "", "run only shard i/n of the runs (by run key) into <results>.shards/; runs already in the results file are skipped (what each Slurm array task runs)")
	fs.BoolVar(&c.slurm, "slurm", false, "submit the sweep as a Slurm job array, one task per shard; rerun the command to merge the shards and resubmit only what is missing")
	fs.IntVar(&c.shards, "shards", 10, "with --slurm: number of shards (array tasks)")
	fs.StringVar(&c.sbatch, "sbatch", "", `with --slurm: more sbatch options, e.g. "--partition=gpu --time=4:00:00 --mem=8G"`)
	fs.BoolVar(&c.wait, "wait", false, "with --slurm: wait for the job to end, then merge its shards")
}

// checkScopes refuses the Slurm flags without --slurm: they would be
// ignored.
func (c *clusterFlags) checkScopes(fs *flag.FlagSet) error {
	return checkScopes(fs, flagScope{[]string{"shards", "sbatch", "wait"}, c.slurm, "with --slurm", "without --slurm"})
}

// options checks the flags and sets the sweep's shard.
func (c *clusterFlags) options(opt *sweep.Options, fresh bool) error {
	if c.shard == "" {
		return nil
	}
	if c.slurm {
		return errors.New("--shard and --slurm: --slurm submits every shard; --shard runs one (inside an array task)")
	}
	if fresh {
		return errors.New("--fresh with --shard would delete the other shards' results; start afresh from the submitting command")
	}
	var err error
	opt.Shard, err = sweep.ParseShard(c.shard)
	return err
}

// submit merges what earlier jobs wrote, then submits an array of the
// shards that still have runs to do.
func (c *clusterFlags) submit(ctx context.Context, s *suite.Suite, suitePath string, opt sweep.Options, quick int, cpus int, dry bool, stderr io.Writer) error {
	if c.shards < 1 {
		return fmt.Errorf("--shards %d: want at least 1", c.shards)
	}
	out, err := filepath.Abs(opt.Output)
	if err != nil {
		return err
	}
	dir := sweep.ShardDir(out)
	idFile := filepath.Join(dir, "job.id")
	// A second job would run the same shards into the same files.
	if b, err := os.ReadFile(idFile); err == nil && !dry {
		id := strings.TrimSpace(string(b))
		if active, err := slurm.Active(ctx, id); err == nil && active {
			return fmt.Errorf("Slurm job %s of this sweep is still queued or running (squeue -j %s): wait for it or scancel it, then rerun", id, id)
		}
	}
	missing, err := c.missing(s, opt)
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		fmt.Fprintf(stderr, "%s: every run is in %s; nothing to submit\n", s.Name, opt.Output)
		return nil
	}
	indices, runs := make([]int, 0, len(missing)), 0
	for i, n := range missing {
		indices = append(indices, i)
		runs += n
	}
	sort.Ints(indices)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	suiteAbs, err := filepath.Abs(suitePath)
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	cmd := []string{exe, "sweep", suiteAbs, "-o", out, "-q", "-j", strconv.Itoa(cpus), "--shard", slurm.ShardArg}
	if quick > 0 {
		cmd = append(cmd, "--quick", strconv.Itoa(quick))
	}
	if len(opt.Only) > 0 {
		cmd = append(cmd, "--only", strings.Join(opt.Only, ","))
	}
	if opt.Timeout > 0 {
		cmd = append(cmd, "--timeout", opt.Timeout.String())
	}
	if opt.RetryErrors {
		cmd = append(cmd, "--retry-errors")
	}
	arr := slurm.Array{Name: "memsched-" + s.Name, Workdir: wd, Logs: filepath.Join(dir, "logs"), Command: cmd,
		Count: c.shards, Indices: indices, CPUs: cpus, Options: strings.Fields(c.sbatch)}
	text, err := arr.Script()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(arr.Logs, 0o755); err != nil {
		return err
	}
	script := filepath.Join(dir, "job.sh")
	if err := atomicfile.WriteFile(script, []byte(text), 0o755); err != nil {
		return err
	}
	what := fmt.Sprintf("%s in array tasks %s of %d shards", plural(runs, "run"), slurm.Ranges(indices), c.shards)
	if dry {
		fmt.Fprintf(stderr, "%s: %s; script %s (not submitted: --dry-run)\n", s.Name, what, script)
		return nil
	}
	id, err := slurm.Submit(ctx, script)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(idFile, []byte(id+"\n"), 0o644); err != nil {
		fmt.Fprintf(stderr, "%s: submitted Slurm job %s, but %v: a rerun cannot tell that the job runs\n", s.Name, id, err)
	}
	fmt.Fprintf(stderr, "%s: submitted Slurm job %s: %s (logs in %s)\n", s.Name, id, what, arr.Logs)
	if !c.wait {
		fmt.Fprintf(stderr, "%s: once it ends, rerun this command (or memsched merge %s): the shards are merged and only what is missing is resubmitted\n", s.Name, opt.Output)
		return nil
	}
	if err := slurm.Wait(ctx, id, 250*time.Millisecond); err != nil {
		return fmt.Errorf("waiting for job %s: %w (the job goes on; rerun this command later)", id, err)
	}
	if missing, err = c.missing(s, opt); err != nil {
		return err
	}
	if len(missing) > 0 {
		left := 0
		for _, n := range missing {
			left += n
		}
		return fmt.Errorf("Slurm job %s ended with %d of the %d runs missing (failed array tasks? see %s); rerun the same command to resubmit them", id, left, runs, arr.Logs)
	}
	fmt.Fprintf(stderr, "%s: Slurm job %s done; %s merged into %s\n", s.Name, id, plural(runs, "run"), opt.Output)
	return nil
}

// missing merges the shards written so far and counts, per shard, the runs
// that the results file still lacks.
func (c *clusterFlags) missing(s *suite.Suite, opt sweep.Options) (map[int]int, error) {
	if _, err := sweep.MergeShards(opt.Output); err != nil {
		return nil, err
	}
	runs, err := sweep.Select(s, opt.Only)
	if err != nil {
		return nil, err
	}
	have, err := sweep.Done(opt.Output, opt.RetryErrors)
	if err != nil {
		return nil, err
	}
	shard := sweep.Shard{Count: c.shards}
	out := map[int]int{}
	for _, r := range runs {
		if !have[r.Key] {
			out[shard.Of(r.Key)]++
		}
	}
	return out, nil
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "RESULTS.jsonl [SHARD.jsonl ...]", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return errors.New("want the results file, then shard files (default: every file of RESULTS.shards/)")
	}
	out, shards := pos[0], pos[1:]
	if len(shards) == 0 {
		if shards, err = sweep.ShardFiles(out); err != nil {
			return err
		}
		if len(shards) == 0 {
			return fmt.Errorf("no shard files in %s; name them after the results file", sweep.ShardDir(out))
		}
	}
	n, err := sweep.Merge(out, shards)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "merged %d new records from %d shard files into %s\n", n, len(shards), out)
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
