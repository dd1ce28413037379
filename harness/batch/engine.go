package batch

import (
	"context"
	"fmt"
	"slices"

	"github.com/memsched/memsched/internal/minheap"
	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

// Config is one simulation.
type Config struct {
	Trace     *jobs.Trace
	Cluster   Cluster
	Rules     Rules
	Scheduler sched.Scheduler
	// Phase is the second (mod 30) on which the release loop's throttle lets
	// passes happen: its main loop sets last_scheduler_call = t at every
	// second allowed, so passes fall on a 30 s grid anchored at the
	// simulation's first second (Day 0's first submission, which the
	// Rackham weeks lost; the reader infers it from the release's start
	// times). -1 anchors the grid at the trace's first submission.
	Phase int
	// Event, when set, receives every event (for traces).
	Event func(Event)
	// Plans adds the reservations of every pass to the events (large).
	Plans bool
	// Context cancels the run between events (nil: never), as
	// sim.Config.Context does: a sweep's timed-out run stops.
	Context context.Context
	// Progress, when set, is called as each evaluated job starts, with the
	// count started and the total (a terminal's progress bar).
	Progress func(started, total int)
}

// JobResult is a job's outcome; a job the simulation did not start (an
// unevaluated job after the last evaluated start) has Started false.
type JobResult struct {
	Start, End     int64
	Node           int32
	Transfer, Wait int32 // seconds loading File(J); waiting for another job's load
	Started        bool
}

// Result is a simulation's outcome.
type Result struct {
	Jobs         []JobResult // indexed like Trace.Jobs
	Passes       int         // planning passes
	FullPasses   int         // passes replanning the whole queue
	ForcedPasses int         // release loop: passes forced because nothing else could happen
	Plannings    int64       // job placements over all passes
	Loads        int         // file loads
	End          int64       // time of the last evaluated start
}

// fileEntry is a file on a node: the jobs using it, when its load ends,
// when its last job ends (planned while running, actual after).
type fileEntry struct {
	file       int
	users      int
	ready, end int64
	size       float32
}

type engine struct {
	cfg    Config
	err    error // the context's, when it cancelled the run
	js     []jobs.Job
	res    []JobResult
	sch    sched.Scheduler
	plan   *plan
	N, C   int
	runEnd []int64 // per core: walltime end of its running job, 0 when idle
	runJob []int32 // per core: running job, -1 when idle

	nodeJobs     []int // running jobs per node
	runningNodes int
	tempRunning  int
	files        [][]fileEntry
	lastStart    []int64 // consecutive reuse: latest start on the node before this second
	startedNow   []int

	ends      minheap.Heap[endItem]
	queue     []int // waiting jobs (the release's scheduled_job_list)
	newList   []int // the release's new_job_list
	planned   []int64
	planNode  []int32
	starts    minheap.Heap[startItem]
	seq       []int64 // position of a job in the release's scheduled list
	file      []int   // dense file number of each job (0: none)
	nextSeq   int64
	evalLeft  int
	evalTotal int
	out       Result
}

// Run simulates a trace.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Cluster.Check(); err != nil {
		return nil, err
	}
	if err := cfg.Rules.Check(); err != nil {
		return nil, err
	}
	t := cfg.Trace
	if err := t.Validate(cfg.Cluster.CoresPerNode); err != nil {
		return nil, err
	}
	// Loads and waits are 32-bit seconds (JobResult): bounded, not wrapped.
	if err := t.CheckLoads(cfg.Cluster.BandwidthGBs); err != nil {
		return nil, err
	}
	if cfg.Phase < -1 || cfg.Phase >= 30 {
		return nil, fmt.Errorf("phase %d: want -1 (the first submission) or 0 to 29", cfg.Phase)
	}
	e := &engine{cfg: cfg, js: t.Jobs, sch: cfg.Scheduler, N: cfg.Cluster.Nodes, C: cfg.Cluster.CoresPerNode}
	n := len(t.Jobs)
	e.res = make([]JobResult, n)
	e.planned = make([]int64, n)
	e.planNode = make([]int32, n)
	e.seq = make([]int64, n)
	for i := range e.planned {
		e.planned[i] = -1
	}
	e.runEnd = make([]int64, e.N*e.C)
	e.runJob = make([]int32, e.N*e.C)
	for i := range e.runJob {
		e.runJob[i] = -1
	}
	e.nodeJobs = make([]int, e.N)
	e.files = make([][]fileEntry, e.N)
	e.lastStart = make([]int64, e.N)
	for i := range e.lastStart {
		e.lastStart[i] = -1
	}
	e.plan = newPlan(cfg.Cluster, e.sch.Backfill(), cfg.Rules.Backfill == "now", cfg.Rules.LoadBase == "now", func() int { return e.tempRunning })
	dense := map[int]int{}
	e.file = make([]int, n)
	for i := range t.Jobs {
		if f := t.Jobs[i].File; f != 0 {
			if _, ok := dense[f]; !ok {
				dense[f] = len(dense) + 1
			}
			e.file[i] = dense[f]
		}
	}
	e.plan.fileNodes = make([][]int32, len(dense)+1)
	e.plan.fileSlots = make([][]int32, len(dense)+1)
	e.evalLeft = t.Evaluated()
	e.evalTotal = e.evalLeft
	e.out.Jobs = e.res
	if e.evalLeft == 0 {
		return &e.out, nil
	}
	e.loop()
	if e.err != nil {
		return nil, e.err
	}
	if cfg.Event != nil {
		started := 0
		for i := range e.res {
			if e.res[i].Started {
				started++
			}
		}
		e.emit(Event{T: e.out.End, Kind: EvDone, Job: started, Node: -1})
	}
	return &e.out, nil
}

