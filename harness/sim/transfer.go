package sim

import (
	"math"

	"github.com/memsched/memsched/schedulers"
)

// initBus sets what the engine knows of the links: each node's
// bottleneck to home and, with peer copies, each pair of GPUs'
// uncontended bandwidth (the driver simulates the links themselves).
func (e *Engine) initBus() {
	links, _, up := e.p.Links()
	for ni := range e.nodes {
		bottleneck := 0.0
		for j, l := range up[ni] {
			if j == 0 || links[l].GBps < bottleneck {
				bottleneck = links[l].GBps
			}
		}
		e.upGBps = append(e.upGBps, bottleneck)
	}
	if g := e.p.GPUs; e.p.Topology.NVLink && !e.cfg.RealTime && g >= 2 {
		e.peerGBps = make([][]float64, g)
		for a := range g {
			e.peerGBps[a] = make([]float64, g)
			for b := range g {
				if a != b {
					e.peerGBps[a][b] = e.p.PeerGBps(a, b)
				}
			}
		}
	}
}

// startCopy starts the oldest queued copy of a node if its incoming copy
// engine is idle, from the source its request chose when it was created
// (newRequest), or, under Runtime.SourceAtCopy or when none could be
// chosen then, from the source StarPU would pick now (source); when no
// valid copy can reach the node directly, the copy waits for one at home
// (fetchHome), as StarPU routes it through main memory.
func (e *Engine) startCopy(ni int) {
	n := e.nodes[ni]
	if n.busyIn || len(n.copyQ) == 0 {
		return
	}
	r := n.copyQ[0]
	if r.at > e.now { // the driver is still issuing it (Runtime.CopyIssueUs)
		if n.copyWake != r.at {
			n.copyWake = r.at
			e.wakeAt(r.at, n.workers[0])
		}
		return
	}
	src := r.src
	if src < 0 || e.nodes[src].state[r.data] != resident {
		src = e.source(ni, r.data)
	}
	if src < 0 {
		n.waitHome = r.data
		e.fetchHome(r.data)
		return
	}
	if e.p.Topology.SerialPeerCopies && !e.serialFree(ni, src, r.seq) {
		return // woken when a copy ends (loadDone)
	}
	n.waitHome = -1
	n.copyQ = popFront(n.copyQ)
	n.inPair = e.pairOf(r.src)
	e.load(ni, r.data, src, r.prefetch)
	e.release(r.src, r.data) // the copy now reads the source (load)
}

// serialFree says whether a copy into node ni from src, issued as seq, may
// start under Topology.SerialPeerCopies (SimGrid's transfers_are_sequential):
// no copy from ni to another GPU runs, or waits that was issued before it
// (a copy into a GPU waits for the peer copies out of it issued earlier);
// and for a peer copy, none into its source runs or waits that was issued
// before it. (Copies into ni itself are sequential anyway: one stream.)
func (e *Engine) serialFree(ni, src int, seq uint64) bool {
	if e.nodes[ni].peerOut > 0 {
		return false
	}
	for o, m := range e.nodes {
		if o == ni || o == e.home {
			continue
		}
		for _, q := range m.copyQ {
			if q.seq < seq && q.src == ni {
				return false
			}
		}
	}
	if src == e.home {
		return true
	}
	s := e.nodes[src]
	return !s.busyIn && (len(s.copyQ) == 0 || s.copyQ[0].seq > seq)
}

// source is the node a copy of d to node ni comes from, -1 when no valid
// copy can reach it directly. As StarPU's _starpu_select_src_node, it is
// the valid copy with the fastest route, home first on a tie; GPUs copy
// peer to peer when peer copies are on (Topology.NVLink): over their
// NVLinks, or over PCIe for a pair without (hardware.Platform.PeerPath).
func (e *Engine) source(ni, d int) int {
	if len(e.p.Topology.BusMBps) > 0 {
		if s, ok := e.busSource(ni, d); ok {
			return s
		}
	}
	best, bw := -1, 0.0
	if e.nodes[e.home].state[d] == resident {
		best, bw = e.home, e.homeGBps[ni]
	}
	if e.peerGBps != nil && e.nodes[ni].gpu {
		for o, m := range e.nodes {
			if o != ni && m.gpu && m.state[d] == resident && e.peerGBps[o][ni] > bw {
				best, bw = o, e.peerGBps[o][ni]
			}
		}
	}
	return best
}

