package cudaexec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"memsched/hardware"
	"memsched/harness/sim"
	"memsched/schedulers"
	"memsched/workloads"
)

// This file is the seam: harness/sim's per-GPU pipeline state machine
// (engine.go: kick, addToBuffer, popTask, startTransfer, makeRoom, evict,
// load, finishLoad, startCompute, finishTask, LRU) with the clock taken
// out. Where the engine creates a flow or pushes a task-end event, the
// machine calls its backend; whoever owns time calls loadDone and taskDone
// when they observe a completion, after advance. Every decision (Pull, Pop,
// the eviction victim, fetch before prefetch, what a prefetch may evict)
// is made by the same code in the same order as the engine, which
// TestMachineLockstep checks event for event against sim.Run.
//
// It is a copy because harness/sim exports no such seam yet; the change
// that lets sim.Engine serve both is described in doc.go. Keep the two in
// step until then.

// backend carries out what the machine decides.
type backend interface {
	// startLoad begins copying data d from host RAM to GPU g; the owner of
	// time later calls loadDone(g, d). trace indexes the load_start record
	// (-1 when not tracing), whose time the backend may correct.
	startLoad(g, d int, prefetch bool, trace int)
	// startTask begins task on GPU g, whose inputs are all resident; the
	// owner of time later calls taskDone(g, task).
	startTask(g, task int, trace int)
	// evicted says d's memory on g is free again.
	evicted(g, d int)
}

const (
	absent uint8 = iota
	loading
	resident
)

type request struct {
	data     int
	prefetch bool
}

// gpuState mirrors sim's gpu minus the flow and wake-up bookkeeping.
type gpuState struct {
	state    []uint8
	pin      []int32 // popped tasks reading the data
	want     []int32 // buffered tasks reading the data
	used     int64
	lruPrev  []int32
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
	pulling  bool
}

type machine struct {
	cfg     sim.Config
	w       *workloads.Workload
	p       *hardware.Platform
	sched   schedulers.Scheduler
	evictor schedulers.Evictor
	popper  schedulers.Popper
	obs     schedulers.Observer
	rng     *rand.Rand
	be      backend

	now      float64
	gpus     []*gpuState
	compute  []float64
	waiting  []int32
	children [][]int
	done     int
	stats    sim.Stats
	cand     []int
	hostGBps []float64
	trace    []sim.Event // kept when cfg.Trace is set; times may be corrected
}

// newMachine checks cfg as sim.New does and prepares a run.
func newMachine(cfg sim.Config, be backend) (*machine, error) {
	w, p := cfg.Workload, cfg.Platform
	if w == nil || p == nil || cfg.Scheduler == nil {
		return nil, fmt.Errorf("cudaexec: workload, platform and scheduler are required")
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
	m := &machine{cfg: cfg, w: w, p: p, sched: cfg.Scheduler, be: be,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6d656d7363686564))} // sim's seed mix: same random stream
	m.evictor, _ = cfg.Scheduler.(schedulers.Evictor)
	m.popper, _ = cfg.Scheduler.(schedulers.Popper)
	m.obs, _ = cfg.Scheduler.(schedulers.Observer)
	nd := len(w.Data)
	for g := 0; g < p.GPUs; g++ {
		m.gpus = append(m.gpus, &gpuState{state: make([]uint8, nd), pin: make([]int32, nd), want: make([]int32, nd),
			lruPrev: make([]int32, nd), lruNext: make([]int32, nd), lruHead: -1, lruTail: -1})
	}
	m.compute = make([]float64, len(w.Tasks))
	m.waiting = make([]int32, len(w.Tasks))
	m.children = make([][]int, len(w.Tasks))
	for i, t := range w.Tasks {
		s, err := p.KernelSeconds(t.Kernel, t.Flops)
		if err != nil {
			return nil, err
		}
		m.compute[i] = s
		m.waiting[i] = int32(len(t.Deps))
		for _, d := range t.Deps {
			m.children[d] = append(m.children[d], i)
		}
	}
	m.stats.PerWorker = make([]int, p.GPUs)
	for g := 0; g < p.GPUs; g++ {
		m.hostGBps = append(m.hostGBps, p.HostGBps(g))
	}
	return m, nil
}