const throttle = 30 // seconds between the release's passes (src/main.c)

func (e *engine) loop() {
	release := e.cfg.Rules.Loop == "release"
	next := 0
	t0 := e.js[0].Submit
	phase := int64(e.cfg.Phase)
	if phase < 0 {
		phase = t0 % throttle
	}
	onGrid := func(t int64) bool { return t >= t0+throttle && (t-phase)%throttle == 0 }
	forceAt, last := int64(-1), t0
	for step := 0; e.evalLeft > 0; step++ {
		if e.cfg.Context != nil && step&255 == 0 {
			if e.err = e.cfg.Context.Err(); e.err != nil {
				return
			}
		}
		// The next second with something to do.
		t := int64(1 << 62)
		if next < len(e.js) {
			t = e.js[next].Submit
		}
		if len(e.ends) > 0 {
			t = min(t, e.ends[0].t)
		}
		if len(e.starts) > 0 {
			t = min(t, e.starts[0].t)
		}
		if forceAt >= 0 {
			t = min(t, forceAt)
		}
		if t == 1<<62 {
			if !release || len(e.queue)+len(e.newList) == 0 {
				panic("batch: jobs wait and nothing can happen")
			}
			// The release would loop forever here (a completion refused by
			// its throttle was the last event): replan at the next grid
			// second and count it.
			forceAt = last + 1
			for !onGrid(forceAt) {
				forceAt++
			}
			continue
		}
		forced := t == forceAt
		if forced {
			forceAt = -1
		}
		last = t
		finished := e.endJobs(t)
		if release {
			e.startPlanned(t)
		}
		newJobs := false
		for ; next < len(e.js) && e.js[next].Submit <= t; next++ {
			newJobs = true
			if e.cfg.Event != nil {
				j := &e.js[next]
				e.emit(Event{T: t, Kind: EvSubmit, Job: j.ID, Node: -1, Cores: j.Cores, File: j.File, SizeGB: j.SizeGB, Duration: j.Duration, Walltime: j.Walltime})
			}
			if release && finished == 0 {
				e.newList = append(e.newList, next)
			} else {
				e.enqueue(next)
			}
		}
		switch {
		case !release:
			if finished > 0 || newJobs {
				e.pass(t, e.queue, true)
				e.startPlanned(t)
			}
		case onGrid(t) || forced:
			switch {
			case (finished > 0 || forced) && len(e.queue) > 0:
				e.pass(t, e.queue, true)
				e.startPlanned(t)
			case newJobs || forced && len(e.newList) > 0:
				// The new jobs join the scheduled list after their pass;
				// they take their places in it now, which orders their
				// starts the same way.
				for _, j := range e.newList {
					e.enqueue(j)
				}
				e.pass(t, e.newList, false)
				e.newList = e.newList[:0]
				e.startPlanned(t)
			}
			if forced {
				e.out.ForcedPasses++
			}
		}
		for _, k := range e.startedNow {
			e.lastStart[k] = t
		}
		e.startedNow = e.startedNow[:0]
	}
}

