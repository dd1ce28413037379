// Package simprof profiles a run's simulated time in pprof's format: where
// each worker's time went, with the reason as the stack, so that
// `go tool pprof -top` and its flame graph show why one scheduler is slower
// than another. It reads the engine's events (sim.Config.Trace with
// Decisions) and adds nothing to the engine's hot path.
//
// Every moment of every worker, from 0 to the makespan, is one of (root
// first; a sample's value is simulated nanoseconds):
//
//	worker 0 (gpu) / compute / gemm                  a task runs (by kernel)
//	worker 0 (gpu) / wait fetch / data 3 (A row 3) / copying
//	    its next popped task misses data 3, being copied at the speed its
//	    path gives a lone copy
//	.../ bus shared   the rest of that copy's time: other copies shared a link
//	.../ queued       the node's copy engine is busy with other data (the
//	                  prefetches of later tasks, for instance)
//	.../ write-back   no copy into the node runs while a write-back does:
//	                  the data's valid copy must go home first, the node
//	                  frees memory by writing back evicted data, or the
//	                  copy ahead of it in the node's queue waits for one
//	.../ stalled      no copy into the node runs, for another reason (an
//	                  allocation draining the device: alloc_sync)
//	worker 0 (gpu) / idle / no task     nothing popped: the scheduler had
//	                                    nothing for it
//	worker 0 (gpu) / idle / finished    after its last task, until the end
//	worker 0 (gpu) / scheduling         charged scheduling time
//	                                    (sched_cost, --charge-sched-time)
//	worker 0 (gpu) / blocked            a popped task has its data but the
//	                                    driver launches nothing (alloc_sync)
//
// A wait is charged to the data in flight into the node when it is one the
// task misses; otherwise it is split evenly among the missing data. Which
// part of a copy was slowed by sharing is known in total (its duration
// against the lone copy's), so the time a worker waited on it is split in
// that proportion.
package simprof

import (
	"fmt"
	"math"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/workloads"
)

// What a stack's frames under the worker say.
const (
	catCompute uint8 = iota // detail: kernel index
	catWait                 // detail: data; leaf: a wait reason
	catIdle                 // leaf: idleNoTask or idleFinished
	catSched
	catBlocked
)

// Wait reasons and idle kinds (the leaf frame).
const (
	leafNone uint8 = iota
	leafCopying
	leafBusShared
	leafQueued
	leafWriteBack
	leafStalled
	leafNoTask
	leafFinished
)

var leafNames = [...]string{"", "copying", "bus shared", "queued", "write-back", "stalled", "no task", "finished"}

type stack struct {
	worker int32
	cat    uint8
	leaf   uint8
	detail int32
}

// Replica states of the replay.
const (
	absent uint8 = iota
	loading
	resident
)

// copyIn is a copy in flight into a node, and the time each worker waited
// on it, split between copying and bus shared when it ends.
type copyIn struct {
	start  float64
	bytes  int64
	src    int
	waited map[int]float64
}

type workerState struct {
	node    int
	kind    string
	running int   // task computing, -1 none
	popped  []int // popped tasks not started, oldest first
	until   float64
	idle    float64 // idle since the last pop: "no task" at the next pop, "finished" at the end
}

// Recorder turns a run's events into its profile. Give its Event method to
// run.Config.Trace with Decisions set, then call Profile.
type Recorder struct {
	w          *workloads.Workload
	p          *hardware.Platform
	name       func(d int) string
	kernels    []string
	kernelOf   []int32 // per task: index into kernels
	home       int
	homeGBps   []float64 // per node: a lone copy's bandwidth from home
	spare      []*copyIn
	workers    []workerState
	state      [][]uint8 // per node, per data (home: see homeValid)
	inflight   []map[int]*copyIn
	wbData     map[int]int       // data -> write-backs in flight
	writeBacks int               // in flight
	wbVer      map[[2]int]uint32 // (node, data) -> version a write-back carries
	latest     []uint32          // per data: writes so far
	homeVer    []uint32          // per data: version valid at home
	now        float64
	done       int
	end        float64 // attribution stops here once every task has ended
	total      map[stack]float64
}

// New prepares a recorder for a run of w on p. name gives a data's role
// ("A row 3"; workloads.Spec.DataName), or nil.
func New(w *workloads.Workload, p *hardware.Platform, name func(d int) string) *Recorder {
	r := &Recorder{w: w, p: p, name: name, home: p.HomeNode(), end: math.Inf(1),
		wbData: map[int]int{}, wbVer: map[[2]int]uint32{}, total: map[stack]float64{},
		latest: make([]uint32, len(w.Data)), homeVer: make([]uint32, len(w.Data))}
	kernel := map[string]int32{}
	r.kernelOf = make([]int32, len(w.Tasks))
	for i, t := range w.Tasks {
		k, ok := kernel[t.Kernel]
		if !ok {
			k = int32(len(r.kernels))
			kernel[t.Kernel] = k
			r.kernels = append(r.kernels, t.Kernel)
		}
		r.kernelOf[i] = k
	}
	for _, ws := range p.Workers() {
		r.workers = append(r.workers, workerState{node: ws.Node, kind: ws.Kind, running: -1})
	}
	nodes := len(p.Nodes())
	r.state = make([][]uint8, nodes)
	r.inflight = make([]map[int]*copyIn, nodes)
	for n := range nodes {
		r.homeGBps = append(r.homeGBps, p.HomeGBps(n))
		r.state[n] = make([]uint8, len(w.Data))
		r.inflight[n] = map[int]*copyIn{}
	}
	return r
}

