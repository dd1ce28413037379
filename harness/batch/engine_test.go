package batch

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

// tiny is a cluster where a file of c cores is c GB and loads in 10 s per core.
func tiny(nodes, cores int) Cluster {
	return Cluster{Name: "tiny", Nodes: nodes, CoresPerNode: cores, MemoryGB: float64(cores), BandwidthGBs: 0.1}
}

func job(id int, submit int64, cores int, dur, wall int64, file int) jobs.Job {
	return jobs.Job{ID: id, Submit: submit, Cores: cores, Duration: dur, Walltime: wall, User: 1, File: file,
		SizeGB: float32(cores), Eval: true}
}

func run(t *testing.T, cl Cluster, rules string, name string, params map[string]string, js ...jobs.Job) (*jobs.Trace, *Result) {
	t.Helper()
	tr := &jobs.Trace{Name: "toy", Jobs: js}
	s, _, _, err := sched.Build(name, params)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := Preset(rules)
	res, err := Run(Config{Trace: tr, Cluster: cl, Rules: r, Scheduler: s, Phase: -1})
	if err != nil {
		t.Fatal(err)
	}
	return tr, res
}

type want struct {
	id              int
	start, end      int64
	node            int32
	transfer, waitS int32
}

func check(t *testing.T, tr *jobs.Trace, res *Result, ws ...want) {
	t.Helper()
	for _, w := range ws {
		for i := range tr.Jobs {
			if tr.Jobs[i].ID != w.id {
				continue
			}
			r := res.Jobs[i]
			got := want{w.id, r.Start, r.End, r.Node, r.Transfer, r.Wait}
			if !r.Started || got != w {
				t.Errorf("job %d: got %+v (started %v), want %+v", w.id, got, r.Started, w)
			}
		}
	}
}

// One node of two cores; J2 needs both and waits for J1's walltime, J3 is
// short. Without backfilling J3 queues behind J2; with backfilling it runs in
// the hole now, while J4, too long for the hole, waits: J2's reservation is
// respected (thesis §6.4.3).
func TestBackfillingHandChecked(t *testing.T) {
	js := []jobs.Job{
		job(1, 0, 1, 90, 200, 1),  // load 10 + 90: ends at 100
		job(2, 1, 2, 50, 100, 2),  // 2 cores: waits for J1
		job(3, 2, 1, 20, 50, 3),   // fits the hole [2, 200) of the free core
		job(4, 3, 1, 200, 300, 4), // does not fit it: J2 is reserved at 200
	}
	cl := tiny(1, 2)
	tr, res := run(t, cl, "thesis", "fcfs", nil, js...)
	check(t, tr, res,
		want{1, 0, 100, 0, 10, 0},
		want{2, 100, 170, 0, 20, 0}, // J1 ends at 100: replanned, starts, loads 20 s
		want{3, 170, 200, 0, 10, 0}, // behind J2 (its walltime end is 200, it ends at 170)
		want{4, 170, 380, 0, 10, 0},
	)
	tr, res = run(t, cl, "thesis", "fcfs", map[string]string{"backfill": "true"}, js...)
	check(t, tr, res,
		want{1, 0, 100, 0, 10, 0},
		want{3, 2, 32, 0, 10, 0}, // backfilled now
		want{2, 100, 170, 0, 20, 0},
		want{4, 170, 380, 0, 10, 0}, // not before J2
	)
	// The release's rule backfills at the current time only: the same here.
	rl, _ := Preset("thesis")
	rl.Backfill = "now"
	s, _, _, _ := sched.Build("fcfs", map[string]string{"backfill": "true"})
	tr = &jobs.Trace{Jobs: js}
	res, err := Run(Config{Trace: tr, Cluster: cl, Rules: rl, Scheduler: s, Phase: -1})
	if err != nil {
		t.Fatal(err)
	}
	check(t, tr, res, want{3, 2, 32, 0, 10, 0}, want{4, 170, 380, 0, 10, 0})
}

