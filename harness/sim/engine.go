// Package sim is the discrete-event simulator: workers (GPUs, CPU cores)
// computing from memory nodes of capped capacity, fed over shared links from
// a home node (main memory, or a disk out of core), with a StarPU-like
// pipeline per worker and a scheduler driven through the schedulers
// contract. It is deterministic: events at equal times are ordered by a
// sequence number, and the only outside inputs are the configuration and,
// when scheduling time is charged, a wall clock.
//
// Per worker the pipeline is StarPU's (thesis Fig. 2.5): the scheduler fills
// a task buffer (depth Buffer); a task entering it requests a prefetch of
// each missing data, once (StarPU prefetches at push time and never again).
// A scheduler whose central queue prefetches at push
// (schedulers.PushPrefetcher: StarPU's FIFO component above the workers)
// has every task prefetched as it is pushed instead, when all workers
// compute from one memory node.
// The worker pops buffered tasks into a pipeline (depth Pipeline on a GPU,
// one task on a CPU core), one at a time: it pops again only when every
// popped task has its data (StarPU's driver does not pop while a task is
// transferring). A popped task fetches what it misses, taking over a queued
// prefetch of the same data. Tasks compute one at a time in pop order.
//
// Memory follows StarPU's data requests and allocator, per memory node
// (shared by its workers). Requests are handled fetches first, then
// prefetches in request order; a prefetch that cannot get memory stops the
// prefetches behind it. A handled request allocates at once and queues its
// copy on the node's single incoming copy engine (fetches are handled while
// fewer than Runtime.FetchRequests copies are queued or running, 5;
// prefetches while fewer than Runtime.PrefetchRequests, 2; per pair of
// nodes: a GPU may have that many from main memory and from each other
// GPU). A request's source is chosen when the request is created, among
// the copies valid then, and held until its copy starts. When memory is
// full, a load takes over the allocation of one LRU datum of its size
// (Runtime.ReuseSameSize) or evicts, in LRU order, ReclaimFactor times its
// size (StarPU: 2); a prefetch may only evict data no prefetched (buffered
// or pushed) or popped task uses, and the scheduler's policy may decline; a
// fetch evicts data no popped task uses, and for the next task to compute
// may, as a last resort, evict data of younger popped tasks, which then
// fetch it again, so the pipeline cannot deadlock. Data become most
// recently used when loaded and whenever a fetch or prefetch request finds
// them on the node. The platform's runtime settings (hardware.Runtime)
// select StarPU's rules at the papers' tag (papers/ICPP2023) or the former
// model, and the uncertain parts: allocation that drains the device.
//
// A copy takes its route's latency (Topology.CopyLatencyUs) before it
// shares its links, max-min fairly in inverse proportion to that latency
// (SimGrid's CM02 model; the solver is package linkshare). A GPU's driver thread spends host time issuing a
// copy, launching a kernel and requesting a popped task's inputs
// (Runtime.CopyIssueUs, TaskIssueUs, FetchInputUs: the sleeps of StarPU's
// SimGrid mode), one thing after the other; a copy enters its stream, a
// kernel the GPU's queue, once the driver is done with it.
//
// Tasks access data in modes R, W or RW (workloads.Mode), with StarPU's
// MSI coherency (src/datawizard/coherency.c): an access in mode W only
// allocates; when a writing task starts, every other copy is invalidated,
// main memory's included, so the worker's copy becomes the only valid one.
// Evicting the last valid copy writes it back to the home node first (the
// memory is freed when the write-back ends: memalloc.c
// transfer_subtree_to_node), over the node's outgoing links and copy
// engine; a node that needs data whose only valid copy is on another node
// gets it over NVLink when the two GPUs are linked, else through main
// memory (a write-back, then a load). At the end every modified data is
// written back, as unregistering does (starpu_data_unregister); the
// makespan stops at the last task unless Runtime.FlushInMakespan.
package sim

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/internal/bitset"
	"github.com/memsched/memsched/internal/saturating"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Config is one simulated run.