// Event takes the run's next event (in time order).
func (r *Recorder) Event(ev event.Event) {
	r.advance(ev.T)
	n, d := ev.Node, ev.Data
	switch ev.Ev {
	case "pop":
		wk := &r.workers[ev.Worker]
		r.add(stack{worker: int32(ev.Worker), cat: catIdle, leaf: leafNoTask}, wk.idle)
		wk.idle = 0
		wk.popped = append(wk.popped, ev.Task)
	case "sched":
		r.workers[ev.Worker].until = ev.Until
	case "task_start":
		wk := &r.workers[ev.Worker]
		if i := indexOf(wk.popped, ev.Task); i >= 0 {
			wk.popped = append(wk.popped[:i], wk.popped[i+1:]...)
		}
		wk.running = ev.Task
		for k, in := range r.w.Tasks[ev.Task].Inputs {
			if r.w.Mode(ev.Task, k).Writes() && !r.w.Data[in].Scratch {
				r.latest[in]++
				if wk.node == r.home {
					r.homeVer[in] = r.latest[in]
				}
			}
		}
	case "task_end":
		r.workers[ev.Worker].running = -1
		if r.done++; r.done == len(r.w.Tasks) && !r.p.Runtime.FlushInMakespan {
			r.end = ev.T
		}
	case "load_start":
		r.state[n][d] = loading
		c := &copyIn{waited: map[int]float64{}}
		if k := len(r.spare); k > 0 { // a finished copy, reused
			c, r.spare = r.spare[k-1], r.spare[:k-1]
		}
		c.start, c.bytes, c.src = ev.T, ev.Bytes, ev.Src
		r.inflight[n][d] = c
	case "load_end":
		r.state[n][d] = resident
		if c := r.inflight[n][d]; c != nil {
			r.settle(n, d, c, ev.T)
			delete(r.inflight[n], d)
			clear(c.waited)
			r.spare = append(r.spare, c)
		}
	case "alloc":
		r.state[n][d] = resident
	case "evict", "invalidate":
		r.state[n][d] = absent
	case "writeback_start":
		r.wbData[d]++
		r.writeBacks++
		r.wbVer[[2]int{n, d}] = r.latest[d]
	case "writeback_end":
		r.wbData[d]--
		r.writeBacks--
		if v := r.wbVer[[2]int{n, d}]; v == r.latest[d] {
			r.homeVer[d] = v
		}
	}
}

func indexOf(s []int, x int) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

// settle splits the time workers waited on a finished copy: the lone copy's
// duration over the copy's is copying, the rest bus shared.
func (r *Recorder) settle(n, d int, c *copyIn, end float64) {
	shared := 0.0
	if dur := end - c.start; dur > 0 {
		gbps := r.p.Topology.NVLinkGBps
		if c.src == r.home {
			gbps = r.homeGBps[n]
		}
		if gbps > 0 {
			shared = math.Min(1, math.Max(0, 1-float64(c.bytes)/(gbps*1e9)/dur))
		}
	}
	for w, s := range c.waited {
		r.add(stack{worker: int32(w), cat: catWait, leaf: leafCopying, detail: int32(d)}, s*(1-shared))
		r.add(stack{worker: int32(w), cat: catWait, leaf: leafBusShared, detail: int32(d)}, s*shared)
	}
}

func (r *Recorder) add(s stack, seconds float64) {
	if seconds > 0 {
		r.total[s] += seconds
	}
}

// advance charges every worker's state from the last event to t.
func (r *Recorder) advance(t float64) {
	t = math.Min(t, r.end)
	for t > r.now {
		// A worker's state changes between events only when its charged
		// scheduling time ends: step to the first such end.
		next := t
		for i := range r.workers {
			if u := r.workers[i].until; u > r.now && u < next {
				next = u
			}
		}
		for i := range r.workers {
			r.charge(i, next-r.now)
		}
		r.now = next
	}
}

