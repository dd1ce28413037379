package sim

import (
	"fmt"

	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim/linkshare"
	"github.com/memsched/memsched/internal/minheap"
)

// simulator is the engine's simulated driver: it carries the effects out
// in simulated time, copies over the shared links (linkshare), kernels
// for their modelled durations (Engine.ComputeSeconds) and wake-ups on an
// event heap, and reports each completion back in time order.
type simulator struct {
	e      *Engine
	net    *linkshare.Network[Copy] // the links, shared by the copies in flight
	events minheap.Heap[pending]
	seq    uint64
	trace  func(event.Event)
}

// pending is a task end or a worker's wake-up on the driver's heap.
type pending struct {
	t      float64
	seq    uint64
	worker int
	task   int // -1: a wake-up (EffectWake)
}

// Before orders events by time, ties by sequence number: the run's
// determinism.
func (a pending) Before(b pending) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) }

// simulate drives a run to its end in simulated time and returns its
// totals.
func simulate(e *Engine) (st *Stats, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fault)
			if !ok {
				panic(r)
			}
			st, err = nil, fmt.Errorf("simulation: %s", string(f))
		}
	}()
	s := &simulator{e: e, trace: e.cfg.Trace}
	s.initLinks()
	if err := e.Begin(); err != nil {
		return nil, err
	}
	s.carryOut()
	var done <-chan struct{}
	if e.cfg.Context != nil {
		done = e.cfg.Context.Done()
	}
	for i := 0; ; i++ {
		if i&255 == 0 { // a cancelled run stops within 256 events
			select {
			case <-done:
				return nil, e.cfg.Context.Err()
			default:
			}
		}
		if e.Done() && !e.Flushed() {
			e.Unregister()
			s.carryOut()
		}
		due, copying := s.net.Next()
		if e.Flushed() && !copying && len(s.events) == 0 {
			break
		}
		if len(s.events) == 0 && !copying {
			return nil, e.Stuck()
		}
		if copying && (len(s.events) == 0 || due.At <= s.events[0].t) {
			s.advance(due.At)
			if c, ended := s.net.Handle(due); ended {
				e.CopyDone(c)
				s.carryOut()
			}
			continue
		}
		ev := s.events.Pop()
		if ev.task < 0 && e.Done() {
			continue // a worker waking up with nothing left to do
		}
		s.advance(ev.t)
		if ev.task < 0 {
			e.Wake(ev.worker, ev.t)
		} else {
			e.TaskDone(ev.worker, ev.task)
		}
		s.carryOut()
	}
	return e.Finish(), nil
}

// carryOut starts what the engine's last calls asked for, in their order
// (which the heap's sequence numbers and the links' ties keep), and passes
// their trace events on.
func (s *simulator) carryOut() {
	e := s.e
	for i := range e.effects {
		f := &e.effects[i]
		switch f.Kind {
		case EffectCopy:
			c := f.Copy
			var path int
			switch {
			case c.Out:
				path = s.homePath(c.Src, c.Data, true)
			case c.Src == e.home:
				path = s.homePath(c.Node, c.Data, false)
			default:
				path = peerPath(len(e.nodes), c.Src, c.Node)
			}
			s.net.Start(path, float64(e.w.Data[c.Data].Bytes), e.p.Topology.CopyLatency(c.Src, c.Node, e.home), c)
		case EffectTask:
			s.push(e.now+e.duration(f.Worker, f.Task), f.Worker, f.Task)
		case EffectWake:
			s.push(f.At, f.Worker, -1)
		}
	}
	for _, ev := range e.trace {
		s.trace(ev)
	}
	e.Ack()
}

func (s *simulator) push(t float64, worker, task int) {
	s.seq++
	s.events.Push(pending{t: t, seq: s.seq, worker: worker, task: task})
}

// advance moves the time, and the copies in flight with it, to t.
func (s *simulator) advance(t float64) {
	if t > s.e.now {
		s.net.Advance(t)
		s.e.Advance(t)
	}
}

// peerPath is the id of the path of a peer copy from src to dst on n
// nodes. Of the paths (linkshare.Network.SetPath), loads into node ni are
// path ni, write-backs from it n+ni, peer copies from 2n, strided loads
// 2n+n²+ni and strided write-backs 3n+n²+ni (homePath). The solver
// memoises rates per set of paths, the cheapest for ids below 64 (4 GPUs).
func peerPath(n, src, dst int) int { return 2*n + dst*n + src }

// initLinks builds the network of links: the platform's, a path per node
// to and from home, and the peer paths; link indices in the order the
// platform lists them, then the NVLink connections, then the strided caps
// as first used (homePath), since ties between links go to the first.
func (s *simulator) initLinks() {
	e := s.e
	links, down, up := e.p.Links()
	index := make(map[string]int, len(links))
	gbps := make([]float64, len(links))
	for i, l := range links {
		index[l.Name], gbps[i] = i, l.GBps
	}
	s.net = linkshare.New[Copy](gbps, e.p.Topology.NoTransfers)
	n := len(e.nodes)
	for ni := range n {
		s.net.SetPath(ni, down[ni])
		s.net.SetPath(n+ni, up[ni])
	}
	s.peerRoutes(index)
}

// peerRoutes prepares the path of every peer copy between GPUs when the
// engine makes peer copies: the NVLink connections as links of their own,
// PCIe paths over the tree's links (index: the links by name).
func (s *simulator) peerRoutes(index map[string]int) {
	e := s.e
	if e.peerGBps == nil {
		return
	}
	g := e.p.GPUs
	for a := range g {
		for b := range g {
			if a == b {
				continue
			}
			names, gbps := e.p.PeerPath(a, b)
			if gbps > 0 {
				if _, ok := index[names[0]]; !ok {
					index[names[0]] = s.net.AddLink(gbps)
				}
			}
			var links []int
			for _, name := range names {
				links = append(links, index[name])
			}
			s.net.SetPath(peerPath(len(e.nodes), a, b), links)
		}
	}
}

// homePath is the path of a copy between home and node ni (up: a
// write-back): the node's PCIe path, or, for a strided datum on a GPU, that
// path plus the cap on row-by-row copies (Topology.StridedGBps), a link
// and a path of their own, made when first used.
func (s *simulator) homePath(ni, d int, up bool) int {
	e := s.e
	n := len(e.nodes)
	path, dir := ni, 0
	if up {
		path, dir = n+ni, 1
	}
	if !e.w.Data[d].Strided || e.p.Topology.StridedGBps <= 0 || !e.nodes[ni].gpu {
		return path
	}
	strided := 2*n + n*n + dir*n + ni
	if s.net.Path(strided) == nil {
		capped := s.net.AddLink(e.p.Topology.StridedGBps)
		s.net.SetPath(strided, append(append([]int(nil), s.net.Path(path)...), capped))
	}
	return strided
}
