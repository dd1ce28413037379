package report

import (
	"encoding/json"
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
	memo.Lock()
	defer memo.Unlock()
	for i, k := range memo.keys {
		if k == string(key) {
			return memo.loads[i], nil
		}
	}
	w, err := workloads.Generate(sp)
	if err != nil {
		return nil, err
	}
	if len(memo.keys) == memoSize {
		memo.keys, memo.loads = memo.keys[1:], memo.loads[1:]
	}
	memo.keys, memo.loads = append(memo.keys, string(key)), append(memo.loads, w)
	return w, nil
}

const memoSize = 8

var memo struct {
	sync.Mutex
	keys  []string
	loads []*workloads.Workload
}

// runWorkload is a run's workload: its file's, or generated (memoised).
func runWorkload(r suite.Run) (*workloads.Workload, error) {
	if r.Spec.Kind == "" {
		return r.Workload()
	}
	return generate(r.Spec)
}
