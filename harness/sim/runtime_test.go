package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/static"
	"github.com/memsched/memsched/workloads"
)

// Hand-checked instances of the runtime's memory semantics
// (hardware.Runtime). Data are of one byte and kernels of 75 ns unless
// said otherwise, so a copy (0.08 ns) is much shorter than a task.

// chain is a workload whose task i reads inputs[i]; data d has size[d]
// bytes (1 when size is nil).
func chain(inputs [][]int, size []int64) *workloads.Workload {
	w := &workloads.Workload{}
	nd := 0
	for _, in := range inputs {
		for _, d := range in {
			nd = max(nd, d+1)
		}
	}
	for d := 0; d < nd; d++ {
		b := int64(1)
		if size != nil {
			b = size[d]
		}
		w.Data = append(w.Data, workloads.Data{ID: d, Bytes: b})
	}
	for i, in := range inputs {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: 1e6, Inputs: in})
	}
	return w
}

func inOrder(n int) [][]int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return [][]int{o}
}

// runtimePlatform is the preset on one GPU with the given memory and
// runtime settings changed by set.
func runtimePlatform(t *testing.T, mem int64, set func(*hardware.Runtime)) *hardware.Platform {
	p := platform(t, 1, mem)
	// These cases were built, event by event, on a driver that pops before
	// it handles requests and an LRU listing data at their copy's end; they
	// test other rules, so they keep that order (TestDriverOrder tests it).
	p.Runtime.PopBeforeProgress, p.Runtime.LRUAtLoad = true, true
	if set != nil {
		set(&p.Runtime)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func traced(t *testing.T, cfg sim.Config) (*sim.Stats, []event.Event) {
	t.Helper()
	c := &collector{}
	cfg.Trace = c.add
	st := run(t, cfg)
	if err := replay(cfg.Workload, cfg.Platform.MemoryBytes, cfg.Platform.GPUs, c.events, st); err != nil {
		t.Fatal(err)
	}
	return st, c.events
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 11)) }

func firstTime(evs []event.Event, ev string, match func(event.Event) bool) float64 {
	for _, e := range evs {
		if e.Ev == ev && match(e) {
			return e.T
		}
	}
	return -1
}

// The preset holds StarPU's settings (and the fitted or measured costs,
// which memsched fit sets), but for the header-lock stall and the spin
// lock's sleep, which are StarPU's SimGrid mode and not a real machine's
// (Runtime.LockFree, Runtime.SpinFree).
func TestPresetRuntimeIsStarPUs(t *testing.T) {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	rt := p.Runtime
	rt.OpSeconds, rt.ArrayOpSeconds, rt.StatusOpSeconds, rt.PredictOpSeconds, rt.BeladyOpSeconds, rt.DurationCV = 0, 0, 0, 0, 0, 0
	rt.StatusWrittenOpSeconds, rt.ProgramRunSeconds = 0, 0
	want := hardware.Runtime{Buffer: 10, Pipeline: 5, ReclaimFactor: 2, ReuseSameSize: true, AllocSync: "none",
		FetchRequests: 5, PrefetchRequests: 2, SchedCost: "none", LockFree: true, SpinFree: true}
	if rt != want {
		t.Fatalf("runtime %+v, want %+v", rt, want)
	}
}