func (e *engine) enqueue(j int) {
	e.queue = append(e.queue, j)
	e.seq[j] = e.nextSeq
	e.nextSeq++
}

// pass plans the jobs of list at now: each in order goes to the node its
// scheduler chooses, at that node's t_k, until no later job could start now.
func (e *engine) pass(now int64, list []int, full bool) {
	e.out.Passes++
	p := e.plan
	if full {
		e.out.FullPasses++
		p.reset(now, e.runEnd)
		// Every planned start is recomputed (free_next_time_linked_list).
		for _, j := range e.queue {
			e.unplan(j)
		}
		e.starts = e.starts[:0]
	} else {
		p.advance(now)
	}
	e.emit(Event{T: now, Kind: EvPass, Node: -1, Full: full})
	// The files of the running jobs, and those whose last job ended now
	// (get_current_intervals: [t, max(t, loaded), planned end], or [t, t, t]).
	p.clearFiles()
	for k := range e.files {
		for i := 0; i < len(e.files[k]); i++ {
			f := &e.files[k][i]
			switch {
			case f.users > 0:
				p.addInterval(k, f.file, f.size, now, max(now, f.ready), f.end)
			case e.valid(k, f, now):
				p.addInterval(k, f.file, f.size, now, now, now)
			}
		}
	}
	e.tempRunning = e.runningNodes
	release := e.cfg.Rules.Loop == "release"
	bf := e.sch.Backfill()
	nowOnly := false
	for _, j := range list {
		job := &e.js[j]
		if e.res[j].Started {
			continue
		}
		if !release {
			// No later job can start once no core is idle now; the rest
			// of the plan would be recomputed at the next event.
			if bf && p.idleNow == 0 || !bf && p.freeNow == 0 {
				break
			}
			e.place(j)
			continue
		}
		// The release stops a pass when no core is free for good, a scored
		// pass at the first job needing more cores than are free. With
		// backfilling, the jobs after that point only check whether they
		// can start now in a hole, without a reservation
		// (only_check_conservative_backfill).
		need := 1
		if e.sch.Scored() {
			need = job.Cores
		}
		if p.freeNow < need {
			if !bf {
				break
			}
			nowOnly = true
		}
		if nowOnly {
			if p.idleNow == 0 {
				break
			}
			e.backfillNow(j)
			continue
		}
		e.place(j)
	}
}

// place plans job j where its scheduler chooses.
func (e *engine) place(j int) {
	p := e.plan
	job := &e.js[j]
	p.bind(job, e.file[j])
	k := e.sch.Choose(p)
	if k < 0 || k >= e.N {
		panic(fmt.Sprintf("batch: scheduler chose node %d of %d", k, e.N))
	}
	e.out.Plannings++
	tk := p.Start(k)
	e.commit(j, k, tk)
}

// commit records j's reservation at tk on node k.
func (e *engine) commit(j, k int, tk int64) {
	p := e.plan
	job := &e.js[j]
	// The transfer time this plan expects, in whole seconds as the release
	// stores it (j->transfer_time = choosen_time_to_load_file).
	x := int64(p.Load(k, tk))
	// LEM counts a node that starts running now (fcfs_with_a_score_scheduler:
	// no running job and no core reserved beyond now).
	if tk == p.now && e.nodeJobs[k] == 0 && e.nodeFreeNow(k) {
		e.tempRunning++
	}
	p.reserve(k, tk, job.Walltime, job.Cores)
	if f := e.file[j]; f != 0 {
		p.addInterval(k, f, job.SizeGB, tk, tk+x, tk+job.Walltime)
	}
	e.planned[j], e.planNode[j] = tk, int32(k)
	e.starts.Push(startItem{tk, e.seq[j], j})
	if e.cfg.Plans {
		e.emit(Event{T: p.now, Kind: EvPlan, Job: job.ID, Node: k, Cores: job.Cores, At: tk, Until: tk + job.Walltime})
	}
}

