// Package sim is the discrete-event simulator: GPUs with capped memory fed
// over shared links, a StarPU-like pipeline per GPU, and a scheduler driven
// through the schedulers contract. It is deterministic: events at equal
// times are ordered by a sequence number, and the only outside inputs are
// the configuration and, when scheduling time is charged, a wall clock.
//
// Per GPU the pipeline is StarPU's (thesis Fig. 2.5): the scheduler fills a
// task buffer (depth Buffer); a task entering it requests a prefetch of each
// missing input, once (StarPU prefetches at push time and never again). The
// worker pops buffered tasks into a pipeline (depth Pipeline), one at a
// time: it pops again only when every popped task has its inputs (StarPU's
// driver does not pop while a task is transferring). A popped task fetches
// what it misses, taking over a queued prefetch of the same data. Tasks
// compute one at a time in pop order.
//
// Memory follows StarPU's data requests and allocator. Requests are handled
// fetches first, then prefetches in request order; a prefetch that cannot
// get memory stops the prefetches behind it. A handled request allocates at
// once and queues its copy on the GPU's single host-to-GPU stream (at most
// 20 copies in flight, 10 when handling prefetches). When memory is full, a
// load evicts, in LRU order, ReclaimFactor times its size (StarPU: 2); a
// prefetch may only evict data no buffered or popped task reads, and the
// scheduler's policy may decline; a fetch evicts data no popped task reads,
// and for the next task to compute may, as a last resort, evict data of
// younger popped tasks, which then fetch it again, so the pipeline cannot
// deadlock. Data become most recently used when loaded and whenever a
// fetch or prefetch request finds them on the GPU. The platform's runtime
// settings (hardware.Runtime) select the former model or the uncertain
// parts of StarPU's: same-size reuse, allocation that drains the device.
package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/minheap"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Backend carries out the engine's decisions in real time instead of
// simulating them: the CUDA executor starts a copy or a kernel when asked
// and, when the GPU reports it done, calls Advance then LoadDone or
// TaskDone. One state machine thus serves the simulator and real GPUs.
// trace indexes the event just emitted (-1 when not tracing), whose time
// the backend may correct with SetEventTime.
type Backend interface {
	StartLoad(g, d int, prefetch bool, trace int)
	StartTask(g, task, trace int)
	Evicted(g, d int)
}

// Config is one simulated run.
type Config struct {
	Workload  *workloads.Workload
	Platform  *hardware.Platform
	Scheduler schedulers.Scheduler
	Buffer    int // tasks per worker buffer; <0 unbounded
	Pipeline  int // popped tasks per worker
	Seed      uint64
	// Clock, when set, measures the scheduler's wall time (a monotonic
	// clock from outside keeps the engine pure).
	Clock func() time.Duration
	// ChargeSchedTime delays a worker by the wall time of the scheduler
	// calls made on its behalf (the papers' real runs); results are then
	// no longer bit-reproducible.
	ChargeSchedTime bool
	// Trace, when set, receives every event.
	Trace func(Event)
	// Context, when set, cancels the run (a sweep's per-run timeout): Run
	// checks it between events and returns its error.
	Context context.Context
}

// Event is one trace record. Every field is always written (id 0 and GPU
// 0 included), so a reader needs no defaults; a field that does not apply
// to the kind is zero.
type Event struct {
	T      float64 `json:"t"`
	Ev     string  `json:"ev"` // load_start, load_end, evict, task_start, task_end
	Worker int     `json:"worker"`
	Node   int     `json:"node"`
	Task   int     `json:"task"`  // task events
	Data   int     `json:"data"`  // load and evict events
	Bytes  int64   `json:"bytes"` // load and evict events
	Kind   string  `json:"kind"`  // fetch or prefetch, on load_start
	Src    int     `json:"src"`   // -1 host, else the source GPU, on loads
}

// Stats are a run's totals.
type Stats struct {
	Makespan   float64
	Flops      float64
	BytesH2D   int64
	BytesD2D   int64
	Loads      int
	Prefetches int
	Fetches    int
	Evictions  int
	Tasks      int
	PerWorker  []int
	SchedWall  time.Duration
}

const (
	absent  uint8 = iota
	queued        // allocated, its copy waits in the GPU's copy queue
	loading       // its copy runs
	resident
)

// StarPU's caps on the requests a memory node handles at once
// (src/datawizard/data_request.h: MAX_PENDING_REQUESTS_PER_NODE,
// MAX_PENDING_PREFETCH_REQUESTS_PER_NODE): fetches are issued while fewer
// than 20 copies are queued or running, prefetches while fewer than 10.
const (
	maxPendingFetch    = 20
	maxPendingPrefetch = 10
)