// Two jobs share file 1 on a node: the second waits for the first's load;
// a third, submitted after both ended, finds the file under the thesis'
// rule (no job started on the node since) and reloads it under the
// release's (reuse only in the second the last job ended).
func TestReuseRules(t *testing.T) {
	js := []jobs.Job{
		job(1, 0, 1, 90, 200, 1),
		job(2, 5, 1, 90, 200, 1),
		job(3, 300, 1, 90, 200, 1),
	}
	cl := tiny(1, 2)
	tr, res := run(t, cl, "thesis", "fcfs", nil, js...)
	check(t, tr, res,
		want{1, 0, 100, 0, 10, 0},
		want{2, 5, 100, 0, 0, 5}, // waits until 10 for the load, runs 90
		want{3, 300, 390, 0, 0, 0},
	)
	rules, _ := Preset("thesis")
	rules.Reuse = "same-second"
	s, _, _, _ := sched.Build("fcfs", nil)
	tr = &jobs.Trace{Jobs: js}
	res, err := Run(Config{Trace: tr, Cluster: cl, Rules: rules, Scheduler: s, Phase: -1})
	if err != nil {
		t.Fatal(err)
	}
	check(t, tr, res, want{3, 300, 400, 0, 10, 0})
}

// Node 0 runs a job with file 1 until 1010; node 1 is idle. A second job of
// file 1: FCFS and EFT start it now on node 1 (loading), LEA waits for node 0
// where the file is (1010 < 1 + 500 × 10), LEO starts it now (node 1 can).
func TestLocalityHandChecked(t *testing.T) {
	js := []jobs.Job{
		job(1, 0, 1, 1000, 1010, 1),
		job(2, 1, 1, 100, 110, 1),
	}
	cl := tiny(2, 1)
	for name, w := range map[string]want{
		"fcfs": {2, 1, 111, 1, 10, 0},
		"eft":  {2, 1, 111, 1, 10, 0},
		"lea":  {2, 1010, 1110, 0, 0, 0},
		"leo":  {2, 1, 111, 1, 10, 0},
		"lem":  {2, 1, 111, 1, 10, 0}, // node 1 idle: EFT
	} {
		tr, res := run(t, cl, "thesis", name, nil, js...)
		check(t, tr, res, w)
	}
	// With both nodes running (a third job holding node 1), LEM is LEA.
	js = append(js[:1], job(3, 0, 1, 2000, 2010, 2), job(2, 1, 1, 100, 110, 1))
	tr, res := run(t, cl, "thesis", "lem", nil, js...)
	check(t, tr, res, want{2, 1010, 1110, 0, 0, 0})
}

// The release's loop plans only on its 30 s grid and only when the second has
// submissions or completions.
func TestReleaseLoopGrid(t *testing.T) {
	js := []jobs.Job{
		job(1, 0, 1, 90, 200, 1),
		job(2, 20, 1, 90, 200, 2),
		job(3, 30, 1, 90, 200, 3),
	}
	tr, res := run(t, tiny(1, 4), "release", "fcfs", nil, js...)
	// No pass before 30 (the grid starts 30 s after the first second); at
	// 30 the new jobs (1 and 2 waited in the new-job list) are planned.
	check(t, tr, res,
		want{1, 30, 130, 0, 10, 0},
		want{2, 30, 130, 0, 10, 0},
		want{3, 30, 130, 0, 10, 0},
	)
}

func TestWalltimeKills(t *testing.T) {
	tr, res := run(t, tiny(1, 1), "thesis", "fcfs", nil, job(1, 0, 1, 100, 50, 1))
	check(t, tr, res, want{1, 0, 50, 0, 10, 0})
}

// randomTrace draws a small trace with shared files, bursts of jobs of
// one file and core count, and tight and loose walltimes.
func randomTrace(r *rand.Rand, n, cores int) *jobs.Trace {
	tr := &jobs.Trace{Name: "random"}
	at := int64(0)
	for i := 1; i <= n; i++ {
		at += int64(r.IntN(40))
		c := 1 + r.IntN(cores)
		d := int64(1 + r.IntN(400))
		w := int64(float64(d+int64(10*c)) * (0.8 + 2*r.Float64()))
		f := 1 + r.IntN(n/3+1)
		if r.IntN(8) == 0 {
			f = 0
		}
		if i > 1 && r.IntN(3) == 0 { // the burst goes on
			prev := tr.Jobs[len(tr.Jobs)-1]
			f, c = prev.File, prev.Cores
		}
		j := job(i, at, c, d, max(w, 1), f)
		j.Eval = r.IntN(10) > 0
		tr.Jobs = append(tr.Jobs, j)
	}
	tr.Jobs[0].Eval = true
	return tr
}

