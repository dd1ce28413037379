// Package dartsdag is the final DARTS of thesis chapter 5 (Alg. 12): task
// graphs whose tasks become ready as their dependencies finish, task
// priorities, the transfer/computation ratio, dataNotInMem maintained as
// tasks become ready and data are evicted, the bypass of free tasks, LUF
// eviction, and one plan per memory node (CPU cores sharing a RAM share
// it, thesis §5.7).
//
// It is a scheduler of its own, not an option of the package darts (the
// IPDPS 2022 / thesis Alg. 9 DARTS): the decision differs at every step
// (ratio and priorities instead of |S_0|; a single decision tree instead of
// 3inputs; dataNotInMem of the ready data only; free tasks pushed at
// release), and both are reproduced side by side, chapter 4's claims with
// darts and chapter 5's with darts-dag (whose tuning for issue 11 stays
// apart). It also schedules independent task sets (every task ready at the
// start), as the thesis checked it on chapter 4's applications.
//
// The state, per memory node k that workers compute from ("PU_k"):
// plannedTasks_k (the plan), the data on k (onNode: valid or requested,
// StarPU's starpu_data_is_on_node: present, or read by a task pulled to
// k's workers and not finished), the planned counts of each data, and
// dataNotInMem_k, an ordered list. Globally: readyTasks (a priority queue)
// and task_left per data. For each node and ready task it keeps the number
// of inputs not on the node, and per data the number and summed duration
// of the ready tasks it alone would free (S_0) and the number one load
// from free (S_1), with the sets of data whose S_0 (S_1) is not empty, so
// that a decision looks at those data only, not at all of dataNotInMem_k.
//
// Rules where the thesis is silent follow StarPU's code of the thesis
// (branch papers/ICPP2023 of starpu-runtime/starpu,
// src/sched_policies/dynamic_data_aware.c, run with the chapter's
// settings of Scripts_maxime/PlaFRIM-Grid5k/cholesky_dependances.sh:
// DOPT_SELECTION_ORDER=7, THRESHOLD=0, CHOOSE_BEST_DATA_FROM=0,
// SIMULATE_MEMORY=0, TASK_ORDER=2, DATA_ORDER=2, DEPENDANCES=1, PRIO=1,
// FREE_PUSHED_TASK_POSITION=1, HIGHEST_PRIORITY_TASK_RETURNED_IN_DEFAULT_CASE=1,
// EVICTION_STRATEGY_DYNAMIC_DATA_AWARE=1, STARPU_SCHED_READY=1); the
// function is named beside each rule.
package dartsdag