type request struct {
	data     int
	prefetch bool
}

type flow struct {
	worker, data, src int
	links             []int
	remaining, rate   float64
	prefetch          bool
}

type gpu struct {
	state    []uint8
	pin      []int32 // popped tasks reading the data
	want     []int32 // buffered tasks reading the data
	prefReq  []bool  // a prefetch request for the data waits in prefQ
	used     int64
	lruPrev  []int32 // doubly linked LRU list over resident data; head = least recent
	lruNext  []int32
	lruHead  int32
	lruTail  int32
	buffer   []int
	pipe     []int
	fetchQ   []request
	prefQ    []request
	prefHead int
	busyLoad bool
	busyComp bool
	pulling  bool // scheduler has nothing for now
	blockedT float64
	copyQ    []request // issued loads, in issue order (one H2D stream per GPU)
	// Under Runtime.AllocSync, an allocation blocks the GPU's driver until
	// the device drains: the kernels launched when it blocked (done reaches
	// barrier) and every queued copy finish; meanwhile it pops, launches
	// and issues nothing. barrier < 0: not blocked.
	barrier int
	done    int // tasks finished on this GPU
}

// Engine is one run's state.
type Engine struct {
	cfg     Config
	w       *workloads.Workload
	p       *hardware.Platform
	rt      hardware.Runtime
	sched   schedulers.Scheduler
	evictor schedulers.Evictor
	popper  schedulers.Popper
	obs     schedulers.Observer
	rng     *rand.Rand
	be      Backend
	trace   []Event // buffered with a backend, whose times may be corrected

	now       float64
	seq       uint64
	events    minheap.Heap[event]
	gpus      []*gpu
	links     []hardware.Link
	paths     [][]int
	linkIndex map[string]int
	flows     []*flow
	compute   []float64 // per task, seconds
	waiting   []int32   // unmet dependencies per task
	children  [][]int
	done      int
	stats     Stats
	cand      []int
	hostGBps  []float64
	capLeft   []float64
	users     []int
	fixed     []bool
	spare     []*flow // finished flows, for reuse
}

type event struct {
	t      float64
	seq    uint64
	worker int
	task   int // -1: wake-up after charged scheduling time
}

// Before orders events by time, ties by sequence number: the engine's
// determinism.
func (a event) Before(b event) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) }

// Run simulates the whole workload and returns its totals.
func Run(cfg Config) (*Stats, error) {
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return e.Run()
}

// New checks the configuration and prepares a simulated run.
func New(cfg Config) (*Engine, error) { return NewWith(cfg, nil) }

// NewWith prepares a run whose loads and tasks a backend carries out.
func NewWith(cfg Config, be Backend) (*Engine, error) {
	w, p := cfg.Workload, cfg.Platform
	if w == nil || p == nil || cfg.Scheduler == nil {
		return nil, fmt.Errorf("sim: workload, platform and scheduler are required")
	}
	if need := w.MaxInputBytes(); need > p.MemoryBytes {
		return nil, fmt.Errorf("memory of %d bytes (%.2f MiB) per GPU is smaller than one task's inputs (%d bytes, %.2f MiB): raise --memory-mb to at least %.2f",
			p.MemoryBytes, float64(p.MemoryBytes)/hardware.MiB, need, float64(need)/hardware.MiB, math.Ceil(float64(need)/hardware.MiB*100)/100)
	}
	if cfg.Pipeline < 1 {
		cfg.Pipeline = 1
	}
	if cfg.Buffer == 0 {
		cfg.Buffer = 1
	}
	e := &Engine{cfg: cfg, w: w, p: p, rt: p.Runtime, sched: cfg.Scheduler, be: be,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6d656d7363686564))}
	e.evictor, _ = cfg.Scheduler.(schedulers.Evictor)
	e.popper, _ = cfg.Scheduler.(schedulers.Popper)
	e.obs, _ = cfg.Scheduler.(schedulers.Observer)
	e.links, e.paths = p.Links()
	e.linkIndex = map[string]int{}
	for i, l := range e.links {
		e.linkIndex[l.Name] = i
	}
	nd := len(w.Data)
	for g := 0; g < p.GPUs; g++ {
		m := &gpu{state: make([]uint8, nd), pin: make([]int32, nd), want: make([]int32, nd), prefReq: make([]bool, nd),
			lruPrev: make([]int32, nd), lruNext: make([]int32, nd), lruHead: -1, lruTail: -1, barrier: -1}
		e.gpus = append(e.gpus, m)
	}
	e.compute = make([]float64, len(w.Tasks))
	e.waiting = make([]int32, len(w.Tasks))
	e.children = make([][]int, len(w.Tasks))
	for i, t := range w.Tasks {
		s, err := p.KernelSeconds(t.Kernel, t.Flops)
		if err != nil {
			return nil, err
		}
		e.compute[i] = s
		e.waiting[i] = int32(len(t.Deps))
		for _, d := range t.Deps {
			e.children[d] = append(e.children[d], i)
		}
	}
	e.stats.PerWorker = make([]int, p.GPUs)
	for g := 0; g < p.GPUs; g++ {
		e.hostGBps = append(e.hostGBps, p.HostGBps(g))
	}
	return e, nil
}