// begin is the start of sim.Engine.Run: Init, push the ready tasks, kick.
func (m *machine) begin() error {
	var err error
	m.timed(func() { err = m.sched.Init(m) })
	if err != nil {
		return fmt.Errorf("scheduler init: %w", err)
	}
	for i := range m.w.Tasks {
		if m.waiting[i] == 0 {
			m.timed(func() { m.sched.Push(i) })
		}
	}
	m.kickAll()
	return nil
}

func (m *machine) finished() bool { return m.done == len(m.w.Tasks) }

// advance moves the clock; time never goes back.
func (m *machine) advance(t float64) {
	if t > m.now {
		m.now = t
	}
}

func (m *machine) stuck() error {
	msg := fmt.Sprintf("execution stuck at t=%gs with %d of %d tasks done", m.now, m.done, len(m.w.Tasks))
	for g, q := range m.gpus {
		msg += fmt.Sprintf("; gpu%d: buffer %d, pipeline %d, fetch queue %d, used %d/%d bytes", g, len(q.buffer), len(q.pipe), len(q.fetchQ), q.used, m.p.MemoryBytes)
	}
	return fmt.Errorf("%s (a scheduler that never returns some task, or a cyclic dependency)", msg)
}

// timed measures a scheduler call. Unlike the simulator nothing is charged:
// on real GPUs the scheduler's time passes for real.
func (m *machine) timed(f func()) {
	if m.cfg.Clock == nil {
		f()
		return
	}
	t0 := m.cfg.Clock()
	f()
	m.stats.SchedWall += m.cfg.Clock() - t0
}

func (m *machine) emit(ev sim.Event) int {
	if m.cfg.Trace == nil {
		return -1
	}
	ev.T = m.now
	m.trace = append(m.trace, ev)
	return len(m.trace) - 1
}

func (m *machine) kickAll() {
	for g := range m.gpus {
		m.kick(g)
	}
}

// kick mirrors sim.Engine.kick.
func (m *machine) kick(g int) {
	q := m.gpus[g]
	for changed := true; changed; {
		changed = false
		for (m.cfg.Buffer < 0 || len(q.buffer) < m.cfg.Buffer) && !q.pulling {
			var task int
			var ok bool
			m.timed(func() { task, ok = m.sched.Pull(g) })
			if !ok {
				q.pulling = true
				break
			}
			m.addToBuffer(g, task)
			changed = true
		}
		for len(q.pipe) < m.cfg.Pipeline && len(q.buffer) > 0 {
			i := 0
			if m.popper != nil {
				m.timed(func() { i = m.popper.Pop(g, q.buffer) })
			}
			task := q.buffer[i]
			q.buffer = append(q.buffer[:i], q.buffer[i+1:]...)
			m.popTask(g, task)
			changed = true
		}
	}
	m.startTransfer(g)
	m.startCompute(g)
}

func (m *machine) addToBuffer(g, task int) {
	if task < 0 || task >= len(m.w.Tasks) {
		panic(fmt.Sprintf("scheduler returned task %d, outside 0..%d", task, len(m.w.Tasks)-1))
	}
	if m.waiting[task] != 0 {
		panic(fmt.Sprintf("scheduler returned task %d whose dependencies are not done", task))
	}
	m.waiting[task] = -1 // taken
	q := m.gpus[g]
	q.buffer = append(q.buffer, task)
	for _, d := range m.w.Tasks[task].Inputs {
		q.want[d]++
		if q.state[d] == absent {
			q.prefQ = append(q.prefQ, request{d, true})
		}
	}
}

func (m *machine) popTask(g, task int) {
	q := m.gpus[g]
	q.pipe = append(q.pipe, task)
	for _, d := range m.w.Tasks[task].Inputs {
		q.want[d]--
		q.pin[d]++
		if q.state[d] == absent {
			q.fetchQ = append(q.fetchQ, request{d, false})
		}
	}
}