// Six tasks read six distinct data through a memory of three, buffer and
// pipeline of one. Each task's input is prefetched when the task is
// buffered. Task 3's prefetch finds memory full: data 0 and 1 are done,
// data 2 is pinned by the running task 2. StarPU takes over the allocation
// of one datum of the same size, the least recently used
// (try_to_reuse_potentially_in_use_mc): 0, then 1, then 2, three
// evictions. Without reuse, its factor 2 evicts both 0 and 1, so task 4's
// prefetch needs no eviction and task 5's evicts 2 and 3: four evictions.
// Evicting only what is needed makes three, as reuse does.
func TestReclaimFactor(t *testing.T) {
	w := chain([][]int{{0}, {1}, {2}, {3}, {4}, {5}}, nil)
	for _, c := range []struct {
		name      string
		set       func(*hardware.Runtime)
		evictions int
	}{
		{"reuse", nil, 3},
		{"factor 2", func(r *hardware.Runtime) { r.ReuseSameSize = false }, 4},
		{"factor 1", func(r *hardware.Runtime) { r.ReuseSameSize, r.ReclaimFactor = false, 1 }, 3},
	} {
		st, evs := traced(t, sim.Config{Workload: w, Platform: runtimePlatform(t, 3, c.set), Scheduler: fixed(inOrder(6), false), Buffer: 1, Pipeline: 1})
		if st.Loads != 6 || st.Evictions != c.evictions {
			t.Errorf("%s: %d loads, %d evictions; want 6 and %d", c.name, st.Loads, st.Evictions, c.evictions)
		}
		if c.name == "factor 2" {
			// Data 0 and 1 leave together, when data 3 is requested.
			t0, t1 := firstTime(evs, "evict", func(e event.Event) bool { return e.Data == 0 }), firstTime(evs, "evict", func(e event.Event) bool { return e.Data == 1 })
			if t0 < 0 || t0 != t1 {
				t.Errorf("data 0 and 1 evicted at %g and %g, want together", t0, t1)
			}
		}
	}
}

// Memory of two. Task 0 reads data 0 and 1, task 1 data 2, task 2 data 0;
// buffer 2, pipeline 1. Task 1's fetch of data 2 evicts (factor 2) data 0
// and 1 although the buffered task 2 reads data 0. StarPU prefetches a
// task's inputs once, when it is pushed: task 2 fetches data 0 when it is
// popped (4 loads, all fetches: task 1's prefetch became its fetch). The
// former model prefetched it again right after the eviction.
func TestPrefetchOnce(t *testing.T) {
	w := chain([][]int{{0, 1}, {2}, {0}}, nil)
	for _, c := range []struct {
		reprefetch         bool
		prefetches, evicts int
	}{{false, 0, 2}, {true, 1, 2}} {
		p := runtimePlatform(t, 2, func(r *hardware.Runtime) { r.Reprefetch = c.reprefetch })
		st, _ := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed(inOrder(3), false), Buffer: 2, Pipeline: 1})
		if st.Loads != 4 || st.Prefetches != c.prefetches || st.Evictions != c.evicts {
			t.Errorf("reprefetch=%v: %d loads (%d prefetches), %d evictions; want 4 (%d), %d", c.reprefetch, st.Loads, st.Prefetches, st.Evictions, c.prefetches, c.evicts)
		}
	}
}

// popChecker pops buffered tasks in order and records whether a pop
// happened while a popped task still missed an input.
type popChecker struct {
	*schedulers.Planned
	v        schedulers.View
	early    int // pops while a popped task still misses an input
	maxDepth int // popped tasks seen at a pop
}

func (p *popChecker) Init(v schedulers.View) error { p.v = v; return p.Planned.Init(v) }

func (p *popChecker) Pop(g int, buffer []int) int {
	pipe := p.v.Pipeline(g)
	p.maxDepth = max(p.maxDepth, len(pipe))
	for _, task := range pipe {
		for _, d := range p.v.Workload().Tasks[task].Inputs {
			if !p.v.Resident(g, d) {
				p.early++
			}
		}
	}
	return 0
}

// StarPU's driver pops a task only when no popped task is transferring: the
// pipeline fills with tasks whose inputs are there. Twelve tasks of
// distinct data, buffer 3, pipeline 3, ample memory.
func TestPopOneTaskAtATime(t *testing.T) {
	in := make([][]int, 12)
	for i := range in {
		in[i] = []int{i}
	}
	w := chain(in, nil)
	for _, whileFetching := range []bool{false, true} {
		s := &popChecker{Planned: fixed(inOrder(12), false)}
		p := runtimePlatform(t, 100, func(r *hardware.Runtime) { r.PopWhileFetching = whileFetching })
		traced(t, sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 3, Pipeline: 3})
		if !whileFetching && (s.early != 0 || s.maxDepth < 2) {
			t.Errorf("StarPU pops: %d pops while a popped task transfers (want 0); deepest pipeline at a pop %d (want >= 2)", s.early, s.maxDepth)
		}
		if whileFetching && s.early == 0 {
			t.Errorf("pop_while_fetching: no pop while a popped task transfers; the check tests nothing")
		}
	}
}