// Run drives the simulation to the end.
func (e *Engine) Run() (*Stats, error) {
	if err := e.Begin(); err != nil {
		return nil, err
	}
	var done <-chan struct{}
	if e.cfg.Context != nil {
		done = e.cfg.Context.Done()
	}
	for !e.Done() {
		select {
		case <-done:
			return nil, e.cfg.Context.Err()
		default:
		}
		tFlow, fi := e.nextFlow()
		if len(e.events) == 0 && fi < 0 {
			return nil, e.Stuck()
		}
		if fi >= 0 && (len(e.events) == 0 || tFlow <= e.events[0].t) {
			e.advance(tFlow)
			e.finishLoad(fi)
			continue
		}
		ev := e.events.Pop()
		e.advance(ev.t)
		if ev.task < 0 {
			e.kick(ev.worker)
			continue
		}
		e.TaskDone(ev.worker, ev.task)
	}
	return e.Finish(), nil
}

// Begin initialises the scheduler, pushes the ready tasks and starts every
// worker.
func (e *Engine) Begin() error {
	if err := e.timed(-1, func() error { return e.sched.Init(e) }); err != nil {
		return fmt.Errorf("scheduler init: %w", err)
	}
	for i := range e.w.Tasks {
		if e.waiting[i] == 0 {
			e.timed(-1, func() error { e.sched.Push(i); return nil })
		}
	}
	if e.charging() {
		// Static planning (Init) delays every worker's start.
		for g := range e.gpus {
			e.gpus[g].blockedT = e.stats.SchedWall.Seconds()
		}
	}
	e.kickAll()
	return nil
}

// Done reports whether every task has finished.
func (e *Engine) Done() bool { return e.done == len(e.w.Tasks) }

// Advance moves the clock of a backend-driven run; time never goes back.
func (e *Engine) Advance(t float64) {
	if t > e.now {
		e.now = t
	}
}

// SetEventTime corrects the time of a buffered trace event (backend runs).
func (e *Engine) SetEventTime(i int, t float64) { e.trace[i].T = t }

// Finish closes the run: totals, and a backend run's trace in time order
// (stable, so equal times keep their causal order).
func (e *Engine) Finish() *Stats {
	e.stats.Makespan = e.now
	e.stats.Flops = e.w.TotalFlops()
	if e.be != nil && e.cfg.Trace != nil {
		sort.SliceStable(e.trace, func(i, j int) bool { return e.trace[i].T < e.trace[j].T })
		for _, ev := range e.trace {
			e.cfg.Trace(ev)
		}
	}
	return &e.stats
}

// charging says whether scheduler time is added to the timeline: only in
// simulation, since on real GPUs it passes for real.
func (e *Engine) charging() bool { return e.cfg.ChargeSchedTime && e.cfg.Clock != nil && e.be == nil }

// Stuck explains why a run cannot progress.
func (e *Engine) Stuck() error {
	msg := fmt.Sprintf("simulation stuck at t=%gs with %d of %d tasks done", e.now, e.done, len(e.w.Tasks))
	for g, m := range e.gpus {
		msg += fmt.Sprintf("; gpu%d: buffer %d, pipeline %d, fetch queue %d, used %d/%d bytes, copy queue %d", g, len(m.buffer), len(m.pipe), len(m.fetchQ), m.used, e.p.MemoryBytes, len(m.copyQ))
	}
	return fmt.Errorf("%s (a scheduler that never returns some task, or a cyclic dependency)", msg)
}

