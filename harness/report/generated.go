package report

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/workloads"
)

// generate memoises workload generation within a report: bounds, critical
// paths and working sets of several tables, claims and figures read the
// same points' workloads, and generating them again and again was most of
// a report's time. Workloads are read only; the few most recent are kept.
func generate(sp workloads.Spec) (*workloads.Workload, error) {
	key, err := json.Marshal(sp)
	if err != nil {
		return nil, err
	}
	if w := memo.get(string(key)); w != nil {
		return w, nil
	}
	// Generated outside the lock, so that suites reported in parallel do
	// not wait for each other's workloads.
	w, err := workloads.Generate(sp)
	if err != nil {
		return nil, err
	}
	memo.put(string(key), w)
	return w, nil
}

const memoSize = 8

var memo workloadMemo

type workloadMemo struct {
	sync.Mutex
	keys  []string
	loads []*workloads.Workload
}

func (m *workloadMemo) get(key string) *workloads.Workload {
	m.Lock()
	defer m.Unlock()
	if i := slices.Index(m.keys, key); i >= 0 {
		return m.loads[i]
	}
	return nil
}

func (m *workloadMemo) put(key string, w *workloads.Workload) {
	m.Lock()
	defer m.Unlock()
	if slices.Contains(m.keys, key) {
		return // generated meanwhile by another suite
	}
	if len(m.keys) == memoSize {
		m.keys, m.loads = m.keys[1:], m.loads[1:]
	}
	m.keys, m.loads = append(m.keys, key), append(m.loads, w)
}

// runWorkload is a run's workload: its file's, or generated (memoised).
func runWorkload(r suite.Run) (*workloads.Workload, error) {
	if r.Spec.Kind == "" {
		return r.Workload()
	}
	return generate(r.Spec)
}