type Config struct {
	Workload  *workloads.Workload
	Platform  *hardware.Platform
	Scheduler schedulers.Scheduler
	Buffer    int // tasks per worker buffer; <0 unbounded
	// NodeBuffer makes the workers of a memory node share one task buffer
	// of Buffer tasks (StarPU's modular trees that decide per memory node,
	// STARPU_SCHED_SIMPLE_DECIDE_MEMNODES: one fifo per node, DARTS).
	NodeBuffer bool
	Pipeline   int // popped tasks per GPU worker (a CPU core pops one)
	Seed       uint64
	// Clock, when set, measures the scheduler's wall time (a monotonic
	// clock from outside keeps the engine pure).
	Clock func() time.Duration
	// ChargeSchedTime delays a worker by the wall time of the scheduler
	// calls made on its behalf (Runtime.SchedCost = "measured"); results
	// are then no longer bit-reproducible. Under Runtime.SchedCost =
	// "model", every call made for a worker is charged and this says
	// whether the static planning (Init) is too.
	ChargeSchedTime bool
	// Trace, when set, receives every event: the engine hands them out
	// (Events), its driver passes them on.
	Trace func(event.Event)
	// RealTime says the driver carries the effects out on real GPUs
	// (harness/cudaexec), where scheduling and host time pass for real:
	// nothing is charged, no driver host time is modelled, and every datum
	// is copied from main memory. Such runs are read-only task sets on GPU
	// workers fed from main memory.
	RealTime bool
	// Decisions adds, for a Trace consumer such as the simulated-time
	// profile, the events that explain a worker's waits and are not part of
	// the trace format: pop (a task enters the worker's pipeline, in the
	// order the scheduler or its Popper chose) and sched (the worker is busy
	// with charged scheduling time until Until).
	Decisions bool
	// Context, when set, cancels the run (a sweep's per-run timeout): Run
	// checks it between events and returns its error.
	Context context.Context
	// Share, when set, computes once what several runs' schedulers compute
	// from the workload alone (schedulers.Sharer): a sweep shares it among
	// the runs of a point. Nil: every run computes.
	Share func(key string, compute func() (any, error)) (any, error)
}

// Stats are a run's totals. Bytes are counted per direction: from home to
// a worker's memory (H2D), between GPUs (D2D), back to home (D2H).
type Stats struct {
	Makespan      float64
	Flops         float64
	BytesH2D      int64
	BytesD2D      int64
	BytesD2H      int64
	Loads         int
	Prefetches    int
	Fetches       int
	Evictions     int
	WriteBacks    int
	Invalidations int
	// PopMissing counts, at each pop, the task's inputs neither resident nor
	// already being fetched for a popped task: in-flight prefetches count.
	// It is the fetch count of the authors' visualisation (StarPU HFP.c
	// get_data_to_load, starpu_data_is_on_node_excluding_prefetch).
	PopMissing int
	Tasks      int
	PerWorker  []int
	SchedWall  time.Duration
	SchedOps   [schedulers.NumOps]int64 // operations the schedulers counted, per kind (View.CountOps)
	// WallAdjust is what shared computations change in the run's wall
	// time (Engine.Share): the computation, measured once, less the wait.
	WallAdjust time.Duration
}

// State of a datum on a node.
const (
	absent   uint8 = iota
	queued         // allocated, its copy waits for the node's copy engine (or, on home, for the owner's write-back)
	loading        // its copy runs
	resident       // a valid copy (or, for an access in mode W, an allocation)
	flushing       // evicted, written back before its memory is freed
)

// StarPU's caps on the requests a memory node handles at once, at the
// papers' tag (src/datawizard/data_request.h MAX_PENDING_REQUESTS_PER_NODE,
// MAX_PENDING_PREFETCH_REQUESTS_PER_NODE, 20 and 10 before February 2021):
// fetches are issued while fewer than 5 copies are queued or running,
// prefetches while fewer than 2 (Runtime.FetchRequests, PrefetchRequests).
const (
	starpuFetchRequests    = 5
	starpuPrefetchRequests = 2
)