// timed runs a scheduler call, measuring its wall time and charging it to
// the worker (worker < 0: to nobody yet).
func (e *Engine) timed(worker int, f func() error) error {
	if e.cfg.Clock == nil {
		return f()
	}
	t0 := e.cfg.Clock()
	err := f()
	dt := e.cfg.Clock() - t0
	e.stats.SchedWall += dt
	if e.charging() && worker >= 0 {
		m := e.gpus[worker]
		m.blockedT = math.Max(m.blockedT, e.now) + dt.Seconds()
	}
	return err
}

// observe tells an observing scheduler, timing the call like any other.
func (e *Engine) observe(kind schedulers.EventKind, g, id int) {
	if e.obs != nil {
		e.timed(g, func() error { e.obs.Observe(kind, g, id); return nil })
	}
}

func (e *Engine) push(t float64, worker, task int) {
	e.seq++
	e.events.Push(event{t: t, seq: e.seq, worker: worker, task: task})
}

// emit records an event; with a backend it is buffered (its time may be
// corrected) and its index returned, else -1.
func (e *Engine) emit(ev Event) int {
	if e.cfg.Trace == nil {
		return -1
	}
	ev.T = e.now
	if e.be != nil {
		e.trace = append(e.trace, ev)
		return len(e.trace) - 1
	}
	e.cfg.Trace(ev)
	return -1
}

func (e *Engine) kickAll() {
	for g := range e.gpus {
		e.kick(g)
	}
}

// kick makes a worker progress as far as it can now: refill its buffer and
// pipeline, start its next transfer and its next task.
func (e *Engine) kick(g int) {
	m := e.gpus[g]
	if m.blockedT > e.now {
		e.push(m.blockedT, g, -1)
		return
	}
	for {
		e.fill(g)
		if m.blockedT > e.now {
			e.push(m.blockedT, g, -1)
			return
		}
		blocked := m.barrier >= 0
		e.startTransfer(g)
		if !blocked || m.barrier >= 0 {
			break
		}
		// The driver got unblocked: it pops and launches again.
	}
	e.startCompute(g)
}

// fill refills the worker's buffer from the scheduler and its pipeline from
// the buffer.
func (e *Engine) fill(g int) {
	m := e.gpus[g]
	for changed := true; changed; {
		changed = false
		for (e.cfg.Buffer < 0 || len(m.buffer) < e.cfg.Buffer) && !m.pulling {
			var task int
			var ok bool
			e.timed(g, func() error { task, ok = e.sched.Pull(g); return nil })
			if !ok {
				m.pulling = true
				break
			}
			e.addToBuffer(g, task)
			changed = true
			if m.blockedT > e.now {
				return
			}
		}
		// StarPU's driver pops a task only when its pipeline has room and no
		// popped task is still transferring its inputs
		// (_starpu_get_multi_worker_task: "don't push a task if we are
		// already transferring one").
		for m.barrier < 0 && len(m.pipe) < e.cfg.Pipeline && len(m.buffer) > 0 && (e.rt.PopWhileFetching || e.readyPrefix(g) == len(m.pipe)) {
			i := 0
			if e.popper != nil {
				e.timed(g, func() error { i = e.popper.Pop(g, m.buffer); return nil })
			}
			task := m.buffer[i]
			m.buffer = append(m.buffer[:i], m.buffer[i+1:]...)
			e.popTask(g, task)
			changed = true
		}
	}
}

// readyPrefix counts the popped tasks, oldest first, whose inputs are all
// resident: the kernels StarPU has launched (or is running) on the GPU.
func (e *Engine) readyPrefix(g int) int {
	m := e.gpus[g]
	for i, t := range m.pipe {
		for _, d := range e.w.Tasks[t].Inputs {
			if m.state[d] != resident {
				return i
			}
		}
	}
	return len(m.pipe)
}

// addToBuffer gives a task to a worker. Like StarPU's push-time prefetch
// (starpu_prefetch_task_input_for), it requests each missing input once,
// in order, and a request that finds the data already there refreshes it
// in LRU order (_starpu_memchunk_recently_used).
func (e *Engine) addToBuffer(g, task int) {
	if task < 0 || task >= len(e.w.Tasks) {
		panic(fmt.Sprintf("scheduler returned task %d, outside 0..%d", task, len(e.w.Tasks)-1))
	}
	if e.waiting[task] != 0 {
		panic(fmt.Sprintf("scheduler returned task %d whose dependencies are not done", task))
	}
	e.waiting[task] = -1 // taken
	m := e.gpus[g]
	m.buffer = append(m.buffer, task)
	for _, d := range e.w.Tasks[task].Inputs {
		m.want[d]++
		switch m.state[d] {
		case absent:
			e.requestPrefetch(m, d)
		case resident:
			if !e.rt.TouchAtStart {
				e.touch(m, d)
			}
		}
	}
}