// startTransfer mirrors sim.Engine.startTransfer: fetches first, then
// prefetches in buffer order, one load at a time per GPU.
func (m *machine) startTransfer(g int) {
	q := m.gpus[g]
	if q.busyLoad {
		return
	}
	for len(q.fetchQ) > 0 {
		r := q.fetchQ[0]
		if q.state[r.data] != absent || q.pin[r.data] == 0 {
			q.fetchQ = q.fetchQ[1:]
			continue
		}
		head := len(q.pipe) > 0 && m.reads(q.pipe[0], r.data)
		if !m.makeRoom(g, m.w.Data[r.data].Bytes, false, head) {
			return
		}
		q.fetchQ = q.fetchQ[1:]
		m.load(g, r.data, false)
		return
	}
	for q.prefHead < len(q.prefQ) {
		r := q.prefQ[q.prefHead]
		if q.state[r.data] != absent || q.want[r.data] == 0 {
			q.prefHead++
			continue
		}
		if !m.makeRoom(g, m.w.Data[r.data].Bytes, true, false) {
			return
		}
		q.prefHead++
		m.load(g, r.data, true)
		break
	}
	if q.prefHead > 1024 && q.prefHead*2 > len(q.prefQ) {
		q.prefQ = append(q.prefQ[:0], q.prefQ[q.prefHead:]...)
		q.prefHead = 0
	}
}

func (m *machine) reads(task, data int) bool {
	for _, d := range m.w.Tasks[task].Inputs {
		if d == data {
			return true
		}
	}
	return false
}

// makeRoom mirrors sim.Engine.makeRoom.
func (m *machine) makeRoom(g int, size int64, prefetch, head bool) bool {
	q := m.gpus[g]
	for q.used+size > m.p.MemoryBytes {
		m.cand = m.cand[:0]
		for d := q.lruHead; d >= 0; d = q.lruNext[d] {
			if q.pin[d] == 0 && (!prefetch || q.want[d] == 0) {
				m.cand = append(m.cand, int(d))
			}
		}
		victim := -1
		if len(m.cand) > 0 {
			victim = m.cand[0]
			if m.evictor != nil {
				var v int
				m.timed(func() { v = m.evictor.Victim(g, m.cand, prefetch) })
				if v < 0 && prefetch {
					return false
				}
				if v >= 0 {
					if !m.isCandidate(v) {
						panic(fmt.Sprintf("eviction policy chose data %d, which is not evictable on gpu%d", v, g))
					}
					victim = v
				}
			}
		} else if head {
			for d := q.lruHead; d >= 0; d = q.lruNext[d] {
				if !m.reads(q.pipe[0], int(d)) {
					victim = int(d)
					break
				}
			}
		}
		if victim < 0 {
			return false
		}
		m.evict(g, victim)
	}
	return true
}

func (m *machine) isCandidate(d int) bool {
	for _, c := range m.cand {
		if c == d {
			return true
		}
	}
	return false
}

func (m *machine) evict(g, d int) {
	q := m.gpus[g]
	q.state[d] = absent
	q.used -= m.w.Data[d].Bytes
	m.lruRemove(q, int32(d))
	m.stats.Evictions++
	m.be.evicted(g, d)
	m.emit(sim.Event{Ev: "evict", Worker: g, Node: g, Data: d, Bytes: m.w.Data[d].Bytes})
	if m.obs != nil {
		m.obs.Observe(schedulers.Evicted, g, d)
	}
	if q.want[d] > 0 {
		q.prefQ = append(q.prefQ, request{d, true})
	}
	if q.pin[d] > 0 {
		q.fetchQ = append(q.fetchQ, request{d, false})
	}
}

// load mirrors sim.Engine.load for host-to-GPU copies (no NVLink source:
// Run refuses NVLink platforms).
func (m *machine) load(g, d int, prefetch bool) {
	q := m.gpus[g]
	bytes := m.w.Data[d].Bytes
	q.state[d] = loading
	q.used += bytes
	q.busyLoad = true
	if m.obs != nil {
		m.obs.Observe(schedulers.LoadStarted, g, d)
	}
	kind := "fetch"
	if prefetch {
		kind = "prefetch"
	}
	idx := m.emit(sim.Event{Ev: "load_start", Worker: g, Node: g, Data: d, Bytes: bytes, Kind: kind, Src: -1})
	m.be.startLoad(g, d, prefetch, idx)
}

// loadDone mirrors sim.Engine.finishLoad.
func (m *machine) loadDone(g, d int, prefetch bool) {
	q := m.gpus[g]
	q.busyLoad = false
	q.state[d] = resident
	m.lruAppend(q, int32(d))
	bytes := m.w.Data[d].Bytes
	m.stats.Loads++
	m.stats.BytesH2D += bytes
	if prefetch {
		m.stats.Prefetches++
	} else {
		m.stats.Fetches++
	}
	m.emit(sim.Event{Ev: "load_end", Worker: g, Node: g, Data: d, Bytes: bytes, Src: -1})
	if m.obs != nil {
		m.obs.Observe(schedulers.Loaded, g, d)
	}
	m.kick(g)
}