// Memory of two, factor 1, buffer 2, pipeline 1: tasks read data 0, 1, 2,
// then 0 again. When task 3 is buffered, its prefetch request finds data 0
// on the GPU and refreshes it (StarPU's _starpu_memchunk_recently_used), so
// task 2's fetch of data 2 evicts data 1 and task 3 finds data 0: 3 loads.
// Refreshing data only when a task starts evicts data 0 instead: 4 loads.
func TestTouchOnRequest(t *testing.T) {
	w := chain([][]int{{0}, {1}, {2}, {0}}, nil)
	for _, c := range []struct {
		atStart bool
		loads   int
	}{{false, 3}, {true, 4}} {
		p := runtimePlatform(t, 2, func(r *hardware.Runtime) { r.ReclaimFactor = 1; r.TouchAtStart = c.atStart })
		st, _ := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed(inOrder(4), false), Buffer: 2, Pipeline: 1})
		if st.Loads != c.loads {
			t.Errorf("touch_at_start=%v: %d loads, want %d", c.atStart, st.Loads, c.loads)
		}
	}
}

// A prefetch that cannot get memory stops the prefetches behind it. Data 0
// and 1 take two bytes, data 2 one, memory three; tasks read 0, 1, 2;
// buffer 2, pipeline 1. Data 1 cannot be prefetched while task 0 runs
// (data 0 is pinned), so data 2, which would fit, waits too: its copy
// starts after task 0 ends.
func TestPrefetchHeadOfLine(t *testing.T) {
	w := chain([][]int{{0}, {1}, {2}}, []int64{2, 2, 1})
	st, evs := traced(t, sim.Config{Workload: w, Platform: runtimePlatform(t, 3, nil), Scheduler: fixed(inOrder(3), false), Buffer: 2, Pipeline: 1})
	end0 := firstTime(evs, "task_end", func(e event.Event) bool { return e.Task == 0 })
	load2 := firstTime(evs, "load_start", func(e event.Event) bool { return e.Data == 2 })
	if load2 < end0 {
		t.Errorf("data 2 loaded at %g, before task 0 ends at %g", load2, end0)
	}
	if st.Loads != 3 {
		t.Errorf("%d loads, want 3", st.Loads)
	}
}

// Under alloc_sync "all", allocating drains the device. Buffer 1, pipeline
// 2, tasks read data 0, 1, 2. Data 2 is requested when task 1 is popped,
// while task 0 computes: its copy starts only when task 0 ends. Without it
// the copy follows data 1's at once.
func TestAllocSyncDrains(t *testing.T) {
	w := chain([][]int{{0}, {1}, {2}}, nil)
	for _, sync := range []string{"none", "all"} {
		p := runtimePlatform(t, 100, func(r *hardware.Runtime) { r.AllocSync = sync })
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed(inOrder(3), false), Buffer: 1, Pipeline: 2})
		end0 := firstTime(evs, "task_end", func(e event.Event) bool { return e.Task == 0 })
		end1 := firstTime(evs, "load_end", func(e event.Event) bool { return e.Data == 1 })
		load2 := firstTime(evs, "load_start", func(e event.Event) bool { return e.Data == 2 })
		if sync == "all" && load2 != end0 {
			t.Errorf("all: data 2 loaded at %g, want when task 0 ends (%g)", load2, end0)
		}
		if sync == "none" && load2 != end1 {
			t.Errorf("none: data 2 loaded at %g, want when data 1 arrives (%g)", load2, end1)
		}
	}
}