// requestPrefetch queues a prefetch unless one is already queued (StarPU
// reuses the pending request of the data).
func (e *Engine) requestPrefetch(m *gpu, d int) {
	if !m.prefReq[d] {
		m.prefReq[d] = true
		m.prefQ = append(m.prefQ, request{d, true})
	}
}

// popTask moves a task into the pipeline and fetches its missing inputs; a
// queued prefetch of those becomes the fetch (StarPU upgrades the request).
func (e *Engine) popTask(g, task int) {
	m := e.gpus[g]
	m.pipe = append(m.pipe, task)
	for _, d := range e.w.Tasks[task].Inputs {
		m.want[d]--
		m.pin[d]++
		switch m.state[d] {
		case absent:
			m.prefReq[d] = false
			m.fetchQ = append(m.fetchQ, request{d, false})
		case resident:
			if !e.rt.TouchAtStart {
				e.touch(m, d)
			}
		}
	}
}

// startTransfer issues the worker's pending requests, then starts its next
// copy. StarPU allocates a request's memory when it handles the request and
// queues the copy on the GPU's single host-to-GPU stream; fetch requests are
// handled before prefetch requests, each list in request order, and a
// prefetch that cannot get memory stops the prefetches behind it
// (__starpu_handle_node_data_requests: "Prefetching more there would make
// the situation even worse"). With Runtime.JustInTime (the former model) a
// load is chosen and allocated only when the copy engine is idle.
func (e *Engine) startTransfer(g int) {
	e.issue(g)
	e.startCopy(g)
}

func (e *Engine) issue(g int) {
	m := e.gpus[g]
	waiting := false // an allocation waits for the device to drain
	defer func() {
		if !waiting {
			m.barrier = -1 // the driver is not blocked
		}
	}()
	for {
		pending := len(m.copyQ)
		if m.busyLoad {
			pending++
		}
		if e.rt.JustInTime && pending > 0 {
			return
		}
		for len(m.fetchQ) > 0 {
			if d := m.fetchQ[0].data; m.state[d] != absent || m.pin[d] == 0 {
				m.fetchQ = m.fetchQ[1:]
				continue
			}
			break
		}
		if len(m.fetchQ) > 0 {
			r := m.fetchQ[0]
			if pending >= maxPendingFetch {
				return
			}
			head := len(m.pipe) > 0 && e.w.Tasks[m.pipe[0]].Reads(r.data)
			var ok bool
			if ok, waiting = e.allocate(g, r, head); !ok {
				return // wait for memory: a copy or a task to end
			}
			m.fetchQ = m.fetchQ[1:]
			continue
		}
		for m.prefHead < len(m.prefQ) {
			if d := m.prefQ[m.prefHead].data; m.state[d] != absent || m.want[d] == 0 || !m.prefReq[d] {
				m.prefHead++
				continue
			}
			break
		}
		if m.prefHead > 1024 && m.prefHead*2 > len(m.prefQ) {
			m.prefQ = append(m.prefQ[:0], m.prefQ[m.prefHead:]...)
			m.prefHead = 0
		}
		if m.prefHead == len(m.prefQ) || pending >= maxPendingPrefetch {
			return
		}
		var ok bool
		if ok, waiting = e.allocate(g, m.prefQ[m.prefHead], false); !ok {
			return // declined: retry when memory changes
		}
		m.prefHead++
	}
}

// startCopy starts the oldest queued copy if the copy engine is idle.
func (e *Engine) startCopy(g int) {
	m := e.gpus[g]
	if m.busyLoad || len(m.copyQ) == 0 {
		return
	}
	r := m.copyQ[0]
	m.copyQ = m.copyQ[1:]
	e.load(g, r.data, r.prefetch)
}

