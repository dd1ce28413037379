package trace

import (
	"fmt"
	"math"
	"sort"

	"github.com/memsched/memsched/hardware"
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
	var bad []string
	report := func(format string, a ...any) {
		if len(bad) < 50 {
			bad = append(bad, fmt.Sprintf(format, a...))
		}
	}
	p := t.Header.Platform
	nodes, workers := p.Nodes(), p.Workers()
	home := p.HomeNode()
	nd, nt := len(w.Data), len(w.Tasks)
	state := make([][]uint8, len(nodes))
	ver := make([][]uint32, len(nodes)) // version of each replica
	used := make([]int64, len(nodes))
	for n := range nodes {
		state[n] = make([]uint8, nd)
		ver[n] = make([]uint32, nd)
	}
	for d := range nd {
		state[home][d] = valid
	}
	latest := make([]uint32, nd)
	running := make([]int, len(workers)) // task running on each worker, -1 none
	for i := range running {
		running[i] = -1
	}
	started := make([]int, nt)
	ended := make([]bool, nt)
	endTime := make([]float64, nt)
	var loads, evictions, tasks, writeBacks, invalidations int
	var h2d, d2d, d2h int64
	type xfer struct {
		links      []string
		src        int
		version    uint32
		start, end float64
		bytes      int64
		prefetch   bool
	}
	var prefetches, fetches, allocs int
	perWorker := make([]int, len(workers))
	flops := 0.0
	open := map[[2]int]*xfer{} // (node, data) -> copy in flight into, or write-back out of, the node
	var xfers []*xfer
	linkNames, down, up := linkPaths(p)
	last, lastTask, lastFlush := 0.0, 0.0, 0.0
	inNode := func(where string, n int) bool {
		if n < 0 || n >= len(nodes) {
			report("%s: node %d outside 0..%d", where, n, len(nodes)-1)
			return false
		}
		return true
	}
	// usedBy reports whether a task running on the node's workers uses d.
	usedBy := func(n, d int) int {
		for wi, r := range running {
			if r >= 0 && workers[wi].Node == n && w.Tasks[r].Reads(d) {
				return r
			}
		}
		return -1
	}
	onlyCopy := func(n, d int) bool {
		for o := range nodes {
			if o != n && state[o][d] == valid && ver[o][d] == latest[d] {
				return false
			}
		}
		return true
	}
	for i, ev := range t.Events {
		where := fmt.Sprintf("event %d (t=%g %s)", i+1, ev.T, ev.Ev)
		if ev.T < last {
			report("%s: time goes backwards", where)
		}
		last = ev.T
		switch ev.Ev {
		case "load_start", "load_end", "alloc", "evict", "invalidate", "writeback_start", "writeback_end":
			if ev.Data < 0 || ev.Data >= nd {
				report("%s: data %d unknown", where, ev.Data)
				continue
			}
			if !inNode(where, ev.Node) {
				continue
			}
		case "task_start", "task_end":
			if ev.Task < 0 || ev.Task >= nt {
				report("%s: task %d unknown", where, ev.Task)
				continue
			}
			if ev.Worker < 0 || ev.Worker >= len(workers) {
				report("%s: worker %d outside 0..%d", where, ev.Worker, len(workers)-1)
				continue
			}
		default:
			report("%s: unknown event kind %q", where, ev.Ev)
			continue
		}
		// The fields an event kind does not use are zero; bytes are the
		// datum's, kind says fetch or prefetch on load_start only.
		switch ev.Ev {
		case "task_start", "task_end":
			if ev.Bytes != 0 || ev.Kind != "" {
				report("%s: a task event with bytes %d and kind %q", where, ev.Bytes, ev.Kind)
			}
		default:
			if ev.Bytes != w.Data[ev.Data].Bytes {
				report("%s: data %d has %d bytes, not %d", where, ev.Data, w.Data[ev.Data].Bytes, ev.Bytes)
			}
			if ev.Ev == "load_start" {
				if ev.Kind != "fetch" && ev.Kind != "prefetch" {
					report("%s: kind %q; a load is a fetch or a prefetch", where, ev.Kind)
				}
			} else if ev.Kind != "" {
				report("%s: kind %q on a %s event (only load_start has one)", where, ev.Kind, ev.Ev)
			}
		}
		n, d := ev.Node, ev.Data
		key := [2]int{n, d}
		switch ev.Ev {
		case "load_start", "alloc":
			if n == home {
				report("%s: data %d loaded into the home node", where, d)
				continue
			}
			if state[n][d] != gone {
				report("%s: data %d loaded on node %d while already present", where, d, n)
			}
			used[n] += w.Data[d].Bytes
			if c := nodes[n].Capacity; c >= 0 && used[n] > c {
				report("%s: node %d memory %d bytes over the capacity %d", where, n, used[n], c)
			}
			if ev.Ev == "alloc" {
				state[n][d], ver[n][d] = valid, latest[d]
				allocs++
				continue
			}
			state[n][d] = copying
			src := ev.Src
			if !inNode(where, src) {
				continue
			}
			if state[src][d] != valid || ver[src][d] != latest[d] {
				report("%s: data %d copied to node %d from node %d, which has no valid copy", where, d, n, src)
			}
			links := down[n]
			if src != home {
				var nv float64
				links, nv = p.PeerPath(src, n)
				if nv > 0 {
					linkNames[links[0]] = nv
				}
			}
			x := &xfer{links: links, src: src, version: ver[src][d], start: ev.T, bytes: w.Data[d].Bytes, prefetch: ev.Kind == "prefetch"}
			open[key] = x
			xfers = append(xfers, x)
		case "load_end":
			x := open[key]
			if state[n][d] != copying || x == nil {
				report("%s: data %d ends loading on node %d without a start", where, d, n)
				continue
			}
			delete(open, key)
			x.end = ev.T
			state[n][d], ver[n][d] = valid, x.version
			loads++
			if x.prefetch {
				prefetches++
			} else {
				fetches++
			}
			if x.src != home {
				d2d += x.bytes
			} else {
				h2d += x.bytes
			}
		case "writeback_start":
			if state[n][d] != valid {
				report("%s: node %d writes back data %d it does not hold", where, n, d)
			}
			x := &xfer{links: up[n], src: n, version: ver[n][d], start: ev.T, bytes: w.Data[d].Bytes}
			open[[2]int{-1 - n, d}] = x
			xfers = append(xfers, x)
		case "writeback_end":
			x := open[[2]int{-1 - n, d}]
			if x == nil {
				report("%s: write-back of data %d from node %d ends without a start", where, d, n)
				continue
			}
			delete(open, [2]int{-1 - n, d})
			x.end, lastFlush = ev.T, ev.T
			writeBacks++
			d2h += x.bytes
			if x.version == latest[d] {
				state[home][d], ver[home][d] = valid, x.version
			}
		case "evict", "invalidate":
			if n == home {
				report("%s: data %d evicted from the home node", where, d)
				continue
			}
			if state[n][d] != valid {
				report("%s: data %d evicted from node %d while not resident", where, d, n)
			}
			if r := usedBy(n, d); r >= 0 {
				report("%s: data %d evicted from node %d while task %d uses it", where, d, n, r)
			}
			if ev.Ev == "evict" && state[n][d] == valid && ver[n][d] == latest[d] && onlyCopy(n, d) {
				report("%s: node %d evicts the last valid copy of data %d without writing it back", where, n, d)
			}
			state[n][d] = gone
			used[n] -= w.Data[d].Bytes
			if ev.Ev == "evict" {
				evictions++
			} else {
				invalidations++
			}
		case "task_start":
			wi := ev.Worker
			n := workers[wi].Node
			task := &w.Tasks[ev.Task]
			if running[wi] >= 0 {
				report("%s: worker %d starts task %d while task %d runs", where, wi, ev.Task, running[wi])
			}
			if _, ok := p.Kernels[task.Kernel].On(workers[wi].Kind); !ok {
				report("%s: task %d (kernel %s) runs on worker %d, a %s that cannot run it", where, ev.Task, task.Kernel, wi, workers[wi].Kind)
			}
			running[wi] = ev.Task
			started[ev.Task]++
			if started[ev.Task] > 1 {
				report("%s: task %d started twice", where, ev.Task)
			}
			for k, d := range task.Inputs {
				m := w.Mode(ev.Task, k)
				if state[n][d] != valid {
					report("%s: task %d starts on worker %d without data %d on node %d", where, ev.Task, wi, d, n)
				} else if m.Reads() && ver[n][d] != latest[d] {
					report("%s: task %d reads a stale copy of data %d on node %d", where, ev.Task, d, n)
				}
				if m.Writes() && !w.Data[d].Scratch {
					latest[d]++
					ver[n][d] = latest[d]
					for o := range nodes {
						if o != n && o != home && state[o][d] == valid {
							report("%s: task %d writes data %d while node %d keeps a copy", where, ev.Task, d, o)
						}
					}
				}
			}
			for _, dep := range w.DepsOf(ev.Task) {
				if !ended[dep] || endTime[dep] > ev.T {
					report("%s: task %d starts before its dependency %d ends", where, ev.Task, dep)
				}
			}
		case "task_end":
			wi := ev.Worker
			if running[wi] != ev.Task {
				report("%s: task %d ends on worker %d where it was not running", where, ev.Task, wi)
			}
			running[wi] = -1
			ended[ev.Task] = true
			endTime[ev.Task] = ev.T
			lastTask = ev.T
			tasks++
			perWorker[wi]++
			flops += w.Tasks[ev.Task].Flops
		}
	}
	for i := range w.Tasks {
		if started[i] == 0 {
			report("task %d never ran", i)
		}
	}
	for d := range nd {
		if state[home][d] != valid || ver[home][d] != latest[d] {
			report("data %d ends without its last version in home memory (it was never written back)", d)
			break
		}
	}
	spans := map[string][]span{}
	for _, x := range xfers {
		if x.end == 0 && x.start > 0 {
			report("copy started at %g never ended", x.start)
			continue
		}
		for _, l := range x.links {
			spans[l] = append(spans[l], span{x.start, x.end, x.bytes})
		}
	}
	// Link bandwidth is the model's: a real run's copies may beat a preset's
	// nominal bandwidth, so only simulated runs are held to it.
	if !p.Topology.NoTransfers && (t.Result == nil || t.Result.Executor != "cuda") {
		bad = append(bad, checkLinks(p, linkNames, spans)...)
	}
	if r := t.Result; r != nil {
		cmp := func(name string, got, want int64) {
			if got != want {
				report("result says %s = %d, the trace gives %d", name, want, got)
			}
		}
		cmp("loads", int64(loads), int64(r.Loads))
		cmp("evictions", int64(evictions), int64(r.Evictions))
		cmp("tasks", int64(tasks), int64(r.Tasks))
		cmp("bytes_h2d", h2d, r.BytesH2D)
		cmp("bytes_d2d", d2d, r.BytesD2D)
		cmp("bytes_d2h", d2h, r.BytesD2H)
		cmp("writebacks", int64(writeBacks), int64(r.WriteBacks))
		cmp("invalidations", int64(invalidations), int64(r.Invalid))
		cmp("prefetches", int64(prefetches), int64(r.Prefetches))
		cmp("fetches", int64(fetches), int64(r.Fetches))
		if len(r.PerWorker) != len(workers) {
			report("result says tasks_per_worker = %v, for %d workers; the platform has %d", r.PerWorker, len(r.PerWorker), len(workers))
		} else {
			for wi, k := range perWorker {
				cmp(fmt.Sprintf("tasks_per_worker[%d]", wi), int64(k), int64(r.PerWorker[wi]))
			}
		}
		// A pop counts the task's inputs neither resident nor pinned; pop
		// events are not in the trace, so only a bound is checked. The
		// task keeps its inputs pinned until it ends and starts with them
		// resident: each count is followed by its datum arriving on the
		// node (a load, an allocation, or a write-back to home memory).
		if most := loads + allocs + writeBacks; r.PopMissing < 0 || r.PopMissing > most {
			report("result says pop_missing = %d; the trace has %d loads, allocations and write-backs, at most one per missing input", r.PopMissing, most)
		}
		if r.MakespanS > 0 {
			if g := flops / r.MakespanS / 1e9; math.Abs(g-r.GFlops) > 1e-9*math.Max(1, g) {
				report("result says gflops = %g, the trace's tasks give %g (%g flops in %g s)", r.GFlops, g, flops, r.MakespanS)
			}
		}
		// The result is the header's run (a header written by memsched run
		// names its scheduler; one assembled without it claims none).
		h := t.Header
		same := func(name string, header, result any) {
			if fmt.Sprint(header) != fmt.Sprint(result) {
				report("the header says %s = %v, the result %v", name, header, result)
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
		same("gpus", p.GPUs, r.GPUs)
		same("memory_bytes", p.MemoryBytes, r.MemoryBytes)
		same("workload", w.Name, r.Workload)
		end := lastTask
		if p.Runtime.FlushInMakespan {
			end = math.Max(lastTask, lastFlush)
		}
		if math.Abs(end-r.MakespanS) > 1e-9*math.Max(1, end) {
			report("result says makespan_s = %g, the trace's tasks end at %g", r.MakespanS, end)
		}
	}
	return bad
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