var allRules = []string{"thesis", "release"}

func configs() []struct {
	name   string
	params map[string]string
} {
	var out []struct {
		name   string
		params map[string]string
	}
	for _, n := range sched.Names() {
		for _, bf := range []string{"false", "true"} {
			p := map[string]string{"backfill": bf}
			out = append(out, struct {
				name   string
				params map[string]string
			}{n, p})
			if n == "leo" {
				out = append(out, struct {
					name   string
					params map[string]string
				}{n, map[string]string{"backfill": bf, "sticky": "true"}})
			}
		}
	}
	return out
}

// The node index and pruning give the release's scan choices, whatever the
// rules; the same run twice gives the same result.
func TestFastChoiceEqualsScanAndDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 15; trial++ {
		tr := randomTrace(r, 60+r.IntN(80), 4)
		cl := tiny(1+r.IntN(4), 4)
		if trial >= 12 { // enough nodes for the index's rebuilds and long file lists
			tr = randomTrace(r, 300+r.IntN(200), 4)
			cl = tiny(10+r.IntN(20), 4)
		}
		for _, rules := range allRules {
			rl, _ := Preset(rules)
			if trial%3 == 2 {
				rl.Backfill = map[string]string{"window": "now", "now": "window"}[rl.Backfill]
			}
			for _, c := range configs() {
				s, _, _, err := sched.Build(c.name, c.params)
				if err != nil {
					t.Fatal(err)
				}
				cfg := Config{Trace: tr, Cluster: cl, Rules: rl, Scheduler: s, Phase: r.IntN(31) - 1}
				fast, err := Run(cfg)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := Run(cfg)
				if !reflect.DeepEqual(fast, again) {
					t.Fatalf("%s %v %s: two runs differ", c.name, c.params, rl.Name())
				}
				cfg.Scheduler = sched.Reference(s)
				ref, err := Run(cfg)
				if err != nil {
					t.Fatal(err)
				}
				for i := range fast.Jobs {
					if fast.Jobs[i] != ref.Jobs[i] {
						t.Fatalf("trial %d %s %v %s: job %d: fast %+v, release scan %+v", trial, c.name, c.params, rl.Name(), tr.Jobs[i].ID, fast.Jobs[i], ref.Jobs[i])
					}
				}
			}
		}
	}
}

// traceOf runs a configuration with every event and plan recorded.
func traceOf(t *testing.T, tr *jobs.Trace, cl Cluster, rl Rules, name string, params map[string]string) (*Header, []Event) {
	t.Helper()
	s, _, p, err := sched.Build(name, params)
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	if _, err := Run(Config{Trace: tr, Cluster: cl, Rules: rl, Scheduler: s, Phase: -1, Plans: true,
		Event: func(e Event) { evs = append(evs, e) }}); err != nil {
		t.Fatal(err)
	}
	return &Header{Ev: HeaderEv, Cluster: cl, Rules: rl, Scheduler: name, Params: p, Backfill: s.Backfill(), Plans: true}, evs
}

func TestValidatorAcceptsRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 6; trial++ {
		tr := randomTrace(r, 80, 4)
		cl := tiny(2, 4)
		for _, rules := range allRules {
			rl, _ := Preset(rules)
			for _, c := range configs() {
				h, evs := traceOf(t, tr, cl, rl, c.name, c.params)
				if bad := Validate(h, evs); len(bad) > 0 {
					t.Fatalf("%s %v %s: %d violations, first: %s", c.name, c.params, rules, len(bad), bad[0])
				}
			}
		}
	}
}