// Engine is one run's state.
type Engine struct {
	cfg     Config
	w       *workloads.Workload
	p       *hardware.Platform
	rt      hardware.Runtime
	opCost  [schedulers.NumOps]float64 // seconds per counted operation of each kind (sched_cost = "model")
	sched   schedulers.Scheduler
	evictor schedulers.Evictor
	popper  schedulers.Popper
	byTask  schedulers.TaskPopper // popper, when it names the tasks it pops
	idler   schedulers.Idler
	pumper  schedulers.Pumper
	rounder schedulers.Rounder // EndRound after each round of kickAll
	obs     schedulers.Observer
	follows [schedulers.EventKinds]bool // the kinds of events obs follows
	rng     *rand.Rand
	effects []Effect      // handed out by Effects until Ack
	trace   []event.Event // handed out by Events until Ack

	// inTurn is set while kickAll has the workers woken together pull one
	// task each in turn (Runtime.NodeAfterNode false): fill stops after one
	// pull and says, in pullsLeft, that the worker may pull more.
	inTurn, pullsLeft bool
	// pullInTurn: workers of several memory nodes pull in turn (kickAll;
	// Runtime.NodeAfterNode false); alone, a node's workers keep their
	// order.
	pullInTurn bool

	now      float64
	nodes    []*node
	home     int // index of the home node (the last)
	workers  []*worker
	kinds    []string    // worker kinds present, in order
	tasks    []taskRec   // per task
	spill    []int32     // the inputs of tasks with more than inlineInputs
	compute  [][]float64 // per kind index from 1, per task: seconds (NaN: cannot run); kind 0's are in tasks
	gpuDur   [][]float64 // per GPU node, per task: kind 0's seconds where a kernel's history times GPUs apart (hardware.Kernel.History); nil: every GPU takes tasks' dur
	version  []uint32    // per data: bumped by each writing task
	children *workloads.Successors
	done     int
	pops     int32
	flops    float64 // of every task
	tasksEnd float64 // time the last task ended
	flushed  bool    // the final write-back has been issued
	flushEnd float64 // time the last final write-back ended
	current  int     // worker the scheduler is called for (-1: the application)
	charge   charge  // what scheduling costs
	appCost  float64 // modelled seconds of the application's calls (Init, submission)
	stats    Stats

	// pushNode is the memory node every task is prefetched on when pushed
	// (schedulers.PushPrefetcher, all workers on that node), -1 when tasks
	// prefetch as they enter a buffer.
	pushNode int
	// maxFetch and maxPrefetch are the copies a node may have queued or
	// running for a fetch or a prefetch to be handled (Runtime.FetchRequests,
	// PrefetchRequests).
	maxFetch, maxPrefetch int
	// perPair: the caps count per pair of nodes, StarPU's
	// (Runtime.RequestsPerNode false), which matters only with peer copies
	// whose sources requests choose when created; srcOrder is the order
	// in which a node handles its sources' requests: main memory, then the
	// GPUs (StarPU's memory node numbers).
	perPair  bool
	srcOrder []int
	// copyIssue, taskIssue and fetchInput are the host times of a GPU's
	// driver thread in seconds (Runtime.CopyIssueUs, TaskIssueUs,
	// FetchInputUs); 0 under Config.RealTime, whose host time passes for real.
	copyIssue, taskIssue, fetchInput float64
	// progress is the host time a GPU's driver spends handling requests
	// before each pop (Runtime.ProgressUs × the nodes it drives).
	progress float64
	copySeq  uint64 // copies issued (request.seq)
	// spinSleep is the host time a GPU's driver spends per turn it waits
	// for a datum's header lock when copies of that datum into other GPUs
	// ended at the same instant (Runtime.SpinFree false: StarPU's SimGrid
	// spin lock sleeps 1 µs); 0 under Config.RealTime or SpinFree. spinT and
	// spinK hold, per datum, the instant its last copy ended and how many
	// drivers handled a copy of it then.
	spinSleep float64
	spinT     []float64
	spinK     []int32

	peerGBps [][]float64 // [from GPU][to GPU]: a peer copy's uncontended bandwidth; nil without peer copies
	upGBps   []float64   // per node: the bottleneck of its path to home
	homeGBps []float64
	cand     []int
	pend     []int // pendingBySource's counts
}

// charge is what scheduling costs a worker (hardware.Runtime.SchedCost).
type charge uint8

const (
	chargeNone     charge = iota
	chargeMeasured        // the calls' wall time
	chargeModel           // the operations they count
)

// fault is an inconsistency found during a run (a race the workload's
// dependencies allow, a scheduler breaking the contract); Run returns it as
// an error.
type fault string

func (e *Engine) faultf(format string, a ...any) {
	panic(fault(fmt.Sprintf("t=%gs: ", e.now) + fmt.Sprintf(format, a...)))
}

// Run simulates the whole workload and returns its totals.
func Run(cfg Config) (*Stats, error) {
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return simulate(e)
}

