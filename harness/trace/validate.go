package trace

import (
	"fmt"
	"math"
	"sort"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/workloads"
)

// Validate replays a trace and returns every violation found (nil when the
// schedule is valid): each task runs exactly once, with its inputs resident
// from start to end and its dependencies finished; memory never exceeds the
// cap; no link carries more than its bandwidth; totals equal the result.
func Validate(t *Trace, w *workloads.Workload) []string {
	var bad []string
	report := func(format string, a ...any) {
		if len(bad) < 50 {
			bad = append(bad, fmt.Sprintf(format, a...))
		}
	}
	p := t.Header.Platform
	k := p.GPUs
	nd, nt := len(w.Data), len(w.Tasks)
	state := make([][]uint8, k) // 0 absent, 1 loading, 2 resident
	used := make([]int64, k)
	for g := range state {
		state[g] = make([]uint8, nd)
	}
	running := make([]int, k) // task running on each GPU, -1 none
	for g := range running {
		running[g] = -1
	}
	started := make([]int, nt)
	ended := make([]bool, nt)
	endTime := make([]float64, nt)
	var loads, evictions, tasks int
	var h2d, d2d int64
	type xfer struct {
		g, src     int
		start, end float64
		bytes      int64
	}
	open := map[[2]int]*xfer{} // (gpu, data) -> transfer in flight
	var xfers []*xfer
	last := 0.0
	for i, ev := range t.Events {
		where := fmt.Sprintf("event %d (t=%g %s)", i+1, ev.T, ev.Ev)
		if ev.T < last {
			report("%s: time goes backwards", where)
		}
		last = ev.T
		g := ev.Worker
		if g < 0 || g >= k {
			report("%s: worker %d outside 0..%d", where, g, k-1)
			continue
		}
		switch ev.Ev {
		case "load_start", "load_end", "evict":
			if ev.Data < 0 || ev.Data >= nd {
				report("%s: data %d unknown", where, ev.Data)
				continue
			}
		case "task_start", "task_end":
			if ev.Task < 0 || ev.Task >= nt {
				report("%s: task %d unknown", where, ev.Task)
				continue
			}
		}
		switch ev.Ev {
		case "load_start":
			if state[g][ev.Data] != 0 {
				report("%s: data %d loaded on gpu%d while already present", where, ev.Data, g)
			}
			state[g][ev.Data] = 1
			used[g] += w.Data[ev.Data].Bytes
			if used[g] > p.MemoryBytes {
				report("%s: gpu%d memory %d bytes over the cap %d", where, g, used[g], p.MemoryBytes)
			}
			x := &xfer{g: g, src: ev.Src, start: ev.T, bytes: w.Data[ev.Data].Bytes}
			open[[2]int{g, ev.Data}] = x
			xfers = append(xfers, x)
		case "load_end":
			x := open[[2]int{g, ev.Data}]
			if state[g][ev.Data] != 1 || x == nil {
				report("%s: data %d ends loading on gpu%d without a start", where, ev.Data, g)
				continue
			}
			delete(open, [2]int{g, ev.Data})
			x.end = ev.T
			state[g][ev.Data] = 2
			loads++
			if x.src >= 0 {
				d2d += x.bytes
			} else {
				h2d += x.bytes
			}
		case "evict":
			if state[g][ev.Data] != 2 {
				report("%s: data %d evicted from gpu%d while not resident", where, ev.Data, g)
			}
			if r := running[g]; r >= 0 && w.Tasks[r].Reads(ev.Data) {
				report("%s: data %d evicted from gpu%d while task %d reads it", where, ev.Data, g, r)
			}
			state[g][ev.Data] = 0
			used[g] -= w.Data[ev.Data].Bytes
			evictions++
		case "task_start":
			if running[g] >= 0 {
				report("%s: gpu%d starts task %d while task %d runs", where, g, ev.Task, running[g])
			}
			running[g] = ev.Task
			started[ev.Task]++
			if started[ev.Task] > 1 {
				report("%s: task %d started twice", where, ev.Task)
			}
			for _, d := range w.Tasks[ev.Task].Inputs {
				if state[g][d] != 2 {
					report("%s: task %d starts on gpu%d without input %d resident", where, ev.Task, g, d)
				}
			}
			for _, dep := range w.Tasks[ev.Task].Deps {
				if !ended[dep] || endTime[dep] > ev.T {
					report("%s: task %d starts before its dependency %d ends", where, ev.Task, dep)
				}
			}
		case "task_end":
			if running[g] != ev.Task {
				report("%s: task %d ends on gpu%d where it was not running", where, ev.Task, g)
			}
			running[g] = -1
			ended[ev.Task] = true
			endTime[ev.Task] = ev.T
			tasks++
		default:
			report("%s: unknown event kind %q", where, ev.Ev)
		}
	}
	for i := range w.Tasks {
		if started[i] == 0 {
			report("task %d never ran", i)
		}
	}
	links, paths := p.Links()
	spans := map[string][]span{}
	for _, x := range xfers {
		if x.end == 0 && x.start > 0 {
			report("transfer to gpu%d started at %g never ended", x.g, x.start)
			continue
		}
		s := span{x.start, x.end, x.bytes}
		if x.src >= 0 {
			name := p.NVLinkName(x.g, x.src)
			spans[name] = append(spans[name], s)
			continue
		}
		for _, l := range paths[x.g] {
			spans[links[l].Name] = append(spans[links[l].Name], s)
		}
	}
	// Link bandwidth is the model's: a real run's copies may beat a preset's
	// nominal bandwidth, so only simulated runs are held to it.
	if t.Result == nil || t.Result.Executor != "cuda" {
		bad = append(bad, checkLinks(p, spans)...)
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
		if math.Abs(last-r.MakespanS) > 1e-9*math.Max(1, last) {
			report("result says makespan_s = %g, the trace ends at %g", r.MakespanS, last)
		}
	}
	return bad
}

type span struct {
	start, end float64
	bytes      int64
}

// checkLinks verifies that no link carried more than its bandwidth: for the
// window of every transfer, the bytes of all transfers on the same link that
// lie inside that window must fit in bandwidth × window, a necessary
// condition of any feasible sharing (and, for a lone transfer, its speed).
func checkLinks(p *hardware.Platform, spans map[string][]span) []string {
	links, _ := p.Links()
	gbps := map[string]float64{}
	for _, l := range links {
		gbps[l.Name] = l.GBps
	}
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
