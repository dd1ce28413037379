package trace

import (
	"fmt"
	"math"
	"sort"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// Replica states in the replay.
const (
	gone uint8 = iota
	copying
	valid // loaded, allocated for a write, or written; a write-back leaves it until its evict event
)

// Validate replays a trace and returns every violation found (nil when the
// schedule is valid): each task runs exactly once on a worker that can run
// it, with its data on the worker's memory from start to end, every datum
// it reads at its latest version (no stale copy: a write invalidates the
// other copies, and the last valid copy is written back before it is
// evicted), its dependencies finished; memory never exceeds a node's
// capacity; no link carries more than its bandwidth; every event's fields
// are those of its kind (a datum's bytes, fetch or prefetch on load_start
// only); the result's totals (loads, prefetches, fetches, evictions,
// write-backs, invalidations, bytes per direction, tasks and tasks per
// worker, makespan and gflops) are the trace's, pop_missing within what
// the trace allows (pop events are not traced), and the result is the
// header's run (scheduler, versions, parameters, seed, platform size,
// workload).
func Validate(t *Trace, w *workloads.Workload) []string {
	v := newReplay(t, w)
	for i, ev := range t.Events {
		v.event(i, ev)
	}
	v.finish()
	return v.bad
}

// xfer is one copy of the replay: into a node, or a write-back out of one.
type xfer struct {
	links      []string
	src        int
	version    uint32
	start, end float64
	bytes      int64
	prefetch   bool
}

// replay is the state Validate rebuilds event by event: each replica's
// state and version, each node's memory, what runs where, the copies in
// flight, and the totals the result record must repeat.
type replay struct {
	t       *Trace
	w       *workloads.Workload
	p       *hardware.Platform
	nodes   []hardware.Node
	workers []hardware.WorkerSpec
	home    int
	bad     []string

	state  [][]uint8
	ver    [][]uint32 // version of each replica
	latest []uint32
	used   []int64

	running  []int // task running on each worker, -1 none
	started  []int
	ended    []bool
	endTime  []float64
	open     map[[2]int]*xfer // (node, data) -> copy in flight into, or write-back out of (-1-node), the node
	xfers    []*xfer
	links    map[string]float64
	down, up [][]string

	loads, evictions, tasks, writeBacks, invalidations, prefetches, fetches, allocs int
	h2d, d2d, d2h                                                                   int64
	perWorker                                                                       []int
	flops                                                                           float64
	last, lastTask, lastFlush                                                       float64
}

func newReplay(t *Trace, w *workloads.Workload) *replay {
	p := t.Header.Platform
	v := &replay{t: t, w: w, p: p, nodes: p.Nodes(), workers: p.Workers(), home: p.HomeNode(), open: map[[2]int]*xfer{}}
	nd, nt := len(w.Data), len(w.Tasks)
	v.state = make([][]uint8, len(v.nodes))
	v.ver = make([][]uint32, len(v.nodes))
	v.used = make([]int64, len(v.nodes))
	for n := range v.nodes {
		v.state[n] = make([]uint8, nd)
		v.ver[n] = make([]uint32, nd)
	}
	for d := range nd {
		v.state[v.home][d] = valid
	}
	v.latest = make([]uint32, nd)
	v.running = make([]int, len(v.workers))
	for i := range v.running {
		v.running[i] = -1
	}
	v.started, v.ended, v.endTime = make([]int, nt), make([]bool, nt), make([]float64, nt)
	v.perWorker = make([]int, len(v.workers))
	v.links, v.down, v.up = linkPaths(p)
	return v
}

// report records a violation (the first 50).
func (v *replay) report(format string, a ...any) {
	if len(v.bad) < 50 {
		v.bad = append(v.bad, fmt.Sprintf(format, a...))
	}
}

func (v *replay) inNode(where string, n int) bool {
	if n < 0 || n >= len(v.nodes) {
		v.report("%s: node %d outside 0..%d", where, n, len(v.nodes)-1)
		return false
	}
	return true
}

// usedBy reports the task running on the node's workers that uses d, or -1.
func (v *replay) usedBy(n, d int) int {
	for wi, r := range v.running {
		if r >= 0 && v.workers[wi].Node == n && v.w.Tasks[r].Reads(d) {
			return r
		}
	}
	return -1
}

// onlyCopy says whether node n holds the only latest copy of d.
func (v *replay) onlyCopy(n, d int) bool {
	for o := range v.nodes {
		if o != n && v.state[o][d] == valid && v.ver[o][d] == v.latest[d] {
			return false
		}
	}
	return true
}

func (v *replay) event(i int, ev event.Event) {
	where := fmt.Sprintf("event %d (t=%g %s)", i+1, ev.T, ev.Ev)
	if ev.T < v.last {
		v.report("%s: time goes backwards", where)
	}
	v.last = ev.T
	if !v.known(where, ev) {
		return
	}
	v.fields(where, ev)
	switch ev.Ev {
	case "load_start", "alloc":
		v.loadStart(where, ev)
	case "load_end":
		v.loadEnd(where, ev)
	case "writeback_start", "writeback_end":
		v.writeBack(where, ev)
	case "evict", "invalidate":
		v.drop(where, ev)
	case "task_start":
		v.taskStart(where, ev)
	case "task_end":
		v.taskEnd(where, ev)
	}
}

// known checks that the event names a known kind, datum or task, node and
// worker; the rest of the replay skips it otherwise.
func (v *replay) known(where string, ev event.Event) bool {
	switch ev.Ev {
	case "load_start", "load_end", "alloc", "evict", "invalidate", "writeback_start", "writeback_end":
		if ev.Data < 0 || ev.Data >= len(v.w.Data) {
			v.report("%s: data %d unknown", where, ev.Data)
			return false
		}
		return v.inNode(where, ev.Node)
	case "task_start", "task_end":
		if ev.Task < 0 || ev.Task >= len(v.w.Tasks) {
			v.report("%s: task %d unknown", where, ev.Task)
			return false
		}
		if ev.Worker < 0 || ev.Worker >= len(v.workers) {
			v.report("%s: worker %d outside 0..%d", where, ev.Worker, len(v.workers)-1)
			return false
		}
		return true
	}
	v.report("%s: unknown event kind %q", where, ev.Ev)
	return false
}

// fields checks that the fields an event kind does not use are zero; bytes
// are the datum's, kind says fetch or prefetch on load_start only.
func (v *replay) fields(where string, ev event.Event) {
	switch ev.Ev {
	case "task_start", "task_end":
		if ev.Bytes != 0 || ev.Kind != "" {
			v.report("%s: a task event with bytes %d and kind %q", where, ev.Bytes, ev.Kind)
		}
		return
	}
	if b := v.w.Data[ev.Data].Bytes; ev.Bytes != b {
		v.report("%s: data %d has %d bytes, not %d", where, ev.Data, b, ev.Bytes)
	}
	if ev.Ev == "load_start" {
		if ev.Kind != "fetch" && ev.Kind != "prefetch" {
			v.report("%s: kind %q; a load is a fetch or a prefetch", where, ev.Kind)
		}
	} else if ev.Kind != "" {
		v.report("%s: kind %q on a %s event (only load_start has one)", where, ev.Kind, ev.Ev)
	}
}

// loadStart: a replica takes its memory, from a valid latest copy.
func (v *replay) loadStart(where string, ev event.Event) {
	n, d := ev.Node, ev.Data
	if n == v.home {
		v.report("%s: data %d loaded into the home node", where, d)
		return
	}
	if v.state[n][d] != gone {
		v.report("%s: data %d loaded on node %d while already present", where, d, n)
	}
	v.used[n] += v.w.Data[d].Bytes
	if c := v.nodes[n].Capacity; c >= 0 && v.used[n] > c {
		v.report("%s: node %d memory %d bytes over the capacity %d", where, n, v.used[n], c)
	}
	if ev.Ev == "alloc" {
		v.state[n][d], v.ver[n][d] = valid, v.latest[d]
		v.allocs++
		return
	}
	v.state[n][d] = copying
	src := ev.Src
	if !v.inNode(where, src) {
		return
	}
	if v.state[src][d] != valid || v.ver[src][d] != v.latest[d] {
		v.report("%s: data %d copied to node %d from node %d, which has no valid copy", where, d, n, src)
	}
	links := v.down[n]
	if src != v.home {
		var nv float64
		links, nv = v.p.PeerPath(src, n)
		if nv > 0 {
			v.links[links[0]] = nv
		}
	}
	x := &xfer{links: links, src: src, version: v.ver[src][d], start: ev.T, bytes: v.w.Data[d].Bytes, prefetch: ev.Kind == "prefetch"}
	v.open[[2]int{n, d}] = x
	v.xfers = append(v.xfers, x)
}

func (v *replay) loadEnd(where string, ev event.Event) {
	n, d := ev.Node, ev.Data
	key := [2]int{n, d}
	x := v.open[key]
	if v.state[n][d] != copying || x == nil {
		v.report("%s: data %d ends loading on node %d without a start", where, d, n)
		return
	}
	delete(v.open, key)
	x.end = ev.T
	v.state[n][d], v.ver[n][d] = valid, x.version
	v.loads++
	if x.prefetch {
		v.prefetches++
	} else {
		v.fetches++
	}
	if x.src != v.home {
		v.d2d += x.bytes
	} else {
		v.h2d += x.bytes
	}
}

// writeBack: a copy from a node back to home, which then holds the
// version the copy carried if it is still the latest.
func (v *replay) writeBack(where string, ev event.Event) {
	n, d := ev.Node, ev.Data
	key := [2]int{-1 - n, d}
	if ev.Ev == "writeback_start" {
		if v.state[n][d] != valid {
			v.report("%s: node %d writes back data %d it does not hold", where, n, d)
		}
		x := &xfer{links: v.up[n], src: n, version: v.ver[n][d], start: ev.T, bytes: v.w.Data[d].Bytes}
		v.open[key] = x
		v.xfers = append(v.xfers, x)
		return
	}
	x := v.open[key]
	if x == nil {
		v.report("%s: write-back of data %d from node %d ends without a start", where, d, n)
		return
	}
	delete(v.open, key)
	x.end, v.lastFlush = ev.T, ev.T
	v.writeBacks++
	v.d2h += x.bytes
	if x.version == v.latest[d] {
		v.state[v.home][d], v.ver[v.home][d] = valid, x.version
	}
}

// drop: an eviction or invalidation frees a replica no running task uses;
// an eviction never drops the last latest copy.
func (v *replay) drop(where string, ev event.Event) {
	n, d := ev.Node, ev.Data
	if n == v.home {
		v.report("%s: data %d evicted from the home node", where, d)
		return
	}
	if v.state[n][d] != valid {
		v.report("%s: data %d evicted from node %d while not resident", where, d, n)
	}
	if r := v.usedBy(n, d); r >= 0 {
		v.report("%s: data %d evicted from node %d while task %d uses it", where, d, n, r)
	}
	if ev.Ev == "evict" && v.state[n][d] == valid && v.ver[n][d] == v.latest[d] && v.onlyCopy(n, d) {
		v.report("%s: node %d evicts the last valid copy of data %d without writing it back", where, n, d)
	}
	v.state[n][d] = gone
	v.used[n] -= v.w.Data[d].Bytes
	if ev.Ev == "evict" {
		v.evictions++
	} else {
		v.invalidations++
	}
}

// taskStart: once, on a worker that can run it, with its data there at
// their latest version and its dependencies ended; a write makes a new
// version no other node may hold.
func (v *replay) taskStart(where string, ev event.Event) {
	wi := ev.Worker
	n := v.workers[wi].Node
	task := &v.w.Tasks[ev.Task]
	if v.running[wi] >= 0 {
		v.report("%s: worker %d starts task %d while task %d runs", where, wi, ev.Task, v.running[wi])
	}
	if _, ok := v.p.Kernels[task.Kernel].On(v.workers[wi].Kind); !ok {
		v.report("%s: task %d (kernel %s) runs on worker %d, a %s that cannot run it", where, ev.Task, task.Kernel, wi, v.workers[wi].Kind)
	}
	v.running[wi] = ev.Task
	v.started[ev.Task]++
	if v.started[ev.Task] > 1 {
		v.report("%s: task %d started twice", where, ev.Task)
	}
	for k, d := range task.Inputs {
		m := v.w.Mode(ev.Task, k)
		if v.state[n][d] != valid {
			v.report("%s: task %d starts on worker %d without data %d on node %d", where, ev.Task, wi, d, n)
		} else if m.Reads() && v.ver[n][d] != v.latest[d] {
			v.report("%s: task %d reads a stale copy of data %d on node %d", where, ev.Task, d, n)
		}
		if m.Writes() && !v.w.Data[d].Scratch {
			v.latest[d]++
			v.ver[n][d] = v.latest[d]
			for o := range v.nodes {
				if o != n && o != v.home && v.state[o][d] == valid {
					v.report("%s: task %d writes data %d while node %d keeps a copy", where, ev.Task, d, o)
				}
			}
		}
	}
	for _, dep := range v.w.DepsOf(ev.Task) {
		if !v.ended[dep] || v.endTime[dep] > ev.T {
			v.report("%s: task %d starts before its dependency %d ends", where, ev.Task, dep)
		}
	}
}

func (v *replay) taskEnd(where string, ev event.Event) {
	wi := ev.Worker
	if v.running[wi] != ev.Task {
		v.report("%s: task %d ends on worker %d where it was not running", where, ev.Task, wi)
	}
	v.running[wi] = -1
	v.ended[ev.Task] = true
	v.endTime[ev.Task] = ev.T
	v.lastTask = ev.T
	v.tasks++
	v.perWorker[wi]++
	v.flops += v.w.Tasks[ev.Task].Flops
}

// finish checks what only the whole trace shows: every task ran, home
// memory ends with every last version, every copy ended within the
// links' bandwidth, and the result record repeats the trace.
func (v *replay) finish() {
	for i, s := range v.started {
		if s == 0 {
			v.report("task %d never ran", i)
		}
	}
	for d := range v.w.Data {
		if v.state[v.home][d] != valid || v.ver[v.home][d] != v.latest[d] {
			v.report("data %d ends without its last version in home memory (it was never written back)", d)
			break
		}
	}
	spans := map[string][]span{}
	for _, x := range v.xfers {
		if x.end == 0 && x.start > 0 {
			v.report("copy started at %g never ended", x.start)
			continue
		}
		for _, l := range x.links {
			spans[l] = append(spans[l], span{x.start, x.end, x.bytes})
		}
	}
	// Link bandwidth is the model's: a real run's copies may beat a preset's
	// nominal bandwidth, so only simulated runs are held to it.
	if !v.p.Topology.NoTransfers && (v.t.Result == nil || v.t.Result.Executor != "cuda") {
		v.bad = append(v.bad, checkLinks(v.p, v.links, spans)...)
	}
	if v.t.Result != nil {
		v.checkResult(v.t.Result)
	}
}

// checkResult compares the result record with the replay's totals and the
// header's run.
func (v *replay) checkResult(r *run.Record) {
	cmp := func(name string, got, want int64) {
		if got != want {
			v.report("result says %s = %d, the trace gives %d", name, want, got)
		}
	}
	cmp("loads", int64(v.loads), int64(r.Loads))
	cmp("evictions", int64(v.evictions), int64(r.Evictions))
	cmp("tasks", int64(v.tasks), int64(r.Tasks))
	cmp("bytes_h2d", v.h2d, r.BytesH2D)
	cmp("bytes_d2d", v.d2d, r.BytesD2D)
	cmp("bytes_d2h", v.d2h, r.BytesD2H)
	cmp("writebacks", int64(v.writeBacks), int64(r.WriteBacks))
	cmp("invalidations", int64(v.invalidations), int64(r.Invalid))
	cmp("prefetches", int64(v.prefetches), int64(r.Prefetches))
	cmp("fetches", int64(v.fetches), int64(r.Fetches))
	if len(r.PerWorker) != len(v.workers) {
		v.report("result says tasks_per_worker = %v, for %d workers; the platform has %d", r.PerWorker, len(r.PerWorker), len(v.workers))
	} else {
		for wi, k := range v.perWorker {
			cmp(fmt.Sprintf("tasks_per_worker[%d]", wi), int64(k), int64(r.PerWorker[wi]))
		}
	}
	// A pop counts the task's inputs neither resident nor pinned; pop
	// events are not in the trace, so only a bound is checked. The task
	// keeps its inputs pinned until it ends and starts with them
	// resident: each count is followed by its datum arriving on the node
	// (a load, an allocation, or a write-back to home memory).
	if most := v.loads + v.allocs + v.writeBacks; r.PopMissing < 0 || r.PopMissing > most {
		v.report("result says pop_missing = %d; the trace has %d loads, allocations and write-backs, at most one per missing input", r.PopMissing, most)
	}
	if r.MakespanS > 0 {
		if g := v.flops / r.MakespanS / 1e9; math.Abs(g-r.GFlops) > 1e-9*math.Max(1, g) {
			v.report("result says gflops = %g, the trace's tasks give %g (%g flops in %g s)", r.GFlops, g, v.flops, r.MakespanS)
		}
	}
	// The result is the header's run (a header written by memsched run
	// names its scheduler; one assembled without it claims none).
	h := v.t.Header
	same := func(name string, header, result any) {
		if fmt.Sprint(header) != fmt.Sprint(result) {
			v.report("the header says %s = %v, the result %v", name, header, result)
		}
	}
	if h.Scheduler != "" {
		same("scheduler", h.Scheduler, r.Scheduler)
		same("scheduler_version", h.SchedulerVersion, r.SchedVer)
		same("seed", h.Seed, r.Seed)
		same("params", h.Params, r.Params)
	}
	if h.ModelVersion != 0 {
		same("model_version", h.ModelVersion, r.ModelVer)
	}
	same("gpus", v.p.GPUs, r.GPUs)
	same("memory_bytes", v.p.MemoryBytes, r.MemoryBytes)
	same("workload", v.w.Name, r.Workload)
	end := v.lastTask
	if v.p.Runtime.FlushInMakespan {
		end = math.Max(v.lastTask, v.lastFlush)
	}
	if math.Abs(end-r.MakespanS) > 1e-9*math.Max(1, end) {
		v.report("result says makespan_s = %g, the trace's tasks end at %g", r.MakespanS, end)
	}
}

// linkPaths names the links of each node's paths from and to home, and
// gives every link's bandwidth.
func linkPaths(p *hardware.Platform) (gbps map[string]float64, down, up [][]string) {
	links, dn, u := p.Links()
	gbps = map[string]float64{}
	for _, l := range links {
		gbps[l.Name] = l.GBps
	}
	names := func(paths [][]int) [][]string {
		out := make([][]string, len(paths))
		for n, path := range paths {
			for _, l := range path {
				out[n] = append(out[n], links[l].Name)
			}
		}
		return out
	}
	return gbps, names(dn), names(u)
}

type span struct {
	start, end float64
	bytes      int64
}

// checkLinks verifies that no link carried more than its bandwidth: for the
// window of every transfer, the bytes of all transfers on the same link that
// lie inside that window must fit in bandwidth × window, a necessary
// condition of any feasible sharing (and, for a lone transfer, its speed).
func checkLinks(p *hardware.Platform, gbps map[string]float64, spans map[string][]span) []string {
	var bad []string
	names := make([]string, 0, len(spans))
	for n := range spans {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		bw, ok := gbps[name]
		if !ok {
			bw = p.Topology.NVLinkGBps
		}
		ss := spans[name]
		sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		for i, w := range ss {
			var sum int64
			for j := i; j < len(ss) && ss[j].start < w.end; j++ {
				if ss[j].end <= w.end {
					sum += ss[j].bytes
				}
			}
			if limit := bw * 1e9 * (w.end - w.start); float64(sum) > limit*(1+1e-6)+1 {
				bad = append(bad, fmt.Sprintf("link %s carries %d bytes in [%g, %g]: more than its %g GB/s allow (%.0f bytes)", name, sum, w.start, w.end, bw, limit))
				if len(bad) > 10 {
					return bad
				}
			}
		}
	}
	return bad
}