// Every combination of settings runs random instances to the end with valid
// traces (inputs resident, memory under cap), whatever the memory: the
// next task to compute always gets its inputs.
func TestRuntimeSettingsNeverDeadlock(t *testing.T) {
	sets := []func(*hardware.Runtime){
		nil,
		func(r *hardware.Runtime) { r.AllocSync = "all" },
		func(r *hardware.Runtime) { r.AllocSync = "evict"; r.ReuseSameSize = true },
		func(r *hardware.Runtime) {
			r.PopWhileFetching, r.Reprefetch, r.TouchAtStart, r.JustInTime, r.ReclaimFactor = true, true, true, true, 1
		},
		func(r *hardware.Runtime) { r.ReclaimFactor = 3; r.AllocSync = "all"; r.JustInTime = true },
		func(r *hardware.Runtime) { r.FetchRequests, r.PrefetchRequests, r.EvictPrefetched = 1, 1, true },
		func(r *hardware.Runtime) {
			r.FetchRequests, r.PrefetchRequests, r.PrefetchAtBuffer, r.ReuseSameSize = 20, 10, true, false
		},
		// StarPU's SimGrid driver iteration (progress_us > 0, iterate): a
		// wake-up at the end of the driver's host time must go on with its
		// iteration, not start one that sleeps again.
		func(r *hardware.Runtime) {
			r.ProgressUs, r.TaskIssueUs, r.CopyIssueUs, r.FetchInputUs = 1, 10, 10, 1
		},
	}
	for it := 0; it < 100; it++ {
		r := newRand(uint64(it))
		w := randomWorkload(r, 5+r.IntN(40), 4+r.IntN(10))
		gpus := 1 + r.IntN(3)
		mem := int64(3 + r.IntN(5))
		name := []string{"eager", "dmda", "dmdar", "darts", "mhfp"}[it%5]
		for k, set := range sets {
			s, _ := build(t, name)
			p := platform(t, gpus, mem)
			if set != nil {
				set(&p.Runtime)
			}
			c := &collector{}
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 1 + r.IntN(4), Pipeline: 1 + r.IntN(3), Trace: c.add})
			if err != nil {
				t.Fatalf("instance %d, settings %d (%s): %v", it, k, name, err)
			}
			if err := replay(w, mem, gpus, c.events, st); err != nil {
				t.Fatalf("instance %d, settings %d (%s): %v", it, k, name, err)
			}
		}
	}
}

// eager is StarPU's modular-eager-prefetching, whose FIFO above the workers
// prefetches every task it is pushed when they share one memory node.
func eager(t *testing.T) schedulers.Scheduler {
	s, _ := build(t, "eager")
	return s
}

// On one GPU, EAGER prefetches every task at its submission (component_fifo.c
// fifo_push_local_task, starpu_sched_component_prefetch_on_node). Memory of
// two; tasks read data 0, 1, 2, then 0 again; buffer and pipeline of one.
// At submission data 0, 1 and 2 are requested (task 3's request of data 0
// joins task 0's). Task 0 fetches data 0 and data 1 is prefetched: memory
// is full, and the prefetch of data 2 may evict neither, as tasks 3 and 1
// prefetched them (memalloc.c starpu_data_can_evict, nb_tasks_prefetch).
// So data 2 is fetched by task 2, which evicts data 0 (a fetch may), and
// task 3 fetches data 0: one prefetch, three fetches. Prefetching when a
// task enters the buffer (the former model) requests data 2 after task 0
// is done with data 0, and data 0 after task 1 is done with data 1: three
// prefetches, one fetch.
func TestPrefetchAtPush(t *testing.T) {
	w := chain([][]int{{0}, {1}, {2}, {0}}, nil)
	for _, c := range []struct {
		atBuffer            bool
		prefetches, fetches int
	}{{false, 1, 3}, {true, 3, 1}} {
		p := runtimePlatform(t, 2, func(r *hardware.Runtime) { r.PrefetchAtBuffer = c.atBuffer })
		st, _ := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: eager(t), Buffer: 1, Pipeline: 1})
		if st.Loads != 4 || st.Prefetches != c.prefetches || st.Fetches != c.fetches {
			t.Errorf("prefetch_at_buffer=%v: %d loads (%d prefetches, %d fetches); want 4 (%d, %d)", c.atBuffer, st.Loads, st.Prefetches, st.Fetches, c.prefetches, c.fetches)
		}
	}
}

