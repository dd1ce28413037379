package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/schedulers"
)

// A record made by another scheduler version is rerun, replaced, and the
// sweep says how many and why.
func TestSupersededRecordsAreRerunAndReplaced(t *testing.T) {
	s := load(t, base)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	first := sweep(t, context.Background(), s, Options{Jobs: 2, Output: path})
	want := canon(t, path)

	// Pretend the EAGER records were made by eager v0: another key (that
	// of their configuration under version 0, as eager v0 made it).
	data, _ := os.ReadFile(path)
	var old bytes.Buffer
	n := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.Contains(line, `"scheduler":"eager"`) {
			config := regexp.MustCompile(`"config":"([0-9a-f]+)"`).FindStringSubmatch(line)[1]
			line = regexp.MustCompile(`"scheduler_version":[0-9]+`).ReplaceAllString(line, `"scheduler_version":0`)
			line = regexp.MustCompile(`"key":"[0-9a-f]+"`).ReplaceAllString(line, `"key":"`+run.Key(config, 0)+`"`)
			n++
		}
		old.WriteString(line)
	}
	os.WriteFile(path, old.Bytes(), 0o644)

	var log bytes.Buffer
	sum := sweep(t, context.Background(), s, Options{Jobs: 2, Output: path, Log: &log})
	if sum.Done != n || sum.Rerun != n || sum.Skipped != first.Total-n {
		t.Fatalf("summary %+v; want %d rerun", sum, n)
	}
	if msg := fmt.Sprintf("rerunning 12 records of scheduler eager v0 superseded by v%d", eagerVersion(t)); !strings.Contains(log.String(), msg) {
		t.Errorf("log %q lacks %q", log.String(), msg)
	}
	sameRecords(t, want, canon(t, path)) // superseded records replaced, not kept beside
	if !strings.Contains(sum.String(), "12 rerun") {
		t.Errorf("summary %q does not say what was rerun", sum)
	}
}

// A second sweep on the same results file fails at once.
func TestOneWriterPerResultsFile(t *testing.T) {
	s := load(t, base)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	started, finish := make(chan struct{}), make(chan struct{})
	first := make(chan error)
	go func() {
		calls := 0
		_, err := Run(context.Background(), s, Options{Jobs: 1, Output: path, Runner: func(c run.Config) (run.Record, error) {
			if calls++; calls == 1 {
				close(started)
				<-finish
			}
			return run.Run(c)
		}})
		first <- err
	}()
	<-started
	_, err := Run(context.Background(), s, Options{Output: path})
	if err == nil || !strings.Contains(err.Error(), "being written by another memsched sweep") {
		t.Errorf("second sweep: %v", err)
	}
	close(finish)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got := len(canon(t, path)); got != 24 {
		t.Errorf("%d records, want 24", got)
	}
}

// A timed-out run is cancelled: its context is done, so it stops.
func TestTimedOutRunIsCancelled(t *testing.T) {
	s := load(t, strings.Replace(base, "repetitions = 2", "repetitions = 1", 1))
	path := filepath.Join(t.TempDir(), "r.jsonl")
	stopped := make(chan error, 100)
	sum := sweep(t, context.Background(), s, Options{Jobs: 2, Output: path, Timeout: time.Millisecond, Only: []string{"EAGER"},
		Runner: func(c run.Config) (run.Record, error) {
			<-c.Context.Done()
			stopped <- c.Context.Err()
			return run.Record{}, c.Context.Err()
		}})
	if sum.TimedOut != 6 {
		t.Fatalf("summary %+v; want 6 timed out", sum)
	}
	for range 6 {
		if err := <-stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("run stopped with %v", err)
		}
	}
}

// Duplicate keys are named by Duplicates and repaired by the next sweep.
func TestDuplicateKeys(t *testing.T) {
	s := load(t, base)
	path := filepath.Join(t.TempDir(), "r.jsonl")
	sweep(t, context.Background(), s, Options{Output: path})
	data, _ := os.ReadFile(path)
	first := data[:bytes.IndexByte(data, '\n')+1]
	os.WriteFile(path, append(data, first...), 0o644)
	lines, _, err := ReadLines(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Duplicates(path, lines); err == nil || !strings.Contains(err.Error(), "(lines 1, 25)") {
		t.Fatalf("Duplicates: %v", err)
	}
	var log bytes.Buffer
	if sum := sweep(t, context.Background(), s, Options{Output: path, Log: &log}); sum.Done != 0 || !strings.Contains(log.String(), "1 duplicate") {
		t.Errorf("summary %+v, log %q", sum, log.String())
	}
	lines, _, _ = ReadLines(path)
	if err := Duplicates(path, lines); err != nil || len(lines) != 24 {
		t.Errorf("after the sweep: %d lines, %v", len(lines), err)
	}
}

// Reading a trace as a results file says what it is.
func TestTraceIsNotAResultsFile(t *testing.T) {
	_, _, err := Read(strings.NewReader(`{"ev":"run","schema":2,"platform":{}}`+"\n"), "t.jsonl")
	if err == nil || !strings.Contains(err.Error(), "this is a trace") {
		t.Errorf("err = %v", err)
	}
}

func eagerVersion(t *testing.T) int {
	spec, err := schedulers.Lookup("eager")
	if err != nil {
		t.Fatal(err)
	}
	return spec.Version
}
