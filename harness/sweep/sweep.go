// Package sweep runs a suite's runs in parallel and appends each result as
// one JSON line to a results file. The file is the sweep's only state: a
// sweep resumes where it stopped by skipping the keys already present.
//
// Guarantees:
//   - one writer per results file: a sweep holds an advisory lock on it for
//     its whole run (internal/filelock), and a second sweep on the same file
//     fails at once;
//   - a line is written with a single write(2), so an interrupted write
//     leaves at most a last line without its newline, which the next sweep
//     cuts off and redoes;
//   - a record is reused only under the same key: the same configuration,
//     record schema, simulator model and scheduler versions (run.Key); the
//     records a new version supersedes are replaced, and the sweep says how
//     many and why;
//   - the records do not depend on -j or on the order of runs (seeds come
//     from the configuration, see suite.Runs), only the line order does;
//   - a run that fails (error, panic, timeout) becomes an error row
//     (Record.Error) and the sweep goes on; a timed-out run is cancelled
//     (the engine checks its context between events).
package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/internal/filelock"
)

// Options control a sweep.
type Options struct {
	Jobs        int           // parallel runs; 0 = GOMAXPROCS
	Output      string        // results file (created with its directory)
	Timeout     time.Duration // per run; 0 = the suite's timeout (0 = none)
	Only        []string      // labels to run; empty = all
	RetryErrors bool          // redo runs whose record is an error row
	Fresh       bool          // empty the results file first (under the lock)
	Log         io.Writer     // what is rerun and why, failures; nil = discard
	Bar         io.Writer     // progress bar destination (a terminal); nil = none
	// Runner executes one configuration; nil = run.Run. Tests substitute it.
	Runner func(run.Config) (run.Record, error)
	// SyncEvery bounds how many records may sit in the page cache before
	// an fsync; 0 = 64. An fsync also happens every two seconds.
	SyncEvery int
	// Shard, when set, runs only the shard's runs and writes them to its
	// shard file (ShardFile); Output is then only read, for the runs
	// already done. Without a shard, the shards already written are merged
	// into Output first.
	Shard Shard
}

// Summary says what a sweep did.
type Summary struct {
	Total       int // runs of the suite (after --only)
	Skipped     int // already in the results file
	Done        int // run now and written
	Failed      int // of Done, error rows
	TimedOut    int // of Failed
	Interrupted int // not run because the sweep was interrupted
	Rerun       int // of the runs to do, those whose record was superseded or an error row redone
	Wall        time.Duration
}

func (s Summary) String() string {
	msg := fmt.Sprintf("%d runs: %d done, %d already present", s.Total, s.Done, s.Skipped)
	if s.Rerun > 0 {
		msg += fmt.Sprintf(", %d rerun", s.Rerun)
	}
	if s.Failed > 0 {
		msg += fmt.Sprintf(", %d failed", s.Failed)
		if s.TimedOut > 0 {
			msg += fmt.Sprintf(" (%d timed out)", s.TimedOut)
		}
	}
	if s.Interrupted > 0 {
		msg += fmt.Sprintf(", %d left for the next sweep (interrupted)", s.Interrupted)
	}
	return msg + fmt.Sprintf(" in %s", s.Wall.Round(time.Millisecond))
}

// Select returns the runs of the given labels (all when empty), or an error
// naming an unknown label.
func Select(s *suite.Suite, only []string) ([]suite.Run, error) {
	runs := s.Runs()
	if len(only) == 0 {
		return runs, nil
	}
	want := map[string]bool{}
	for _, l := range only {
		if _, ok := s.Label(l); !ok {
			return nil, fmt.Errorf("--only %q: no such label in %s; labels: %s", l, s.File, strings.Join(s.Labels(), ", "))
		}
		want[l] = true
	}
	var out []suite.Run
	for _, r := range runs {
		if want[r.Label] {
			out = append(out, r)
		}
	}
	return out, nil
}

// Run sweeps a suite into opt.Output. Cancelling ctx stops launching runs;
// the runs in flight finish and are written, so nothing is lost or half
// written. A run that exceeds the timeout is recorded as an error row and
// cancelled.
func Run(ctx context.Context, s *suite.Suite, opt Options) (Summary, error) {
	t0 := time.Now()
	var sum Summary
	opt = opt.defaults(s)
	runs, out, elsewhere, err := opt.selectRuns(s)
	if err != nil {
		return sum, err
	}
	sum.Total = len(runs)
	f, err := openResults(out)
	if err != nil {
		return sum, err
	}
	defer func() { f.Close() }() // f changes when the file is rewritten
	todo, err := prepare(s, opt, runs, out, &f, elsewhere, &sum)
	if err != nil {
		return sum, err
	}
	// A write error stops launching runs, as an interruption does.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	results, interrupted := launch(ctx, todo, opt)
	werr := collect(results, f, out, s, opt, len(todo), stop, &sum)
	sum.Interrupted = *interrupted
	sum.Wall = time.Since(t0)
	return sum, werr
}