// New checks the configuration and prepares a run's engine, for a driver
// (simulate, or the CUDA executor with Config.RealTime).
func New(cfg Config) (*Engine, error) {
	w, p := cfg.Workload, cfg.Platform
	if w == nil || p == nil || cfg.Scheduler == nil {
		return nil, fmt.Errorf("sim: workload, platform and scheduler are required")
	}
	if cfg.RealTime && (p.CPUs > 0 || p.OutOfCore() || writes(w)) {
		return nil, fmt.Errorf("the real-GPU executor runs read-only task sets on GPUs fed from main memory; this run has %s", realTimeMisfit(w, p))
	}
	if cfg.Pipeline < 1 {
		cfg.Pipeline = 1
	}
	if cfg.Buffer == 0 {
		cfg.Buffer = 1
	}
	e := &Engine{cfg: cfg, w: w, p: p, rt: p.Runtime, sched: cfg.Scheduler, current: -1, pushNode: -1,
		maxFetch: cmp.Or(p.Runtime.FetchRequests, starpuFetchRequests), maxPrefetch: cmp.Or(p.Runtime.PrefetchRequests, starpuPrefetchRequests),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6d656d7363686564))}
	e.initScheduler()
	e.initNodes()
	if err := e.checkMemory(); err != nil {
		return nil, err
	}
	e.initWorkers()
	if err := e.initTasks(); err != nil {
		return nil, err
	}
	return e, nil
}

// initScheduler sets what the engine charges for scheduling and which of
// the scheduler's optional interfaces it calls.
func (e *Engine) initScheduler() {
	cfg, p, rt := e.cfg, e.p, &e.p.Runtime
	e.opCost = [schedulers.NumOps]float64{schedulers.OpStep: rt.OpSeconds, schedulers.OpArray: rt.ArrayOpSeconds,
		schedulers.OpStatus: rt.StatusOpSeconds, schedulers.OpPredict: rt.PredictOpSeconds, schedulers.OpBelady: rt.BeladyOpSeconds,
		schedulers.OpStatusWritten: rt.StatusWrittenOpSeconds, schedulers.OpProgramRun: rt.ProgramRunSeconds}
	switch {
	case cfg.RealTime: // on real GPUs scheduling time passes for real
	case p.Runtime.SchedCost == "model":
		e.charge = chargeModel
	case (cfg.ChargeSchedTime || p.Runtime.SchedCost == "measured") && cfg.Clock != nil:
		e.charge = chargeMeasured
	}
	e.evictor, _ = cfg.Scheduler.(schedulers.Evictor)
	e.popper, _ = cfg.Scheduler.(schedulers.Popper)
	e.obs, _ = cfg.Scheduler.(schedulers.Observer)
	e.idler, _ = cfg.Scheduler.(schedulers.Idler)
	e.pumper, _ = cfg.Scheduler.(schedulers.Pumper)
	e.rounder, _ = cfg.Scheduler.(schedulers.Rounder)
}

// initNodes builds the links, the memory nodes (every datum valid at
// home), the peer routes and the drivers' host costs.
func (e *Engine) initNodes() {
	w, p := e.w, e.p
	nd := len(w.Data)
	specs := p.Nodes()
	e.home = p.HomeNode()
	for i, ns := range specs {
		if ns.GPU && ns.Capacity >= 0 {
			// The application's own allocation on every GPU (xgemm.c's 2D
			// C scratch tile) is counted against its memory, on real GPUs
			// too: memsched's executor then leaves as much of its cap
			// unused as xgemm's tile takes of StarPU's (its own C scratch
			// is beside the cap, harness/cudaexec).
			ns.Capacity = max(0, ns.Capacity-w.DeviceBytes)
		}
		e.nodes = append(e.nodes, newNode(i, ns, nd))
		e.nodes[i].fromCopy = p.Runtime.LoadingFromCopy
		e.homeGBps = append(e.homeGBps, p.HomeGBps(i))
	}
	e.initBus()
	if !e.cfg.RealTime {
		e.copyIssue, e.taskIssue, e.fetchInput = p.Runtime.CopyIssueUs*1e-6, p.Runtime.TaskIssueUs*1e-6, p.Runtime.FetchInputUs*1e-6
		if p.Runtime.ProgressUs > 0 {
			numa := 1
			if t := p.Topology; t.GPUsPerNUMA > 0 && p.MaxGPUs > t.GPUsPerNUMA {
				numa = (p.MaxGPUs + t.GPUsPerNUMA - 1) / t.GPUsPerNUMA
			}
			e.progress = p.Runtime.ProgressUs * 1e-6 * float64(1+numa)
		}
		if !p.Runtime.SpinFree {
			e.spinSleep = starpuSpinSleep
		}
	}
	e.perPair = e.peerGBps != nil && !p.Runtime.RequestsPerNode && !p.Runtime.SourceAtCopy
	e.srcOrder = append(e.srcOrder, e.home)
	for i := range e.nodes {
		if i != e.home {
			e.srcOrder = append(e.srcOrder, i)
		}
	}
	for i := range nd { // every data starts valid at home
		e.nodes[e.home].set(i, resident)
	}
}

