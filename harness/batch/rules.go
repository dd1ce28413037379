package batch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// Rules are the simulator's choices where the thesis and the release
// differ. The preset "thesis" follows the text, "release" the code.
type Rules struct {
	// Loop decides when the plan is recomputed.
	//   - "event": "the schedule is re-computed entirely at each unpredicted
	//     event (job submission or job termination before the walltime)"
	//     (thesis §6.5.4); every second with a submission or a completion
	//     replans the whole queue.
	//   - "release": the release's main loop (src/main.c main): at most one
	//     pass every 30 s; a second with completions replans the queue from
	//     scratch, a second with only submissions plans the new jobs on top
	//     of the current plan; completions and submissions of a second
	//     refused by the 30 s throttle trigger nothing later (submissions
	//     wait in the new-job list for the next pass of new jobs); a pass
	//     stops at the first job the free cores cannot hold (FCFS: when no
	//     core is free).
	Loop string `json:"loop"`
	// Reuse decides when a file on a node serves a starting job.
	//   - "consecutive": while a job using it runs on the node, or when no
	//     job started on the node since the last one using it ended (thesis
	//     §6.3: "no job is started on this node between the completion of
	//     J_i and the start of J_j").
	//   - "same-second": while a job using it runs, or when the last one
	//     ended in the same second (add_data_in_node in
	//     src/basic_functions.c: nb_task_using_it > 0 || end_time == t).
	Reuse string `json:"reuse"`
	// LoadBase is the origin of t'_k − t_k when File(J) is still being
	// loaded at t_k by another job (case 3 of §6.4.1).
	//   - "tk": StartTime(J_j) + Size/Bandwidth − t_k, as the thesis writes it.
	//   - "now": load end − current time
	//     (is_my_file_on_node_at_certain_time_and_transfer_time returns
	//     temp - t), which overestimates the overhead.
	LoadBase string `json:"load_base"`
	// Backfill decides where conservative backfilling may place a job (the
	// -BF schedulers).
	//   - "window": at the earliest time its cores are free for its whole
	//     walltime, holes in the future included (thesis §6.4.3, line 3').
	//   - "now": into a hole only at the current time, else after the last
	//     reservation of the cores, as without backfilling
	//     (schedule_job_on_earliest_available_cores_with_conservative_backfill
	//     and can_it_get_backfilled in the release: "backfilled only at
	//     time t").
	Backfill string `json:"backfill"`
}

// Rule choices.
var (
	LoopChoices     = []string{"event", "release"}
	ReuseChoices    = []string{"consecutive", "same-second"}
	LoadBaseChoices = []string{"tk", "now"}
	BackfillChoices = []string{"window", "now"}
	RulePresets     = []string{"thesis", "release"}
)

// Preset returns a named rule set.
func Preset(name string) (Rules, error) {
	switch name {
	case "thesis":
		return Rules{Loop: "event", Reuse: "consecutive", LoadBase: "tk", Backfill: "window"}, nil
	case "release":
		return Rules{Loop: "release", Reuse: "same-second", LoadBase: "now", Backfill: "now"}, nil
	}
	return Rules{}, fmt.Errorf("unknown rules %q%s; the presets are %s", name, suggest.Closest(name, RulePresets), strings.Join(RulePresets, ", "))
}

// Set changes one rule by name (loop, reuse, load_base, backfill).
func (r *Rules) Set(key, value string) error {
	var field *string
	var ok []string
	switch key {
	case "loop":
		field, ok = &r.Loop, LoopChoices
	case "reuse":
		field, ok = &r.Reuse, ReuseChoices
	case "load_base":
		field, ok = &r.LoadBase, LoadBaseChoices
	case "backfill":
		field, ok = &r.Backfill, BackfillChoices
	default:
		keys := []string{"loop", "reuse", "load_base", "backfill"}
		return fmt.Errorf("unknown rule %q%s; the rules are %s", key, suggest.Closest(key, keys), strings.Join(keys, ", "))
	}
	if !slices.Contains(ok, value) {
		return fmt.Errorf("rule %s = %q: must be one of %s%s", key, value, strings.Join(ok, ", "), suggest.Closest(value, ok))
	}
	*field = value
	return nil
}

// Check validates every rule.
func (r Rules) Check() error {
	for _, kv := range [][2]string{{"loop", r.Loop}, {"reuse", r.Reuse}, {"load_base", r.LoadBase}, {"backfill", r.Backfill}} {
		c := r
		if err := c.Set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// Name is the preset these rules equal, or their settings.
func (r Rules) Name() string {
	for _, p := range RulePresets {
		if q, _ := Preset(p); q == r {
			return p
		}
	}
	return fmt.Sprintf("loop=%s,reuse=%s,load_base=%s,backfill=%s", r.Loop, r.Reuse, r.LoadBase, r.Backfill)
}