// busSource is source under Topology.BusMBps: as StarPU's
// _starpu_select_src_node (datawizard/coherency.c), the valid copy of
// least predicted time over the bus calibration's matrices
// (perfmodel_bus.c starpu_transfer_predict), main memory (StarPU's node 0)
// first, then the GPUs by number, a later one taken only when strictly
// faster. ok is false when a candidate's pair has no bus value.
func (e *Engine) busSource(ni, d int) (best int, ok bool) {
	best, cost := -1, math.Inf(1)
	size := float64(e.w.Data[d].Bytes)
	try := func(o int) bool {
		c, ok := e.p.Topology.BusPredict(o, ni, e.home, e.p.GPUs, size)
		if !ok {
			return false
		}
		if c < cost {
			best, cost = o, c
		}
		return true
	}
	if e.nodes[e.home].state[d] == resident && !try(e.home) {
		return -1, false
	}
	if e.peerGBps != nil && e.nodes[ni].gpu {
		for o, m := range e.nodes {
			if o != ni && m.gpu && m.state[d] == resident && !try(o) {
				return -1, false
			}
		}
	}
	return best, true
}

func (e *Engine) load(ni, d, src int, prefetch bool) {
	n := e.nodes[ni]
	bytes := e.w.Data[d].Bytes
	n.set(d, loading)
	n.busyIn = true
	kind := "fetch"
	if prefetch {
		kind = "prefetch"
	}
	if src != e.home {
		e.nodes[src].reading[d]++
		e.nodes[src].peerOut++
	}
	e.observe(schedulers.LoadStarted, ni, d)
	i := e.dataEvent("load_start", ni, d, bytes, kind, src)
	e.effects = append(e.effects, Effect{Kind: EffectCopy, Copy: Copy{Node: ni, Src: src, Data: d, Prefetch: prefetch}, Event: i})
}

func (e *Engine) loadDone(ni, d int, prefetch bool, src int) {
	n := e.nodes[ni]
	n.busyIn = false
	if e.progress > 0 && n.gpu {
		// The driver sees the copy's end in its iteration's request
		// handling (iterate, step 2): woken from its wait, it sleeps there
		// first (datawizard.c ___starpu_datawizard_progress); busy, it
		// sees the end in the iteration it is in. It issues the next
		// copies before it launches the task the copy made ready.
		if n.driverT <= e.now {
			n.driverT = e.now + e.progress
			n.progressed = true
		}
		n.copyEnded = true
	}
	e.spin(n, d)
	n.set(d, resident)
	if e.rt.LRUAtLoad {
		n.lruAppend(d)
	}
	bytes := e.w.Data[d].Bytes
	e.stats.Loads++
	if src != e.home {
		e.stats.BytesD2D += bytes
	} else {
		e.stats.BytesH2D += bytes
	}
	if prefetch {
		e.stats.Prefetches++
	} else {
		e.stats.Fetches++
	}
	freedSrc := false // the source's copy may be evicted (or written) now
	if src != e.home {
		m := e.nodes[src]
		m.reading[d]--
		m.peerOut--
		freedSrc = m.reading[d] == 0
	}
	e.dataEvent("load_end", ni, d, bytes, "", src)
	e.observe(schedulers.Loaded, ni, d)
	e.kick(ni)
	n.copyEnded = false
	if freedSrc {
		e.kick(src)
	}
	if e.p.Topology.SerialPeerCopies {
		for o, m := range e.nodes { // copies waiting for this one (serialFree)
			if o != e.home && o != ni && m.gpu {
				e.startCopy(o)
			}
		}
	}
}

// starpuSpinSleep is what StarPU's spin lock sleeps, in SimGrid mode,
// each time it finds the lock taken (common/thread.h
// _starpu_pthread_spin_lock under STARPU_SIMGRID: starpu_sleep(0.000001),
// "give hand to another thread, hopefully the one which has the
// spinlock").
const starpuSpinSleep = 1e-6