// checkMemory refuses a GPU memory smaller than one task's inputs.
func (e *Engine) checkMemory() error {
	w, p := e.w, e.p
	if need := w.MaxInputBytes(); e.minCapacity() >= 0 && need > e.minCapacity() {
		per, held := "per GPU", ""
		if p.OutOfCore() {
			per = "of RAM"
		} else if w.DeviceBytes > 0 {
			held = fmt.Sprintf(" once the application holds its %d bytes there (device_bytes)", w.DeviceBytes)
			need += w.DeviceBytes
		}
		return fmt.Errorf("memory of %d bytes (%.2f MiB) %s is smaller than one task's inputs (%d bytes, %.2f MiB)%s: raise --memory-mb to at least %.2f",
			p.MemoryBytes, float64(p.MemoryBytes)/hardware.MiB, per, w.MaxInputBytes(), float64(w.MaxInputBytes())/hardware.MiB, held, math.Ceil(float64(need)/hardware.MiB*100)/100)
	}
	return nil
}

// initWorkers builds the workers, their kinds and buffers (one per node
// with Config.NodeBuffer).
func (e *Engine) initWorkers() {
	cfg, p := e.cfg, e.p
	kindIndex := map[string]int{}
	for i, ws := range p.Workers() {
		k, ok := kindIndex[ws.Kind]
		if !ok {
			k = len(e.kinds)
			kindIndex[ws.Kind] = k
			e.kinds = append(e.kinds, ws.Kind)
		}
		depth := cfg.Pipeline
		if ws.Kind == hardware.CPU {
			depth = 1 // StarPU's CPU driver runs one task at a time (drivers/cpu/driver_cpu.c)
		}
		buffer := new(buffer)
		if mates := e.nodes[ws.Node].workers; cfg.NodeBuffer && len(mates) > 0 {
			buffer = e.workers[mates[0]].buffer
		}
		slot := len(e.nodes[ws.Node].workers)
		e.workers = append(e.workers, &worker{id: i, node: ws.Node, slot: slot, kind: k, depth: depth, buffer: buffer, lockD: -1})
		e.nodes[ws.Node].workers = append(e.nodes[ws.Node].workers, i)
	}
	for _, n := range e.nodes {
		n.stepping, n.starting = bitset.New(len(n.workers)), bitset.New(len(n.workers))
		n.stepping.Fill(len(n.workers)) // every worker steps first
	}
}

// initTasks gives each task its duration on every worker kind (and GPU,
// from a kernel's history), with the run's duration noise, and its
// dependencies.
func (e *Engine) initTasks() error {
	w, p, cfg := e.w, e.p, e.cfg
	nd := len(w.Data)
	e.tasks = make([]taskRec, len(w.Tasks))
	e.compute = make([][]float64, len(e.kinds))
	for k := 1; k < len(e.compute); k++ {
		e.compute[k] = make([]float64, len(w.Tasks))
	}
	e.version = make([]uint32, nd)
	noise := durationNoise(cfg.Seed, p.Runtime.DurationCV)
	rates := make([]hardware.Rate, len(e.kinds)) // of the last kernel looked up
	canRun := make([]bool, len(e.kinds))
	var kern hardware.Kernel
	lastKernel := ""
	gpuNodes := 0 // GPU g's memory is node g
	for gpuNodes < len(e.nodes) && e.nodes[gpuNodes].gpu {
		gpuNodes++
	}
	if e.kinds[0] == hardware.GPU && gpuNodes > 0 && hasHistory(p, w) {
		e.gpuDur = make([][]float64, gpuNodes)
		for g := range e.gpuDur {
			e.gpuDur[g] = make([]float64, len(w.Tasks))
		}
	}
	for i := range w.Tasks {
		t := &w.Tasks[i]
		if i == 0 || t.Kernel != lastKernel { // tasks come in runs of one kernel
			k, known := p.Kernels[t.Kernel]
			if !known {
				return fmt.Errorf("platform %s has no performance model for kernel %q", p.Name, t.Kernel)
			}
			for ki, kind := range e.kinds {
				rates[ki], canRun[ki] = k.On(kind)
			}
			kern, lastKernel = k, t.Kernel
		}
		runnable := false
		factor := noise(i)
		for k := range e.kinds {
			s := math.NaN()
			if canRun[k] {
				s = rates[k].Duration(t.Flops)
				runnable = true
			}
			if k == 0 {
				e.tasks[i].dur = s * factor
			} else {
				e.compute[k][i] = s * factor
			}
		}
		for g, d := range e.gpuDur {
			if s, ok := kern.OnGPU(g, t.Flops); ok {
				d[i] = s * factor
			} else {
				d[i] = math.NaN()
			}
		}
		if !runnable {
			return fmt.Errorf("no worker of platform %s can run kernel %q (task %d): the platform's workers are %v", p.Name, t.Kernel, i, e.kinds)
		}
		e.flops += t.Flops
		if err := e.setTask(i, t); err != nil {
			return err
		}
		e.tasks[i].waiting = int32(len(w.DepsOf(i)))
	}
	e.children = w.Successors()
	e.stats.PerWorker = make([]int, len(e.workers))
	return nil
}