// nodeFreeNow reports whether every core of node k is available now.
func (e *engine) nodeFreeNow(k int) bool {
	p := e.plan
	if !p.bf {
		return p.avail[(k+1)*p.C-1] <= p.now
	}
	return p.maxUsed[k] == 0
}

// backfillNow starts j now on a node with a hole that holds it, if any: the
// best-scoring such node for the scored schedulers, the first for FCFS.
func (e *engine) backfillNow(j int) {
	p := e.plan
	job := &e.js[j]
	p.bind(job, e.file[j])
	fit := onlyNow{plan: p, fits: func(k int) bool { return p.fitsNow(k, job.Cores, job.Walltime) }}
	k := e.sch.Choose(&fit)
	e.out.Plannings++
	if k < 0 || !fit.fits(k) {
		return
	}
	e.commit(j, k, p.now)
}

// onlyNow shows a scheduler only the nodes that can start the job now.
type onlyNow struct {
	*plan
	fits func(k int) bool
	cur  nowCursor
	fcur listCursor
}

// Ascend stops at the nodes whose bound passes now: none can start now.
func (o *onlyNow) Ascend(lo, hi int) sched.Cursor {
	c := o.plan.Ascend(lo, hi)
	if nc, ok := c.(*bfNowCursor); ok {
		nc.nowOnly = true // its first nodes are exactly those that fit now
		return nc
	}
	o.cur = nowCursor{c, o.plan.now}
	return &o.cur
}

// AscendFile lists the nodes with the file, each bounded by now (a lower
// bound: Start says which of them can start the job now).
func (o *onlyNow) AscendFile() sched.Cursor {
	p := o.plan
	p.nowFiles = p.nowFiles[:0]
	for _, k := range p.fileNodesOf() {
		p.nowFiles = append(p.nowFiles, pack(p.now, int(k)))
	}
	o.fcur = listCursor{ord: p.nowFiles}
	return &o.fcur
}

type nowCursor struct {
	sched.Cursor
	now int64
}

func (c *nowCursor) Next() (int, int64, bool) {
	k, b, ok := c.Cursor.Next()
	return k, b, ok && b <= c.now
}

// Start of a node that cannot host the job now is "never": no scheduler
// picks it over one that can.
func (o *onlyNow) Start(k int) int64 {
	if o.fits(k) {
		return o.plan.now
	}
	return 1 << 40
}

func (e *engine) unplan(j int) {
	e.planned[j] = -1
}

// startPlanned starts the jobs planned at t, in queue order (start_jobs).
func (e *engine) startPlanned(t int64) {
	started := false
	for len(e.starts) > 0 && e.starts[0].t <= t {
		it := e.starts.Pop()
		if it.t == t && e.planned[it.j] == t && !e.res[it.j].Started {
			e.start(it.j, t)
			started = true
		}
	}
	if started {
		e.queue = slices.DeleteFunc(e.queue, func(j int) bool { return e.res[j].Started })
	}
}

