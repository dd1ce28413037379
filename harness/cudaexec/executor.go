package cudaexec

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/hardware/cuda"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// Options tune RunWith; the zero value is Run's behaviour.
type Options struct {
	// Output, when set, receives every task's C tile (column-major m×n)
	// after the run, to check the numbers. Each task then also copies C
	// back on its compute stream after its end event: task times exclude
	// the copy, but the next task waits for it.
	Output func(task, m, n int, c []float32)
}

// Run executes cfg on the CUDA GPUs 0..Platform.GPUs-1 with the same
// scheduler logic as the simulator (see the package comment) and returns
// its totals and a description of the GPUs, driver and CUDA versions.
func Run(cfg sim.Config) (*sim.Stats, string, error) { return RunWith(cfg, Options{}) }

// wholeMemoryReserve is what a run at the whole memory leaves free for
// cuBLAS (its workspace, 32 MiB per handle on Hopper) and the CUDA context's
// later growth.
const wholeMemoryReserve = 256 * hardware.MiB

// noGPU is the one message for "this machine cannot run the cuda executor";
// a run adds how to run anyway (a sweep says it in its own terms).
func noGPU(err error) error { return fmt.Errorf("no CUDA GPU found: %w", err) }

// Available says whether this machine can run the executor: the CUDA
// libraries load and see a GPU.
func Available() error {
	if _, err := cuda.Open(); err != nil {
		return noGPU(err)
	}
	return nil
}

// RunWith is Run with options.
func RunWith(cfg sim.Config, opt Options) (*sim.Stats, string, error) {
	if cfg.Platform != nil && cfg.Platform.Topology.NVLink {
		// The executor copies every datum from host RAM (no peer copies):
		// the platform it runs, and records, says so.
		p := cfg.Platform.Clone()
		p.Topology.NVLink = false
		cfg.Platform = p
	}
	cfg.RealTime = true
	x := &executor{opt: opt, traceTo: cfg.Trace}
	m, err := sim.New(cfg)
	if err != nil {
		return nil, "", err
	}
	x.m, x.w = m, cfg.Workload
	x.shapes = make([]gemmShape, len(x.w.Tasks))
	var maxC int64
	for i, t := range x.w.Tasks {
		if x.shapes[i], err = taskShape(x.w, t); err != nil {
			return nil, "", err
		}
		maxC = max(maxC, 4*int64(x.shapes[i].m)*int64(x.shapes[i].n))
	}
	if x.rt, err = cuda.Open(); err != nil {
		return nil, "", fmt.Errorf("%w; use --executor sim (the default)", noGPU(err))
	}
	// Every CUDA call from this goroutine's thread (cuda.Thread): the host
	// loop reacts to a completion without handing calls to other threads.
	x.th = x.rt.LockThread()
	defer x.th.Unlock()
	info, err := x.rt.Info()
	if err != nil {
		return nil, "", fmt.Errorf("querying the CUDA devices: %w", err)
	}
	p := m.Platform()
	if p.GPUs > len(info.Devices) {
		return nil, "", fmt.Errorf("the run asks for %d GPUs but CUDA sees %d (%s); lower --gpus", p.GPUs, len(info.Devices), info)
	}
	// The whole memory (--memory-mb 0) is never free on a real GPU: the
	// context and cuBLAS hold some. A run at that cap is still what it
	// means, a run that never evicts, when every data fits what is free.
	var every, largest int64 // the data's bytes, and the warm-up's buffer
	for _, d := range x.w.Data {
		every, largest = every+d.Bytes, max(largest, d.Bytes)
	}
	wholeFits := func(free uint64) bool {
		return p.PhysicalMiB > 0 && p.MemoryMiB >= p.PhysicalMiB &&
			uint64(every+maxC+largest+wholeMemoryReserve) <= free
	}
	for g := 0; g < p.GPUs; g++ {
		d := info.Devices[g]
		if need := uint64(p.MemoryBytes + maxC); d.FreeMem < need && !wholeFits(d.FreeMem) {
			return nil, "", fmt.Errorf("GPU %d (%s) has %.1f MiB free, less than the %.1f MiB memory cap plus %.2f MiB of scratch; lower --memory-mb",
				g, d.Name, float64(d.FreeMem)/hardware.MiB, float64(p.MemoryBytes)/hardware.MiB, float64(maxC)/hardware.MiB)
		}
	}
	info.Devices = info.Devices[:p.GPUs]
	device := info.String()

	defer x.close()
	if err := x.setup(maxC); err != nil {
		return nil, device, err
	}
	if cfg.ChargeSchedTime { // the clock runs during the planning too
		if err := x.startClock(); err != nil {
			return nil, device, err
		}
	}
	if err := m.Begin(); err != nil {
		return nil, device, err
	}
	x.carryOut()
	x.issueAll()
	for !m.Done() && x.err == nil {
		if cfg.Context != nil && cfg.Context.Err() != nil {
			return nil, device, cfg.Context.Err() // a sweep's timeout: stop issuing work
		}
		op, g, busy, waiting := x.poll()
		switch {
		case op != nil:
			x.deliver(g, op)
			x.issueAll()
		case !busy && x.err == nil:
			return nil, device, m.Stuck()
		case waiting == 0 && x.err == nil:
			// Only unstarted tasks are queued and no copy is in flight:
			// nothing can complete that the machine would accept.
			return nil, device, fmt.Errorf("internal error: %w", m.Stuck())
		default:
			runtime.Gosched() // the GPUs are working; poll again
		}
	}
	if x.err != nil {
		return nil, device, x.err
	}
	if opt.Output != nil {
		if err := x.output(); err != nil {
			return nil, device, err
		}
	}
	if x.traceTo != nil {
		// In time order, stable so that equal times keep their causal
		// order: a start's measured time is known only at its end.
		sort.SliceStable(x.trace, func(i, j int) bool { return x.trace[i].T < x.trace[j].T })
		for _, ev := range x.trace {
			x.traceTo(ev)
		}
	}
	return m.Finish(), device, nil
}