func TestValidatorCatchesCorruptions(t *testing.T) {
	js := []jobs.Job{
		job(1, 0, 1, 90, 200, 1),
		job(2, 1, 2, 50, 100, 2),
		job(3, 2, 1, 20, 50, 3),
		job(4, 3, 1, 200, 300, 4),
		job(5, 400, 1, 90, 200, 1),
		job(6, 405, 1, 90, 200, 1),
	}
	tr := &jobs.Trace{Jobs: js}
	rl, _ := Preset("thesis")
	h, evs := traceOf(t, tr, tiny(1, 2), rl, "fcfs", map[string]string{"backfill": "true"})
	if bad := Validate(h, evs); len(bad) > 0 {
		t.Fatalf("clean trace: %v", bad)
	}
	find := func(evs []Event, kind string, job int) int {
		for i, e := range evs {
			if e.Kind == kind && e.Job == job {
				return i
			}
		}
		t.Fatalf("no %s of job %d", kind, job)
		return -1
	}
	corrupt := func(name, want string, f func(evs []Event) []Event) {
		c := f(append([]Event(nil), evs...))
		bad := Validate(h, c)
		for _, b := range bad {
			if strings.Contains(b, want) {
				return
			}
		}
		t.Errorf("%s: violations %v, want one saying %q", name, bad, want)
	}
	corrupt("more cores", "runs 3 cores", func(evs []Event) []Event {
		i := find(evs, EvSubmit, 3)
		evs[i].Cores = 2
		j := find(evs, EvStart, 3)
		evs[j].CoreIDs = nil
		return evs
	})
	corrupt("file not there", "is not there", func(evs []Event) []Event {
		// Job 6 waits 5 s for job 5's load of file 1: it cannot skip it.
		i := find(evs, EvStart, 6)
		if evs[i].Wait != 5 {
			t.Fatalf("job 6 waits %d s, want 5", evs[i].Wait)
		}
		evs[i].Wait = 0
		return evs
	})
	corrupt("load of a file there", "although it is there", func(evs []Event) []Event {
		i := find(evs, EvStart, 6)
		load := Event{T: evs[i].T, Kind: EvLoad, Job: 6, Node: 0, File: 1, SizeGB: 1, Until: evs[i].T + 10}
		return append(evs[:i], append([]Event{load}, evs[i:]...)...)
	})
	corrupt("reservation taken", "was not respected", func(evs []Event) []Event {
		// Job 4 planned into the hole J2 is reserved after.
		for i := range evs {
			if evs[i].Kind == EvPlan && evs[i].Job == 4 {
				evs[i].At, evs[i].Until = 3, 303
				return evs
			}
		}
		t.Fatal("no plan of job 4")
		return evs
	})
	corrupt("cut short", "cut short", func(evs []Event) []Event { return evs[:len(evs)-1] })
	corrupt("late end", "ends at", func(evs []Event) []Event {
		evs[find(evs, EvEnd, 1)].T++
		return evs
	})
	corrupt("start before submit", "before its submission", func(evs []Event) []Event {
		evs[find(evs, EvSubmit, 3)].T = 5
		return evs
	})
	_ = fmt.Sprint
}

// A load outlives its loader killed at the walltime: J1 starts loading its
// file at 0 (10 s) and is killed at 5; J2 starts at 5 right after it on the
// node, so the reuse rule serves it the file, and it waits for the load's
// end at 10 (the release keeps the transfer end in the node's file entry).
// The validator accepts the wait.
func TestLoadOutlivesKilledLoader(t *testing.T) {
	tr, res := run(t, tiny(1, 2), "thesis", "fcfs", nil, job(1, 0, 1, 100, 5, 1), job(2, 5, 1, 20, 100, 1))
	check(t, tr, res, want{1, 0, 5, 0, 10, 0}, want{2, 5, 30, 0, 0, 5})
	rl, _ := Preset("thesis")
	h, evs := traceOf(t, tr, tiny(1, 2), rl, "fcfs", nil)
	if bad := Validate(h, evs); len(bad) > 0 {
		t.Errorf("%d violations, first: %s", len(bad), bad[0])
	}
}
