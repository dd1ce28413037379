// Package sweep runs a suite's runs in parallel and appends each result as
// one JSON line to a results file. The file is the sweep's only state: a
// sweep resumes where it stopped by skipping the keys already present.
//
// Guarantees:
//   - a line is written with a single write(2) on an O_APPEND file, so lines
//     never interleave; an interrupted write leaves at most a last line
//     without its newline, which the next sweep cuts off and redoes;
//   - the records do not depend on -j or on the order of runs (seeds come
//     from the configuration, see suite.Runs), only the line order does;
//   - a run that fails (error, panic, timeout) becomes an error row
//     (Record.Error) and the sweep goes on.
package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
)

// Options control a sweep.
type Options struct {
	Jobs        int           // parallel runs; 0 = GOMAXPROCS
	Output      string        // results file (created with its directory)
	Timeout     time.Duration // per run; 0 = the suite's timeout (0 = none)
	Only        []string      // labels to run; empty = all
	RetryErrors bool          // redo runs whose record is an error row
	Log         io.Writer     // failures and the summary line; nil = discard
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
	Wall        time.Duration
}

func (s Summary) String() string {
	msg := fmt.Sprintf("%d runs: %d done, %d already present", s.Total, s.Done, s.Skipped)
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
// written. A run that exceeds the timeout is recorded as an error row; its
// goroutine cannot be stopped (schedulers do not poll a context) and keeps
// its CPU until it ends or the process exits.
func Run(ctx context.Context, s *suite.Suite, opt Options) (Summary, error) {
	t0 := time.Now()
	var sum Summary
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Runner == nil {
		opt.Runner = run.Run
	}
	if opt.Jobs <= 0 {
		opt.Jobs = runtime.GOMAXPROCS(0)
	}
	if opt.SyncEvery <= 0 {
		opt.SyncEvery = 64
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = s.Timeout
	}
	runs, err := Select(s, opt.Only)
	if err != nil {
		return sum, err
	}
	out := opt.Output
	var elsewhere map[string]bool // done in the merged results file
	if opt.Shard.Count > 0 {
		mine := runs[:0:0]
		for _, r := range runs {
			if opt.Shard.Has(r.Key) {
				mine = append(mine, r)
			}
		}
		runs, out = mine, ShardFile(opt.Output, opt.Shard)
		if elsewhere, err = Done(opt.Output, opt.RetryErrors); err != nil {
			return sum, err
		}
	} else if n, err := MergeShards(opt.Output); err != nil {
		return sum, fmt.Errorf("merging the shards of %s: %w", opt.Output, err)
	} else if n > 0 {
		fmt.Fprintf(opt.Log, "%s: merged %d records from %s\n", s.Name, n, ShardDir(opt.Output))
	}
	sum.Total = len(runs)

	if dir := filepath.Dir(out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return sum, err
		}
	}
	have, err := prepare(out, opt.RetryErrors)
	if err != nil {
		return sum, err
	}
	var todo []suite.Run
	for _, r := range runs {
		if have[r.Key] || elsewhere[r.Key] {
			sum.Skipped++
		} else {
			todo = append(todo, r)
		}
	}
	// Largest working sets first, so that the longest runs do not start
	// last and leave the other workers idle.
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].WorkingSet > todo[j].WorkingSet })

	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return sum, err
	}
	defer f.Close()

	var bar *progressbar.ProgressBar
	if opt.Bar != nil && len(todo) > 0 {
		bar = progressbar.NewOptions(len(todo), progressbar.OptionSetWriter(opt.Bar),
			progressbar.OptionSetDescription(s.Name), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))
	}

	// A write error stops launching runs, as an interruption does.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	jobs := make(chan suite.Run)
	results := make(chan run.Record)
	var wg sync.WaitGroup
	for w := 0; w < opt.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				results <- execute(r, opt.Runner, timeout)
			}
		}()
	}
	interrupted := 0 // written before jobs closes, read after results closes
	go func() {
		defer close(jobs)
		for i, r := range todo {
			select {
			case <-ctx.Done():
				interrupted = len(todo) - i
				return
			case jobs <- r:
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

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
	sum.Interrupted = interrupted
	sum.Wall = time.Since(t0)
	return sum, werr
}

// prepare cuts an interrupted last line off the results file, drops error
// rows when they are to be redone, and returns the keys present.
func prepare(path string, retryErrors bool) (map[string]bool, error) {
	recs, truncated, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if truncated >= 0 {
		if err := os.Truncate(path, truncated); err != nil {
			return nil, fmt.Errorf("cutting the interrupted last line of %s: %w", path, err)
		}
	}
	if retryErrors {
		kept := recs[:0:0]
		for _, r := range recs {
			if r.Error == "" {
				kept = append(kept, r)
			}
		}
		if len(kept) != len(recs) {
			if err := rewrite(path, kept); err != nil {
				return nil, err
			}
			recs = kept
		}
	}
	return doneKeys(recs, false), nil
}

type outcome struct {
	rec run.Record
	err error
}

// execute runs one configuration with failure isolation: errors, panics
// (also outside run.Run, e.g. in workload generation) and timeouts become
// error rows carrying the run's identity.
func execute(r suite.Run, runner func(run.Config) (run.Record, error), timeout time.Duration) run.Record {
	done := make(chan outcome, 1) // buffered: a timed-out run can still finish and exit
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		cfg, err := r.Config()
		if err != nil {
			done <- outcome{err: err}
			return
		}
		rec, err := runner(cfg)
		done <- outcome{rec, err}
	}()
	var o outcome
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		select {
		case o = <-done:
			timer.Stop()
		case <-timer.C:
			o.err = fmt.Errorf("timeout after %s", timeout)
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
	rec.Key, rec.Suite, rec.Label, rec.Point, rec.Rep = r.Key, r.Suite, r.Label, r.Point, r.Rep
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
