package sweep

import (
	"testing"

	"github.com/memsched/memsched/workloads"
)

// The runs of a point share one generated workload, and the sweep lets it
// go after the last of them.
func TestRunsOfAPointShareItsWorkload(t *testing.T) {
	// 3 sizes × 2 repetitions (a random order each) × 2 GPU counts × 2 schedulers.
	runs := load(t, base).Runs()
	shared := shareWorkloads(runs)
	if len(shared.entries) != 6 {
		t.Fatalf("%d workloads for 3 sizes × 2 orders", len(shared.entries))
	}
	bySpec := map[string]*workloads.Workload{}
	users := map[*workloads.Workload]int{}
	for _, r := range runs {
		cfg, err := shared.config(r)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := bySpec[specKey(r)]; ok && w != cfg.Workload {
			t.Errorf("%s: a run got another copy of the workload", r.Spec.Name())
		}
		bySpec[specKey(r)] = cfg.Workload
		users[cfg.Workload]++
	}
	for w, n := range users {
		if n != 4 {
			t.Errorf("%s is shared by %d runs, not 4", w.Name, n)
		}
	}
	for i, r := range runs {
		shared.release(r)
		if left := len(shared.entries); i < len(runs)-1 && left == 0 || i == len(runs)-1 && left != 0 {
			t.Fatalf("after %d of %d releases, %d workloads are held", i+1, len(runs), left)
		}
	}
}
