package sim

import (
	"iter"
	"math"
	"slices"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/bitset"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// request asks for data on a node: a prefetch (for a buffered task) or a
// fetch (for a popped one). An access in mode W only allocates. src is the
// node the copy comes from, chosen when the request is created (newRequest),
// -1 when the copy chooses it as it starts (Runtime.SourceAtCopy, or no
// valid copy could reach the node directly then).
type request struct {
	data     int
	prefetch bool
	alloc    bool
	src      int
	at       float64 // when the copy enters the node's copy stream (Runtime.CopyIssueUs)
	seq      uint64  // the order in which copies were issued (Topology.SerialPeerCopies)
}

// node is one memory node: what it holds, the requests for it, its copy
// engines (one incoming, one outgoing to home) and its LRU list.
type node struct {
	id       int
	capacity int64 // bytes; < 0 unlimited
	isHome   bool
	gpu      bool  // device allocation rules (Runtime.AllocSync) apply
	workers  []int // the workers computing from it
	state    []uint8
	present  []bool  // state is loading or resident: what View.Presence shows
	status   []uint8 // what StarPU reports of each datum (schedulers.Status bits): View.Status
	// refused: a request for the datum was handled and found no memory, and
	// it has not been allocated since. StarPU then reports it loading
	// (data_request.c starpu_handle_data_request sets the replicate's
	// load_request before _starpu_driver_copy_data_1_to_1 allocates, and
	// leaves it set on -ENOMEM), unless Runtime.LoadingFromCopy.
	refused []bool
	// fromCopy: Runtime.LoadingFromCopy (status says loading and allocated
	// only from the copy's start).
	fromCopy bool
	pin      []int32 // popped tasks using the data
	want     []int32 // tasks that prefetched the data on the node and are not popped (buffered, or pushed: pushNode)
	reading  []int32 // copies reading the data out of this node
	held     []int32 // requests of other nodes that chose this node's copy as their source (newRequest)
	toHome   []bool  // a write-back of the data is queued or running
	prefReq  []bool  // a prefetch request for the data waits in prefQ
	prefSrc  []int32 // the source of that request (request.src)
	used     int64
	freeing  int64   // bytes of evicted data still being written back
	lruPrev  []int32 // doubly linked LRU list over resident data; head = least recent
	lruNext  []int32
	lruHead  int32
	lruTail  int32
	fetchQ   []request
	prefQ    []request
	prefHead int
	copyQ    []request // allocated loads, in issue order (one incoming stream)
	busyIn   bool
	inPair   int     // the source node whose requests the running copy counts among (pairOf)
	copyWake float64 // the wake-up pending for the head of copyQ (0: none)
	peerOut  int     // running copies from this GPU to others (Topology.SerialPeerCopies)
	// driverT is when the node's driver thread (a GPU's) is done with the
	// host time it spends issuing copies, launching kernels and fetching
	// inputs (Runtime.CopyIssueUs, TaskIssueUs, FetchInputUs).
	driverT float64
	// copyEnded: a copy into the node ended and its driver's next step
	// handles it in its request handling, before it launches (iterate).
	copyEnded bool
	// progressed: the driver's current iteration has slept its request
	// handling's progress time (iterate); a launch or a pop ends it.
	progressed bool
	waitHome   int   // data the head of copyQ waits for at home, or -1
	outQ       []int // write-backs to home, in order (one outgoing stream)
	busyOut    bool
	// Under Runtime.AllocSync, an allocation blocks the GPU's driver until
	// the device drains: the kernels launched when it blocked (done reaches
	// barrier) and every queued copy finish; meanwhile it pops, launches
	// and issues nothing. barrier < 0: not blocked.
	barrier int
	done    int // tasks finished on this node
	// allocated says an allocation (an access in mode W, no copy) completed
	// since a GPU's step last looked: its popped tasks may have become ready
	// without an event, so it pops again (step). Cores, which run one task
	// at a time, have no room to: nodes shared by cores do not read it.
	allocated bool
	// batch: the node's workers are being started together (kick), and
	// refetch says one of them queued a fetch to handle after them.
	batch, refetch bool
	// kick's candidates among the workers, by position, where they share
	// the node: every worker that is not inert is in stepping, every one
	// idle with a popped task in starting, and kick drops the members it
	// finds are not.
	stepping, starting bitset.Set
	// headW is the worker whose first popped task is the node's oldest
	// (head), -1 when none; headStale says to look for it again.
	headW     int
	headStale bool
}

func newNode(id int, ns hardware.Node, nd int) *node {
	return &node{id: id, capacity: ns.Capacity, isHome: ns.Home, gpu: ns.GPU,
		state: make([]uint8, nd), present: make([]bool, nd), status: make([]uint8, nd), refused: make([]bool, nd), pin: make([]int32, nd), want: make([]int32, nd), reading: make([]int32, nd), held: make([]int32, nd),
		toHome: make([]bool, nd), prefReq: make([]bool, nd), prefSrc: make([]int32, nd), lruPrev: make([]int32, nd), lruNext: make([]int32, nd),
		lruHead: -1, lruTail: -1, barrier: -1, waitHome: -1, headW: -1}
}

// unblock lets the node's driver pop again: its workers may.
func (e *Engine) unblock(n *node) {
	if n.barrier >= 0 {
		n.barrier = -1
		n.stepping.Fill(len(n.workers))
	}
}

// set changes the state of a datum on the node.
func (n *node) set(d int, st uint8) {
	n.state[d] = st
	n.present[d] = st == loading || st == resident
	n.status[d] = n.statusOf(d)
}

// statusOf is what StarPU's starpu_data_query_status2 reports of a datum
// (user_interactions.c): allocated from the handling of its request until
// it leaves, valid once its copy ends, loading from the handling of its
// request, even one that found no memory (refused), until its copy ends.
// Under Runtime.LoadingFromCopy (the former model) a datum is allocated
// and loading only from its copy's start, as View.Present says.
func (n *node) statusOf(d int) uint8 {
	switch n.state[d] {
	case resident:
		return schedulers.StatusAllocated | schedulers.StatusValid
	case loading:
		return schedulers.StatusAllocated | schedulers.StatusLoading
	case queued:
		if !n.fromCopy {
			return schedulers.StatusAllocated | schedulers.StatusLoading
		}
	case absent:
		if n.refused[d] && !n.fromCopy {
			return schedulers.StatusLoading
		}
	}
	return 0
}

// refuse records that a request for an absent datum found no memory: StarPU
// reports it loading from then on, until it is allocated (statusOf).
func (e *Engine) refuse(ni, d int) {
	n := e.nodes[ni]
	if n.refused[d] || n.state[d] != absent {
		return
	}
	n.refused[d] = true
	n.status[d] = n.statusOf(d)
	if !n.fromCopy {
		e.observe(schedulers.Requested, ni, d)
	}
}

// requestPrefetch queues a prefetch unless one is already queued (StarPU
// reuses the pending request of the data). A request made again when
// another source has become the best one (a GPU has loaded the data
// meanwhile) moves to that source and to the end of the queue: StarPU
// creates a second request, from that source, in that pair's list
// (_starpu_search_existing_data_request looks among the requests from the
// source just selected), and whichever is handled first loads the data;
// the other then finds it loading (data_request.c starpu_handle_data_request:
// dst_replicate->load_request). The new pair's list is nearly always the
// first to have room, main memory's being full of prefetches.
func (e *Engine) requestPrefetch(ni, d int, mode workloads.Mode) {
	n := e.nodes[ni]
	if !n.prefReq[d] {
		r := e.newRequest(ni, d, true, mode == workloads.W)
		n.prefReq[d] = true
		n.prefSrc[d] = int32(r.src)
		n.prefQ = append(n.prefQ, r)
		return
	}
	if e.rt.SourceAtCopy || mode == workloads.W {
		return
	}
	if s := e.source(ni, d); s != int(n.prefSrc[d]) {
		e.release(int(n.prefSrc[d]), d)
		e.hold(s, d)
		n.prefSrc[d] = int32(s)
		n.prefQ = append(n.prefQ, request{data: d, prefetch: true, src: s})
	}
}

// newRequest creates a request for d on node ni. Unless
// Runtime.SourceAtCopy, its source is chosen now, as StarPU's
// _starpu_create_request_to_fetch_data calls _starpu_select_src_node when
// it creates the request (coherency.c): among the copies valid now, a copy
// still being loaded elsewhere is not one, so the request does not wait on
// another node's request (it copies from main memory meanwhile). The
// request holds the source's copy, which cannot be evicted, until its copy
// starts or it is dropped (_starpu_create_data_request takes a reference
// on src_replicate, released when the request completes).
func (e *Engine) newRequest(ni, d int, prefetch, alloc bool) request {
	r := request{data: d, prefetch: prefetch, alloc: alloc, src: -1}
	if !alloc && !e.rt.SourceAtCopy && ni != e.home {
		r.src = e.source(ni, d)
		e.hold(r.src, d)
	}
	return r
}

// hold and release count a request's reference on its source's copy
// (main memory's needs none: home is never evicted): a held copy is no
// candidate for eviction, except as the last resort of a node's next task
// (makeRoom), which StarPU does not have: two GPUs whose memory is full of
// each other's sources would wait for each other forever. A request whose
// source was evicted so chooses another when its copy starts. A copy no
// request holds any more may be evicted: its node is woken to try again.
func (e *Engine) hold(src, d int) {
	if src >= 0 && src != e.home {
		e.nodes[src].held[d]++
	}
}

func (e *Engine) release(src, d int) {
	if src < 0 || src == e.home {
		return
	}
	m := e.nodes[src]
	m.held[d]--
	if m.held[d] == 0 && m.reading[d] == 0 && len(m.workers) > 0 {
		e.wakeAt(e.now, m.workers[0])
	}
}

// dropPrefetchSource releases the source of the data's pending prefetch
// request, which will not be copied (dropped, or taken over by a fetch).
func (e *Engine) dropPrefetchSource(ni, d int) {
	n := e.nodes[ni]
	if n.prefReq[d] {
		e.release(int(n.prefSrc[d]), d)
		n.prefSrc[d] = -1
	}
}

// pairOf is the node whose pending requests a request's copy counts among
// (StarPU's peer node): its source, main memory when the copy chooses it
// (a copy through main memory ends with a hop from there) or for an
// allocation (_starpu_determine_request_path names main memory).
func (e *Engine) pairOf(src int) int {
	if src < 0 {
		return e.home
	}
	return src
}

// pendingBySource counts, per source s, the copies into node ni queued or
// running that count among s's (pairOf), in one pass over the node's copy
// queue: e.pend, valid until the copy queue or the running copy changes.
func (e *Engine) pendingBySource(ni int) []int {
	n := e.nodes[ni]
	if len(e.pend) != len(e.nodes) {
		e.pend = make([]int, len(e.nodes))
	}
	clear(e.pend)
	if n.busyIn {
		e.pend[n.inPair]++
	}
	for _, r := range n.copyQ {
		e.pend[e.pairOf(r.src)]++
	}
	return e.pend
}

// startTransfer issues the node's pending requests, then starts its next
// copy. StarPU allocates a request's memory when it handles the request and
// queues the copy on the node's single incoming stream; fetch requests are
// handled before prefetch requests, each list in request order, and a
// prefetch that cannot get memory stops the prefetches behind it
// (__starpu_handle_node_data_requests: "Prefetching more there would make
// the situation even worse"). With Runtime.JustInTime (the former model) a
// load is chosen and allocated only when the copy engine is idle.
func (e *Engine) startTransfer(n int) {
	e.issue(n)
	e.startCopy(n)
}

func (e *Engine) issue(ni int) {
	var waiting bool // an allocation waits for the device to drain
	// Requests are counted per pair of nodes for the copies into a GPU;
	// main memory's requests (a CPU task's inputs whose valid copy is on a
	// GPU) go through fetchHome, whose write-backs have no pair to count.
	if n := e.nodes[ni]; e.perPair && len(n.workers) <= 1 && !e.rt.JustInTime && ni != e.home {
		waiting = e.issuePairs(ni)
	} else {
		waiting = e.issueNode(ni)
	}
	if !waiting {
		e.unblock(e.nodes[ni]) // the driver is not blocked
	}
}

// issueNode is issue with the caps counted per node, or on a node shared
// by several workers; it reports whether an allocation waits for the
// device to drain.
func (e *Engine) issueNode(ni int) (waiting bool) {
	n := e.nodes[ni]
	for {
		pending := len(n.copyQ)
		if n.busyIn {
			pending++
		}
		if len(n.workers) > 1 {
			if !e.issueShared(ni, pending) {
				return
			}
			pending = len(n.copyQ) // the memory is shared: only the fetches differ
			if n.busyIn {
				pending++
			}
		} else if e.rt.JustInTime && pending > 0 {
			return
		}
		for len(n.fetchQ) > 0 {
			if r := n.fetchQ[0]; n.state[r.data] != absent || n.pin[r.data] == 0 {
				e.release(r.src, r.data)
				n.fetchQ = popFront(n.fetchQ)
				continue
			}
			break
		}
		if len(n.fetchQ) > 0 {
			r := n.fetchQ[0]
			if pending >= e.maxFetch {
				return
			}
			var ok bool
			if ok, waiting = e.allocate(ni, r, e.forHead(n, r.data)); !ok {
				e.refuse(ni, r.data)
				return // wait for memory: a copy or a task to end
			}
			n.fetchQ = popFront(n.fetchQ)
			continue
		}
		e.skipPrefetches(ni)
		if n.prefHead == len(n.prefQ) || pending >= e.maxPrefetch {
			return
		}
		var ok bool
		if ok, waiting = e.allocate(ni, e.prefetchAt(n, n.prefHead), false); !ok {
			e.refuse(ni, n.prefQ[n.prefHead].data)
			return // declined: retry when memory changes
		}
		n.prefHead++
	}
}

// skipPrefetches moves the head of the node's prefetch queue past the
// requests that will not be copied: the data are there or coming, no
// prefetched task waits for them, or the request was taken over.
func (e *Engine) skipPrefetches(ni int) {
	n := e.nodes[ni]
	for n.prefHead < len(n.prefQ) && !e.livePrefetch(n, ni, n.prefQ[n.prefHead].data) {
		n.prefHead++
	}
	if n.prefHead > 1024 && n.prefHead*2 > len(n.prefQ) {
		n.prefQ = append(n.prefQ[:0], n.prefQ[n.prefHead:]...)
		n.prefHead = 0
	}
}

// livePrefetch says whether the prefetch request of d on node ni is still
// to be handled; one that is not releases its source (deadPrefetch).
func (e *Engine) livePrefetch(n *node, ni, d int) bool {
	if n.liveRequest(d) {
		return true
	}
	e.deadPrefetch(n, ni, d)
	return false
}

// liveRequest is livePrefetch's test, small enough to inline in issuePairs'
// scan of the prefetch queue (long under push-time prefetches, its
// requests mostly live): requested, not there nor coming, still wanted.
func (n *node) liveRequest(d int) bool {
	return n.prefReq[d] && n.state[d] == absent && n.want[d] != 0
}

// deadPrefetch releases the source of a request that will not be copied.
func (e *Engine) deadPrefetch(n *node, ni, d int) {
	if n.prefReq[d] {
		e.dropPrefetchSource(ni, d)
	}
}

// prefetchAt is the prefetch request at position i of the node's queue,
// with its current source (prefSrc: a request made again may have another).
func (e *Engine) prefetchAt(n *node, i int) request {
	r := n.prefQ[i]
	r.src = int(n.prefSrc[r.data])
	return r
}

// issuePairs is issue under StarPU's per-pair counting
// (Runtime.RequestsPerNode false, with peer copies): the fetches from
// each source node in turn, main memory first, then the GPUs in order,
// each in request order while fewer than FetchRequests copies from that
// source are pending; then the prefetches likewise, up to
// PrefetchRequests per source (datawizard.c ____starpu_datawizard_progress,
// data_request.c __starpu_handle_node_data_requests). A request that gets
// no memory stops the node's handling until memory changes, a fetch's
// the prefetches too. It reports whether an allocation waits for the
// device to drain.
func (e *Engine) issuePairs(ni int) (waiting bool) {
	n := e.nodes[ni]
	if len(n.fetchQ) > 0 {
		n.fetchQ = slices.DeleteFunc(n.fetchQ, func(r request) bool {
			if n.state[r.data] != absent || n.pin[r.data] == 0 {
				e.release(r.src, r.data)
				return true
			}
			return false
		})
	}
	for len(n.fetchQ) > 0 {
		i := e.nextFetch(ni)
		if i < 0 {
			break
		}
		r := n.fetchQ[i]
		var ok bool
		if ok, waiting = e.allocate(ni, r, e.forHead(n, r.data)); !ok {
			e.refuse(ni, r.data)
			return waiting // wait for memory: a copy or a task to end
		}
		n.fetchQ = slices.Delete(n.fetchQ, i, i+1)
	}
	e.skipPrefetches(ni)
	if n.prefHead < len(n.prefQ) {
		// Only a handled request changes the copies pending (enqueue
		// queues its copy): the counts are taken again after each.
		pend := e.pendingBySource(ni)
		for _, s := range e.srcOrder {
			if s == ni {
				continue
			}
			for j := n.prefHead; j < len(n.prefQ) && pend[s] < e.maxPrefetch; j++ {
				d := n.prefQ[j].data
				if !n.liveRequest(d) {
					e.deadPrefetch(n, ni, d)
					continue
				}
				if e.pairOf(int(n.prefSrc[d])) != s {
					continue
				}
				var ok bool
				if ok, waiting = e.allocate(ni, e.prefetchAt(n, j), false); !ok {
					e.refuse(ni, d)
					return waiting // declined: retry when memory changes
				}
				pend = e.pendingBySource(ni)
			}
		}
		e.skipPrefetches(ni)
	}
	return waiting
}

// nextFetch is the position in the node's fetch queue of the fetch
// issuePairs handles next, -1 when none may be.
func (e *Engine) nextFetch(ni int) int {
	n := e.nodes[ni]
	pend := e.pendingBySource(ni)
	for _, s := range e.srcOrder {
		if s == ni || pend[s] >= e.maxFetch {
			continue
		}
		for i, r := range n.fetchQ {
			if e.pairOf(r.src) == s {
				return i
			}
		}
	}
	return -1
}

// issueShared handles the fetches of a memory shared by several workers
// (CPU cores out of core): each worker fetches its own task's data, as
// StarPU's CPU driver does in its own thread, so a fetch that cannot get
// memory does not hold up the others'. It reports whether every fetch was
// handled (prefetches may go next).
func (e *Engine) issueShared(ni, pending int) bool {
	n := e.nodes[ni]
	all := true
	// The head does not change while requests are handled; a fetch (not
	// for the head) that found no memory tells that every other one of its
	// size would find none either (it evicted all it could), so they wait
	// without asking: 48 cores share a queue of about as many fetches.
	if len(n.fetchQ) == 0 {
		return true
	}
	h, running := e.head(n)
	failed := int64(-1)
	for i := 0; i < len(n.fetchQ); {
		r := n.fetchQ[i]
		if n.state[r.data] != absent || n.pin[r.data] == 0 {
			e.release(r.src, r.data)
			n.fetchQ = append(n.fetchQ[:i], n.fetchQ[i+1:]...)
			continue
		}
		if pending >= e.maxFetch {
			return false
		}
		head := h >= 0 && !running && e.reads(h, r.data)
		size := e.w.Data[r.data].Bytes
		if !head && size == failed {
			all = false
			i++
			continue
		}
		if ok, _ := e.allocate(ni, r, head); !ok {
			e.refuse(ni, r.data)
			if !head {
				failed = size
			}
			all = false
			i++
			continue
		}
		n.fetchQ = append(n.fetchQ[:i], n.fetchQ[i+1:]...)
		if !r.alloc {
			pending++
		}
	}
	return all
}

// head is the node's oldest popped task (on a GPU, the next to compute),
// -1 when none; running says whether it computes. Tasks are popped
// youngest last, so the head changes only when it ends or when a task is
// popped onto a node that had none (popped, ended): the workers (48 cores)
// are looked through again only after the head ended, not at every issue.
func (e *Engine) head(n *node) (task int, running bool) {
	if check != nil {
		check(e, n)
	}
	if n.headStale {
		n.headW, n.headStale = e.oldest(n), false
	}
	if n.headW < 0 {
		return -1, false
	}
	wk := e.workers[n.headW]
	return wk.pipe[0], wk.busy
}

// oldest is the worker of the node whose first popped task was popped
// first, -1 when none has one.
func (e *Engine) oldest(n *node) int {
	best, seq := -1, int32(0)
	for _, w := range n.workers {
		if wk := e.workers[w]; len(wk.pipe) > 0 && (best < 0 || e.tasks[wk.pipe[0]].popSeq < seq) {
			best, seq = w, e.tasks[wk.pipe[0]].popSeq
		}
	}
	return best
}

// popped and ended keep the node's head (see head) when a worker pops a
// task or ends its first.
func (n *node) popped(w int) {
	if n.headW < 0 {
		n.headW = w // the only popped task: the stale flag is already false
	}
}

func (n *node) ended(w int) {
	if n.headW == w {
		n.headStale = true
	}
}

// forHead reports whether a fetch is for the node's oldest popped task,
// which waits for it: that task may evict data of younger popped tasks as
// a last resort, so workers sharing a memory cannot deadlock.
func (e *Engine) forHead(n *node, d int) bool {
	h, running := e.head(n)
	return h >= 0 && !running && e.reads(h, d)
}

// usedNow reports whether a task computing on the node, or its oldest
// popped task, uses the data: what a last-resort eviction must keep.
func (e *Engine) usedNow(n *node, d int) bool {
	if h, _ := e.head(n); h >= 0 && e.reads(h, d) {
		return true
	}
	for _, w := range n.workers {
		if wk := e.workers[w]; wk.busy && e.reads(wk.pipe[0], d) {
			return true
		}
	}
	return false
}

// allocate finds memory for a request and queues its copy. Under
// Runtime.AllocSync it first waits for the GPU to drain (device memory
// allocation and release synchronise the device): it then reports wait. A
// load that takes over an evicted datum's allocation (Runtime.ReuseSameSize)
// allocates nothing and never waits.
func (e *Engine) allocate(ni int, r request, head bool) (ok, wait bool) {
	n := e.nodes[ni]
	size := e.w.Data[r.data].Bytes
	full := n.capacity >= 0 && n.used+size > n.capacity
	if full && e.rt.ReuseSameSize {
		if v := e.reuseVictim(ni, size, r.prefetch); v >= 0 {
			e.evict(ni, v)
			e.enqueue(ni, r)
			return true, false
		}
	}
	if full && r.prefetch && e.firstCandidate(ni, true) < 0 {
		return false, false // nothing a prefetch may evict: do not wait for it
	}
	if n.gpu && (e.rt.AllocSync == "all" || (e.rt.AllocSync == "evict" && full)) {
		if n.barrier < 0 {
			n.barrier = n.done + e.readyPrefix(n.workers[0])
		}
		if n.done < n.barrier || len(n.copyQ) > 0 || n.busyIn || len(n.outQ) > 0 || n.busyOut {
			return false, true // blocked until the GPU drains: a task or copy ends
		}
	}
	e.unblock(n)
	if full && !e.makeRoom(ni, size, r.prefetch, head) {
		return false, false
	}
	e.enqueue(ni, r)
	return true, false
}

// enqueue allocates a request's memory and queues its copy. An access in
// mode W needs no copy: the allocation is the data. On the home node the
// copy is the write-back of another node's valid copy.
func (e *Engine) enqueue(ni int, r request) {
	n := e.nodes[ni]
	d := r.data
	n.refused[d] = false
	n.set(d, queued)
	if !r.prefetch {
		e.dropPrefetchSource(ni, d) // the fetch takes over the prefetch request
	}
	n.prefReq[d] = false
	n.used += e.w.Data[d].Bytes
	e.observe(schedulers.Requested, ni, d)
	switch {
	case r.alloc:
		e.release(r.src, d)
		n.set(d, resident)
		n.allocated = true
		n.lruAppend(d)
		e.dataEvent("alloc", ni, d, e.w.Data[d].Bytes, "", 0)
		e.observe(schedulers.LoadStarted, ni, d)
		e.observe(schedulers.Loaded, ni, d)
	case ni == e.home:
		e.release(r.src, d)
		e.fetchHome(d)
	default:
		if !e.rt.LRUAtLoad {
			n.lruAppend(d) // memalloc.c register_mem_chunk: listed at allocation
		}
		r.at = e.driverSpend(n, e.copyIssue)
		e.copySeq++
		r.seq = e.copySeq
		n.copyQ = append(n.copyQ, r)
	}
}

// driverSpend makes a GPU's driver thread spend cost seconds of host time
// after what it is doing, and returns when it is done; other nodes spend
// nothing.
func (e *Engine) driverSpend(n *node, cost float64) float64 {
	if cost == 0 || !n.gpu {
		return e.now
	}
	n.driverT = max(n.driverT, e.now) + cost
	return n.driverT
}

// evictables are, in LRU order, the data a load may evict: no popped
// task uses them, no copy reads them and, for a prefetch, no task that
// prefetched them waits for them either (StarPU's starpu_data_can_evict:
// nb_tasks_prefetch; unless Runtime.EvictPrefetched). Listing them
// (candidates) and taking the first that fits (firstCandidate,
// reuseVictim) walk this one sequence.
func (e *Engine) evictables(ni int, prefetch bool) iter.Seq[int] {
	n := e.nodes[ni]
	keep := e.keepPrefetched(prefetch)
	return func(yield func(int) bool) {
		for d := n.lruHead; d >= 0; d = n.lruNext[d] {
			if n.evictable(d, keep) && !yield(int(d)) {
				return
			}
		}
	}
}

// candidates lists the evictables, for a policy to choose among.
func (e *Engine) candidates(ni int, prefetch bool) []int {
	e.cand = e.cand[:0]
	for d := range e.evictables(ni, prefetch) {
		e.cand = append(e.cand, d)
	}
	return e.cand
}

// keepPrefetched says whether a load keeps the data that prefetched tasks
// wait for: a prefetch does (memalloc.c starpu_data_can_evict refuses
// is_prefetch >= STARPU_TASK_PREFETCH when nb_tasks_prefetch is not 0),
// a fetch does not.
func (e *Engine) keepPrefetched(prefetch bool) bool { return prefetch && !e.rt.EvictPrefetched }

func (n *node) evictable(d int32, keepPrefetched bool) bool {
	return n.state[d] == resident && n.pin[d] == 0 && (!keepPrefetched || n.want[d] == 0) && n.reading[d] == 0 && n.held[d] == 0
}

// firstCandidate is the first of candidates, -1 when there is none,
// without listing them.
func (e *Engine) firstCandidate(ni int, prefetch bool) int {
	for d := range e.evictables(ni, prefetch) {
		return d
	}
	return -1
}

// reuseVictim picks the least recently used candidate of exactly size
// bytes that needs no write-back (the scheduler's policy chooses among
// them if it has one), or -1.
func (e *Engine) reuseVictim(ni int, size int64, prefetch bool) int {
	if e.evictor == nil {
		// LRU: the first such candidate, without listing them (choose
		// takes the list's first).
		for d := range e.evictables(ni, prefetch) {
			if e.w.Data[d].Bytes == size && !e.lastCopy(ni, d) {
				return d
			}
		}
		return -1
	}
	all := e.candidates(ni, prefetch)
	same := all[:0]
	for _, d := range all {
		if e.w.Data[d].Bytes == size && !e.lastCopy(ni, d) {
			same = append(same, d)
		}
	}
	e.cand = same
	if len(same) == 0 {
		return -1
	}
	return e.choose(ni, same, prefetch)
}

// choose asks the scheduler's policy for a victim among the candidates
// (LRU first), -1 when it declines for a prefetch.
func (e *Engine) choose(ni int, cand []int, prefetch bool) int {
	victim := cand[0]
	if e.evictor != nil {
		var v int
		e.timed(e.firstWorker(ni), func() error { v = e.evictor.Victim(ni, cand, prefetch); return nil })
		if v < 0 && prefetch {
			return -1
		}
		if v >= 0 {
			if !e.isCandidate(v) {
				e.faultf("eviction policy chose data %d, which is not evictable on node %d", v, ni)
			}
			victim = v
		}
	}
	return victim
}

func (e *Engine) firstWorker(ni int) int {
	if ws := e.nodes[ni].workers; len(ws) > 0 {
		return ws[0]
	}
	return -1
}

// makeRoom evicts until size bytes fit; when it must evict, it frees at
// least Runtime.ReclaimFactor times size, as StarPU's allocator reclaims
// starpu_memstrategy_data_size_coefficient (2) times the size it misses
// (_starpu_allocate_interface, _starpu_memory_reclaim_generic). A prefetch
// only evicts data no buffered or popped task uses, and its policy may
// decline. A fetch evicts data no popped task uses; for the node's oldest
// popped task it may evict data of younger popped tasks as a last resort,
// so the pipeline cannot deadlock. Evicting the last valid copy of a datum
// frees its memory only once it is written back: the load then waits.
func (e *Engine) makeRoom(ni int, size int64, prefetch, head bool) bool {
	n := e.nodes[ni]
	need := n.used + size - n.capacity
	if need <= 0 {
		return true
	}
	if n.freeing >= need {
		return false // write-backs in flight will make the room
	}
	target := need
	if f := e.rt.ReclaimFactor; f > 1 {
		target = max(need, int64(math.Ceil(f*float64(size))))
	}
	freed := n.freeing
	for freed < target {
		victim := -1
		if e.evictor == nil {
			victim = e.firstCandidate(ni, prefetch) // LRU
		} else if cand := e.candidates(ni, prefetch); len(cand) > 0 {
			victim = e.choose(ni, cand, prefetch)
		}
		if victim < 0 && head && freed < need {
			for d := n.lruHead; d >= 0; d = n.lruNext[d] {
				if n.state[d] == resident && n.reading[d] == 0 && !e.usedNow(n, int(d)) {
					victim = int(d)
					break
				}
			}
		}
		if victim < 0 {
			break
		}
		freed += e.w.Data[victim].Bytes
		e.evict(ni, victim)
	}
	return n.used+size <= n.capacity
}

func (e *Engine) isCandidate(d int) bool {
	for _, c := range e.cand {
		if c == d {
			return true
		}
	}
	return false
}

// lastCopy reports whether the node holds the only valid copy of a datum:
// evicting it needs a write-back.
func (e *Engine) lastCopy(ni, d int) bool {
	if e.nodes[e.home].state[d] == resident || e.w.Data[d].Scratch {
		return false
	}
	for o, m := range e.nodes {
		if o != ni && o != e.home && m.state[d] == resident {
			return false
		}
	}
	return true
}

// evict removes a datum from a node; the last valid copy is written back
// first, and its memory freed when that ends (finishOut).
func (e *Engine) evict(ni, d int) {
	n := e.nodes[ni]
	bytes := e.w.Data[d].Bytes
	if e.lastCopy(ni, d) {
		n.set(d, flushing)
		n.freeing += bytes
		n.lruRemove(d)
		e.stats.Evictions++
		e.observe(schedulers.Evicted, ni, d) // gone, for the scheduler
		e.sendHome(ni, d)
		return
	}
	n.set(d, absent)
	n.used -= bytes
	n.lruRemove(d)
	e.stats.Evictions++
	e.dataEvent("evict", ni, d, bytes, "", 0)
	e.freed(ni, d)
	e.observe(schedulers.Evicted, ni, d)
	e.afterLeave(ni, d)
}

// afterLeave re-requests a datum that left a node while tasks there still
// use it: a popped task fetches it again; a buffered one only with
// Runtime.Reprefetch (StarPU prefetches once, at push).
func (e *Engine) afterLeave(ni, d int) {
	n := e.nodes[ni]
	if n.want[d] > 0 && e.rt.Reprefetch {
		e.requestPrefetch(ni, d, e.modeOn(n, d))
	}
	if n.pin[d] > 0 {
		n.fetchQ = append(n.fetchQ, e.newRequest(ni, d, false, e.modeOn(n, d) == workloads.W))
	}
}

// modeOn is the access mode of the first queued task of the node's workers
// that uses a datum (R when none does).
func (e *Engine) modeOn(n *node, d int) workloads.Mode {
	mode, found := workloads.R, false
	first := func(task int) bool {
		for k, in := range e.inputs(task) {
			if int(in) == d {
				mode, found = e.mode(task, k), true
				return false
			}
		}
		return true
	}
	for _, w := range n.workers {
		wk := e.workers[w]
		for _, task := range wk.pipe {
			if !first(task) {
				return mode
			}
		}
		if wk.buffer.each(first); found {
			return mode
		}
	}
	return workloads.R
}

// touch makes resident data the most recently used.
func (n *node) touch(d int) {
	if n.state[d] == resident {
		n.lruRemove(d)
		n.lruAppend(d)
	}
}

func (n *node) lruAppend(di int) {
	d := int32(di)
	n.lruPrev[d], n.lruNext[d] = n.lruTail, -1
	if n.lruTail >= 0 {
		n.lruNext[n.lruTail] = d
	} else {
		n.lruHead = d
	}
	n.lruTail = d
}

func (n *node) lruRemove(di int) {
	d := int32(di)
	p, x := n.lruPrev[d], n.lruNext[d]
	if p >= 0 {
		n.lruNext[p] = x
	} else {
		n.lruHead = x
	}
	if x >= 0 {
		n.lruPrev[x] = p
	} else {
		n.lruTail = p
	}
}

// popFront removes a queue's first element in place: the queues are a few
// requests long, and keeping their array avoids reallocating it as a
// sliding window would.
func popFront[T any](q []T) []T {
	copy(q, q[1:])
	return q[:len(q)-1]
}
