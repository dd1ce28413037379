package trace

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memsched/memsched/hardware"
)

// Worker states of a Timeline, the names Paje and Chrome exports show.
const (
	Computing = "computing" // a task runs on the worker
	Fetching  = "fetching"  // no task runs, a copy into the worker's memory is in flight
	Idle      = "idle"      // neither
)

// Timeline is a trace as intervals, the shape every timeline viewer wants:
// what each worker did when, each copy between memory nodes, and each
// node's memory use as a step function. The Paje and Chrome exports both
// read it, so they show the same run.
type Timeline struct {
	Nodes   []hardware.Node
	Workers []hardware.WorkerSpec
	Home    int
	States  []State  // per worker, in time order; together they cover [0, End]
	Copies  []Copy   // in order of their start
	Memory  []Sample // in time order; each node starts at 0 bytes at t = 0
	End     float64  // the makespan (or the last event of a truncated trace)
}

// State is one interval of a worker: computing (Task names the task),
// fetching or idle (Task is -1).
type State struct {
	Worker     int
	Start, End float64
	What       string
	Task       int
}

// Copy is one transfer between memory nodes: a load (fetch or prefetch)
// into Dst, or a write-back from Src to home.
type Copy struct {
	Src, Dst, Data int
	Bytes          int64
	Start, End     float64
	Kind           string // fetch, prefetch, writeback
}

// Sample is a node's memory use from time T on.
type Sample struct {
	Node  int
	T     float64
	Bytes int64
}

// NewTimeline turns a trace's events into intervals. Memory use follows
// Validate's accounting: a replica takes its bytes from its load's start
// (or its allocation) until its eviction or invalidation. A copy still in
// flight at the end of a truncated trace ends at End.
func NewTimeline(t *Trace) (*Timeline, error) {
	p := t.Header.Platform
	if p == nil {
		return nil, fmt.Errorf("trace header has no platform")
	}
	tl := &Timeline{Nodes: p.Nodes(), Workers: p.Workers(), Home: p.HomeNode()}
	for _, ev := range t.Events {
		tl.End = max(tl.End, ev.T)
	}
	if t.Result != nil {
		tl.End = max(tl.End, t.Result.MakespanS)
	}
	nn, nw := len(tl.Nodes), len(tl.Workers)
	running := make([]int, nw)
	state := make([]State, nw) // the open interval of each worker
	last := make([]int, nw)    // index in States of its last closed interval
	for w := range nw {
		running[w], last[w] = -1, -1
		state[w] = State{Worker: w, What: Idle, Task: -1}
	}
	inflight := make([]int, nn) // copies into each node in flight
	used := make([]int64, nn)
	open := map[[2]int]int{} // (destination node, data) -> index in Copies
	// settle closes worker w's interval at time at if its state changed.
	settle := func(w int, at float64) {
		s := State{Worker: w, What: Idle, Task: -1}
		switch {
		case running[w] >= 0:
			s.What, s.Task = Computing, running[w]
		case inflight[tl.Workers[w].Node] > 0:
			s.What = Fetching
		}
		if s.What == state[w].What && s.Task == state[w].Task {
			return
		}
		if cur := state[w]; at > cur.Start {
			cur.End = at
			last[w] = len(tl.States)
			tl.States = append(tl.States, cur)
		} else if j := last[w]; j >= 0 && tl.States[j].End == at && tl.States[j].What == s.What && tl.States[j].Task == s.Task {
			// A state left for no time and taken back (a copy ends and the
			// next starts at the same instant): one interval, not two.
			s = tl.States[j]
			tl.States[j].End = -1 // reopened: dropped below
			last[w] = -1
			state[w] = s
			return
		}
		s.Start = at
		state[w] = s
	}
	settleNode := func(n int, at float64) {
		for w, ws := range tl.Workers {
			if ws.Node == n {
				settle(w, at)
			}
		}
	}
	inNode := func(i, n int) error {
		if n < 0 || n >= nn {
			return fmt.Errorf("event %d: node %d outside 0..%d", i+1, n, nn-1)
		}
		return nil
	}
	memory := func(n int, at float64, delta int64) {
		used[n] += delta
		tl.Memory = append(tl.Memory, Sample{Node: n, T: at, Bytes: used[n]})
	}
	for i, ev := range t.Events {
		if err := inNode(i, ev.Node); err != nil {
			return nil, err
		}
		switch ev.Ev {
		case "task_start", "task_end":
			if ev.Worker < 0 || ev.Worker >= nw {
				return nil, fmt.Errorf("event %d: worker %d outside 0..%d", i+1, ev.Worker, nw-1)
			}
			running[ev.Worker] = -1
			if ev.Ev == "task_start" {
				running[ev.Worker] = ev.Task
			}
			settle(ev.Worker, ev.T)
		case "load_start", "writeback_start":
			c := Copy{Src: ev.Src, Dst: ev.Node, Data: ev.Data, Bytes: ev.Bytes, Start: ev.T, End: -1, Kind: ev.Kind}
			if ev.Ev == "writeback_start" {
				c.Src, c.Dst, c.Kind = ev.Node, tl.Home, "writeback"
			} else if err := inNode(i, ev.Src); err != nil {
				return nil, err
			}
			key := [2]int{c.Dst, c.Data}
			if _, dup := open[key]; dup {
				return nil, fmt.Errorf("event %d: a second copy of data %d into node %d while one is in flight", i+1, c.Data, c.Dst)
			}
			open[key] = len(tl.Copies)
			tl.Copies = append(tl.Copies, c)
			if ev.Ev == "load_start" {
				memory(ev.Node, ev.T, ev.Bytes)
				inflight[ev.Node]++
				settleNode(ev.Node, ev.T)
			}
		case "load_end", "writeback_end":
			dst := ev.Node
			if ev.Ev == "writeback_end" {
				dst = tl.Home
			}
			j, ok := open[[2]int{dst, ev.Data}]
			if !ok {
				return nil, fmt.Errorf("event %d: %s of data %d on node %d without its start", i+1, ev.Ev, ev.Data, ev.Node)
			}
			delete(open, [2]int{dst, ev.Data})
			tl.Copies[j].End = ev.T
			if ev.Ev == "load_end" {
				inflight[ev.Node]--
				settleNode(ev.Node, ev.T)
			}
		case "alloc":
			memory(ev.Node, ev.T, ev.Bytes)
		case "evict", "invalidate":
			memory(ev.Node, ev.T, -ev.Bytes)
		}
	}
	for w := range nw {
		if cur := state[w]; tl.End > cur.Start {
			cur.End = tl.End
			tl.States = append(tl.States, cur)
		}
	}
	for j := range tl.Copies {
		if tl.Copies[j].End < 0 {
			tl.Copies[j].End = tl.End
		}
	}
	tl.States = slices.DeleteFunc(tl.States, func(s State) bool { return s.End < 0 })
	sort.SliceStable(tl.States, func(a, b int) bool { return tl.States[a].Worker < tl.States[b].Worker })
	return tl, nil
}

// WorkerName is the name a viewer shows for worker w: GPU0, CPU3, ...
func (tl *Timeline) WorkerName(w int) string {
	k, n := tl.Workers[w].Kind, 0
	for _, o := range tl.Workers[:w] {
		if o.Kind == k {
			n++
		}
	}
	return fmt.Sprintf("%s%d", strings.ToUpper(k), n)
}

// NodeName is the name of memory node n: "gpu0 memory", "ram".
func (tl *Timeline) NodeName(n int) string {
	if tl.Nodes[n].GPU {
		return tl.Nodes[n].Name + " memory"
	}
	return tl.Nodes[n].Name
}
