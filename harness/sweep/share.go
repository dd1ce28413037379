package sweep

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/workloads"
)

// sharedWorkloads generates each point's workload once for all the runs
// that use it (its schedulers, repetitions, memory sizes and GPU counts)
// and lets it go after the last of them: generating the FMM octree's
// interactions once per run was half of its suites' CPU time. Workloads are
// read only, so concurrent runs share them as they share a suite's file.
// What schedulers compute from the workload alone and share
// (schedulers.Sharer: hMETIS+R's partition) lives and goes with it.
type sharedWorkloads struct {
	mu      sync.Mutex
	entries map[string]*sharedWorkload
}

type sharedWorkload struct {
	users   int                // runs that have not released it yet
	flights map[string]*flight // "workload", and "plan " + a scheduler's key
}

// A flight is a value computed once by the first run that needs it; the
// runs that need it meanwhile wait, lending their slot.
type flight struct {
	done chan struct{}
	v    any
	err  error
}

// share returns the value of e's flight key: computed by the first run to
// ask, waited for under their lease by the others.
func (s *sharedWorkloads) share(e *sharedWorkload, key string, l *lease, compute func() (any, error)) (any, error) {
	s.mu.Lock()
	f := e.flights[key]
	first := f == nil
	if first {
		f = &flight{done: make(chan struct{})}
		e.flights[key] = f
	}
	s.mu.Unlock()
	if !first {
		l.wait(f.done)
		return f.v, f.err
	}
	defer close(f.done)
	defer func() { // as execute reports a run's panic, for every run waiting
		if p := recover(); p != nil {
			f.err = fmt.Errorf("panic: %v", p)
		}
	}()
	f.v, f.err = compute()
	return f.v, f.err
}

// A lease is a run's slot among the sweep's Jobs. A run waiting for what
// another run computes gives its slot back meanwhile, so that another run
// starts instead of a core idling, and takes one again before going on; a
// waiting run thus never holds a slot, and the runs holding the slots
// always progress. The time it waits does not count against its timeout.
type lease struct {
	slots  chan struct{}
	waited atomic.Int64 // nanoseconds spent in past waits
	since  atomic.Int64 // the current wait's start (UnixNano), 0 if none
}

func (l *lease) wait(done <-chan struct{}) {
	select {
	case <-done:
		return
	default:
	}
	t0 := time.Now()
	l.since.Store(t0.UnixNano())
	<-l.slots
	<-done
	l.slots <- struct{}{}
	l.waited.Add(int64(time.Since(t0)))
	l.since.Store(0)
}

// waitedSoFar is the time the run has waited, the current wait included.
func (l *lease) waitedSoFar() time.Duration {
	w := time.Duration(l.waited.Load())
	if t := l.since.Load(); t != 0 {
		w += time.Since(time.Unix(0, t))
	}
	return w
}

// shareWorkloads counts the runs of todo that use each generated workload.
func shareWorkloads(todo []suite.Run) *sharedWorkloads {
	s := &sharedWorkloads{entries: map[string]*sharedWorkload{}}
	for _, r := range todo {
		if r.Generated() {
			k := specKey(r)
			if s.entries[k] == nil {
				s.entries[k] = &sharedWorkload{flights: map[string]*flight{}}
			}
			s.entries[k].users++
		}
	}
	return s
}

func specKey(r suite.Run) string {
	b, _ := json.Marshal(r.Spec) // a Spec is plain values: Marshal cannot fail
	return string(b)
}

// config builds r's configuration on its shared workload, generating it if
// r is the first of its runs to start, and lets its scheduler share what it
// computes with the point's other runs; release must follow the run.
func (s *sharedWorkloads) config(r suite.Run, l *lease) (run.Config, error) {
	if !r.Generated() {
		return r.Config()
	}
	s.mu.Lock()
	e := s.entries[specKey(r)]
	s.mu.Unlock()
	w, err := s.share(e, "workload", l, func() (any, error) { return r.Workload() })
	if err != nil {
		return run.Config{}, err
	}
	cfg := r.ConfigWith(w.(*workloads.Workload))
	cfg.Share = func(key string, compute func() (any, error)) (any, error) {
		return s.share(e, "plan "+key, l, compute)
	}
	return cfg, nil
}

// release says that r no longer needs its workload; the last run of a
// workload drops it, so a sweep holds only the workloads of runs to come.
func (s *sharedWorkloads) release(r suite.Run) {
	if !r.Generated() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := specKey(r)
	if e := s.entries[k]; e != nil {
		if e.users--; e.users == 0 {
			delete(s.entries, k)
		}
	}
}