// start runs job j on its planned node at t.
func (e *engine) start(j int, t int64) {
	job := &e.js[j]
	k := int(e.planNode[j])
	r := &e.res[j]
	r.Started, r.Start, r.Node = true, t, int32(k)
	// Its cores: any idle ones (the plan counted them).
	var cores []int
	for i := k * e.C; i < (k+1)*e.C && len(cores) < job.Cores; i++ {
		if e.runJob[i] < 0 {
			cores = append(cores, i-k*e.C)
		}
	}
	if len(cores) != job.Cores {
		panic(fmt.Sprintf("batch: job %d starts at %d on node %d with %d free cores for %d", job.ID, t, k, len(cores), job.Cores))
	}
	for _, c := range cores {
		i := k*e.C + c
		if e.runJob[i] >= 0 {
			panic(fmt.Sprintf("batch: job %d starts at %d on node %d core %d, busy with job %d", job.ID, t, k, c, e.js[e.runJob[i]].ID))
		}
		e.runJob[i], e.runEnd[i] = int32(j), t+job.Walltime
	}
	e.plan.runChanged(k, e.runEnd[k*e.C:(k+1)*e.C])
	// Its file (add_data_in_node).
	var transfer, wait int64
	ready := t
	if fid := e.file[j]; fid != 0 {
		f := e.findFile(k, fid)
		switch {
		case f != nil && e.valid(k, f, t):
			if f.ready > t {
				wait = f.ready - t
			}
		default:
			transfer = jobs.LoadSeconds(job.SizeGB, e.cfg.Cluster.BandwidthGBs)
			if f == nil {
				e.files[k] = append(e.files[k], fileEntry{file: fid, size: job.SizeGB})
				f = &e.files[k][len(e.files[k])-1]
			}
			f.ready = t + transfer
			e.out.Loads++
			e.emit(Event{T: t, Kind: EvLoad, Job: job.ID, Node: k, File: job.File, SizeGB: job.SizeGB, Until: f.ready})
		}
		f.users++
		f.end = max(f.end, t+job.Walltime)
		ready = f.ready
	}
	over := transfer + wait
	end := t + min(job.Duration+over, job.Walltime)
	r.End, r.Transfer, r.Wait = end, int32(transfer), int32(wait)
	if e.nodeJobs[k] == 0 {
		e.runningNodes++
	}
	e.nodeJobs[k]++
	e.ends.Push(endItem{end, j})
	e.startedNow = append(e.startedNow, k)
	if job.Eval {
		e.evalLeft--
		e.out.End = t
		if e.cfg.Progress != nil {
			e.cfg.Progress(e.evalTotal-e.evalLeft, e.evalTotal)
		}
	}
	e.emit(Event{T: t, Kind: EvStart, Job: job.ID, Node: k, Cores: job.Cores, CoreIDs: cores, File: job.File,
		Transfer: transfer, Wait: wait, At: ready, Until: t + job.Walltime})
}

// endJobs ends the jobs finishing at t and returns how many.
func (e *engine) endJobs(t int64) int {
	n := 0
	for len(e.ends) > 0 && e.ends[0].t == t {
		j := e.ends.Pop().j
		job := &e.js[j]
		k := int(e.res[j].Node)
		for i := k * e.C; i < (k+1)*e.C; i++ {
			if e.runJob[i] == int32(j) {
				e.runJob[i], e.runEnd[i] = -1, 0
			}
		}
		e.plan.runChanged(k, e.runEnd[k*e.C:(k+1)*e.C])
		e.nodeJobs[k]--
		if e.nodeJobs[k] == 0 {
			e.runningNodes--
		}
		if fid := e.file[j]; fid != 0 {
			f := e.findFile(k, fid)
			f.users--
			if f.users == 0 {
				f.end = t
			}
		}
		n++
		e.emit(Event{T: t, Kind: EvEnd, Job: job.ID, Node: k})
	}
	return n
}

// valid reports whether file entry f serves a job starting on node k at t.
func (e *engine) valid(k int, f *fileEntry, t int64) bool {
	if f.users > 0 {
		return true
	}
	if e.cfg.Rules.Reuse == "same-second" {
		return f.end == t
	}
	return e.lastStart[k] < f.end && f.end <= t
}

// findFile returns node k's entry for file, dropping entries no rule can
// revive.
func (e *engine) findFile(k, file int) *fileEntry {
	fs := e.files[k]
	var hit *fileEntry
	w := 0
	for i := range fs {
		f := fs[i]
		if f.users == 0 && f.end < e.lastStart[k] && f.file != file {
			continue // evicted for good: a job started on the node after it ended
		}
		fs[w] = f
		if f.file == file {
			hit = &fs[w]
		}
		w++
	}
	e.files[k] = fs[:w]
	return hit
}

func (e *engine) emit(ev Event) {
	if e.cfg.Event != nil {
		e.cfg.Event(ev)
	}
}

type endItem struct {
	t int64
	j int
}

// Before orders ends by time, then job: a deterministic order.
func (a endItem) Before(b endItem) bool { return a.t < b.t || a.t == b.t && a.j < b.j }

type startItem struct {
	t, seq int64
	j      int
}

// Before orders planned starts by time, then place in the queue.
func (a startItem) Before(b startItem) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }
