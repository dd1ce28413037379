package schedulers_test

import (
	"strings"
	"testing"

	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/static"
)

// StarPU's policy names find the scheduler that follows their code.
func TestStarPUPolicyNames(t *testing.T) {
	for starpu, want := range map[string]string{
		"modular-eager-prefetching": "eager",
		"dynamic-data-aware":        "darts",
		"cuthillmckee":              "cm",
		"HFP":                       "hfp",
		"dmdar":                     "dmdar",
		"mst":                       "mst",
		"lws":                       "lws",
	} {
		s, err := schedulers.Lookup(starpu)
		if err != nil || s.Name != want {
			t.Errorf("%s: got %q %v, want %s", starpu, s.Name, err, want)
		}
	}
	if _, err := schedulers.Lookup("cuthilmckee"); err == nil || !strings.Contains(err.Error(), `did you mean "cuthillmckee"`) {
		t.Errorf("a misspelt StarPU name: %v", err)
	}
}

// STARPU_* knobs are refused with their memsched equivalent, as parameters
// and in the environment.
func TestStarPUKnobsAreRefused(t *testing.T) {
	s, err := schedulers.Lookup("dmdar")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(map[string]string{"STARPU_NTASKS_THRESHOLD": "4"}); err == nil || !strings.Contains(err.Error(), "--param buffer=N") {
		t.Errorf("STARPU_NTASKS_THRESHOLD as a parameter: %v", err)
	}
	if err := schedulers.CheckStarPUEnv([]string{"HOME=/root", "MEMSCHED_STARPU=/opt/starpu"}); err != nil {
		t.Errorf("no StarPU variable: %v", err)
	}
	err = schedulers.CheckStarPUEnv([]string{"STARPU_SCHED=dmdar", "STARPU_FOO=1"})
	if err == nil || !strings.Contains(err.Error(), "STARPU_SCHED is StarPU's environment; in memsched: the scheduler's name") || !strings.Contains(err.Error(), "STARPU_FOO is StarPU's environment, which memsched does not read") {
		t.Errorf("environment: %v", err)
	}
}