// hasHistory reports whether a kernel of the workload has a per-GPU
// history on p, so that GPUs may run one task at different speeds.
func hasHistory(p *hardware.Platform, w *workloads.Workload) bool {
	for name, k := range p.Kernels {
		if len(k.History) > 0 && slices.ContainsFunc(w.Tasks, func(t workloads.Task) bool { return t.Kernel == name }) {
			return true
		}
	}
	return false
}

// durationNoise returns, per task id, the factor its kernel times are
// multiplied by: lognormal with mean 1 and coefficient of variation cv,
// from a random stream of its own keyed by the seed and the task, so the
// factors depend neither on the scheduler nor on the order of the draws.
func durationNoise(seed uint64, cv float64) func(task int) float64 {
	if cv == 0 {
		return func(int) float64 { return 1 }
	}
	sigma2 := math.Log1p(cv * cv)
	sigma, mu := math.Sqrt(sigma2), -sigma2/2
	return func(task int) float64 {
		// Box-Muller over two splitmix64 draws keyed by (seed, task).
		x := seed ^ 0x6475726174696f6e ^ uint64(task)*0x9e3779b97f4a7c15
		u1 := float64(splitmix64(&x)>>11+1) / (1 << 53) // (0, 1]
		u2 := float64(splitmix64(&x)>>11) / (1 << 53)
		z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
		return math.Exp(mu + sigma*z)
	}
}

func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func writes(w *workloads.Workload) bool {
	for i := range w.Tasks {
		if w.Writes(i) {
			return true
		}
	}
	return false
}

func realTimeMisfit(w *workloads.Workload, p *hardware.Platform) string {
	switch {
	case p.CPUs > 0:
		return fmt.Sprintf("%d CPU workers", p.CPUs)
	case p.OutOfCore():
		return "data on disk"
	}
	return fmt.Sprintf("tasks writing data (%s)", w.Name)
}

// minCapacity is the smallest capped node's capacity, -1 when none is.
func (e *Engine) minCapacity() int64 {
	min := int64(-1)
	for _, n := range e.nodes {
		if n.capacity >= 0 && (min < 0 || n.capacity < min) {
			min = n.capacity
		}
	}
	return min
}