// The rule that keeps the prefetch of data 2 waiting above: were a prefetch
// allowed to evict data that a prefetched task still reads, it would evict
// data 1 while task 0 computes (data 0 is in use), and task 1 would fetch
// data 1 again: five loads.
func TestPrefetchKeepsPrefetchedData(t *testing.T) {
	w := chain([][]int{{0}, {1}, {2}, {0}}, nil)
	for _, c := range []struct {
		evictPrefetched bool
		loads           int
	}{{false, 4}, {true, 5}} {
		p := runtimePlatform(t, 2, func(r *hardware.Runtime) { r.EvictPrefetched = c.evictPrefetched })
		st, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: eager(t), Buffer: 1, Pipeline: 1})
		if st.Loads != c.loads {
			t.Errorf("evict_prefetched=%v: %d loads, want %d", c.evictPrefetched, st.Loads, c.loads)
		}
		end0 := firstTime(evs, "task_end", func(e event.Event) bool { return e.Task == 0 })
		evict1 := firstTime(evs, "evict", func(e event.Event) bool { return e.Data == 1 })
		if early := evict1 >= 0 && evict1 < end0; early != c.evictPrefetched {
			t.Errorf("evict_prefetched=%v: data 1 evicted at %g, task 0 ends at %g", c.evictPrefetched, evict1, end0)
		}
	}
}

// StarPU handles a node's fetch requests while fewer than 5 copies are
// queued or running there, its prefetch requests while fewer than 2
// (data_request.h at the papers' tag; 20 and 10 before February 2021), and
// a request takes its memory when it is handled. Memory of twelve, factor
// 1: task 0 reads data 0-11 and fills it, so every later request waits for
// task 0 to end, then evicts one datum per request it handles. Fetches:
// task 1 reads data 12-23 and, popped when task 0 ends, handles 5 of its 12
// fetches at once. Prefetches: tasks 1-12 read one of data 12-23 each, all
// buffered; when task 0 ends, task 1's fetch then one prefetch are handled.
func TestPendingRequests(t *testing.T) {
	seq := func(from, n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = from + i
		}
		return s
	}
	oneTask := [][]int{seq(0, 12), seq(12, 12)}
	manyTasks := [][]int{seq(0, 12)}
	for d := 12; d < 24; d++ {
		manyTasks = append(manyTasks, []int{d})
	}
	for _, c := range []struct {
		name            string
		inputs          [][]int
		buffer          int
		fetch, prefetch int // the caps; 0: StarPU's
		evictedAtEnd    int // evictions when task 0 ends
	}{
		{"fetches", oneTask, 1, 0, 0, 5},
		{"fetches, 20 and 10", oneTask, 1, 20, 10, 12},
		{"prefetches", manyTasks, 13, 0, 0, 2},
		{"prefetches, 20 and 10", manyTasks, 13, 20, 10, 10},
	} {
		w := chain(c.inputs, nil)
		p := runtimePlatform(t, 12, func(r *hardware.Runtime) {
			r.ReclaimFactor, r.FetchRequests, r.PrefetchRequests = 1, c.fetch, c.prefetch
		})
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed(inOrder(len(c.inputs)), false), Buffer: c.buffer, Pipeline: 1})
		end0 := firstTime(evs, "task_end", func(e event.Event) bool { return e.Task == 0 })
		n := 0
		for _, e := range evs {
			if e.Ev == "evict" && e.T == end0 {
				n++
			}
		}
		if n != c.evictedAtEnd {
			t.Errorf("%s: %d evictions when task 0 ends, want %d", c.name, n, c.evictedAtEnd)
		}
	}
}
