package sweep

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/workloads"
)

// sharedWorkloads generates each point's workload once for all the runs
// that use it (its schedulers, repetitions, memory sizes and GPU counts)
// and lets it go after the last of them: generating the FMM octree's
// interactions once per run was half of its suites' CPU time. Workloads are
// read only, so concurrent runs share them as they share a suite's file.
type sharedWorkloads struct {
	mu      sync.Mutex
	entries map[string]*sharedWorkload
}

type sharedWorkload struct {
	once  sync.Once
	w     *workloads.Workload
	err   error
	users int // runs that have not released it yet
}

// shareWorkloads counts the runs of todo that use each generated workload.
func shareWorkloads(todo []suite.Run) *sharedWorkloads {
	s := &sharedWorkloads{entries: map[string]*sharedWorkload{}}
	for _, r := range todo {
		if r.Generated() {
			k := specKey(r)
			if s.entries[k] == nil {
				s.entries[k] = &sharedWorkload{}
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
// r is the first of its runs to start; release must follow the run.
func (s *sharedWorkloads) config(r suite.Run) (run.Config, error) {
	if !r.Generated() {
		return r.Config()
	}
	s.mu.Lock()
	e := s.entries[specKey(r)]
	s.mu.Unlock()
	e.once.Do(func() {
		defer func() { // as execute reports a run's panic, for every run of the workload
			if p := recover(); p != nil {
				e.err = fmt.Errorf("panic: %v", p)
			}
		}()
		e.w, e.err = r.Workload()
	})
	if e.err != nil {
		return run.Config{}, e.err
	}
	return r.ConfigWith(e.w), nil
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