// Begin initialises the scheduler, pushes the ready tasks and starts every
// worker.
func (e *Engine) Begin() error {
	if err := e.timed(-1, func() error { return e.sched.Init(e) }); err != nil {
		return fmt.Errorf("scheduler init: %w", err)
	}
	if se, ok := e.evictor.(schedulers.SelectiveEvictor); ok && !se.ChoosesVictims() {
		e.evictor = nil // LRU
	}
	if tp, ok := e.popper.(schedulers.TaskPopper); ok && tp.PopsTasks() {
		e.byTask = tp
		slot := make([]int32, len(e.w.Tasks)) // a task is in one buffer at a time
		for _, wk := range e.workers {
			wk.buffer.slot = slot
		}
	}
	if pp, ok := e.sched.(schedulers.PushPrefetcher); ok && !e.rt.PrefetchAtBuffer && pp.PrefetchesAtPush() {
		e.pushNode = e.singleNode()
	}
	e.pullInTurn = !e.rt.NodeAfterNode && e.singleNode() < 0
	sel, selective := e.obs.(schedulers.SelectiveObserver)
	for k := range e.follows {
		e.follows[k] = e.obs != nil && (!selective || sel.Observes(schedulers.EventKind(k)))
	}
	// Under the model, the papers' benchmarks submit every task while
	// StarPU is paused and start the clock after starpu_do_schedule
	// (examples/mult/xgemm.c): the submission is never charged, the planning
	// (Init) only when the run counts it (ChargeSchedTime, the scripts'
	// COUNT_DO_SCHEDULE).
	planned := e.appCost
	// The submission is one timed call: what it costs is the application's
	// (charged to no worker), and timing each push read the clock twice per
	// task.
	e.timed(-1, func() error {
		for i := range e.w.Tasks {
			if e.tasks[i].waiting == 0 {
				e.pushTask(i)
			}
		}
		return nil
	})
	if e.charge != chargeNone {
		// Static planning (Init) delays every worker's start.
		start := e.stats.SchedWall.Seconds()
		if e.charge == chargeModel {
			start = 0
			if e.cfg.ChargeSchedTime {
				start = planned
			}
		}
		for _, wk := range e.workers {
			wk.blockedT = start
			if e.cfg.Decisions && start > 0 {
				e.emit(event.Event{Ev: "sched", Worker: wk.id, Node: wk.node, Until: start})
			}
		}
	}
	e.effects = append(e.effects, Effect{Kind: EffectClock, Event: -1})
	e.kickAll()
	return nil
}

// singleNode is the memory node every worker computes from, -1 when they
// use several: where StarPU's FIFO component above the workers prefetches
// (starpu_sched_component_prefetch_on_node requires
// STARPU_SCHED_COMPONENT_SINGLE_MEMORY_NODE).
func (e *Engine) singleNode() int {
	ni := e.workers[0].node
	for _, wk := range e.workers {
		if wk.node != ni {
			return -1
		}
	}
	return ni
}

// pushTask hands a ready task to the scheduler; under a push-time prefetch
// (pushNode) its inputs are requested on that node as it enters the queue
// (component_fifo.c fifo_push_local_task: _starpu_fifo_push_task, then
// starpu_sched_component_prefetch_on_node).
func (e *Engine) pushTask(task int) {
	e.sched.Push(task)
	if e.pushNode >= 0 {
		e.prefetchInputs(e.pushNode, task)
	}
}

// Done reports whether every task has finished.
func (e *Engine) Done() bool { return e.done == len(e.w.Tasks) }

// Advance is the driver telling the time; it never goes back.
func (e *Engine) Advance(t float64) {
	if t > e.now {
		e.now = t
	}
}

// Wake is the driver's report that a worker's wake-up (EffectWake) is
// due: the engine's time is at.
func (e *Engine) Wake(w int, at float64) {
	wk := e.workers[w]
	if wk.wakeT == at {
		wk.wakeT = 0
	}
	e.kick(wk.node)
}

// Unregister writes back, once every task is done, every datum whose only
// valid copies are on worker memories, as unregistering the data does at
// the end of a run (starpu_data_unregister); the run ends when those
// copies have.
func (e *Engine) Unregister() {
	if e.Done() && !e.flushed {
		e.flush()
	}
}

// Flushed says whether the final write-backs were issued (Unregister).
func (e *Engine) Flushed() bool { return e.flushed }

// Finish closes the run: its totals.
func (e *Engine) Finish() *Stats {
	e.stats.Makespan = e.now
	if e.flushed {
		e.stats.Makespan = e.tasksEnd
		if e.rt.FlushInMakespan {
			e.stats.Makespan = math.Max(e.tasksEnd, e.flushEnd)
		}
	}
	e.stats.Flops = e.flops
	return &e.stats
}

// Stuck explains why a run cannot progress.
func (e *Engine) Stuck() error {
	msg := fmt.Sprintf("simulation stuck at t=%gs with %d of %d tasks done", e.now, e.done, len(e.w.Tasks))
	for _, wk := range e.workers {
		msg += fmt.Sprintf("; worker%d: buffer %d, pipeline %d", wk.id, wk.buffer.len(), len(wk.pipe))
	}
	for i, n := range e.nodes {
		if i != e.home {
			msg += fmt.Sprintf("; node%d: fetch queue %d, used %d/%d bytes, copy queue %d", i, len(n.fetchQ), n.used, n.capacity, len(n.copyQ))
		}
	}
	return fmt.Errorf("%s (a scheduler that never returns some task, or a cyclic dependency)", msg)
}