// allocate finds memory for a request and queues its copy. Under
// Runtime.AllocSync it first waits for the GPU to drain (device memory
// allocation and release synchronise the device): it then reports wait. A
// load that takes over an evicted datum's allocation (Runtime.ReuseSameSize)
// allocates nothing and never waits.
func (e *Engine) allocate(g int, r request, head bool) (ok, wait bool) {
	m := e.gpus[g]
	size := e.w.Data[r.data].Bytes
	full := m.used+size > e.p.MemoryBytes
	if full && e.rt.ReuseSameSize {
		if v := e.reuseVictim(g, size, r.prefetch); v >= 0 {
			e.evict(g, v)
			e.enqueue(g, r)
			return true, false
		}
	}
	if full && r.prefetch && len(e.candidates(g, true)) == 0 {
		return false, false // nothing a prefetch may evict: do not wait for it
	}
	if e.rt.AllocSync == "all" || (e.rt.AllocSync == "evict" && full) {
		if m.barrier < 0 {
			m.barrier = m.done + e.readyPrefix(g)
		}
		if m.done < m.barrier || len(m.copyQ) > 0 || m.busyLoad {
			return false, true // blocked until the GPU drains: a task or copy ends
		}
	}
	m.barrier = -1
	if full && !e.makeRoom(g, size, r.prefetch, head) {
		return false, false
	}
	e.enqueue(g, r)
	return true, false
}

// enqueue allocates a request's memory and queues its copy.
func (e *Engine) enqueue(g int, r request) {
	m := e.gpus[g]
	m.state[r.data] = queued
	m.prefReq[r.data] = false
	m.used += e.w.Data[r.data].Bytes
	m.copyQ = append(m.copyQ, r)
}

// candidates lists, in LRU order, the data a load may evict: no popped
// task reads them and, for a prefetch, no buffered task either.
func (e *Engine) candidates(g int, prefetch bool) []int {
	m := e.gpus[g]
	e.cand = e.cand[:0]
	for d := m.lruHead; d >= 0; d = m.lruNext[d] {
		if m.pin[d] == 0 && (!prefetch || m.want[d] == 0) {
			e.cand = append(e.cand, int(d))
		}
	}
	return e.cand
}

// reuseVictim picks the least recently used candidate of exactly size
// bytes (the scheduler's policy chooses among them if it has one), or -1.
func (e *Engine) reuseVictim(g int, size int64, prefetch bool) int {
	all := e.candidates(g, prefetch)
	same := all[:0]
	for _, d := range all {
		if e.w.Data[d].Bytes == size {
			same = append(same, d)
		}
	}
	e.cand = same
	if len(same) == 0 {
		return -1
	}
	return e.choose(g, same, prefetch)
}

// choose asks the scheduler's policy for a victim among the candidates
// (LRU first), -1 when it declines for a prefetch.
func (e *Engine) choose(g int, cand []int, prefetch bool) int {
	victim := cand[0]
	if e.evictor != nil {
		var v int
		e.timed(g, func() error { v = e.evictor.Victim(g, cand, prefetch); return nil })
		if v < 0 && prefetch {
			return -1
		}
		if v >= 0 {
			if !e.isCandidate(v) {
				panic(fmt.Sprintf("eviction policy chose data %d, which is not evictable on gpu%d", v, g))
			}
			victim = v
		}
	}
	return victim
}

// makeRoom evicts until size bytes fit; when it must evict, it frees at
// least Runtime.ReclaimFactor times size, as StarPU's allocator reclaims
// starpu_memstrategy_data_size_coefficient (2) times the size it misses
// (_starpu_allocate_interface, _starpu_memory_reclaim_generic). A prefetch
// only evicts data no buffered or popped task reads, and its policy may
// decline. A fetch evicts data no popped task reads; for the next task to
// compute it may evict data of younger popped tasks as a last resort, so
// the pipeline cannot deadlock.
func (e *Engine) makeRoom(g int, size int64, prefetch, head bool) bool {
	m := e.gpus[g]
	need := m.used + size - e.p.MemoryBytes
	if need <= 0 {
		return true
	}
	target := need
	if f := e.rt.ReclaimFactor; f > 1 {
		target = max(need, int64(math.Ceil(f*float64(size))))
	}
	var freed int64
	for freed < target {
		victim := -1
		if cand := e.candidates(g, prefetch); len(cand) > 0 {
			victim = e.choose(g, cand, prefetch)
		} else if head && freed < need {
			for d := m.lruHead; d >= 0; d = m.lruNext[d] {
				if !e.w.Tasks[m.pipe[0]].Reads(int(d)) {
					victim = int(d)
					break
				}
			}
		}
		if victim < 0 {
			break
		}
		freed += e.w.Data[victim].Bytes
		e.evict(g, victim)
	}
	return freed >= need
}

func (e *Engine) isCandidate(d int) bool {
	for _, c := range e.cand {
		if c == d {
			return true
		}
	}
	return false
}

