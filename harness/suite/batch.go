package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/schedulers"
	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

// BatchSuite is the [batch] table of a batch suite (thesis chapter 6): jobs
// on a cluster instead of tasks on GPUs. It replaces [platform] and
// [workload]:
//
//	[batch]
//	weeks           = ["2022-02-07", "2022-02-21", "2022-09-05"]  # Rackham weeks (an axis)
//	rules           = "release"      # or "thesis"; loop, reuse, load_base, backfill override one rule
//	walltime        = "revealed"     # what the release lost: see jobs.WeekOptions
//	walltime_factor = 30
//	walltime_max    = 864000
//	lead_in         = "none"
//	tail            = "day"
//	sessions        = "release"      # or "window" (session_window seconds)
//	# nodes, cores, memory_gb, bandwidth override Rackham's numbers;
//	# swf = "file.swf" (with share, window) or synthetic = N (with load)
//	# replace weeks.
//
//	[report]
//	baseline    = "FCFS"     # improvements of the labels without -BF
//	baseline_bf = "FCFS-BF"  # of the labels ending in -BF
//
// [[scheduler]] blocks name batch schedulers (fcfs, eft, lea, leo, lem)
// with their parameters (backfill, w, evict_weight, sticky, busy_threshold).
type BatchSuite struct {
	Workloads  []batch.Workload // one per point
	Cluster    batch.Cluster
	Rules      batch.Rules
	BaselineBF string
}

var batchKeys = []string{"weeks", "swf", "share", "window", "synthetic", "load", "seed", "rules", "loop", "reuse", "load_base", "backfill",
	"walltime", "walltime_factor", "walltime_max", "lead_in", "tail", "sessions", "session_window",
	"nodes", "cores", "memory_gb", "bandwidth"}

// parseBatch reads a batch suite's [batch], [[scheduler]] and [report].
func (s *Suite) parseBatch(top *tbl) {
	t := top.sub("batch", true)
	b := &BatchSuite{Cluster: batch.Rackham()}
	s.Batch = b
	var err error
	if b.Rules, err = batch.Preset(t.str("rules", "thesis")); err != nil {
		t.errf("rules", "%v", err)
	}
	for _, k := range []string{"loop", "reuse", "load_base", "backfill"} {
		if t.has(k) {
			if err := b.Rules.Set(k, t.str(k, "")); err != nil {
				t.errf(k, "%v", err)
			}
		}
	}
	if t.has("nodes") {
		b.Cluster.Nodes = int(t.integer("nodes", 0))
	}
	if t.has("cores") {
		b.Cluster.CoresPerNode = int(t.integer("cores", 0))
	}
	if t.has("memory_gb") {
		b.Cluster.MemoryGB = t.number("memory_gb")
	}
	if t.has("bandwidth") {
		b.Cluster.BandwidthGBs = float32(t.number("bandwidth"))
	}
	if err := b.Cluster.Check(); err != nil {
		t.errf("nodes", "%v", err)
	}
	w := batch.Workload{Walltime: t.str("walltime", ""), WalltimeFactor: numberOr(t, "walltime_factor"),
		WalltimeMax: t.integer("walltime_max", 0), LeadIn: t.str("lead_in", ""), Tail: t.str("tail", ""),
		Share: t.str("share", ""), Window: t.integer("window", 0), Load: numberOr(t, "load"), Seed: uint64(t.integer("seed", 1)),
		Sessions: t.str("sessions", ""), SessionWindow: t.integer("session_window", 0)}
	switch {
	case t.has("weeks"):
		w.Kind = "rackham"
		for _, wk := range t.strings("weeks") {
			if !slices.Contains(jobs.Weeks(), wk) {
				t.errf("weeks", "unknown Rackham week %q%s; the weeks are %s", wk, schedulers.Suggest(wk, jobs.Weeks()), strings.Join(jobs.Weeks(), ", "))
				continue
			}
			x := w
			x.Week = wk
			b.Workloads = append(b.Workloads, x)
		}
	case t.has("swf"):
		w.Kind, w.File = "swf", s.Path(t.str("swf", ""))
		b.Workloads = append(b.Workloads, w)
	case t.has("synthetic"):
		w.Kind, w.Jobs = "synthetic", int(t.integer("synthetic", 0))
		b.Workloads = append(b.Workloads, w)
	default:
		t.errf("", "[batch] names no workload; add weeks = [%q], swf = \"trace.swf\" or synthetic = 100000", jobs.Weeks()[0])
	}
	// An option the workload's kind does not read would be ignored, yet
	// change the runs' keys; 0 where 0 means the default is refused too.
	ignored := false
	for _, x := range b.Workloads[:min(1, len(b.Workloads))] {
		for _, k := range batchKeys {
			if t.has(k) {
				if err := x.CheckGiven([]string{k}, func(o string) string { return o }); err != nil {
					t.errf(k, "%v", err)
					ignored = true
				}
			}
		}
	}
	// Each workload must be readable with these choices (a wrong option or
	// an unreadable file shows now, not in the middle of a sweep).
	for _, x := range b.Workloads {
		if ignored {
			break
		}
		if _, err := x.Trace(b.Cluster); err != nil {
			t.errf("", "%s: %v", x.Defaults().Name(), err)
			break
		}
	}
	t.unknown(batchKeys...)

	for i, st := range top.array("scheduler") {
		s.parseBatchScheduler(i, st)
	}
	if _, ok := top.m["scheduler"]; !ok {
		top.p.errf("", "", "no [[scheduler]] block; add at least one, e.g. [[scheduler]] name = \"fcfs\" label = \"FCFS\"")
	}
	labels := s.Labels()
	if rt := top.sub("report", false); rt != nil {
		s.Report.Baseline = rt.str("baseline", "")
		b.BaselineBF = rt.str("baseline_bf", "")
		for _, k := range []string{"baseline", "baseline_bf"} {
			if v := rt.str(k, ""); v != "" && !slices.Contains(labels, v) {
				rt.errf(k, "%s %q is not a scheduler label of this suite%s; labels: %s", k, v, schedulers.Suggest(v, labels), strings.Join(labels, ", "))
			}
		}
		rt.unknown("baseline", "baseline_bf")
	}
	if s.Report.Baseline == "" && len(labels) > 0 {
		s.Report.Baseline = labels[0]
	}
	top.unknown("suite", "batch", "scheduler", "report")
}