// startCompute mirrors sim.Engine.startCompute.
func (m *machine) startCompute(g int) {
	q := m.gpus[g]
	if q.busyComp || len(q.pipe) == 0 {
		return
	}
	task := q.pipe[0]
	for _, d := range m.w.Tasks[task].Inputs {
		if q.state[d] != resident {
			if q.state[d] == absent {
				q.fetchQ = append([]request{{d, false}}, q.fetchQ...)
				m.startTransfer(g)
			}
			return
		}
	}
	q.busyComp = true
	for _, d := range m.w.Tasks[task].Inputs {
		m.lruRemove(q, int32(d))
		m.lruAppend(q, int32(d))
	}
	idx := m.emit(sim.Event{Ev: "task_start", Worker: g, Node: g, Task: task})
	if m.obs != nil {
		m.obs.Observe(schedulers.Started, g, task)
	}
	m.be.startTask(g, task, idx)
}

// taskDone mirrors sim.Engine.finishTask.
func (m *machine) taskDone(g, task int) {
	q := m.gpus[g]
	q.busyComp = false
	q.pipe = q.pipe[1:]
	for _, d := range m.w.Tasks[task].Inputs {
		q.pin[d]--
	}
	m.done++
	m.stats.Tasks++
	m.stats.PerWorker[g]++
	m.emit(sim.Event{Ev: "task_end", Worker: g, Node: g, Task: task})
	if m.obs != nil {
		m.obs.Observe(schedulers.Finished, g, task)
	}
	released := false
	for _, c := range m.children[task] {
		m.waiting[c]--
		if m.waiting[c] == 0 {
			m.timed(func() { m.sched.Push(c) })
			released = true
		}
	}
	if released {
		for _, o := range m.gpus {
			o.pulling = false
		}
		m.kickAll()
		return
	}
	q.pulling = false
	m.kick(g)
	for o := range m.gpus {
		if o != g && m.gpus[o].pulling && len(m.gpus[o].buffer) == 0 {
			m.gpus[o].pulling = false
			m.kick(o)
		}
	}
}

func (m *machine) lruAppend(q *gpuState, d int32) {
	q.lruPrev[d], q.lruNext[d] = q.lruTail, -1
	if q.lruTail >= 0 {
		q.lruNext[q.lruTail] = d
	} else {
		q.lruHead = d
	}
	q.lruTail = d
}

func (m *machine) lruRemove(q *gpuState, d int32) {
	p, n := q.lruPrev[d], q.lruNext[d]
	if p >= 0 {
		q.lruNext[p] = n
	} else {
		q.lruHead = n
	}
	if n >= 0 {
		q.lruPrev[n] = p
	} else {
		q.lruTail = p
	}
}

// result closes the run: totals and the trace in time order. Corrected
// start times can move a record before ones emitted earlier; the sort is
// stable so equal times keep the machine's causal order.
func (m *machine) result() *sim.Stats {
	m.stats.Makespan = m.now
	m.stats.Flops = m.w.TotalFlops()
	if m.cfg.Trace != nil {
		sortEvents(m.trace)
		for _, ev := range m.trace {
			m.cfg.Trace(ev)
		}
	}
	return &m.stats
}

// View implementation, as sim.Engine's.

func (m *machine) Workload() *workloads.Workload   { return m.w }
func (m *machine) Platform() *hardware.Platform    { return m.p }
func (m *machine) Workers() int                    { return len(m.gpus) }
func (m *machine) Now() float64                    { return m.now }
func (m *machine) Resident(g, d int) bool          { return m.gpus[g].state[d] == resident }
func (m *machine) Present(g, d int) bool           { return m.gpus[g].state[d] != absent }
func (m *machine) Buffer(g int) []int              { return m.gpus[g].buffer }
func (m *machine) Pipeline(g int) []int            { return m.gpus[g].pipe }
func (m *machine) ComputeSeconds(g, t int) float64 { return m.compute[t] }
func (m *machine) Rand() *rand.Rand                { return m.rng }
func (m *machine) TransferSeconds(g, d int) float64 {
	return float64(m.w.Data[d].Bytes) / (m.hostGBps[g] * 1e9)
}

var _ schedulers.View = (*machine)(nil)

func sortEvents(evs []sim.Event) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].T < evs[j].T })
}