// spin charges a GPU's driver the turns it waits for a datum's header lock
// when it handles the end of the datum's copy at the instant copies of it
// into other GPUs ended (Runtime.SpinFree false). In SimGrid mode
// data_request.c _handle_pending_node_data_requests takes the handle's
// header lock with _starpu_spin_lock, which sleeps 1 µs whenever the lock
// is taken, and starpu_handle_data_request_completion holds it across
// simcalls: of the drivers whose copies of one datum end together, the
// first handles its completion at once, the next finds the lock taken and
// handles it 1 µs later, the k-th k µs later, and each pops and launches
// only after (traced at papers/ICPP2023, EAGER on 4 GPUs, N = 10: the
// copies of B's first column into GPUs 1 and 2 end at 9770.544 µs, into
// GPU 3 at 9771.171 µs; GPU 1 pops 14 µs after its copy, GPU 3 14 µs
// after its own, GPU 2 15 µs after: GPU 3 pops before GPU 2).
func (e *Engine) spin(n *node, d int) {
	if e.spinSleep == 0 || !n.gpu {
		return
	}
	if e.spinT == nil {
		e.spinT, e.spinK = make([]float64, len(e.w.Data)), make([]int32, len(e.w.Data))
		for i := range e.spinT {
			e.spinT[i] = -1
		}
	}
	if e.spinT[d] != e.now {
		e.spinT[d], e.spinK[d] = e.now, 0
		return
	}
	e.spinK[d]++
	e.driverSpend(n, float64(e.spinK[d])*e.spinSleep)
}

// fetchHome makes home get a valid copy of d: the first node holding one
// writes it back, unless a write-back of it is already on its way.
func (e *Engine) fetchHome(d int) {
	if e.nodes[e.home].state[d] == resident {
		return
	}
	for o, m := range e.nodes {
		if o != e.home && m.toHome[d] {
			return
		}
	}
	for o, m := range e.nodes {
		if o != e.home && m.state[d] == resident {
			e.sendHome(o, d)
			return
		}
	}
	e.faultf("data %d has no valid copy anywhere", d)
}

// sendHome queues a write-back of d from node ni to home on its outgoing
// copy engine.
func (e *Engine) sendHome(ni, d int) {
	n := e.nodes[ni]
	if n.toHome[d] {
		return
	}
	n.toHome[d] = true
	n.reading[d]++
	n.outQ = append(n.outQ, d)
	e.startOut(ni)
}

func (e *Engine) startOut(ni int) {
	n := e.nodes[ni]
	if n.busyOut || len(n.outQ) == 0 {
		return
	}
	d := n.outQ[0]
	n.outQ = popFront(n.outQ)
	n.busyOut = true
	bytes := e.w.Data[d].Bytes
	i := e.dataEvent("writeback_start", ni, d, bytes, "", 0)
	e.effects = append(e.effects, Effect{Kind: EffectCopy, Copy: Copy{Node: e.home, Src: ni, Data: d, Out: true, Version: e.version[d]}, Event: i})
}

// finishOut ends a write-back: home holds the version it carried, unless a
// task wrote a newer one meanwhile; an evicted copy's memory is freed.
func (e *Engine) finishOut(f Copy) {
	ni, d := f.Src, f.Data
	n := e.nodes[ni]
	n.busyOut = false
	n.reading[d]--
	n.toHome[d] = false
	bytes := e.w.Data[d].Bytes
	e.stats.BytesD2H += bytes
	e.stats.WriteBacks++
	e.dataEvent("writeback_end", ni, d, bytes, "", 0)
	h := e.nodes[e.home]
	if f.Version == e.version[d] && h.state[d] != resident {
		h.set(d, resident)
		e.observe(schedulers.Loaded, e.home, d)
	}
	if n.state[d] == flushing {
		n.set(d, absent)
		n.used -= bytes
		n.freeing -= bytes
		e.dataEvent("evict", ni, d, bytes, "", 0)
		e.afterLeave(ni, d)
	}
	e.startOut(ni)
	e.kick(ni)
	for o, m := range e.nodes {
		if o != ni && (m.waitHome == d || (o == e.home && len(m.workers) > 0)) {
			e.kick(o)
		}
	}
	if e.flushed {
		e.flushEnd = e.now
	}
}

// flush writes back every datum whose only valid copies are on worker
// memories, as unregistering the data does at the end of a run.
func (e *Engine) flush() {
	e.flushed = true
	h := e.nodes[e.home]
	for d := range e.w.Data {
		if h.state[d] == resident || e.w.Data[d].Scratch {
			continue
		}
		inFlight := false
		for o, m := range e.nodes {
			if o != e.home && (m.state[d] == flushing || m.toHome[d]) {
				inFlight = true
			}
		}
		if !inFlight {
			e.fetchHome(d)
		}
	}
}

// CopyDone is the driver's report that a copy (EffectCopy) ended, its
// last byte arrived.
func (e *Engine) CopyDone(c Copy) {
	if c.Out {
		e.finishOut(c)
		return
	}
	e.loadDone(c.Node, c.Data, c.Prefetch, c.Src)
}
