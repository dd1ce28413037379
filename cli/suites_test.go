package cli

import (
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/paper"
)

// TestRepositorySuitesAndClaims checks the repository's suites against the
// claims that name them: every suite loads, and every claim a suite
// reproduces names its labels and, for an improvement, points the suite
// runs for both schedulers, so no claim silently averages other points.
func TestRepositorySuitesAndClaims(t *testing.T) {
	suites := loadSuites("../suites", io.Discard)
	if len(suites) < 20 {
		t.Fatalf("loaded %d suites from ../suites", len(suites))
	}
	claims, err := paper.LoadDir("../paper")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range claims {
		if c.Status != paper.StatusReproducible || c.Suite == "" {
			continue
		}
		if paper.WholeSuites(c.Publication) {
			// A glob over suites: each must load and hold both labels.
			matched, _ := filepath.Glob(filepath.Join("..", c.Suite))
			if len(matched) == 0 {
				t.Errorf("%s: no suite matches %s", c.ID, c.Suite)
			}
			for _, m := range matched {
				rel, _ := filepath.Rel("..", m)
				if suites[rel] == nil {
					t.Errorf("%s: suite %s does not load", c.ID, rel)
				}
			}
			continue
		}
		s := suites[c.Suite]
		if s == nil {
			t.Errorf("%s: suite %s does not load", c.ID, c.Suite)
			continue
		}
		if c.Kind == paper.KindQualitative || c.Restates != "" {
			continue
		}
		have := map[string]map[float64]bool{} // label -> point values run
		for _, r := range s.Runs() {
			if c.GPUs > 0 && r.Platform.GPUs != c.GPUs {
				continue
			}
			if have[r.Label] == nil {
				have[r.Label] = map[float64]bool{}
			}
			for k := range c.Points {
				v := float64(r.Spec.N)
				if k == "memory_mb" {
					v = math.Round(float64(r.Platform.MemoryBytes) / hardware.MiB)
				}
				have[r.Label][v] = true
			}
		}
		for _, l := range []string{c.Scheduler, c.Baseline} {
			if l != "" && have[l] == nil {
				t.Errorf("%s: %s has no label %q", c.ID, c.Suite, l)
			}
		}
		for k, vs := range c.Points {
			for _, v := range vs {
				if !have[c.Scheduler][v] || !have[c.Baseline][v] {
					t.Errorf("%s: %s does not run %s and %s at %s = %g", c.ID, c.Suite, c.Scheduler, c.Baseline, k, v)
				}
			}
		}
	}
}