// charge attributes dt seconds of worker i in its current state.
func (r *Recorder) charge(i int, dt float64) {
	wk := &r.workers[i]
	w := int32(i)
	switch {
	case wk.running >= 0:
		r.add(stack{worker: w, cat: catCompute, detail: r.kernelOf[wk.running]}, dt)
		return
	case wk.until > r.now:
		r.add(stack{worker: w, cat: catSched}, dt)
		return
	case len(wk.popped) == 0:
		wk.idle += dt
		return
	}
	n := wk.node
	task := &r.w.Tasks[wk.popped[0]]
	var missing [8]int
	miss := missing[:0]
	for _, d := range task.Inputs {
		if !r.valid(n, d) {
			if c := r.inflight[n][d]; c != nil {
				c.waited[i] += dt // settled when the copy ends
				return
			}
			miss = append(miss, d)
		}
	}
	if len(miss) == 0 {
		for _, d := range task.Inputs {
			if r.wbData[d] > 0 { // an evicted copy on its way home, reloaded after
				r.add(stack{worker: w, cat: catWait, leaf: leafWriteBack, detail: int32(d)}, dt)
				return
			}
		}
		r.add(stack{worker: w, cat: catBlocked}, dt)
		return
	}
	share := dt / float64(len(miss))
	for _, d := range miss {
		leaf := leafStalled
		switch {
		case len(r.inflight[n]) > 0:
			leaf = leafQueued
		case r.wbData[d] > 0 || !r.valid(r.home, d) && !r.onPeer(n, d), r.writeBacks > 0:
			leaf = leafWriteBack
		}
		r.add(stack{worker: w, cat: catWait, leaf: leaf, detail: int32(d)}, share)
	}
}

// onPeer reports whether node n can copy d from another GPU over NVLink.
func (r *Recorder) onPeer(n, d int) bool {
	if !r.p.Topology.NVLink || n == r.home {
		return false
	}
	for o := range r.p.GPUs {
		if o != n && r.state[o][d] == resident {
			return true
		}
	}
	return false
}

// valid reports whether node n holds a copy of d a task can use.
func (r *Recorder) valid(n, d int) bool {
	if n == r.home {
		return r.homeVer[d] == r.latest[d]
	}
	return r.state[n][d] == resident
}

// Profile returns the profile of the events so far (the whole run once it
// has ended), its comments first.
func (r *Recorder) Profile(comments ...string) *profile.Profile {
	total := make(map[stack]float64, len(r.total))
	for s, v := range r.total {
		total[s] = v
	}
	for i, wk := range r.workers {
		if wk.idle > 0 {
			total[stack{worker: int32(i), cat: catIdle, leaf: leafFinished}] += wk.idle
		}
		for _, c := range r.inflight { // a copy cut short: all of it copying
			for d, cp := range c {
				if s := cp.waited[i]; s > 0 {
					total[stack{worker: int32(i), cat: catWait, leaf: leafCopying, detail: int32(d)}] += s
				}
			}
		}
	}
	vt := &profile.ValueType{Type: "simulated", Unit: "nanoseconds"}
	// One mapping whose functions are all named: nothing to symbolise.
	m := &profile.Mapping{ID: 1, File: "memsched-simulation", HasFunctions: true}
	p := &profile.Profile{SampleType: []*profile.ValueType{vt}, PeriodType: vt, Period: 1,
		DefaultSampleType: vt.Type, Comments: comments, DurationNanos: int64(math.Round(r.now * 1e9)),
		Mapping: []*profile.Mapping{m}}
	keys := make([]stack, 0, len(total))
	for s := range total {
		keys = append(keys, s)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.worker != b.worker {
			return a.worker < b.worker
		}
		if a.cat != b.cat {
			return a.cat < b.cat
		}
		if a.detail != b.detail {
			return a.detail < b.detail
		}
		return a.leaf < b.leaf
	})
	locs := map[string]*profile.Location{}
	frame := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		locs[name] = l
		return l
	}
	for _, s := range keys {
		ns := int64(math.Round(total[s] * 1e9))
		if ns == 0 {
			continue
		}
		frames := r.frames(s) // root first
		sample := &profile.Sample{Value: []int64{ns}}
		for i := len(frames) - 1; i >= 0; i-- {
			sample.Location = append(sample.Location, frame(frames[i]))
		}
		p.Sample = append(p.Sample, sample)
	}
	return p
}

// frames names a stack, root first.
func (r *Recorder) frames(s stack) []string {
	out := []string{fmt.Sprintf("worker %d (%s)", s.worker, r.workers[s.worker].kind)}
	switch s.cat {
	case catCompute:
		return append(out, "compute", r.kernels[s.detail])
	case catWait:
		return append(out, "wait fetch", r.dataFrame(int(s.detail)), leafNames[s.leaf])
	case catIdle:
		return append(out, "idle", leafNames[s.leaf])
	case catSched:
		return append(out, "scheduling")
	}
	return append(out, "blocked")
}

func (r *Recorder) dataFrame(d int) string {
	if r.name != nil {
		if n := r.name(d); n != "" {
			return fmt.Sprintf("data %d (%s)", d, n)
		}
	}
	return fmt.Sprintf("data %d", d)
}