import (
	"fmt"
	"math"
	"slices"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Free-task placement rules (the bypass of readyTasks).
const (
	// FreePushFewest: "If several PUs qualify, we first consider the one
	// with the fewest-queued tasks" (thesis §5.2.2; upstream value 1 of
	// PUSH_FREE_TASK_ON_GPU_WITH_LEAST_TASK_IN_PLANNED_TASK).
	FreePushFewest = "fewest-planned"
	// FreePushRoundRobin: the PUs in turn from a cursor advanced at every
	// push (upstream value 2, the one the chapter's scripts set).
	FreePushRoundRobin = "round-robin"
)

func init() {
	schedulers.Register(schedulers.Spec{
		Name: "darts-dag", Version: 1,
		Doc: "DARTS final version (thesis Alg. 12, ch. 5): per memory node, load the data minimising transfer time / duration of the ready tasks it frees " +
			"(ties: more free tasks, higher priority, more tasks one load from free, more remaining work), else the highest-priority task one load from free, " +
			"else the highest-priority ready task; free tasks bypass readyTasks; LUF eviction; one plan per memory node",
		Params: dagParams,
		// One taskBuffer per memory node: CPU cores sharing a RAM share it
		// (thesis §5.7; the ICPP2023 tree, STARPU_SCHED_SIMPLE_DECIDE_MEMNODES,
		// puts one fifo of STARPU_NTASKS_THRESHOLD tasks per memory node).
		NodeBuffer: true,
		New:        dagNew,
	})
}

var dagParams, dagNew = schedulers.Typed(func(a *schedulers.Args, o *Options) {
	a.Shared(schedulers.PriorityParam, &o.Priority)
	a.String(&o.FreePush, "free_push", FreePushFewest, []string{FreePushFewest, FreePushRoundRobin},
		"node a released free task goes to when several qualify: fewest-planned (thesis §5.2.2) or round-robin (upstream PUSH_FREE_TASK_ON_GPU_WITH_LEAST_TASK_IN_PLANNED_TASK=2, the chapter's scripts)")
	a.Choice(&o.LUF, "luf", "eviction", "luf", []string{"luf", "lru"},
		"luf: Least Used in the Future (thesis Alg. 10, §5.2.3), withdrawing the planned tasks that read the victim; lru: the runtime's")
	a.Bool(&o.Ready, "ready", true, "a worker starts the buffered task with the fewest bytes to load (the chapter's scripts set STARPU_SCHED_READY=1); false: plan order")
	a.Int(&o.Threshold, "threshold", 0, "examine at most this many data of dataNotInMem per decision; 0 = all (upstream THRESHOLD=0, the chapter's setting)").Min(0)
}, func(o Options) (schedulers.Scheduler, error) { return New(o), nil })

// Options are the scheduler's parameters (see dagParams).
type Options struct {
	Priority  string
	FreePush  string
	LUF       bool
	Ready     bool
	Threshold int
}

// Task states.
const (
	stWaiting uint8 = iota // dependencies not done
	stReady                // in readyTasks
	stPlanned              // in some plannedTasks
	stPulled               // handed to a worker (taskBuffer), not finished
	stDone
)

// DARTS is the scheduler; it is also an Evictor, a Popper and an Observer.
type DARTS struct {
	opt Options
	v   schedulers.View

	inputs  taskInputs // per task, deduplicated
	readers readers    // per data, the ready tasks reading it
	state   []uint8
	prio    []float64
	prioCap []float64 // per data, the highest priority of a task reading it
	prioLow []float64 // per data, the lowest
	work    []int64   // per task, expected duration in ps on the fastest kind (task_left)

	ready     *schedulers.PrioQueue
	readySeq  []uint64 // per ready task, when it entered readyTasks
	seq       uint64
	taskLeft  []int64 // per data, summed work of its ready tasks (ps)
	readyUses []int32 // per data, ready tasks reading it

	nodes     []*node // per memory node; nil for nodes no worker computes from
	rr        int     // round-robin cursor of free pushes
	planStamp []uint32
	planOf    []int32
	stamp     uint32
	scratch   []int32
	order     []*node // freeNode's scratch
}

// node is one PU_k: a memory node and the workers computing from it.
type node struct {
	id       int
	worker   int       // its first worker (transfer estimates, kind)
	dur      []int64   // per task, duration on its workers in ps; < 0: they cannot run it
	runsAll  bool      // no dur < 0: the node's workers can run every task
	present  []bool    // valid or loading on the node (engine events)
	pulled   []int32   // per data, tasks pulled to the node's workers and not finished
	planned  []int32   // per data, tasks of the plan reading it
	miss     []missing // per ready task, its inputs not on the node
	s0, s1   counts    // per data, ready tasks it alone would free / one load from free
	s0w      []int64   // per data, their summed duration (ps)
	prioOf   []float64 // per data, max_prio as last computed
	prioOK   []bool    // per data, prioOf is current (S_0 and S_1 unchanged since)
	plan     []planned // plannedTasks; dead entries are skipped
	head     int
	live     int
	freeEnd  int      // plan[head:freeEnd] holds free tasks only (insertFree)
	list     dataList // dataNotInMem
	suspects []int32  // listed data that may have left the set since the last decision
	suspect  []bool   // per data, in suspects
	first    bool     // no task pulled yet: the first one is the highest-priority ready task
	pulls    []int32  // tasks pulled and not finished, in pull order (Belady)
	nb       []uint32 // LUF scratch: stamp of the data read by pulled tasks
	nbPos    []int32  // LUF scratch: position of their first use
	stampLUF uint32
}

// missing is what a ready task misses on a node in one word, so that a
// data's arrival or departure reads and writes one place per reader: the
// number of its inputs not on the node (top byte; a task has at most 250)
// and the XOR of their ids (below; ids are under maxData), which names the
// one missing input when the count is 1.
type missing uint32

// maxData bounds the data of a workload (ids fit in missing's low 24 bits).
const maxData = 1 << 24

func (m missing) n() uint8               { return uint8(m >> 24) }
func (m missing) xor() int32             { return int32(m & (maxData - 1)) }
func (m missing) add(x int32) missing    { return (m + 1<<24) ^ missing(x) }
func (m missing) remove(x int32) missing { return (m - 1<<24) ^ missing(x) }

type planned struct {
	task  int32
	stamp uint32
}

// New builds the scheduler.
func New(o Options) *DARTS { return &DARTS{opt: o} }

func (d *DARTS) Init(v schedulers.View) error {
	d.v = v
	w := v.Workload()
	nt, nd := len(w.Tasks), len(w.Data)
	if nd > maxData {
		return fmt.Errorf("darts-dag: %d data, at most %d supported", nd, maxData)
	}
	prio, err := schedulers.Priorities(v, d.opt.Priority)
	if err != nil {
		return err
	}
	d.prio = prio
	first := make([]int32, nt+1)
	total := 0
	for _, t := range w.Tasks {
		total += len(t.Inputs)
	}
	all := make([]int32, 0, total) // every task's inputs, one after the other
	for i, t := range w.Tasks {
		first[i] = int32(len(all))
		for _, x := range t.Inputs {
			if !slices.Contains(all[first[i]:], int32(x)) {
				all = append(all, int32(x))
			}
		}
		if n := len(all) - int(first[i]); n > 250 {
			return fmt.Errorf("darts-dag: task %d has %d inputs, at most 250 supported", i, n)
		}
	}
	first[nt] = int32(len(all))
	d.inputs = taskInputs{first: first, all: all}
	d.readers = newReaders(nd, d.inputs)
	d.prioCap, d.prioLow = make([]float64, nd), make([]float64, nd)
	for x := range nd {
		d.prioCap[x], d.prioLow[x] = math.Inf(-1), math.Inf(1)
	}
	for t := range nt {
		for _, x := range d.inputs.of(int32(t)) {
			d.prioCap[x] = max(d.prioCap[x], prio[t])
			d.prioLow[x] = min(d.prioLow[x], prio[t])
		}
	}
	d.state = make([]uint8, nt)
	d.readySeq = make([]uint64, nt)
	d.planStamp = make([]uint32, nt)
	d.planOf = make([]int32, nt)
	d.taskLeft = make([]int64, nd)
	d.readyUses = make([]int32, nd)
	d.ready = schedulers.NewPrioQueue(d.prio)
	d.ready.Reserve(schedulers.ReadyAtStart(w))
	p := v.Platform()
	d.nodes = make([]*node, v.Nodes())
	for k := v.Workers() - 1; k >= 0; k-- { // so that each node keeps its first worker
		id := v.WorkerNode(k)
		n := d.nodes[id]
		if n == nil {
			n = &node{id: id, present: make([]bool, nd), pulled: make([]int32, nd), planned: make([]int32, nd),
				miss: make([]missing, nt), s0: newCounts(nd), s1: newCounts(nd), s0w: make([]int64, nd),
				list: newDataList(nd), suspect: make([]bool, nd), first: true, prioOf: make([]float64, nd), prioOK: make([]bool, nd), nb: make([]uint32, nd), nbPos: make([]int32, nd)}
			d.nodes[id] = n
		}
		n.worker = k
	}
	var kinds [][]int64 // the durations per worker kind, which its nodes share
	byKind := map[string][]int64{}
	for _, n := range d.nodes {
		if n == nil {
			continue
		}
		kind := v.WorkerKind(n.worker)
		if n.dur = byKind[kind]; n.dur == nil {
			if n.dur, err = durations(w, schedulers.NewKernelTimes(p, kind)); err != nil {
				return err
			}
			byKind[kind] = n.dur
			kinds = append(kinds, n.dur)
		}
		n.runsAll = !slices.ContainsFunc(n.dur, func(ps int64) bool { return ps < 0 })
	}
	d.work = make([]int64, nt)
	for i := range d.work {
		best := int64(-1)
		for _, dur := range kinds {
			if dur[i] >= 0 && (best < 0 || dur[i] < best) {
				best = dur[i]
			}
		}
		d.work[i] = best
	}
	for _, n := range d.nodes {
		if n != nil {
			for x := range nd {
				n.present[x] = v.Present(n.worker, x)
			}
		}
	}
	return nil
}

// durations gives each task's duration in ps on a worker kind, -1 where
// the kind cannot run it.
func durations(w *workloads.Workload, times *schedulers.KernelTimes) ([]int64, error) {
	dur := make([]int64, len(w.Tasks))
	for i := range w.Tasks {
		s, ok, err := times.Seconds(&w.Tasks[i])
		if err != nil {
			return nil, err
		}
		dur[i] = -1
		if ok {
			dur[i] = ps(s)
		}
	}
	return dur, nil
}

// ps converts seconds to integer picoseconds, so that sums of durations are
// exact and equal sets tie exactly.
func ps(s float64) int64 { return int64(math.Round(s * 1e12)) }

func (n *node) onNode(x int32) bool { return n.present[x] || n.pulled[x] > 0 }

// Push receives a task whose dependencies are done: straight into a plan
// when it is free on some node (its inputs on the node or planned for it),
// else into readyTasks.
func (d *DARTS) Push(t int) {
	if k := d.freeNode(int32(t)); k != nil {
		d.insertFree(k, int32(t))
		return
	}
	d.enterReady(int32(t))
}

// freeNode is the node a released task is free on, in the order of
// FreePush (dynamic_data_aware_push_task, is_my_task_free), nil if none.
func (d *DARTS) freeNode(t int32) *node {
	order := d.order[:0]
	for _, n := range d.nodes {
		if n != nil && n.dur[t] >= 0 {
			order = append(order, n)
		}
	}
	d.order = order
	if len(order) == 0 {
		return nil
	}
	r := 0
	switch d.opt.FreePush {
	case FreePushRoundRobin:
		d.rr++
		r = d.rr % len(order)
	default:
		// Stable insertion sort by planned tasks (a few nodes).
		for i := 1; i < len(order); i++ {
			for j := i; j > 0 && order[j-1].live > order[j].live; j-- {
				order[j-1], order[j] = order[j], order[j-1]
			}
		}
	}
	for i := range order {
		if n := order[(r+i)%len(order)]; d.freeOn(n, t) {
			return n
		}
	}
	return nil
}

// freeOn reports whether each input of t is on the node or planned for it.
func (d *DARTS) freeOn(n *node, t int32) bool {
	for _, x := range d.inputs.of(t) {
		if !n.onNode(x) && n.planned[x] == 0 {
			return false
		}
	}
	return true
}

// insertFree puts a released free task in the plan before the first task
// with an input not on the node, i.e. after the free prefix
// (FREE_PUSHED_TASK_POSITION=1).
func (d *DARTS) insertFree(n *node, t int32) {
	d.markPlanned(n, t)
	i := d.freePrefix(n)
	if checking {
		d.checkFreePrefix(n, i)
	}
	n.plan = slices.Insert(n.plan, i, planned{t, d.planStamp[t]})
}

// freePrefix is the position of the plan's first live task with an input
// not on the node (len(plan) if none). The search resumes at n.freeEnd,
// before which every live task of the plan had its inputs on the node when
// last seen; setOnNode moves n.freeEnd back to the head when a data the plan
// reads leaves the node, so each task is checked about once between such
// departures instead of at every insertion.
func (d *DARTS) freePrefix(n *node) int {
	i := max(n.freeEnd, n.head)
	for ; i < len(n.plan); i++ {
		if e := n.plan[i]; d.alive(n, e) && !d.allOnNode(n, e.task) {
			break
		}
	}
	n.freeEnd = i
	return i
}

func (d *DARTS) allOnNode(n *node, t int32) bool {
	for _, x := range d.inputs.of(t) {
		if !n.onNode(x) {
			return false
		}
	}
	return true
}

func (d *DARTS) alive(n *node, e planned) bool {
	return d.state[e.task] == stPlanned && int(d.planOf[e.task]) == n.id && d.planStamp[e.task] == e.stamp
}

func (d *DARTS) markPlanned(n *node, t int32) {
	d.state[t] = stPlanned
	d.planOf[t] = int32(n.id)
	d.stamp++
	d.planStamp[t] = d.stamp
	n.live++
	for _, x := range d.inputs.of(t) {
		if n.planned[x]++; n.planned[x] == 1 {
			n.suspectData(x)
		}
	}
}

// plan appends a ready task to a plan.
func (d *DARTS) plan(n *node, t int32) {
	d.leaveReady(t)
	d.markPlanned(n, t)
	n.plan = append(n.plan, planned{t, d.planStamp[t]})
}

// enterReady adds a task to readyTasks (initialize_task_data_gpu_single_task_v3):
// it counts on every node, and its inputs neither on a node nor planned
// there join that node's dataNotInMem (thesis §5.2.2).
func (d *DARTS) enterReady(t int32) {
	d.state[t] = stReady
	d.seq++
	d.readySeq[t] = d.seq
	d.ready.Push(int(t))
	d.readers.add(t)
	in := d.inputs.of(t)
	for _, x := range in {
		d.taskLeft[x] += d.work[t]
		d.readyUses[x]++
	}
	for _, n := range d.nodes {
		if n == nil || n.dur[t] < 0 {
			continue
		}
		m := missing(0)
		for _, x := range in {
			if n.onNode(x) {
				continue
			}
			m = m.add(x)
			if !n.list.has(x) && n.planned[x] == 0 {
				n.list.push(x) // DATA_ORDER=2: natural order
			}
		}
		n.miss[t] = m
		d.count(n, t, in, 1)
	}
}

func (d *DARTS) leaveReady(t int32) {
	d.ready.Remove(int(t))
	d.readers.remove(t)
	in := d.inputs.of(t)
	for _, x := range in {
		d.taskLeft[x] -= d.work[t]
		if d.readyUses[x]--; d.readyUses[x] == 0 {
			for _, m := range d.nodes {
				if m != nil {
					m.suspectData(x)
				}
			}
		}
	}
	for _, n := range d.nodes {
		if n != nil && n.dur[t] >= 0 {
			d.count(n, t, in, -1)
		}
	}
}

// count adds (sign 1) or removes (-1) ready task t's contribution to the
// node's S_0 and S_1 counters, given its inputs in, n.miss[t] and onNode.
func (d *DARTS) count(n *node, t int32, in []int32, sign int32) {
	switch m := n.miss[t]; m.n() {
	case 1:
		x := m.xor()
		n.s0.add(x, sign)
		n.s0w[x] += int64(sign) * n.dur[t]
		n.prioOK[x] = false
	case 2:
		for _, x := range in {
			if !n.onNode(x) {
				n.s1.add(x, sign)
				n.prioOK[x] = false
			}
		}
	}
}

// setOnNode updates the counters of the ready tasks reading x when x
// arrives on (or leaves) the node: each reader moves from its class by
// its missing inputs (S_0 of its one missing input, S_1 of its two) to the
// next. The XOR of its missing inputs names the other one of two, so that
// only a reader missing three inputs, before or after, has its inputs read.
func (d *DARTS) setOnNode(n *node, x int32, present bool, pulled int32) {
	before := n.onNode(x)
	n.present[x], n.pulled[x] = present, pulled
	after := n.onNode(x)
	if before == after {
		return
	}
	if !after && n.planned[x] > 0 {
		n.freeEnd = 0 // a planned task may no longer be free: search from the head
	}
	if after {
		n.suspectData(x)
	}
	for _, t := range d.readers.of[x] {
		if !n.runsAll && n.dur[t] < 0 {
			continue
		}
		m := n.miss[t]
		if after {
			n.miss[t] = m.remove(x)
			d.arrived(n, t, x, m)
		} else {
			n.miss[t] = m.add(x)
			d.left(n, t, x, m)
		}
	}
}

// arrived moves ready task t, which missed m, x among them, to its class
// once x is on the node.
func (d *DARTS) arrived(n *node, t, x int32, m missing) {
	switch m.n() {
	case 1: // S_0(x) -> free
		n.s0.add(x, -1)
		n.s0w[x] -= n.dur[t]
		n.prioOK[x] = false
	case 2: // S_1(x), S_1(y) -> S_0(y)
		y := m.xor() ^ x
		n.s1.add(x, -1)
		n.s1.add(y, -1)
		n.s0.add(y, 1)
		n.s0w[y] += n.dur[t]
		n.prioOK[x], n.prioOK[y] = false, false
	case 3: // -> S_1 of the two still missing
		y, z := d.missingTwo(n, t, x)
		n.s1.add(y, 1)
		n.s1.add(z, 1)
		n.prioOK[y], n.prioOK[z] = false, false
	}
}

// left moves ready task t, which missed m, x not among them, to its class
// once x has left the node.
func (d *DARTS) left(n *node, t, x int32, m missing) {
	switch m.n() {
	case 0: // free -> S_0(x)
		n.s0.add(x, 1)
		n.s0w[x] += n.dur[t]
		n.prioOK[x] = false
	case 1: // S_0(y) -> S_1(x), S_1(y)
		y := m.xor()
		n.s0.add(y, -1)
		n.s0w[y] -= n.dur[t]
		n.s1.add(x, 1)
		n.s1.add(y, 1)
		n.prioOK[x], n.prioOK[y] = false, false
	case 2: // S_1 of the two missing before -> neither
		y, z := d.missingTwo(n, t, x)
		n.s1.add(y, -1)
		n.s1.add(z, -1)
		n.prioOK[y], n.prioOK[z] = false, false
	}
}

// missingTwo names the two inputs of t other than x not on the node (a
// task has two whenever arrived or left asks), in one pass over its inputs.
func (d *DARTS) missingTwo(n *node, t, x int32) (y, z int32) {
	y = -1
	for _, in := range d.inputs.of(t) {
		if in == x || n.onNode(in) {
			continue
		}
		if y >= 0 {
			return y, in
		}
		y = in
	}
	panic(fmt.Sprintf("darts-dag: node %d: task %d misses fewer inputs than counted", n.id, t))
}

// Idle says the node's plan is used up and no task is ready: Pull would
// plan nothing and find nothing.
func (d *DARTS) Idle(w int) bool {
	n := d.nodes[d.v.WorkerNode(w)]
	return n.live == 0 && d.ready.Len() == 0 && n.head >= len(n.plan)
}

// Pull returns the head of the plan of the worker's node, filling an empty
// plan first (get_task_to_return_pull_task_dynamic_data_aware).
func (d *DARTS) Pull(w int) (int, bool) {
	n := d.nodes[d.v.WorkerNode(w)]
	if n.live == 0 && d.ready.Len() > 0 {
		n.plan, n.head, n.freeEnd = n.plan[:0], 0, 0
		if n.first {
			// The first request skips the data search: the highest-priority
			// ready task (HIGHEST_PRIORITY_TASK_RETURNED_IN_DEFAULT_CASE=1).
			if t, ok := d.ready.Head(); ok && n.dur[t] >= 0 {
				d.planWithInputs(n, int32(t))
			}
		} else {
			d.decide(n)
		}
	}
	for n.head < len(n.plan) {
		e := n.plan[n.head]
		n.head++
		if !d.alive(n, e) {
			continue
		}
		n.first = false
		n.live--
		t := e.task
		d.state[t] = stPulled
		for _, x := range d.inputs.of(t) {
			n.planned[x]--
			d.setOnNode(n, x, n.present[x], n.pulled[x]+1)
		}
		n.pulls = append(n.pulls, t)
		return int(t), true
	}
	return 0, false
}

// planWithInputs plans one task and takes its inputs out of dataNotInMem.
func (d *DARTS) planWithInputs(n *node, t int32) {
	d.plan(n, t)
	for _, x := range d.inputs.of(t) {
		d.dropData(n, x)
	}
}

// candidate is one data of dataNotInMem with the keys Alg. 12 compares.
type candidate struct {
	data     int32
	ratio    float64 // transfer duration / duration of the tasks it frees; +Inf when it frees none
	nfree    int32
	prio     float64 // max priority of S_0, or of S_1 when S_0 is empty; computed when needed
	hasPrio  bool
	n1       int32
	taskLeft int64
}

// decide fills an empty plan (Alg. 12, dynamic_data_aware_scheduling_3D_matrix
// with update_best_data_single_decision_tree, DOPT_SELECTION_ORDER=7).
func (d *DARTS) decide(n *node) {
	best, ok := d.choose(n)
	if !ok {
		best = d.scan(n)
	}
	if checking {
		d.check(n, best, ok)
	}
	switch {
	case best.data >= 0 && best.nfree > 0:
		// Append S_0(D_opt) in the order upstream lists the tasks of a data
		// (latest ready first), and take D_opt out of dataNotInMem.
		ts := d.scratch[:0]
		for _, t := range d.readers.of[best.data] {
			if n.dur[t] >= 0 && n.miss[t].n() == 1 {
				ts = append(ts, t)
			}
		}
		slices.SortFunc(ts, func(a, b int32) int { return cmpDesc(d.readySeq[a], d.readySeq[b]) })
		for _, t := range ts {
			d.plan(n, t)
		}
		d.scratch = ts
		d.dropData(n, best.data)
	case best.data >= 0 && best.n1 > 0:
		if t := d.bestOneFromFree(n, best.data); t >= 0 {
			d.planWithInputs(n, t)
		}
	default:
		if t, ok := d.ready.Head(); ok && n.dur[t] >= 0 {
			d.planWithInputs(n, int32(t))
		}
	}
}

// scan is upstream's scan of dataNotInMem: it drops the data no longer in
// the set and keeps the first of fully tied data (a candidate replaces the
// best only when strictly better at the first differing key).
func (d *DARTS) scan(n *node) candidate {
	best := candidate{data: -1, ratio: math.Inf(1), prio: math.Inf(-1), hasPrio: true}
	examined := 0
	for _, e := range n.list.entries {
		x := e.data
		if !n.list.live(e) {
			continue
		}
		if d.stale(n, x) {
			n.list.drop(x) // no longer in the set: no ready task reads it, or it is on (or planned for) the node
			continue
		}
		c := d.candidate(n, x)
		if d.better(n, &c, &best) {
			best = c
		}
		if examined++; d.opt.Threshold > 0 && examined >= d.opt.Threshold {
			break
		}
	}
	n.list.compact()
	return best
}

// choose is scan's choice (when THRESHOLD=0) from the few data that can
// win, the data of s0 then those of s1, with list order breaking full ties.
// A listed data that frees a task with a ratio that is not NaN beats every
// data that frees none (a smaller ratio, or the same +Inf and more free
// tasks); scan never keeps a NaN ratio. Failing those, a data one load
// from a free task beats one that is not (max_prio > -Inf), and when no
// listed data is either, the decision ignores which data scan keeps.
// ok is false when scan must decide: THRESHOLD > 0, or a max_prio of -Inf.
func (d *DARTS) choose(n *node) (best candidate, ok bool) {
	if d.opt.Threshold > 0 {
		return best, false
	}
	d.dropStale(n)
	if best, ok = d.bestOf(n, n.s0.members, true); ok {
		return best, true
	}
	if best, ok = d.bestOf(n, n.s1.members, false); ok {
		d.priority(n, &best)
		return best, best.prio > math.Inf(-1)
	}
	return candidate{data: -1}, true
}

// bestOf is the first in list order of the best listed data among xs that
// free a task (with a ratio that is not NaN), or that free none. The first
// two keys (ratio, free tasks) decide most comparisons; on the 2D product
// two thirds of the data tie on both, and a tie is broken (tieBeats)
// without building a candidate.
func (d *DARTS) bestOf(n *node, xs []int32, freeing bool) (best candidate, ok bool) {
	for _, x := range xs {
		nfree := n.s0.n[x]
		if !n.list.has(x) || (nfree > 0) != freeing {
			continue
		}
		ratio := math.Inf(1)
		if freeing {
			ratio = d.ratio(n, x)
		}
		switch {
		case ratio != ratio: // a NaN ratio never wins
			continue
		case !ok || ratio < best.ratio || ratio == best.ratio && nfree > best.nfree:
		case ratio > best.ratio || nfree < best.nfree || !d.tieBeats(n, x, &best):
			continue // worse, or tied on both and not better on the others
		}
		best, ok = candidate{data: x, ratio: ratio, nfree: nfree, n1: n.s1.n[x], taskLeft: d.taskLeft[x]}, true
	}
	return best, ok
}

// tieBeats reports whether listed data x, tied with best on the ratio and
// the free tasks, beats it on the other keys, or on list order when tied
// on all.
func (d *DARTS) tieBeats(n *node, x int32, best *candidate) bool {
	n1 := n.s1.n[x]
	d.priority(n, best)
	r := compareTied(d.maxPrio(n, x, best.nfree, n1), n1, d.taskLeft[x], best)
	return r < 0 || r == 0 && n.list.before(x, best.data)
}

// candidate gathers the keys of a listed data.
func (d *DARTS) candidate(n *node, x int32) candidate {
	c := candidate{data: x, ratio: math.Inf(1), nfree: n.s0.n[x], n1: n.s1.n[x], taskLeft: d.taskLeft[x]}
	if c.nfree > 0 {
		c.ratio = d.ratio(n, x)
	}
	return c
}

// ratio is the transfer time of x over the duration of the tasks it frees.
func (d *DARTS) ratio(n *node, x int32) float64 {
	return d.v.TransferSeconds(n.worker, int(x)) / (float64(n.s0w[x]) * 1e-12)
}

// better reports whether c beats the best so far: smaller ratio, then more
// free tasks, higher priority, more tasks one load from free, strictly
// more remaining work (thesis Alg. 12 line 6).
func (d *DARTS) better(n *node, c, b *candidate) bool { return d.compare(n, c, b) < 0 }

// compare is -1 when c beats b, 1 when b beats c (or either ratio is NaN
// and they differ), 0 when neither does.
func (d *DARTS) compare(n *node, c, b *candidate) int {
	if c.ratio != b.ratio {
		return prefer(c.ratio < b.ratio)
	}
	if c.nfree != b.nfree {
		return prefer(c.nfree > b.nfree)
	}
	d.priority(n, c)
	d.priority(n, b)
	return compareTied(c.prio, c.n1, c.taskLeft, b)
}

// compareTied is compare of a data tied with b on the ratio and the free
// tasks, given its max_prio, tasks one load from free and remaining work
// (b's max_prio filled).
func compareTied(prio float64, n1 int32, taskLeft int64, b *candidate) int {
	if prio != b.prio {
		return prefer(prio > b.prio)
	}
	if n1 != b.n1 {
		return prefer(n1 > b.n1)
	}
	if taskLeft != b.taskLeft {
		return prefer(taskLeft > b.taskLeft)
	}
	return 0
}

func prefer(first bool) int {
	if first {
		return -1
	}
	return 1
}

// priority fills max_prio: the highest priority of S_0 when it is not
// empty, else of S_1, -Inf when both are (thesis §5.2.2).
func (d *DARTS) priority(n *node, c *candidate) {
	if !c.hasPrio {
		d.fillPriority(n, c)
	}
}

func (d *DARTS) fillPriority(n *node, c *candidate) {
	c.prio, c.hasPrio = d.maxPrio(n, c.data, c.nfree, c.n1), true
}

// maxPrio is max_prio of data x, which frees nfree ready tasks and brings
// n1 one load from free.
func (d *DARTS) maxPrio(n *node, x, nfree, n1 int32) float64 {
	if nfree == 0 && n1 == 0 {
		return math.Inf(-1)
	}
	want := uint8(2)
	if nfree > 0 {
		want = 1
	}
	var prio float64
	switch {
	case n.prioOK[x]: // S_0 and S_1 of this data unchanged since (arrived, left, count)
		prio = n.prioOf[x]
	case d.prioLow[x] == d.prioCap[x]:
		// Every reader of x has the same priority (independent tasks), and
		// so has the set, which is not empty.
		prio = d.prioCap[x]
	default:
		// The scan stops at the data's highest priority, which no reader can
		// pass, instead of reading all of a data's ready readers at each
		// decision.
		prio = math.Inf(-1)
		for _, t := range d.readers.of[x] {
			if n.dur[t] >= 0 && n.miss[t].n() == want && d.prio[t] > prio {
				if prio = d.prio[t]; prio == d.prioCap[x] {
					break
				}
			}
		}
		n.prioOf[x], n.prioOK[x] = prio, true
	}
	if checking {
		d.checkPriority(n, x, want, prio)
	}
	return prio
}

// bestOneFromFree is the highest-priority task of S_1(x), the latest ready
// among equals (upstream scans the tasks of a data latest first and keeps a
// strictly higher priority).
func (d *DARTS) bestOneFromFree(n *node, x int32) int32 {
	best := int32(-1)
	for _, t := range d.readers.of[x] {
		if n.dur[t] < 0 || n.miss[t].n() != 2 {
			continue
		}
		if best < 0 || d.prio[t] > d.prio[best] || (d.prio[t] == d.prio[best] && d.readySeq[t] > d.readySeq[best]) {
			best = t
		}
	}
	return best
}

func cmpDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// insertDataRandomly puts x at a uniformly drawn position before an entry
// of dataNotInMem, or at its end when it is empty
// (push_data_not_used_yet_random_spot).
func (d *DARTS) insertDataRandomly(n *node, x int32) {
	if n.list.len() == 0 {
		n.list.push(x)
		return
	}
	n.list.insert(d.v.Rand().IntN(n.list.len()), x)
}

func (d *DARTS) dropData(n *node, x int32) { n.list.drop(x) }

// suspectData notes that x, if listed, may have left the node's
// dataNotInMem set (no ready task reads it, or it is on or planned for the
// node): the next decision checks it, as upstream's scan of the whole list
// would.
func (n *node) suspectData(x int32) {
	if n.list.has(x) && !n.suspect[x] {
		n.suspect[x] = true
		n.suspects = append(n.suspects, x)
	}
}

// stale reports whether a listed x has left the node's dataNotInMem set.
func (d *DARTS) stale(n *node, x int32) bool {
	return d.readyUses[x] == 0 || n.onNode(x) || n.planned[x] > 0
}

// dropStale takes out of dataNotInMem the data that a scan of the whole
// list would drop now: the suspects that are stale.
func (d *DARTS) dropStale(n *node) {
	for _, x := range n.suspects {
		n.suspect[x] = false
		if n.list.has(x) && d.stale(n, x) {
			n.list.drop(x)
		}
	}
	n.suspects = n.suspects[:0]
}

// Pop chooses the buffered task a worker starts: Ready (STARPU_SCHED_READY=1)
// or plan order.
func (d *DARTS) Pop(w int, buffer []int) int {
	if !d.opt.Ready {
		return 0
	}
	return schedulers.Ready(d.v, w, buffer, 0)
}

// Observes says darts-dag follows memory (loads and evictions) and task
// ends, not task starts.
func (d *DARTS) Observes(kind schedulers.EventKind) bool {
	return kind != schedulers.Started && kind != schedulers.Requested
}

// Observe follows memory (data events name the node) and task ends.
func (d *DARTS) Observe(kind schedulers.EventKind, where, id int) {
	switch kind {
	case schedulers.LoadStarted, schedulers.Loaded:
		if n := d.nodes[where]; n != nil {
			d.setOnNode(n, int32(id), true, n.pulled[id])
		}
	case schedulers.Evicted:
		if n := d.nodes[where]; n != nil {
			d.evicted(n, int32(id))
		}
	case schedulers.Finished:
		n := d.nodes[d.v.WorkerNode(where)]
		t := int32(id)
		d.state[t] = stDone
		for _, x := range d.inputs.of(t) {
			d.setOnNode(n, x, n.present[x], n.pulled[x]-1)
		}
		if i := slices.Index(n.pulls, t); i >= 0 {
			n.pulls = slices.Delete(n.pulls, i, i+1)
		}
	}
}
