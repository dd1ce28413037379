package schedulers

import (
	"fmt"
	"sort"
	"strings"
)

// starpuPolicies maps StarPU's policy names (STARPU_SCHED, the
// policy_name of src/sched_policies/*.c at the tag papers/ICPP2023) to the
// memsched scheduler that follows that code, where the name differs.
// Names StarPU and memsched share (dmda, dmdar, dmdas, mst, lws,
// heteroprio, HFP in any case) need no entry. StarPU's own "eager" is
// eager_central_policy.c, without prefetching; memsched's eager is the
// papers' modular-eager-prefetching.
var starpuPolicies = map[string]string{
	"modular-eager-prefetching": "eager",
	"dynamic-data-aware":        "darts",
	// cuthillmckee_policy.c orders by Cuthill-McKee, reversed only with
	// REVERSE=1 (starpu_get_env_number_default("REVERSE", 0)).
	"cuthillmckee": "cm",
}

// StarPUAliases lists the StarPU policy names that name scheduler name.
func StarPUAliases(name string) []string {
	var out []string
	for p, n := range starpuPolicies {
		if n == name {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// starpuKnobs says, for StarPU's environment variables that choose what
// memsched's flags, suite keys or preset keys choose, what to write
// instead.
var starpuKnobs = map[string]string{
	"STARPU_SCHED":                    "the scheduler's name (--scheduler, or name in a suite's [[scheduler]]; StarPU's policy names are accepted)",
	"STARPU_NTASKS_THRESHOLD":         "the scheduler parameter buffer (--param buffer=N, or buffer = N in a suite)",
	"STARPU_SCHED_READY":              "the scheduler parameter ready (--param ready=true|false)",
	"STARPU_CUDA_PIPELINE":            "the platform preset's [runtime] pipeline",
	"STARPU_LIMIT_CUDA_MEM":           "--memory-mb (memory_mb in a suite's [platform])",
	"STARPU_NCUDA":                    "--gpus (gpus in a suite's [platform])",
	"STARPU_NCPU":                     "--cpus (cpus in a suite's [platform])",
	"STARPU_HOSTNAME":                 "--platform NAME, a preset imported from that host's calibration (memsched calibrate --from-starpu)",
	"STARPU_PERF_MODEL_DIR":           "--platform, a preset imported from those models (memsched calibrate --from-starpu DIR)",
	"STARPU_SIMGRID_CUDA_MALLOC_COST": "the platform preset's [runtime] settings",
}

// StarPUKnob explains a StarPU environment variable given where memsched
// takes its settings, or returns "" for a name that is not one.
func StarPUKnob(name string) string {
	if !strings.HasPrefix(strings.ToUpper(name), "STARPU_") {
		return ""
	}
	if s, ok := starpuKnobs[strings.ToUpper(name)]; ok {
		return fmt.Sprintf("%s is StarPU's environment; in memsched: %s", strings.ToUpper(name), s)
	}
	return fmt.Sprintf("%s is StarPU's environment, which memsched does not read: its settings are flags, suite keys and preset keys (memsched run -h, docs/suites.md)", strings.ToUpper(name))
}

// CheckStarPUEnv refuses a process environment holding StarPU variables:
// a StarPU user's STARPU_SCHED=dmdar would otherwise be silently ignored
// (the StarPU peer executor too starts StarPU with an environment of its
// own). The error names each variable and its memsched equivalent.
func CheckStarPUEnv(environ []string) error {
	var bad []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "STARPU_") {
			bad = append(bad, StarPUKnob(k))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("the environment sets StarPU variables that memsched would ignore (unset them):\n  %s", strings.Join(bad, "\n  "))
}