// defaults fills the options left zero, and runs a CUDA suite one run at a
// time.
func (opt Options) defaults(s *suite.Suite) Options {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Runner == nil {
		opt.Runner = run.Run
	}
	if opt.Jobs <= 0 {
		opt.Jobs = runtime.GOMAXPROCS(0)
	}
	if s.Executor == "cuda" && opt.Jobs > 1 {
		// Real runs use every GPU they name and are timed: two at once would
		// share the GPUs, slow each other and overcommit their memory.
		fmt.Fprintf(opt.Log, "%s: executor cuda: one run at a time (not -j %d), as each uses the GPUs alone\n", s.Name, opt.Jobs)
		opt.Jobs = 1
	}
	if opt.SyncEvery <= 0 {
		opt.SyncEvery = 64
	}
	if opt.Timeout == 0 {
		opt.Timeout = s.Timeout
	}
	return opt
}

// selectRuns picks the runs of this sweep and the file they go to: a shard's
// runs into its shard file, knowing which the merged file holds already;
// else every selected run into the results file, after merging any
// shards left beside it.
func (opt Options) selectRuns(s *suite.Suite) (runs []suite.Run, out string, elsewhere map[string]bool, err error) {
	if runs, err = Select(s, opt.Only); err != nil {
		return nil, "", nil, err
	}
	if opt.Shard.Count > 0 {
		mine := runs[:0:0]
		for _, r := range runs {
			if opt.Shard.Has(r.Key) {
				mine = append(mine, r)
			}
		}
		elsewhere, err = Done(opt.Output, opt.RetryErrors)
		return mine, ShardFile(opt.Output, opt.Shard), elsewhere, err
	}
	if n, err := MergeShards(opt.Output); err != nil {
		return nil, "", nil, fmt.Errorf("merging the shards of %s: %w", opt.Output, err)
	} else if n > 0 {
		fmt.Fprintf(opt.Log, "%s: merged %d records from %s\n", s.Name, n, ShardDir(opt.Output))
	}
	return runs, opt.Output, nil, nil
}

// openResults opens the results file for appending, its one writer.
func openResults(out string) (*os.File, error) {
	if dir := filepath.Dir(out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	f, err := filelock.Open(out)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("%s is being written by another memsched sweep; one writer per results file: wait for it to finish, or write elsewhere with -o", out)
	}
	return f, err
}

// prepare brings the results file to the records it keeps (a fresh sweep
// empties it; superseded, duplicate and cut lines go) and returns the runs
// left to do, largest working sets first. Nothing is removed before the
// executor and the suite's external programs are known to work.
func prepare(s *suite.Suite, opt Options, runs []suite.Run, out string, f **os.File, elsewhere map[string]bool, sum *Summary) ([]suite.Run, error) {
	ready := func() error {
		if err := run.Ready(s.Executor); err != nil {
			return fmt.Errorf("%s runs with executor %q, which cannot run here: %w; nothing was run or removed (run it where it can, or set the suite's executor)", s.Name, s.Executor, err)
		}
		// Runs start: the suite's external programs are asked for their
		// parameters now (parsing the suite started none of them).
		labels := map[string]bool{}
		for _, r := range runs {
			labels[r.Label] = true
		}
		if len(labels) == 0 {
			return nil
		}
		return s.Describe(slices.Collect(maps.Keys(labels))...)
	}
	if opt.Fresh {
		if err := ready(); err != nil {
			return nil, err
		}
		if err := (*f).Truncate(0); err != nil {
			return nil, err
		}
	}
	lines, truncated, err := ReadLines(out)
	if err != nil {
		return nil, err
	}
	p := plan(s, runs, lines, opt.RetryErrors)
	if len(p.todo) > 0 { // before rewriting away the records it supersedes
		if err := ready(); err != nil {
			return nil, err
		}
	}
	switch {
	case len(p.keep) != len(lines):
		*f, err = rewrite(*f, out, p.keep)
	case truncated >= 0:
		err = (*f).Truncate(truncated)
	}
	if err != nil {
		return nil, err
	}
	if p.duplicates > 0 {
		fmt.Fprintf(opt.Log, "%s: %s held %d duplicate records (same key); kept one of each\n", s.Name, out, p.duplicates)
	}
	if msg := p.String(); msg != "" {
		fmt.Fprintf(opt.Log, "%s: %s\n", s.Name, msg)
	}
	sum.Skipped, sum.Rerun = p.skipped, p.rerun
	todo := p.todo[:0:0]
	for _, r := range p.todo {
		if elsewhere[r.Key] { // a shard skips what the merged results hold
			sum.Skipped++
		} else {
			todo = append(todo, r)
		}
	}
	// Largest working sets first, so that the longest runs do not start
	// last and leave the other workers idle.
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].WorkingSet > todo[j].WorkingSet })
	return todo, nil
}

