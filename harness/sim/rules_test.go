package sim_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	memrun "github.com/memsched/memsched/harness/run"
	_ "github.com/memsched/memsched/schedulers/intree"
	"github.com/memsched/memsched/workloads"
)

// TestRules replays the runtime rules as readable scripts, in the style of
// etcd raft's testdata: testdata/rules/*.txt each build a tiny platform and
// workload, run a scheduler, and list the run's events under "----".
// `go test ./harness/sim -run TestRules -rewrite` rewrites the expected
// output; a reviewer reads each change against the rule it illustrates.
// The golden corpus (harness/golden) stays the bit-identical net; these
// say what each StarPU rule does, one small case at a time.
//
// Commands:
//
//	platform [preset=v100-gemini] [gpus=N] [memory=BYTES] [KEY=VALUE ...]
//	    KEY is any [runtime] or [topology] setting of the preset.
//	workload
//	data NAME BYTES          (one per line)
//	task NAME KERNEL FLOPS DATA[:MODE] ... [after TASK ...]
//	run scheduler=NAME [PARAM=VALUE ...]
//	    prints every event: time in µs, event, where, what; then the totals.
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		var p *hardware.Platform
		var w *workloads.Workload
		var names []string // data names by id
		var tasks []string // task names by id
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "platform":
				var err error
				p, err = rulesPlatform(d)
				if err != nil {
					return "error: " + err.Error()
				}
				return ""
			case "workload":
				var err error
				w, names, tasks, err = rulesWorkload(d.Input)
				if err != nil {
					return "error: " + err.Error()
				}
				return ""
			case "run":
				if p == nil || w == nil {
					return "error: run before a platform and a workload"
				}
				return rulesRun(t, d, p, w, names, tasks)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

func rulesPlatform(d *datadriven.TestData) (*hardware.Platform, error) {
	preset := "v100-gemini"
	for _, a := range d.CmdArgs {
		if a.Key == "preset" {
			preset = a.Vals[0]
		}
	}
	p, err := hardware.Load(preset)
	if err != nil {
		return nil, err
	}
	runtime, topology := map[string]any{}, map[string]any{}
	isRuntime := map[string]bool{}
	for _, k := range hardware.RuntimeKeys() {
		isRuntime[k] = true
	}
	for _, a := range d.CmdArgs {
		v := a.Vals[0]
		switch a.Key {
		case "preset":
		case "gpus":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, err
			}
			p.GPUs, p.MaxGPUs = n, max(p.MaxGPUs, n)
		case "memory":
			b, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, err
			}
			p.SetMemoryBytes(b)
		default:
			if isRuntime[a.Key] {
				runtime[a.Key] = scriptValue(v)
			} else {
				topology[a.Key] = scriptValue(v)
			}
		}
	}
	if len(runtime) > 0 {
		if err := p.SetRuntime(runtime); err != nil {
			return nil, err
		}
	}
	if len(topology) > 0 {
		if err := p.SetTopology(topology); err != nil {
			return nil, err
		}
	}
	return p, p.Check()
}

// scriptValue reads a setting as TOML would: a bool, an integer, a float,
// else a string.
func scriptValue(v string) any {
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if v == "true" || v == "false" {
		return v == "true"
	}
	return v
}

// rulesWorkload reads "data NAME BYTES" and "task NAME KERNEL FLOPS
// DATA[:MODE]... [after TASK...]" lines into a workload, checked as every
// workload is (Workload.Validate: sizes, modes, cycles, races).
func rulesWorkload(input string) (*workloads.Workload, []string, []string, error) {
	w := &workloads.Workload{Name: "rules"}
	var dataNames, taskNames []string
	id := map[string]int{}
	modes := false
	for i, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "data":
			b, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			id[f[1]] = len(w.Data)
			w.Data = append(w.Data, workloads.Data{ID: len(w.Data), Bytes: b})
			dataNames = append(dataNames, f[1])
		case len(f) >= 5 && f[0] == "task":
			flops, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			t := workloads.Task{ID: len(w.Tasks), Kernel: f[2], Flops: flops}
			var deps []int
			ins := f[4:]
			if k := slices.Index(ins, "after"); k >= 0 {
				for _, dep := range ins[k+1:] {
					j := slices.Index(taskNames, dep)
					if j < 0 {
						return nil, nil, nil, fmt.Errorf("line %d: task %q not declared before", i+1, dep)
					}
					deps = append(deps, j)
				}
				ins = ins[:k]
			}
			var ms []workloads.Mode
			for _, in := range ins {
				name, mode, given := strings.Cut(in, ":")
				d, known := id[name]
				if !known {
					return nil, nil, nil, fmt.Errorf("line %d: data %q not declared", i+1, name)
				}
				m := workloads.R
				if given {
					modes = true
					if err := m.UnmarshalText([]byte(mode)); err != nil {
						return nil, nil, nil, fmt.Errorf("line %d: %v", i+1, err)
					}
				}
				t.Inputs = append(t.Inputs, d)
				ms = append(ms, m)
			}
			w.Tasks = append(w.Tasks, t)
			w.Modes = append(w.Modes, ms)
			w.Deps = append(w.Deps, deps)
			taskNames = append(taskNames, f[1])
		default:
			return nil, nil, nil, fmt.Errorf("line %d: %q: want \"data NAME BYTES\" or \"task NAME KERNEL FLOPS DATA[:MODE]... [after TASK...]\"", i+1, line)
		}
	}
	if !modes {
		w.Modes = nil // every input read: the workload of chapters 3-4
	}
	return w, dataNames, taskNames, w.Validate()
}

func rulesRun(t *testing.T, d *datadriven.TestData, p *hardware.Platform, w *workloads.Workload, names, tasks []string) string {
	sched := ""
	params := map[string]string{}
	for _, a := range d.CmdArgs {
		if a.Key == "scheduler" {
			sched = a.Vals[0]
		} else {
			params[a.Key] = strings.Join(a.Vals, ",")
		}
	}
	var out strings.Builder
	node := func(n int) string {
		if n == p.HomeNode() {
			return "ram"
		}
		return fmt.Sprintf("gpu%d", n)
	}
	rec, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: sched, Params: params, Seed: 1, Trace: func(e event.Event) {
		at := fmt.Sprintf("%9.3f", e.T*1e6)
		switch e.Ev {
		case "task_start", "task_end":
			fmt.Fprintf(&out, "%s %-15s GPU%d %s\n", at, e.Ev, e.Worker, tasks[e.Task])
		case "load_start":
			fmt.Fprintf(&out, "%s %-15s %s %s (%s from %s)\n", at, e.Ev, node(e.Node), names[e.Data], e.Kind, node(e.Src))
		default:
			fmt.Fprintf(&out, "%s %-15s %s %s\n", at, e.Ev, node(e.Node), names[e.Data])
		}
	}})
	if err != nil {
		return "error: " + err.Error()
	}
	perWorker := make([]string, len(rec.PerWorker))
	for i, n := range rec.PerWorker {
		perWorker[i] = strconv.Itoa(n)
	}
	fmt.Fprintf(&out, "memory %d bytes per GPU; loads %d (prefetches %d, fetches %d), evictions %d, invalidations %d, writebacks %d; makespan %.3f µs; tasks per GPU %s\n", rec.MemoryBytes,
		rec.Loads, rec.Prefetches, rec.Fetches, rec.Evictions, rec.Invalid, rec.WriteBacks, rec.MakespanS*1e6, strings.Join(perWorker, " "))
	return out.String()
}