func (e *Engine) evict(g, d int) {
	m := e.gpus[g]
	m.state[d] = absent
	m.used -= e.w.Data[d].Bytes
	e.lruRemove(m, int32(d))
	e.stats.Evictions++
	e.emit(Event{Ev: "evict", Worker: g, Node: g, Data: d, Bytes: e.w.Data[d].Bytes})
	if e.be != nil {
		e.be.Evicted(g, d)
	}
	e.observe(schedulers.Evicted, g, d)
	if m.want[d] > 0 && e.rt.Reprefetch {
		// A buffered task still needs it: prefetch it again later.
		e.requestPrefetch(m, d)
	}
	if m.pin[d] > 0 {
		m.fetchQ = append(m.fetchQ, request{d, false})
	}
}

func (e *Engine) load(g, d int, prefetch bool) {
	m := e.gpus[g]
	bytes := e.w.Data[d].Bytes
	m.state[d] = loading
	m.busyLoad = true
	kind := "fetch"
	if prefetch {
		kind = "prefetch"
	}
	if e.be != nil {
		e.observe(schedulers.LoadStarted, g, d)
		i := e.emit(Event{Ev: "load_start", Worker: g, Node: g, Data: d, Bytes: bytes, Kind: kind, Src: -1})
		e.be.StartLoad(g, d, prefetch, i)
		return
	}
	f := e.newFlow()
	*f = flow{worker: g, data: d, src: -1, remaining: float64(bytes), prefetch: prefetch}
	f.links = e.paths[g]
	if e.p.Topology.NVLink {
		for o, om := range e.gpus {
			if o != g && om.state[d] == resident {
				f.src = o
				f.links = []int{e.nvlink(g, o)}
				break
			}
		}
	}
	e.flows = append(e.flows, f)
	e.rates()
	e.observe(schedulers.LoadStarted, g, d)
	e.emit(Event{Ev: "load_start", Worker: g, Node: g, Data: d, Bytes: bytes, Kind: kind, Src: f.src})
}

func (e *Engine) nvlink(a, b int) int {
	name := e.p.NVLinkName(a, b)
	if i, ok := e.linkIndex[name]; ok {
		return i
	}
	e.links = append(e.links, hardware.Link{Name: name, GBps: e.p.Topology.NVLinkGBps})
	e.linkIndex[name] = len(e.links) - 1
	return len(e.links) - 1
}