// launch starts the runs, each when it gets one of opt.Jobs slots (see
// lease), and sends their records; it stops launching when ctx ends and
// says, once results is closed, how many it did not start.
func launch(ctx context.Context, todo []suite.Run, opt Options) (<-chan run.Record, *int) {
	results := make(chan run.Record)
	shared := shareWorkloads(todo)
	slots := make(chan struct{}, opt.Jobs)
	interrupted := new(int) // written before results closes, read after
	go func() {
		var wg sync.WaitGroup
		defer func() { wg.Wait(); close(results) }()
		for i, r := range todo {
			select {
			case <-ctx.Done():
				*interrupted = len(todo) - i
				return
			case slots <- struct{}{}:
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec := execute(r, shared, &lease{slots: slots}, opt.Runner, opt.Timeout)
				<-slots
				results <- rec
			}()
		}
	}()
	return results, interrupted
}

// collect appends each record to the results file as it comes, one write
// per line, synced every opt.SyncEvery records or 2 s; the first write
// error stops the launches (stop) and is returned once the runs drain.
func collect(results <-chan run.Record, f *os.File, out string, s *suite.Suite, opt Options, n int, stop func(), sum *Summary) error {
	var bar *progressbar.ProgressBar
	if opt.Bar != nil && n > 0 {
		bar = progressbar.NewOptions(n, progressbar.OptionSetWriter(opt.Bar),
			progressbar.OptionSetDescription(s.Name), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))
	}
	var werr error
	unsynced := 0
	lastSync := time.Now()
	for rec := range results {
		if werr != nil {
			continue // drain the workers; the error is reported below
		}
		b, err := json.Marshal(rec)
		if err != nil {
			// A non-finite metric (NaN GFlop/s) cannot be JSON: keep the
			// run's identity as an error row rather than stop the sweep.
			rec = run.Record{Identity: rec.Identity, Error: "result not encodable: " + err.Error()}
			if b, err = json.Marshal(rec); err != nil {
				werr = fmt.Errorf("encoding the record of %s: %w", rec.Label, err)
				stop()
				continue
			}
		}
		// One write per line: O_APPEND makes it atomic with respect to
		// other writers and an interruption can only cut the last line.
		if _, err := f.Write(append(b, '\n')); err != nil {
			werr = fmt.Errorf("%s: %w", out, err)
			stop()
			continue
		}
		sum.Done++
		if rec.Error != "" {
			sum.Failed++
			if strings.HasPrefix(rec.Error, "timeout after") {
				sum.TimedOut++
			}
			if bar != nil {
				bar.Clear()
			}
			fmt.Fprintf(opt.Log, "%s: FAILED %s: %s\n", s.Name, describe(rec), rec.Error)
		}
		if unsynced++; unsynced >= opt.SyncEvery || time.Since(lastSync) > 2*time.Second {
			f.Sync()
			unsynced, lastSync = 0, time.Now()
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	if err := f.Sync(); err != nil && werr == nil {
		werr = err
	}
	if bar != nil {
		bar.Finish()
	}
	return werr
}

// Plan is what a sweep does with a results file: which runs it skips, which
// it runs and why, and which records it keeps.
type Plan struct {
	todo       []suite.Run
	skipped    int
	rerun      int
	reasons    map[string]int // why runs are rerun -> how many
	fresh      int            // runs without any record
	legacy     int            // records of the suite of an older schema without a configuration id
	duplicates int
	keep       []Line
}

// PlanFile says what a sweep of these runs would do with the results file,
// without changing it (for --dry-run).
func PlanFile(s *suite.Suite, runs []suite.Run, path string, retryErrors bool) (*Plan, error) {
	lines, _, err := ReadLines(path)
	if err != nil {
		return nil, err
	}
	return plan(s, runs, lines, retryErrors), nil
}

// Todo is the number of runs to do.
func (p *Plan) Todo() int { return len(p.todo) }

func plan(s *suite.Suite, runs []suite.Run, lines []Line, retryErrors bool) *Plan {
	p := &Plan{reasons: map[string]int{}}
	// One record per key: the last successful one, else the last error row.
	byKey := map[string]int{}
	for i, l := range lines {
		if j, ok := byKey[l.Rec.Key]; ok {
			p.duplicates++
			if l.Rec.Error == "" || lines[j].Rec.Error != "" {
				byKey[l.Rec.Key] = i
			}
			continue
		}
		byKey[l.Rec.Key] = i
	}
	byConfig := map[string][]int{}
	for i, l := range lines {
		if l.Rec.Config != "" && byKey[l.Rec.Key] == i {
			byConfig[l.Rec.Config] = append(byConfig[l.Rec.Config], i)
		}
	}
	drop := map[int]bool{}
	for _, r := range runs {
		if i, ok := byKey[r.Key]; ok {
			if retryErrors && lines[i].Rec.Error != "" {
				drop[i] = true
				p.reasons["error rows redone (--retry-errors)"]++
				p.todo = append(p.todo, r)
				p.rerun++
				continue
			}
			p.skipped++
			continue
		}
		p.todo = append(p.todo, r)
		olds := byConfig[r.ConfigID]
		if len(olds) == 0 {
			p.fresh++
			continue
		}
		for _, i := range olds {
			drop[i] = true
		}
		p.rerun++
		p.reasons[superseded(lines[olds[0]].Rec, r)]++
	}
	current := map[string]bool{}
	for _, r := range s.Runs() {
		current[r.Key] = true
	}
	for i, l := range lines {
		if byKey[l.Rec.Key] != i || drop[i] {
			continue
		}
		if l.Rec.Config == "" && l.Rec.Suite == s.Name && !current[l.Rec.Key] {
			p.legacy++
		}
		p.keep = append(p.keep, l)
	}
	return p
}

// superseded says why a record of the same configuration is not reused.
func superseded(old run.Record, r suite.Run) string {
	var why []string
	if old.Schema != run.Schema {
		why = append(why, fmt.Sprintf("record schema %d superseded by %d", old.Schema, run.Schema))
	}
	if old.ModelVer != sim.ModelVersion {
		why = append(why, fmt.Sprintf("simulator model v%d superseded by v%d", old.ModelVer, sim.ModelVersion))
	}
	if old.SchedVer != r.SchedulerVersion {
		why = append(why, fmt.Sprintf("scheduler %s v%d superseded by v%d", r.Scheduler, old.SchedVer, r.SchedulerVersion))
	}
	if len(why) == 0 {
		return "other code versions"
	}
	return strings.Join(why, ", ")
}

// String says what the sweep reruns and why, e.g. "rerunning 12 records of
// scheduler darts v2 superseded by v3"; "" when it only adds runs.
func (p *Plan) String() string {
	var parts []string
	reasons := make([]string, 0, len(p.reasons))
	for r := range p.reasons {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		n := p.reasons[r]
		if strings.HasPrefix(r, "error rows") {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s of %s", n, plural(n, "record"), r))
		}
	}
	msg := ""
	if len(parts) > 0 {
		msg = "rerunning " + strings.Join(parts, "; ")
	}
	if p.legacy > 0 {
		if msg != "" {
			msg += "; "
		}
		msg += fmt.Sprintf("%d %s of record schema 1 (before records named their code) not reused (sweep --fresh removes them)", p.legacy, plural(p.legacy, "record"))
	}
	return msg
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

type outcome struct {
	rec run.Record
	err error
}

// execute runs one configuration with failure isolation: errors, panics
// (also outside run.Run, e.g. in workload generation) and timeouts become
// error rows carrying the run's identity.
func execute(r suite.Run, shared *sharedWorkloads, l *lease, runner func(run.Config) (run.Record, error), timeout time.Duration) run.Record {
	// The run's own context: an interrupted sweep lets runs in flight
	// finish, a timed-out run is cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan outcome, 1) // buffered: a cancelled run can still finish and exit
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		defer shared.release(r) // also after a timeout: the run goes on until it sees ctx
		cfg, err := shared.config(r, l)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		cfg.Context = ctx
		rec, err := runner(cfg)
		done <- outcome{rec, err}
	}()
	var o outcome
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		var waited time.Duration // given back to the run so far
		for over := false; !over; {
			select {
			case o = <-done:
				timer.Stop()
				over = true
			case <-timer.C:
				// The time the run waited for another run's
				// computation is not its own: give it back.
				if w := l.waitedSoFar(); w > waited {
					timer.Reset(w - waited)
					waited = w
					continue
				}
				o.err = fmt.Errorf("timeout after %s", timeout)
				over = true
			}
		}
	} else {
		o = <-done
	}
	if o.err != nil {
		rec := r.Record()
		rec.Error = strings.TrimSpace(o.err.Error())
		return rec
	}
	rec := o.rec
	rec.Key, rec.Config, rec.Suite, rec.Label, rec.Point, rec.Rep = r.Key, r.ConfigID, r.Suite, r.Label, r.Point, r.Rep
	return rec
}

func describe(rec run.Record) string {
	s := fmt.Sprintf("%s rep %d", rec.Label, rec.Rep)
	keys := make([]string, 0, len(rec.Point))
	for k := range rec.Point {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s += fmt.Sprintf(" %s=%v", k, rec.Point[k])
	}
	return s
}
