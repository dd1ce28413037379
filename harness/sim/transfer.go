package sim

import (
	"math"

	"github.com/memsched/memsched/harness/sim/linkshare"
	"github.com/memsched/memsched/schedulers"
)

// transfer is a copy in flight over the links (Engine.net), what the
// engine needs when it ends: a load into a node (from home, or from a peer
// GPU over NVLink) or a write-back to home.
type transfer struct {
	node, src, data int // destination node (home for a write-back), source node
	prefetch        bool
	out             bool   // a write-back from src to home
	version         uint32 // the data's version a write-back carries
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
func (e *Engine) initLinks() {
	links, down, up := e.p.Links()
	index := make(map[string]int, len(links))
	gbps := make([]float64, len(links))
	for i, l := range links {
		index[l.Name], gbps[i] = i, l.GBps
	}
	e.net = linkshare.New[transfer](gbps, e.p.Topology.NoTransfers)
	n := len(e.nodes)
	for ni := range n {
		e.net.SetPath(ni, down[ni])
		e.net.SetPath(n+ni, up[ni])
		bottleneck := 0.0
		for j, l := range up[ni] {
			if j == 0 || links[l].GBps < bottleneck {
				bottleneck = links[l].GBps
			}
		}
		e.upGBps = append(e.upGBps, bottleneck)
	}
	e.peerRoutes(index)
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
			e.push(r.at, n.workers[0], -1)
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

// peerRoutes prepares the path of every peer copy between GPUs when peer
// copies are on: the NVLink connections as links of their own, PCIe paths
// over the tree's links (index: the links by name).
func (e *Engine) peerRoutes(index map[string]int) {
	g := e.p.GPUs
	if !e.p.Topology.NVLink || e.be != nil || g < 2 {
		return
	}
	e.peerGBps = make([][]float64, g)
	for a := range g {
		e.peerGBps[a] = make([]float64, g)
		for b := range g {
			if a == b {
				continue
			}
			names, gbps := e.p.PeerPath(a, b)
			if gbps > 0 {
				if _, ok := index[names[0]]; !ok {
					index[names[0]] = e.net.AddLink(gbps)
				}
			}
			var links []int
			for _, name := range names {
				links = append(links, index[name])
			}
			e.net.SetPath(peerPath(len(e.nodes), a, b), links)
			e.peerGBps[a][b] = e.p.PeerGBps(a, b)
		}
	}
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
	if e.be != nil {
		e.observe(schedulers.LoadStarted, ni, d)
		i := e.dataEvent("load_start", ni, d, bytes, kind, src)
		e.be.StartLoad(ni, d, prefetch, i)
		return
	}
	var path int
	if src == e.home {
		path = e.homePath(ni, d, false)
	} else {
		path = peerPath(len(e.nodes), src, ni)
		e.nodes[src].reading[d]++
		e.nodes[src].peerOut++
	}
	e.net.Start(path, float64(bytes), e.p.Topology.CopyLatency(src, ni, e.home), transfer{node: ni, src: src, data: d, prefetch: prefetch})
	e.observe(schedulers.LoadStarted, ni, d)
	e.dataEvent("load_start", ni, d, bytes, kind, src)
}

// LoadDone is a backend's report that a host-to-GPU copy finished.
func (e *Engine) LoadDone(g, d int, prefetch bool) { e.loadDone(g, d, prefetch, e.home) }

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
	e.net.Start(e.homePath(ni, d, true), float64(bytes), e.p.Topology.CopyLatency(ni, e.home, e.home),
		transfer{node: e.home, src: ni, data: d, out: true, version: e.version[d]})
	e.dataEvent("writeback_start", ni, d, bytes, "", 0)
}

// finishOut ends a write-back: home holds the version it carried, unless a
// task wrote a newer one meanwhile; an evicted copy's memory is freed.
func (e *Engine) finishOut(f transfer) {
	ni, d := f.src, f.data
	n := e.nodes[ni]
	n.busyOut = false
	n.reading[d]--
	n.toHome[d] = false
	bytes := e.w.Data[d].Bytes
	e.stats.BytesD2H += bytes
	e.stats.WriteBacks++
	e.dataEvent("writeback_end", ni, d, bytes, "", 0)
	h := e.nodes[e.home]
	if f.version == e.version[d] && h.state[d] != resident {
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

// homePath is the path of a copy between home and node ni (up: a
// write-back): the node's PCIe path, or, for a strided datum on a GPU, that
// path plus the cap on row-by-row copies (Topology.StridedGBps), a link
// and a path of their own, made when first used.
func (e *Engine) homePath(ni, d int, up bool) int {
	n := len(e.nodes)
	path, dir := ni, 0
	if up {
		path, dir = n+ni, 1
	}
	if !e.w.Data[d].Strided || e.p.Topology.StridedGBps <= 0 || !e.nodes[ni].gpu {
		return path
	}
	strided := 2*n + n*n + dir*n + ni
	if e.net.Path(strided) == nil {
		capped := e.net.AddLink(e.p.Topology.StridedGBps)
		e.net.SetPath(strided, append(append([]int(nil), e.net.Path(path)...), capped))
	}
	return strided
}

// copyDone handles a copy whose last byte has arrived.
func (e *Engine) copyDone(c transfer) {
	if c.out {
		e.finishOut(c)
		return
	}
	e.loadDone(c.node, c.data, c.prefetch, c.src)
}

// advance moves the clock, and the copies in flight with it, to t.
func (e *Engine) advance(t float64) {
	if t > e.now {
		e.net.Advance(t)
		e.now = t
	}
}