func (s *Suite) parseBatchScheduler(i int, t *tbl) {
	sc := Scheduler{Raw: map[string]string{}, Line: t.p.loc.line(t.path, "")}
	sc.Name = t.str("name", "")
	sc.Label = t.str("label", sc.Name)
	if sc.Name == "" {
		t.errf("", "[[scheduler]] #%d has no name; add name = \"fcfs\" (memsched batch --list lists them)", i+1)
		return
	}
	checkLabel(t, sc.Label)
	spec, err := sched.Lookup(sc.Name)
	if err != nil {
		t.errf("name", "%v", err)
	}
	sc.Raw, _ = t.rawParams("name", "label")
	if err == nil {
		if sc.Params, err = schedulers.ResolveParams(spec.Name, spec.Params, sc.Raw); err != nil {
			t.errf("", "%v", err)
		}
		sc.Name, sc.Version = spec.Name, spec.Version
	}
	for j := range s.Schedulers {
		s.labelTaken(t, sc, j)
	}
	s.Schedulers = append(s.Schedulers, sc)
}

// batchKey is a batch run's configuration: everything outside the code
// that its result depends on (run.BatchKey adds the code versions).
type batchKey struct {
	Workload  batch.Workload `json:"workload"`
	Cluster   batch.Cluster  `json:"cluster"`
	Rules     batch.Rules    `json:"rules"`
	Scheduler string         `json:"scheduler"`
	Params    string         `json:"params"`
}

// batchRuns expands a batch suite: workloads × schedulers (the simulator is
// deterministic and draws nothing: one repetition).
func (s *Suite) batchRuns() []Run {
	var out []Run
	for _, w := range s.Batch.Workloads {
		w = w.Defaults()
		point := map[string]any{"week": w.Week}
		if w.Kind != "rackham" {
			point = map[string]any{"workload": w.Name()}
		}
		for _, sc := range s.Schedulers {
			b, _ := json.Marshal(batchKey{w, s.Batch.Cluster, s.Batch.Rules, sc.Name, sc.Params.Canonical()})
			sum := sha256.Sum256(b)
			config := hex.EncodeToString(sum[:12])
			params := map[string]string{}
			for k, v := range sc.Params {
				params[k] = v
			}
			setup := &batch.Setup{Workload: w, Cluster: s.Batch.Cluster, Rules: s.Batch.Rules, Scheduler: sc.Name, Params: params}
			out = append(out, Run{Key: run.BatchKey(config, sc.Version), ConfigID: config, Suite: s.Name, Label: sc.Label,
				Scheduler: sc.Name, SchedulerVersion: sc.Version, Params: sc.Params, Point: point, Executor: run.BatchExecutor, Timeout: int64(s.Timeout), Batch: setup})
		}
	}
	return out
}

func numberOr(t *tbl, key string) float64 {
	if !t.has(key) {
		return 0
	}
	return t.number(key)
}