// rates shares link bandwidth among the active flows with max-min fairness
// (progressive filling).
func (e *Engine) rates() {
	n := len(e.flows)
	if n == 0 {
		return
	}
	if cap(e.capLeft) < len(e.links) {
		e.capLeft = make([]float64, len(e.links))
		e.users = make([]int, len(e.links))
	}
	capLeft, users := e.capLeft[:len(e.links)], e.users[:len(e.links)]
	for i, l := range e.links {
		capLeft[i] = l.GBps * 1e9
		users[i] = 0
	}
	if cap(e.fixed) < n {
		e.fixed = make([]bool, n)
	}
	fixed := e.fixed[:n]
	clear(fixed)
	for _, f := range e.flows {
		for _, l := range f.links {
			users[l]++
		}
	}
	for left := n; left > 0; {
		// The most constrained link fixes the rate of its flows.
		bl, share := -1, math.Inf(1)
		for l := range e.links {
			if users[l] > 0 {
				if s := capLeft[l] / float64(users[l]); s < share {
					bl, share = l, s
				}
			}
		}
		for i, f := range e.flows {
			if fixed[i] || !contains(f.links, bl) {
				continue
			}
			f.rate = share
			fixed[i] = true
			left--
			for _, l := range f.links {
				capLeft[l] -= share
				users[l]--
			}
		}
	}
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
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

func (e *Engine) finishLoad(i int) {
	f := e.flows[i]
	e.flows = append(e.flows[:i], e.flows[i+1:]...)
	e.rates()
	g, d, prefetch, src := f.worker, f.data, f.prefetch, f.src
	e.spare = append(e.spare, f)
	e.loadDone(g, d, prefetch, src)
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

// LoadDone is a backend's report that a host-to-GPU copy finished.
func (e *Engine) LoadDone(g, d int, prefetch bool) { e.loadDone(g, d, prefetch, -1) }

func (e *Engine) loadDone(g, d int, prefetch bool, src int) {
	m := e.gpus[g]
	m.busyLoad = false
	m.state[d] = resident
	e.lruAppend(m, int32(d))
	bytes := e.w.Data[d].Bytes
	e.stats.Loads++
	if src >= 0 {
		e.stats.BytesD2D += bytes
	} else {
		e.stats.BytesH2D += bytes
	}
	if prefetch {
		e.stats.Prefetches++
	} else {
		e.stats.Fetches++
	}
	e.emit(Event{Ev: "load_end", Worker: g, Node: g, Data: d, Bytes: bytes, Src: src})
	e.observe(schedulers.Loaded, g, d)
	e.kick(g)
}

// startCompute starts the oldest popped task once its inputs are resident.
func (e *Engine) startCompute(g int) {
	m := e.gpus[g]
	if m.busyComp || len(m.pipe) == 0 || (m.barrier >= 0 && m.done >= m.barrier) {
		return // idle, or the driver is blocked and launched no more kernels
	}
	task := m.pipe[0]
	for _, d := range e.w.Tasks[task].Inputs {
		if m.state[d] != resident {
			if m.state[d] == absent {
				// Evicted while it waited: fetch it first.
				m.fetchQ = append([]request{{d, false}}, m.fetchQ...)
				e.startTransfer(g)
			}
			return
		}
	}
	m.busyComp = true
	if e.rt.TouchAtStart {
		for _, d := range e.w.Tasks[task].Inputs {
			e.touch(m, d)
		}
	}
	i := e.emit(Event{Ev: "task_start", Worker: g, Node: g, Task: task})
	e.observe(schedulers.Started, g, task)
	if e.be != nil {
		e.be.StartTask(g, task, i)
		return
	}
	e.push(e.now+e.compute[task], g, task)
}

// TaskDone reports that a task finished (a backend's report, or the
// simulator's own event).
func (e *Engine) TaskDone(g, task int) {
	m := e.gpus[g]
	m.busyComp = false
	m.pipe = append(m.pipe[:0], m.pipe[1:]...) // in place: the pipeline is a few tasks
	for _, d := range e.w.Tasks[task].Inputs {
		m.pin[d]--
	}
	m.done++
	e.done++
	e.stats.Tasks++
	e.stats.PerWorker[g]++
	e.emit(Event{Ev: "task_end", Worker: g, Node: g, Task: task})
	e.observe(schedulers.Finished, g, task)
	released := false
	for _, c := range e.children[task] {
		e.waiting[c]--
		if e.waiting[c] == 0 {
			e.timed(g, func() error { e.sched.Push(c); return nil })
			released = true
		}
	}
	if released {
		for _, o := range e.gpus {
			o.pulling = false
		}
		e.kickAll()
		return
	}
	m.pulling = false
	e.kick(g)
	// Memory freed on g may unblock nothing elsewhere; other workers only
	// need a kick when the scheduler may now have work for them (stealing).
	for o := range e.gpus {
		if o != g && e.gpus[o].pulling && len(e.gpus[o].buffer) == 0 {
			e.gpus[o].pulling = false
			e.kick(o)
		}
	}
}

// touch makes resident data the most recently used.
func (e *Engine) touch(m *gpu, d int) {
	if m.state[d] == resident {
		e.lruRemove(m, int32(d))
		e.lruAppend(m, int32(d))
	}
}

func (e *Engine) lruAppend(m *gpu, d int32) {
	m.lruPrev[d], m.lruNext[d] = m.lruTail, -1
	if m.lruTail >= 0 {
		m.lruNext[m.lruTail] = d
	} else {
		m.lruHead = d
	}
	m.lruTail = d
}

func (e *Engine) lruRemove(m *gpu, d int32) {
	p, n := m.lruPrev[d], m.lruNext[d]
	if p >= 0 {
		m.lruNext[p] = n
	} else {
		m.lruHead = n
	}
	if n >= 0 {
		m.lruPrev[n] = p
	} else {
		m.lruTail = p
	}
}

// View implementation: read-only state for the scheduler.

func (e *Engine) Workload() *workloads.Workload { return e.w }
func (e *Engine) Platform() *hardware.Platform  { return e.p }
func (e *Engine) Workers() int                  { return len(e.gpus) }
func (e *Engine) Now() float64                  { return e.now }
func (e *Engine) Resident(g, d int) bool        { return e.gpus[g].state[d] == resident }
func (e *Engine) Present(g, d int) bool {
	st := e.gpus[g].state[d]
	return st == loading || st == resident
}
func (e *Engine) Buffer(g int) []int              { return e.gpus[g].buffer }
func (e *Engine) Pipeline(g int) []int            { return e.gpus[g].pipe }
func (e *Engine) ComputeSeconds(g, t int) float64 { return e.compute[t] }
func (e *Engine) Rand() *rand.Rand                { return e.rng }
func (e *Engine) TransferSeconds(g, d int) float64 {
	return float64(e.w.Data[d].Bytes) / (e.hostGBps[g] * 1e9)
}
