package sim

import (
	"math"
	"math/bits"
	"slices"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/schedulers"
)

// flow is one copy in progress over a path of links: a load into a node
// (from home, or from a peer GPU over NVLink) or a write-back to home.
type flow struct {
	node, src, data int // destination node (home for a write-back), source node
	path            int // identifies links: at most one active flow per path
	links           []int
	remaining, rate float64
	// weight is the flow's share of a link against the others' (SimGrid:
	// the inverse of its latency), 1 without latencies; activeAt is when
	// its latency has passed and it starts sharing its links.
	weight, activeAt float64
	prefetch         bool
	out              bool   // a write-back from src to home
	version          uint32 // the data's version a write-back carries
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

// peerRoutes prepares the links of every peer copy between GPUs when peer
// copies are on: the NVLink connections as links of their own, PCIe paths
// over the tree's links.
func (e *Engine) peerRoutes() {
	g := e.p.GPUs
	if !e.p.Topology.NVLink || e.be != nil || g < 2 {
		return
	}
	e.peerLinks = make([][][]int, g)
	e.peerGBps = make([][]float64, g)
	for a := range g {
		e.peerLinks[a] = make([][]int, g)
		e.peerGBps[a] = make([]float64, g)
		for b := range g {
			if a == b {
				continue
			}
			names, gbps := e.p.PeerPath(a, b)
			if gbps > 0 {
				if _, ok := e.linkIndex[names[0]]; !ok {
					e.linkIndex[names[0]] = len(e.links)
					e.links = append(e.links, hardware.Link{Name: names[0], GBps: gbps})
				}
			}
			for _, name := range names {
				e.peerLinks[a][b] = append(e.peerLinks[a][b], e.linkIndex[name])
			}
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
	f := e.newFlow()
	*f = flow{node: ni, src: src, data: d, remaining: float64(bytes), prefetch: prefetch, path: ni}
	e.setLatency(f, src, ni)
	if src == e.home {
		f.links, f.path = e.homePath(ni, d, false)
	} else {
		f.links = e.peerLinks[src][ni]
		f.path = 2*len(e.nodes) + ni*len(e.nodes) + src
		e.nodes[src].reading[d]++
		e.nodes[src].peerOut++
	}
	e.startFlow(f)
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
	f := e.newFlow()
	*f = flow{node: e.home, src: ni, data: d, remaining: float64(bytes), out: true, version: e.version[d]}
	e.setLatency(f, ni, e.home)
	f.links, f.path = e.homePath(ni, d, true)
	e.startFlow(f)
	e.dataEvent("writeback_start", ni, d, bytes, "", 0)
}

// finishOut ends a write-back: home holds the version it carried, unless a
// task wrote a newer one meanwhile; an evicted copy's memory is freed.
func (e *Engine) finishOut(f flow) {
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
// write-back) and its id: the node's PCIe path, plus, for a strided datum on
// a GPU, the cap on row-by-row copies (Topology.StridedGBps), a path of its
// own. Path ids: loads ni, write-backs n+ni, peer copies from 2n, strided
// loads from 2n+n², strided write-backs from 3n+n².
func (e *Engine) homePath(ni, d int, up bool) ([]int, int) {
	n := len(e.nodes)
	links, path := e.down[ni], ni
	if up {
		links, path = e.up[ni], n+ni
	}
	if !e.w.Data[d].Strided || e.p.Topology.StridedGBps <= 0 || !e.nodes[ni].gpu {
		return links, path
	}
	if e.strided == nil {
		e.strided = map[int][2][]int{}
	}
	dir := 0
	if up {
		dir = 1
	}
	p, ok := e.strided[ni]
	if !ok || p[dir] == nil {
		name := hardware.StridedName(ni)
		if up {
			name += "-up"
		}
		e.links = append(e.links, hardware.Link{Name: name, GBps: e.p.Topology.StridedGBps})
		p[dir] = append(append([]int(nil), links...), len(e.links)-1)
		e.strided[ni] = p
	}
	return p[dir], 2*n + n*n + dir*n + ni
}

// setLatency gives a copy from node src to dst its latency
// (Topology.CopyLatencyUs): it shares no bandwidth before, and then shares
// in inverse proportion to it, as SimGrid's CM02 model does with a flow's
// route latency as its sharing penalty (NetworkCm02Model::communicate:
// sharing_penalty_ = latency with network/weight-S = 0; the max-min system
// gives a variable a rate proportional to the inverse of its penalty).
// Without latency a flow's weight is 1, SimGrid's penalty of a flow
// without latency.
func (e *Engine) setLatency(f *flow, src, dst int) {
	f.weight, f.activeAt = 1, e.now
	if lat := e.p.Topology.CopyLatency(src, dst, e.home); lat > 0 && !e.p.Topology.NoTransfers {
		f.weight, f.activeAt = 1/lat, e.now+lat
	}
}

// startFlow adds a copy to the links once its latency has passed
// (setLatency); without transfers (Topology.NoTransfers) it takes no time.
func (e *Engine) startFlow(f *flow) {
	if f.activeAt > e.now {
		e.latent = append(e.latent, f)
		return
	}
	e.flows = append(e.flows, f)
	if e.p.Topology.NoTransfers {
		f.rate = math.Inf(1)
		return
	}
	e.rates()
}

// nextLatent is the earliest time a copy in its latency starts sharing its
// links, and its index in latent (-1 when none).
func (e *Engine) nextLatent() (float64, int) {
	best, bi := math.Inf(1), -1
	for i, f := range e.latent {
		if f.activeAt < best {
			best, bi = f.activeAt, i
		}
	}
	return best, bi
}

// activate ends the latency of a copy: it shares its links from now on.
func (e *Engine) activate(i int) {
	f := e.latent[i]
	e.latent = append(e.latent[:i], e.latent[i+1:]...)
	e.startFlow(f)
}

// pathSet identifies the set of active paths: rates depend on it alone.
type pathSet [4]uint64

// rates shares link bandwidth among the active flows with max-min fairness
// (progressive filling). The rates are a function of the set of active
// paths only (at most one flow per path, flows of a path share its rate
// whatever their order), so they are computed once per set and memoised:
// every set of paths below 64 (4 GPUs: a run cycles through a few dozen),
// and the last sets per slot of a direct-mapped cache for the others (8
// GPUs copying peer to peer: tens of thousands of sets a run, a fifth of
// them seen again, nearly all soon after; a map of them all grew to tens
// of thousands of entries for as many hits).
func (e *Engine) rates() {
	n := len(e.flows)
	if n == 0 || e.p.Topology.NoTransfers {
		return
	}
	var key pathSet
	memo := true
	for _, f := range e.flows {
		if f.path >= 64*len(key) || key[f.path/64]&(1<<(f.path%64)) != 0 {
			memo = false // more paths than the key holds
			break
		}
		key[f.path/64] |= 1 << (f.path % 64)
	}
	small := key[1]|key[2]|key[3] == 0 // every path below 64: a cheaper key
	var big *bigEntry
	if memo {
		var r []float64
		if small {
			r = e.memo64(key[0])
		} else {
			if e.rateBig == nil {
				e.rateBig = new([1 << 10]bigEntry)
			}
			big = &e.rateBig[key.slot()]
			if big.key == key { // an empty slot's key has no path from 64 on
				r = big.rates
			}
		}
		if r != nil {
			for _, f := range e.flows {
				f.rate = r[key.rank(f.path)]
			}
			return
		}
	}
	e.fairShare()
	if memo {
		var r []float64
		if small {
			r = make([]float64, n)
		} else {
			r = slices.Grow(big.rates[:0], n)[:n] // the slot's last rates are not needed again
		}
		for _, f := range e.flows {
			r[key.rank(f.path)] = f.rate
		}
		if small {
			e.rateMemo64[key[0]] = r
			e.rateCache[rateSlot(key[0])] = rateEntry{key[0], r}
		} else {
			*big = bigEntry{key, r}
		}
	}
}

// bigEntry is a slot of rateBig.
type bigEntry struct {
	key   pathSet
	rates []float64
}

// slot is the set's slot in rateBig.
func (k *pathSet) slot() int {
	h := k[0]*0x9e3779b97f4a7c15 ^ k[1]*0xbf58476d1ce4e5b9 ^ k[2]*0x94d049bb133111eb ^ k[3]
	return int(h >> (64 - 10))
}

// rateEntry is a slot of the direct-mapped cache in front of rateMemo64: a
// run cycles through a few dozen sets of paths, and a map lookup per copy
// started or ended was a tenth of EAGER's run time.
type rateEntry struct {
	key   uint64
	rates []float64
}

func rateSlot(key uint64) int { return int((key * 0x9e3779b97f4a7c15) >> (64 - 10)) }

// memo64 is the memoised rates of a set of paths below 64, nil if unknown.
func (e *Engine) memo64(key uint64) []float64 {
	s := &e.rateCache[rateSlot(key)]
	if s.rates != nil && s.key == key {
		return s.rates
	}
	r := e.rateMemo64[key]
	if r != nil {
		*s = rateEntry{key, r}
	}
	return r
}

// rank is the number of paths of the set below p.
func (k *pathSet) rank(p int) int {
	r := 0
	for i := 0; i < p/64; i++ {
		r += bits.OnesCount64(k[i])
	}
	return r + bits.OnesCount64(k[p/64]&(1<<(p%64)-1))
}

// fairScratch is fairShare's space, kept between calls.
type fairScratch struct {
	capLeft []float64 // per link, its capacity not yet given
	users   []int     // per link, its flows not yet fixed
	weights []float64 // per link, the sum of their weights
	share   []float64 // per link, capLeft over weights (the rate of a flow of weight 1), when not stale
	stale   []bool
	fixed   []bool // per flow
	active  []int  // the links with flows to fix, in index order
	onLink  []int  // the flows of each link in flow order: link l's are onLink[start[l]:start[l+1]]
	start   []int
}

// fairShare computes the max-min fair rates of the active flows, weighted
// by their weight (setLatency; all 1 without latencies). Each
// round scans only the links that still carry a flow to fix, in index
// order (on 8 GPUs with NVLink, about a dozen of 46), recomputes the share
// of those the last round changed only, and fixes the flows of the
// bottleneck from its own list, so it picks the same link, with the same
// share, as dividing anew on every link: the first of the smallest share.
func (e *Engine) fairShare() {
	s := &e.fair
	n, nl := len(e.flows), len(e.links)
	if cap(s.capLeft) < nl {
		s.capLeft, s.users, s.weights = make([]float64, nl), make([]int, nl), make([]float64, nl)
		s.share, s.stale = make([]float64, nl), make([]bool, nl)
		s.start = make([]int, nl+1)
	}
	capLeft, users, weights, share, stale := s.capLeft[:nl], s.users[:nl], s.weights[:nl], s.share[:nl], s.stale[:nl]
	clear(users)
	clear(weights)
	if cap(s.fixed) < n {
		s.fixed = make([]bool, n)
	}
	fixed := s.fixed[:n]
	clear(fixed)
	uses := 0 // (flow, link) pairs
	for _, f := range e.flows {
		for _, l := range f.links {
			users[l]++
			weights[l] += f.weight
		}
		uses += len(f.links)
	}
	start, active := s.start[:nl+1], s.active[:0]
	at := 0
	for l := range users {
		start[l] = at
		if users[l] > 0 {
			active = append(active, l)
			capLeft[l] = e.links[l].GBps * 1e9
			stale[l] = true
			at += users[l]
		}
	}
	start[nl] = at
	onLink := slices.Grow(s.onLink[:0], uses)[:uses]
	for i, f := range e.flows {
		for _, l := range f.links {
			onLink[start[l]] = i
			start[l]++
		}
	}
	for l := nl - 1; l >= 0; l-- { // each start moved to the next list's: back
		start[l+1] = start[l]
	}
	start[0] = 0
	for left := n; left > 0; {
		// The most constrained link fixes the rate of its flows; the
		// links left without flows to fix leave the scan.
		bl, least := -1, math.Inf(1)
		j := 0
		for _, l := range active {
			if users[l] == 0 {
				continue
			}
			active[j] = l
			j++
			if stale[l] {
				share[l], stale[l] = capLeft[l]/weights[l], false
			}
			if share[l] < least {
				bl, least = l, share[l]
			}
		}
		active = active[:j]
		for _, i := range onLink[start[bl]:start[bl+1]] {
			if fixed[i] {
				continue
			}
			f := e.flows[i]
			f.rate = least * f.weight
			fixed[i] = true
			left--
			for _, l := range f.links {
				capLeft[l] -= f.rate
				users[l]--
				weights[l] -= f.weight
				stale[l] = true
			}
		}
	}
	s.active, s.onLink = active, onLink
}

func (e *Engine) nextFlow() (float64, int) {
	best, bi := math.Inf(1), -1
	for i, f := range e.flows {
		if t := e.now + f.remaining/f.rate; t < best {
			best, bi = t, i
		}
	}
	return best, bi
}

func (e *Engine) advance(t float64) {
	if dt := t - e.now; dt > 0 {
		for _, f := range e.flows {
			f.remaining -= f.rate * dt
		}
		e.now = t
	}
}

func (e *Engine) finishFlow(i int) {
	f := e.flows[i]
	e.flows = append(e.flows[:i], e.flows[i+1:]...)
	e.rates()
	done := *f
	e.spare = append(e.spare, f)
	if done.out {
		e.finishOut(done)
		return
	}
	e.loadDone(done.node, done.data, done.prefetch, done.src)
}

// newFlow reuses a finished flow, so loads allocate nothing.
func (e *Engine) newFlow() *flow {
	if n := len(e.spare); n > 0 {
		f := e.spare[n-1]
		e.spare = e.spare[:n-1]
		return f
	}
	return new(flow)
}