// executor is the engine's driver on CUDA. The host loop in RunWith owns
// the engine and makes every CUDA call, from its locked thread (x.th).
type executor struct {
	rt      *cuda.Runtime
	th      *cuda.Thread // the host loop's thread, which makes every CUDA call
	m       *sim.Engine
	w       *workloads.Workload
	opt     Options
	shapes  []gemmShape
	host    cuda.HostPtr // every data, pinned
	hostAt  []uint64     // offset of each data in host
	out     cuda.HostPtr // C tiles, when Options.Output is set
	outAt   []uint64
	devs    []*device
	issued  []bool // task queued on its GPU's compute stream
	seq     uint64
	started bool  // the origins are recorded (startClock)
	err     error // first failure; ends the run

	trace   []event.Event     // the engine's events, start times stamped when measured
	traceTo func(event.Event) // sim.Config.Trace
}

// device is one GPU: a copy stream for loads (one at a time, as the
// machine allows), a compute stream with a cuBLAS handle, and the data
// slabs. Times are seconds since origin, an event recorded on every idle
// GPU, back to back (see recordOrigins).
type device struct {
	g       int
	copyS   cuda.Stream
	compS   cuda.Stream
	blas    cuda.Blas
	origin  cuda.Event
	scratch cuda.DevPtr
	pool    slabPool
	slab    []cuda.DevPtr // each data's memory while present
	spare   []cuda.Event
	events  []cuda.Event // every event created, to destroy
	load    *op          // copy in flight
	tasks   []*op        // queued on the compute stream, oldest first

	// Times already written to the trace, which later starts may not
	// precede: measured times are corrected upward by these, so float32
	// rounding or clock skew never yields an inconsistent trace.
	lastLoadEnd, lastTaskEnd float64
	residentAt               []float64
}

type op struct {
	task       bool
	id         int // data or task
	prefetch   bool
	start, end cuda.Event
	seq        uint64
	issued     float64  // machine time when queued
	copy       sim.Copy // a load's, handed back to the engine
	trace      int      // the *_start record in executor.trace, -1 if none
	begun      bool     // a task the machine has started
}

func (x *executor) fail(err error) {
	if x.err == nil && err != nil {
		x.err = err
	}
}