// timed runs a scheduler call made on behalf of a worker (worker < 0: the
// application), measuring its wall time and counting its operations, and
// charges the worker what the call costs (Runtime.SchedCost).
func (e *Engine) timed(worker int, f func() error) error {
	prev := e.current
	e.current = worker
	ops0 := e.stats.SchedOps
	var t0 time.Duration
	if e.cfg.Clock != nil {
		t0 = e.cfg.Clock()
	}
	err := f()
	var dt time.Duration
	if e.cfg.Clock != nil {
		dt = e.cfg.Clock() - t0
		e.stats.SchedWall += dt
	}
	if e.charge != chargeNone {
		e.chargeCall(worker, dt, opsSince(ops0, e.stats.SchedOps))
	}
	e.current = prev
	return err
}

// chargeCall delays the worker a scheduler call was made for (the
// application's start when worker < 0) by what the call costs: its wall
// time dt, or under the model its counted operations.
func (e *Engine) chargeCall(worker int, dt time.Duration, ops [schedulers.NumOps]int64) {
	cost := dt.Seconds()
	if e.charge == chargeModel {
		cost = 0
		for k, n := range ops {
			cost += float64(n) * e.opCost[k]
		}
	}
	if cost <= 0 {
		return
	}
	if worker < 0 {
		e.appCost += cost
		return
	}
	wk := e.workers[worker]
	wk.blockedT = math.Max(wk.blockedT, e.now) + cost
	e.wake(wk)
	if e.cfg.Decisions {
		e.emit(event.Event{Ev: "sched", Worker: worker, Node: wk.node, Until: wk.blockedT})
	}
}

// CountOps is how a scheduler reports the operations of one kind its call
// performs in the papers' StarPU implementation (View.CountOps). The
// counts saturate rather than wrap.
func (e *Engine) CountOps(kind schedulers.Op, ops int) {
	if kind < 0 || kind >= schedulers.NumOps {
		e.faultf("scheduler counted operations of kind %d, not one of the %d kinds", kind, schedulers.NumOps)
	}
	e.stats.SchedOps[kind] = saturating.Add(e.stats.SchedOps[kind], int64(ops))
}

// Count reports steps (View.Count).
func (e *Engine) Count(ops int) { e.CountOps(schedulers.OpStep, ops) }

// CountArray reports array comparisons (View.CountArray).
func (e *Engine) CountArray(ops int) { e.CountOps(schedulers.OpArray, ops) }

// opsSince is what was counted of each kind since the counts were before.
func opsSince(before, now [schedulers.NumOps]int64) (d [schedulers.NumOps]int64) {
	for k := range d {
		d[k] = now[k] - before[k]
	}
	return d
}

// observe tells an observing scheduler, timing the call like any other: a
// memory event names the node, charged to its first worker (the data
// events of a node no worker computes from, such as main memory on a
// GPU-only platform, are not reported); a task event names the worker.
func (e *Engine) observe(kind schedulers.EventKind, where, id int) {
	if !e.follows[kind] {
		return
	}
	charge := where
	if kind != schedulers.Started && kind != schedulers.Finished {
		if charge = e.firstWorker(where); charge < 0 {
			return
		}
	}
	e.timed(charge, func() error { e.obs.Observe(kind, where, id); return nil })
}

// dataEvent records an event of data d on node ni, named after the node's
// first worker; src matters for loads only. The event is built only when
// the run is traced: a run emits several a task.
func (e *Engine) dataEvent(ev string, ni, d int, bytes int64, kind string, src int) int {
	if e.cfg.Trace == nil {
		return -1
	}
	return e.emit(event.Event{Ev: ev, Worker: e.firstWorker(ni), Node: ni, Data: d, Bytes: bytes, Kind: kind, Src: src})
}

// taskEvent records an event of a task on worker w (node ni), built only
// when the run is traced.
func (e *Engine) taskEvent(ev string, w, ni, task int) int {
	if e.cfg.Trace == nil {
		return -1
	}
	return e.emit(event.Event{Ev: ev, Worker: w, Node: ni, Task: task})
}

// emit records an event at the engine's time, handed out by Events, and
// returns its index there (-1 when the run is not traced).
func (e *Engine) emit(ev event.Event) int {
	if e.cfg.Trace == nil {
		return -1
	}
	ev.T = e.now
	e.trace = append(e.trace, ev)
	return len(e.trace) - 1
}