// layout places every data in one pinned buffer (256-byte aligned).
func layout(sizes []int64) (offs []uint64, total uint64) {
	for _, b := range sizes {
		offs = append(offs, total)
		total += (uint64(b) + 255) &^ 255
	}
	return offs, max(total, 256)
}

// fillValue is data d's element i: small multiples of 1/8, so that the
// SGEMM of the numerics test is exact in float32.
func fillValue(d, i int) float32 { return float32((d*13+i*7)%17-8) / 8 }

func (x *executor) setup(maxC int64) error {
	p := x.m.Platform()
	sizes := make([]int64, len(x.w.Data))
	for d, dd := range x.w.Data {
		sizes[d] = dd.Bytes
	}
	var total uint64
	x.hostAt, total = layout(sizes)
	for g := 0; g < p.GPUs; g++ {
		nd := len(x.w.Data)
		x.devs = append(x.devs, &device{g: g, slab: make([]cuda.DevPtr, nd), residentAt: make([]float64, nd),
			pool: slabPool{limit: p.MemoryBytes, free: map[int64][]cuda.DevPtr{}, size: map[cuda.DevPtr]int64{}}})
	}
	d0 := x.devs[0]
	err := x.on(d0, func() error {
		var err error
		if x.host, err = x.rt.MallocHost(total); err != nil {
			return fmt.Errorf("pinning %.1f MiB of host memory for the data: %w", float64(total)/hardware.MiB, err)
		}
		if x.opt.Output != nil {
			outSizes := make([]int64, len(x.shapes))
			for t, s := range x.shapes {
				outSizes[t] = 4 * int64(s.m) * int64(s.n)
			}
			var n uint64
			x.outAt, n = layout(outSizes)
			if x.out, err = x.rt.MallocHost(n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	x.fill()
	for _, d := range x.devs {
		if err := x.on(d, func() error { return x.setupDevice(d, maxC) }); err != nil {
			return fmt.Errorf("GPU %d: %w", d.g, err)
		}
	}
	// Every GPU idle, so that the origins (StartClock) mark one instant.
	for _, d := range x.devs {
		if err := x.on(d, x.rt.DeviceSynchronize); err != nil {
			return err
		}
	}
	x.issued = make([]bool, len(x.w.Tasks))
	return nil
}

// startClock records the GPUs' origins, once: at the engine's
// EffectClock, after the submission and the planning, unless RunWith did
// before Begin for a run that charges its planning.
func (x *executor) startClock() error {
	if x.started {
		return nil
	}
	x.started = true
	return x.recordOrigins()
}

// recordOrigins records every GPU's time origin: one event on each
// compute stream, queued back to back on idle GPUs (microseconds apart),
// then waited for.
func (x *executor) recordOrigins() error {
	for _, d := range x.devs {
		if err := x.on(d, func() error { return x.rt.Record(d.origin, d.compS) }); err != nil {
			return err
		}
	}
	for _, d := range x.devs {
		if err := x.on(d, func() error { return x.rt.Synchronize(d.origin) }); err != nil {
			return err
		}
	}
	return nil
}

// on runs fn with d's GPU current, on the host loop's thread.
func (x *executor) on(d *device, fn func() error) error { return x.th.Do(d.g, fn) }

// fill writes every data's deterministic values, in parallel.
func (x *executor) fill() {
	all := x.host.Float32s()
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for d := range next {
				v := all[x.hostAt[d]/4 : x.hostAt[d]/4+uint64(x.w.Data[d].Bytes/4)]
				for i := range v {
					v[i] = fillValue(d, i)
				}
			}
		})
	}
	for d := range x.w.Data {
		next <- d
	}
	close(next)
	wg.Wait()
}

func (x *executor) setupDevice(d *device, maxC int64) error {
	var err error
	if d.copyS, err = x.rt.NewStream(); err != nil {
		return err
	}
	if d.compS, err = x.rt.NewStream(); err != nil {
		return err
	}
	if d.blas, err = x.rt.NewBlas(); err != nil {
		return err
	}
	if err = x.rt.SetStream(d.blas, d.compS); err != nil {
		return err
	}
	if d.scratch, err = x.rt.Malloc(uint64(maxC)); err != nil {
		return fmt.Errorf("allocating the %d-byte C scratch: %w", maxC, err)
	}
	if d.origin, err = x.newEvent(d); err != nil {
		return err
	}
	return x.warmUp(d)
}

// warmUp runs, before the clock starts, one copy on d's copy stream and one
// SGEMM of each task shape on its compute stream, between events as the run
// does. CUDA loads kernels lazily (CUDA_MODULE_LOADING=LAZY, the default
// since CUDA 12.2), so without it the run's first task also paid cuBLAS's
// loading: 77-104 ms on an H100 (CUDA 13.0), where the task takes 0.18 ms.
// The papers' runs start the clock after StarPU's initialisation and
// calibration runs, with the kernels loaded. Call with d current (x.on).
func (x *executor) warmUp(d *device) error {
	var shapes []gemmShape
	var words uint64 // the largest A or B
	for _, sh := range x.shapes {
		if !slices.Contains(shapes, sh) {
			shapes = append(shapes, sh)
			words = max(words, uint64(sh.m)*uint64(sh.k), uint64(sh.k)*uint64(sh.n))
		}
	}
	buf, err := x.rt.Malloc(4 * max(words, 64))
	if err != nil {
		return fmt.Errorf("allocating %d bytes to warm up: %w", 4*words, err)
	}
	defer x.rt.Free(buf)
	// Two events for the warm-up, and those of the run's first operations
	// (two each), made before the clock: on an H100 the first load started
	// 0.25-0.6 ms after the origin when they were made on demand.
	evs := make([]cuda.Event, 18)
	for i := range evs {
		if evs[i], err = x.newEvent(d); err != nil {
			return err
		}
	}
	defer func() { d.spare = append(d.spare, evs...) }()
	start, end := evs[0], evs[1]
	// The copy: a slice of the pinned data, as a load copies.
	n := min(4*max(words, 64), x.host.Len())
	if err := x.rt.Record(start, d.copyS); err != nil {
		return err
	}
	if err := x.rt.MemcpyH2DAsync(buf, x.host.Slice(0, n), n, d.copyS); err != nil {
		return err
	}
	if err := x.rt.Record(end, d.copyS); err != nil {
		return err
	}
	if err := x.rt.StreamWaitEvent(d.compS, end); err != nil {
		return err
	}
	// The SGEMMs, A and B both read from buf (results discarded).
	if err := x.rt.Record(start, d.compS); err != nil {
		return err
	}
	for _, sh := range shapes {
		if err := x.rt.Sgemm(d.blas, sh.m, sh.n, sh.k, 1, buf, sh.m, buf, sh.k, 0, d.scratch, sh.m); err != nil {
			return fmt.Errorf("warming up SGEMM %v: %w", sh, err)
		}
	}
	if err := x.rt.Record(end, d.compS); err != nil {
		return err
	}
	if err := x.rt.Synchronize(end); err != nil {
		return err
	}
	_, err = x.rt.ElapsedMs(start, end)
	return err
}

// newEvent takes a spare event of d or creates one; call on d's worker.
func (x *executor) newEvent(d *device) (cuda.Event, error) {
	if n := len(d.spare); n > 0 {
		ev := d.spare[n-1]
		d.spare = d.spare[:n-1]
		return ev, nil
	}
	ev, err := x.rt.NewEvent()
	if err == nil {
		d.events = append(d.events, ev)
	}
	return ev, err
}

// close releases everything; errors are ignored, the run's own matter.
func (x *executor) close() {
	for _, d := range x.devs {
		x.on(d, func() error {
			x.rt.DeviceSynchronize()
			for _, ev := range d.events {
				x.rt.DestroyEvent(ev)
			}
			for p := range d.pool.size {
				x.rt.Free(p)
			}
			if d.scratch != 0 {
				x.rt.Free(d.scratch)
			}
			if d.blas != 0 {
				x.rt.DestroyBlas(d.blas)
			}
			for _, s := range []cuda.Stream{d.copyS, d.compS} {
				if s != 0 {
					x.rt.DestroyStream(s)
				}
			}
			return nil
		})
	}
	if len(x.devs) > 0 {
		x.on(x.devs[0], func() error {
			if x.host.Len() > 0 {
				x.rt.FreeHost(x.host)
			}
			if x.out.Len() > 0 {
				x.rt.FreeHost(x.out)
			}
			return nil
		})
	}
}

// carryOut does what the engine's last call asked, in its order: the
// trace events are kept to be stamped, copies and tasks started, freed
// memory returned to its pool. A real-time engine asks for no wake-up:
// it charges no scheduling time and no driver host time
// (sim.Config.RealTime), so every worker is stepped by a completion; a
// wake-up would be an engine bug, and the run fails rather than hang.
func (x *executor) carryOut() {
	if x.err != nil {
		return
	}
	base := len(x.trace)
	x.trace = append(x.trace, x.m.Events()...)
	at := func(i int) int {
		if i < 0 {
			return -1
		}
		return base + i
	}
	for _, f := range x.m.Effects() {
		switch f.Kind {
		case sim.EffectClock:
			x.fail(x.startClock())
		case sim.EffectCopy:
			x.startLoad(f.Copy, at(f.Event))
		case sim.EffectTask:
			x.startTask(f.Worker, f.Task, at(f.Event))
		case sim.EffectFreed:
			x.evicted(f.Copy.Node, f.Copy.Data)
		case sim.EffectWake:
			x.fail(fmt.Errorf("the engine asked to wake worker %d at %g s in a real-time run, which charges no time: an engine bug (sim.Config.RealTime)", f.Worker, f.At))
		}
	}
	x.m.Ack()
}

// startLoad queues the copy into a GPU on its copy stream between two
// events; the executor copies every datum from host RAM.
func (x *executor) startLoad(c sim.Copy, trace int) {
	g, d := c.Node, c.Data
	dev := x.devs[g]
	x.seq++
	o := &op{id: d, prefetch: c.Prefetch, copy: c, seq: x.seq, issued: x.m.Now(), trace: trace}
	bytes := x.w.Data[d].Bytes
	err := x.on(dev, func() error {
		slab, err := dev.pool.get(x.rt, bytes)
		if err != nil {
			return err
		}
		dev.slab[d] = slab
		if o.start, err = x.newEvent(dev); err != nil {
			return err
		}
		if o.end, err = x.newEvent(dev); err != nil {
			return err
		}
		if err := x.rt.Record(o.start, dev.copyS); err != nil {
			return err
		}
		if err := x.rt.MemcpyH2DAsync(slab, x.host.Slice(x.hostAt[d], uint64(bytes)), uint64(bytes), dev.copyS); err != nil {
			return err
		}
		return x.rt.Record(o.end, dev.copyS)
	})
	if err != nil {
		x.fail(fmt.Errorf("GPU %d: loading data %d (%d bytes): %w", g, d, bytes, err))
		return
	}
	dev.load = o
}

// startTask: the engine starts task, all inputs resident. It is usually
// queued already (issueAll); its trace record is now known.
func (x *executor) startTask(g, task int, trace int) {
	dev := x.devs[g]
	if !x.issued[task] {
		x.issue(g, task)
	}
	if x.err != nil {
		return
	}
	if len(dev.tasks) == 0 || dev.tasks[0].id != task {
		x.fail(fmt.Errorf("internal error: GPU %d starts task %d, which is not the oldest queued", g, task))
		return
	}
	dev.tasks[0].begun, dev.tasks[0].trace = true, trace
}

func (x *executor) evicted(g, d int) {
	dev := x.devs[g]
	for _, o := range dev.tasks {
		if x.w.Tasks[o.id].Reads(d) {
			x.fail(fmt.Errorf("internal error: data %d evicted from GPU %d while queued task %d reads it", d, g, o.id))
		}
	}
	dev.pool.put(dev.slab[d])
	dev.slab[d] = 0
}

// issueAll queues, on every GPU, the popped tasks that can be: in pipeline
// order, each once all its inputs are resident or loading. The GPU then
// starts a task the moment its inputs and its predecessor are done, as the
// simulator does, without waiting for the host to notice. It is safe: the
// machine evicts data of popped tasks only when the oldest one misses an
// input, and then no task of that GPU is queued.
func (x *executor) issueAll() {
	for g := 0; g < x.m.Workers(); g++ {
		for _, task := range x.m.Pipeline(g) {
			if x.err != nil {
				return
			}
			if x.issued[task] {
				continue
			}
			ready := true
			for _, d := range x.w.Tasks[task].Inputs {
				if !x.m.Present(g, d) {
					ready = false
				}
			}
			if !ready {
				break
			}
			x.issue(g, task)
		}
	}
}

// issue queues task's SGEMM on g's compute stream, after the copy of any
// input still loading.
func (x *executor) issue(g, task int) {
	dev := x.devs[g]
	sh := x.shapes[task]
	in := x.w.Tasks[task].Inputs
	x.seq++
	o := &op{task: true, id: task, seq: x.seq, issued: x.m.Now(), trace: -1}
	err := x.on(dev, func() error {
		for _, d := range in {
			if x.m.Resident(g, d) {
				continue
			}
			if dev.load == nil || dev.load.id != d {
				return fmt.Errorf("internal error: input %d of task %d is neither resident nor the copy in flight", d, task)
			}
			if err := x.rt.StreamWaitEvent(dev.compS, dev.load.end); err != nil {
				return err
			}
		}
		var err error
		if o.start, err = x.newEvent(dev); err != nil {
			return err
		}
		if o.end, err = x.newEvent(dev); err != nil {
			return err
		}
		if err := x.rt.Record(o.start, dev.compS); err != nil {
			return err
		}
		a, b := dev.slab[in[sh.a]], dev.slab[in[sh.b]]
		if err := x.rt.Sgemm(dev.blas, sh.m, sh.n, sh.k, 1, a, sh.m, b, sh.k, 0, dev.scratch, sh.m); err != nil {
			return err
		}
		if err := x.rt.Record(o.end, dev.compS); err != nil {
			return err
		}
		if x.opt.Output != nil {
			n := 4 * uint64(sh.m) * uint64(sh.n)
			return x.rt.MemcpyD2HAsync(x.out.Slice(x.outAt[task], n), dev.scratch, n, dev.compS)
		}
		return nil
	})
	if err != nil {
		x.fail(fmt.Errorf("GPU %d: task %d (%s, SGEMM %v): %w", g, task, x.w.Tasks[task].Kernel, sh, err))
		return
	}
	x.issued[task] = true
	dev.tasks = append(dev.tasks, o)
}

// poll returns the completed operation to hand to the machine next: the
// earliest by GPU time among each GPU's copy in flight and oldest queued
// task, loads first at equal times, then in issue order (the simulator's
// tie rule). Completion is tested with cudaEventElapsedTime, which reports
// cudaErrorNotReady like cudaEventQuery; unlike the fake's query, it does
// not let the fake's virtual host clock see the event, so the fake's
// virtual time advances only as far as the operation delivered. busy says
// whether any operation is outstanding at all, waiting how many of them
// the machine would accept.
func (x *executor) poll() (best *op, bestG int, busy bool, waiting int) {
	bestT := 0.0
	for _, dev := range x.devs {
		var buf [2]*op
		cands := buf[:0]
		if dev.load != nil {
			cands = append(cands, dev.load)
		}
		if len(dev.tasks) > 0 && dev.tasks[0].begun {
			cands = append(cands, dev.tasks[0])
		}
		busy = busy || dev.load != nil || len(dev.tasks) > 0
		waiting += len(cands)
		if len(cands) == 0 {
			continue
		}
		var ends [2]float64
		var done [2]bool
		err := x.on(dev, func() error {
			for i, o := range cands {
				ms, err := x.rt.ElapsedMs(dev.origin, o.end)
				var ce *cuda.Error
				if errors.As(err, &ce) && ce.Code == cuda.ErrCodeNotReady {
					continue
				}
				if err != nil {
					return err
				}
				ends[i], done[i] = float64(ms)/1e3, true
			}
			return nil
		})
		if err != nil {
			x.fail(fmt.Errorf("GPU %d: %w", dev.g, err))
			return nil, 0, busy, waiting
		}
		for i, o := range cands {
			if !done[i] {
				continue
			}
			if best == nil || ends[i] < bestT || (ends[i] == bestT && (!o.task && best.task || o.task == best.task && o.seq < best.seq)) {
				best, bestG, bestT = o, dev.g, ends[i]
			}
		}
	}
	return best, bestG, busy, waiting
}

// deliver reads a completed operation's times and hands it to the machine.
func (x *executor) deliver(g int, o *op) {
	dev := x.devs[g]
	var startMs, durMs float32
	err := x.on(dev, func() error {
		// The host has now seen the event (the fake's virtual clock
		// advances to it; on CUDA it is already complete).
		if _, err := x.rt.Query(o.end); err != nil {
			return err
		}
		var err error
		if startMs, err = x.rt.ElapsedMs(dev.origin, o.start); err != nil {
			return err
		}
		if durMs, err = x.rt.ElapsedMs(o.start, o.end); err != nil {
			return err
		}
		if !o.task {
			// Waits already queued captured this record; the event is free.
			dev.spare = append(dev.spare, o.start, o.end)
		}
		return nil
	})
	if err != nil {
		x.fail(fmt.Errorf("GPU %d: %w", g, err))
		return
	}
	start, dur := float64(startMs)/1e3, float64(max(durMs, 0))/1e3
	start = max(start, o.issued)
	m := x.m
	if !o.task {
		start = max(start, dev.lastLoadEnd)
		x.setTime(o.trace, start)
		dev.load = nil
		m.Advance(start + dur)
		dev.lastLoadEnd, dev.residentAt[o.id] = m.Now(), m.Now()
		m.CopyDone(o.copy)
		x.carryOut()
		return
	}
	start = max(start, dev.lastTaskEnd)
	for _, d := range x.w.Tasks[o.id].Inputs {
		start = max(start, dev.residentAt[d])
	}
	x.setTime(o.trace, start)
	dev.tasks = dev.tasks[1:]
	dev.spare = append(dev.spare, o.start, o.end)
	m.Advance(start + dur)
	dev.lastTaskEnd = m.Now()
	m.TaskDone(g, o.id)
	x.carryOut()
}

// setTime stamps a start event with its measured time.
func (x *executor) setTime(trace int, t float64) {
	if trace >= 0 {
		x.trace[trace].T = t
	}
}

// output waits for the C copies and hands each tile to Options.Output.
func (x *executor) output() error {
	for _, d := range x.devs {
		if err := x.on(d, x.rt.DeviceSynchronize); err != nil {
			return err
		}
	}
	all := x.out.Float32s()
	for t, s := range x.shapes {
		at := x.outAt[t] / 4
		c := append([]float32(nil), all[at:at+uint64(s.m*s.n)]...)
		x.opt.Output(t, s.m, s.n, c)
	}
	return nil
}

// slabPool holds a GPU's data memory: one cudaMalloc'd slab per present
// data, of exactly its size, reused by the next data of the same size once
// evicted. Allocated bytes never exceed the platform's cap: when a new
// size would, the free slabs of other sizes are released first (cudaFree
// synchronizes the device, but the papers' workloads use one data size).
// The C scratch and cuBLAS's workspace are outside the cap, as StarPU's
// STARPU_LIMIT_CUDA_MEM covers data only.
type slabPool struct {
	limit     int64
	allocated int64
	free      map[int64][]cuda.DevPtr
	size      map[cuda.DevPtr]int64 // every live slab
}

// get returns a slab of size bytes; call on the GPU's worker.
func (p *slabPool) get(rt *cuda.Runtime, size int64) (cuda.DevPtr, error) {
	if l := p.free[size]; len(l) > 0 {
		s := l[len(l)-1]
		p.free[size] = l[:len(l)-1]
		return s, nil
	}
	if p.allocated+size > p.limit {
		for sz, l := range p.free {
			for _, s := range l {
				if err := rt.Free(s); err != nil {
					return 0, err
				}
				delete(p.size, s)
				p.allocated -= sz
			}
			delete(p.free, sz)
		}
	}
	if p.allocated+size > p.limit {
		return 0, fmt.Errorf("internal error: %d bytes in use, %d more exceed the %d-byte cap", p.allocated, size, p.limit)
	}
	s, err := rt.Malloc(uint64(size))
	if err != nil {
		return 0, err
	}
	p.allocated += size
	p.size[s] = size
	return s, nil
}

func (p *slabPool) put(s cuda.DevPtr) {
	if sz, ok := p.size[s]; ok {
		p.free[sz] = append(p.free[sz], s)
	}
}
