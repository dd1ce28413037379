// Package darts is DARTS (Data-Aware Reactive Task Scheduling, IPDPS 2022
// Alg. 5; thesis §3.8 Alg. 9) with its LUF eviction (Alg. 10) and the
// 3inputs (Alg. 11), OPTI and threshold variants.
//
// Each worker k owns plannedTasks_k (unbounded) and dataNotInMem_k, the data
// neither present (loaded or loading) nor planned on k. When k asks for a
// task and its plan is empty, DARTS picks D_opt in dataNotInMem_k maximising
// |S_0(D)|, the pool tasks that D alone would make free on k, and moves them
// to the plan; failing that it plans one pool task. LUF evicts the data least
// used by the plan and withdraws the planned tasks that read the victim.
//
// Decisions are O(1) per scanned data: per worker and data DARTS keeps the
// number of pool tasks the data would free (m_k(T) = 1 inputs of T missing
// on k) or bring one load from free (m = 2); these counters move when a data
// joins or leaves k's set and when a task enters or leaves the pool. A data
// joining or leaving k's set updates the pool tasks reading it: each data
// keeps their records (the task and its other inputs) in one array, so the
// update reads memory in order and derives m from k's set, which fits in
// cache, instead of visiting every task reading the data.
//
// Rules where the sources leave a choice (all deterministic for a seed; the
// only randomness is View.Rand()):
//
//   - Scan order of dataNotInMem_k: data ids rotated by k*floor(|D|/K)
//     (upstream natural_order_data_not_used_yet); a data evicted and back in
//     the set regains its place. Data no pool task reads are skipped and do
//     not count toward threshold ("data we can pick from").
//   - D_opt: max |S_0|, then max task_left (pool tasks reading D, the IPDPS
//     count; the thesis' sum of durations is equal for single-kernel sets),
//     then uniformly random among the tied (random_ties, reservoir sampling
//     in scan order) or the first in scan order.
//   - S_0(D_opt) joins the plan in pool order. Pool order is the order of
//     entry into the pool: push order, and a task withdrawn by LUF re-enters
//     at the tail (upstream pushes it back to the main list).
//   - 3inputs: D_1 maximises |S_1| with the same tie rules; its head in pool
//     order is planned (the pseudocode's "head"), with its missing inputs.
//   - The fallback task is uniform over the pool (random_ties) or, without
//     random ties, the one at rank floor(k*|pool|/K) in pool order, so that
//     workers start apart (upstream's first_task_to_pop offsets).
//   - free_tasks: pool tasks already free on k (every input present or
//     planned, e.g. after a fallback marked two data or a reload) are planned
//     first, in pool order. Algorithm 9 read literally never finds them
//     (S_0 only looks at dataNotInMem_k); free_tasks=false keeps that.
//   - A data leaves dataNotInMem_k when it is chosen, when it is an input of
//     a task planned by 3inputs or the fallback, or when it starts loading
//     on k (LoadStarted, or Loaded); it returns on Evicted, whatever the
//     policy, even if a buffered task will reload it.
//   - LUF (see Victim) follows upstream darts_victim_selector; the planned
//     tasks reading the victim are withdrawn when the eviction is observed,
//     so that it happens exactly once per eviction.
//   - Task priorities and upstream's Dopt_selection_order=7 ratio (the
//     Chapter 5 revision) are not used: this is the Chapter 4/IPDPS DARTS.
package darts

import (
	"fmt"
	"slices"

	"github.com/memsched/memsched/schedulers"
)

func init() {
	schedulers.Register(schedulers.Spec{
		Name: "darts",
		Doc:  "DARTS (IPDPS 2022, thesis Alg. 9): per GPU, load the data that frees the most ready tasks and plan them; LUF eviction (Alg. 10); variants 3inputs (Alg. 11), opti, threshold",
		Params: []schedulers.Param{
			{Name: "eviction", Kind: "string", Default: "luf", Choices: []string{"luf", "lru"},
				Doc: "luf: Least Used in the Future (thesis Alg. 10), withdrawing planned tasks that read the victim; lru: the runtime's LRU (plain DARTS)"},
			{Name: "3inputs", Kind: "bool", Default: "false",
				Doc: "when no data frees a task, plan the head of S_1(D) for the D maximising S_1 (tasks one more load from free) before falling back to a random task (thesis Alg. 11)"},
			{Name: "opti", Kind: "bool", Default: "false",
				Doc: "stop the data scan at the first data that frees a task (thesis §3.8.3; upstream STARPU_DARTS_THRESHOLD=2)"},
			{Name: "threshold", Kind: "int", Default: "0",
				Doc: "scan at most this many data of dataNotInMem per decision; 0 = all (upstream uses 110 for 2D with >14400 tasks, else 200; thesis: only for working sets >3500 MB)"},
			{Name: "random_ties", Kind: "bool", Default: "true",
				Doc: "break ties (and pick the fallback task) at random, so GPUs rarely compete for the same data (thesis); false = first in scan order, fallback at rank k*|pool|/K"},
			{Name: "free_tasks", Kind: "bool", Default: "true",
				Doc: "plan pool tasks whose inputs are all present or planned on the worker before choosing a new data; false = Alg. 9 literally (only the fallback reaches them)"},
		},
		New: func(p schedulers.Params) (schedulers.Scheduler, error) {
			o := Options{
				LUF:         p.String("eviction") != "lru",
				ThreeInputs: p.Bool("3inputs"),
				Opti:        p.Bool("opti"),
				Threshold:   p.Int("threshold"),
				RandomTies:  p.Bool("random_ties"),
				FreeTasks:   p.Bool("free_tasks"),
			}
			if o.Threshold < 0 {
				return nil, fmt.Errorf("darts: threshold=%d must be >= 0 (0 = scan every data)", o.Threshold)
			}
			return New(o), nil
		},
	})
}

// Options are DARTS's parameters (see the registration for their meaning).
type Options struct {
	LUF         bool
	ThreeInputs bool
	Opti        bool
	Threshold   int
	RandomTies  bool
	FreeTasks   bool
}

// Task states.
const (
	stNew  uint8 = iota // not pushed yet (dependencies)
	stPool              // in the shared ready pool
	stPlan              // in some worker's plannedTasks
	stGone              // returned by Pull: owned by the runtime
)

// DARTS is the scheduler; it implements Evictor and Observer too.
type DARTS struct {
	opt Options
	v   schedulers.View
	nw  int

	in    []int32 // inputs of task t, deduplicated: in[inOff[t]:inOff[t+1]]
	inOff []int32
	state []uint8
	// Per data, the records of the pool tasks reading it: the task, the
	// number n of its other inputs, then those n inputs; a task leaving
	// the pool leaves -1 in place of its id (recPos finds its records:
	// per input slot, the record's offset) and the array is compacted once
	// half of it is dead.
	rec    [][]int32
	dead   []int32 // per data, words of dead records
	recPos []int32 // per input slot (as in), offset of the task's record

	// The pool, ordered by entry: slot i of the order holds slots[i]
	// (-1 when vacated); the Fenwick tree counts occupied slots so that
	// the r-th pool task is found in O(log n).
	slot     []int32 // per pool task, its slot
	slots    []int32
	fen      []int32 // 1-based Fenwick tree over slots
	poolN    int
	taskLeft []int32 // per data, pool tasks reading it

	planOf  []int32 // per planned task, its worker
	planPos []int32 // per planned task, its index in that worker's plan

	w []worker

	stamp  uint32 // LUF scratch: data read by the buffer carry the stamp
	nbMark []uint32
	nbPos  []int32
	tmp    []int32
}

type worker struct {
	has     []bool  // per data: present or planned, i.e. not in dataNotInMem
	s0, s1  []int32 // per data: pool tasks missing only it / it and one more
	free    []int32 // pool tasks with miss 0
	freeIdx []int32 // per task, index in free or -1
	order   []int32 // scan order of dataNotInMem
	plan    []int32 // plannedTasks; entries of withdrawn tasks are dead
	head    int
	live    int
	planCnt []int32 // per data, planned tasks reading it (LUF's n_p)
}

// New builds a DARTS scheduler with the given options.
func New(o Options) *DARTS { return &DARTS{opt: o} }

func (d *DARTS) Init(v schedulers.View) error {
	d.v = v
	wl := v.Workload()
	nt, nd := len(wl.Tasks), len(wl.Data)
	d.nw = v.Workers()
	d.inOff = make([]int32, nt+1)
	words := make([]int, nd) // record words per data if every reader is in the pool
	for i, t := range wl.Tasks {
		start := len(d.in)
		for _, x := range t.Inputs {
			if !slices.Contains(d.in[start:], int32(x)) {
				d.in = append(d.in, int32(x))
			}
		}
		n := len(d.in) - start
		if n > 255 {
			return fmt.Errorf("darts: task %d has %d inputs, at most 255 supported", i, n)
		}
		d.inOff[i+1] = int32(len(d.in))
		for _, x := range d.in[start:] {
			words[x] += 1 + n
		}
	}
	d.rec = make([][]int32, nd)
	total := 0
	for _, n := range words {
		total += n
	}
	backing := make([]int32, total)
	for x, n := range words {
		d.rec[x], backing = backing[:0:n], backing[n:]
	}
	d.dead = make([]int32, nd)
	d.recPos = make([]int32, len(d.in))
	d.state = make([]uint8, nt)
	d.slot = make([]int32, nt)
	d.slots = make([]int32, 0, nt)
	d.fen = make([]int32, nt+1)
	d.taskLeft = make([]int32, nd)
	d.planOf = make([]int32, nt)
	d.planPos = make([]int32, nt)
	d.nbMark = make([]uint32, nd)
	d.nbPos = make([]int32, nd)
	d.w = make([]worker, d.nw)
	for k := range d.w {
		w := &d.w[k]
		w.has = make([]bool, nd)
		w.s0 = make([]int32, nd)
		if d.opt.ThreeInputs {
			w.s1 = make([]int32, nd)
		}
		w.freeIdx = make([]int32, nt)
		for i := range w.freeIdx {
			w.freeIdx[i] = -1
		}
		w.planCnt = make([]int32, nd)
		w.order = make([]int32, nd)
		off := 0
		if nd > 0 {
			off = k * (nd / d.nw)
		}
		for i := range w.order {
			w.order[i] = int32((i + off) % nd)
		}
		for x := range nd {
			w.has[x] = v.Present(k, x)
		}
	}
	return nil
}

// inputs are task t's inputs, deduplicated.
func (d *DARTS) inputs(t int32) []int32 { return d.in[d.inOff[t]:d.inOff[t+1]] }

func (d *DARTS) Push(t int) { d.addToPool(int32(t)) }

// Pull returns the head of the worker's plan, refilling it first.
func (d *DARTS) Pull(k int) (int, bool) {
	w := &d.w[k]
	if w.live == 0 {
		w.plan, w.head = w.plan[:0], 0
		d.decide(k)
	}
	for w.head < len(w.plan) {
		t := w.plan[w.head]
		w.head++
		if d.state[t] != stPlan || int(d.planOf[t]) != k || int(d.planPos[t]) != w.head-1 {
			continue // withdrawn by LUF
		}
		d.state[t] = stGone
		w.live--
		for _, x := range d.inputs(t) {
			w.planCnt[x]--
		}
		return int(t), true
	}
	return 0, false
}

// decide refills worker k's empty plan (Algorithm 9, with 11 when 3inputs).
func (d *DARTS) decide(k int) {
	if d.poolN == 0 {
		return
	}
	w := &d.w[k]
	if d.opt.FreeTasks && len(w.free) > 0 {
		ts := append(d.tmp[:0], w.free...)
		d.sortByPool(ts)
		for _, t := range ts {
			d.removeFromPool(t)
			d.addToPlan(k, t)
		}
		d.tmp = ts
		return
	}
	var rng interface{ IntN(int) int }
	if d.opt.RandomTies {
		rng = d.v.Rand()
	}
	var b0, b1 best
	scanned := 0
	for _, x := range w.order {
		if w.has[x] || d.taskLeft[x] == 0 {
			continue
		}
		tl := d.taskLeft[x]
		if s := w.s0[x]; s > 0 {
			if d.opt.Opti {
				b0 = best{data: x, s: s}
				break
			}
			b0.offer(x, s, tl, rng)
		}
		if d.opt.ThreeInputs {
			if s := w.s1[x]; s > 0 {
				b1.offer(x, s, tl, rng)
			}
		}
		scanned++
		if d.opt.Threshold > 0 && scanned >= d.opt.Threshold {
			break
		}
	}
	switch {
	case b0.s > 0:
		ts := d.tmp[:0]
		d.records(b0.data, func(t int32, others []int32) {
			if missing(w, others, nil) == 0 {
				ts = append(ts, t)
			}
		})
		d.sortByPool(ts)
		for _, t := range ts {
			d.removeFromPool(t)
			d.addToPlan(k, t)
		}
		d.tmp = ts
		d.setHas(k, b0.data, true)
	case b1.s > 0:
		head, hs := int32(-1), int32(0)
		d.records(b1.data, func(t int32, others []int32) {
			if missing(w, others, nil) == 1 && (head < 0 || d.slot[t] < hs) {
				head, hs = t, d.slot[t]
			}
		})
		d.planMarking(k, head)
	default:
		var r int
		if rng != nil {
			r = rng.IntN(d.poolN)
		} else {
			r = k * d.poolN / d.nw
		}
		d.planMarking(k, d.slots[d.find(r)])
	}
}

// best is a running argmax over (s, task_left), ties broken uniformly at
// random by reservoir sampling (rng != nil) or kept first.
type best struct {
	data      int32
	s, tl     int32
	ties      int
	populated bool
}

func (b *best) offer(x, s, tl int32, rng interface{ IntN(int) int }) {
	switch {
	case !b.populated || s > b.s || (s == b.s && tl > b.tl):
		*b = best{data: x, s: s, tl: tl, ties: 1, populated: true}
	case s == b.s && tl == b.tl:
		b.ties++
		if rng != nil && rng.IntN(b.ties) == 0 {
			b.data = x
		}
	}
}

// planMarking plans one task and takes its missing inputs out of
// dataNotInMem_k.
func (d *DARTS) planMarking(k int, t int32) {
	d.removeFromPool(t)
	d.addToPlan(k, t)
	w := &d.w[k]
	for _, x := range d.inputs(t) {
		if !w.has[x] {
			d.setHas(k, x, true)
		}
	}
}

func (d *DARTS) addToPlan(k int, t int32) {
	w := &d.w[k]
	d.state[t] = stPlan
	d.planOf[t] = int32(k)
	d.planPos[t] = int32(len(w.plan))
	w.plan = append(w.plan, t)
	w.live++
	for _, x := range d.inputs(t) {
		w.planCnt[x]++
	}
}

func (d *DARTS) sortByPool(ts []int32) {
	slices.SortFunc(ts, func(a, b int32) int { return int(d.slot[a] - d.slot[b]) })
}

// addToPool puts t at the tail of the pool, records it under each of its
// inputs and counts it on every worker.
func (d *DARTS) addToPool(t int32) {
	d.state[t] = stPool
	if len(d.slots)+1 >= len(d.fen) {
		d.growFenwick()
	}
	s := int32(len(d.slots))
	d.slots = append(d.slots, t)
	d.slot[t] = s
	for i := int(s) + 1; i < len(d.fen); i += i & -i {
		d.fen[i]++
	}
	d.poolN++
	in := d.inputs(t)
	for i, x := range in {
		d.taskLeft[x]++
		r := d.rec[x]
		d.recPos[int(d.inOff[t])+i] = int32(len(r))
		r = append(r, t, int32(len(in)-1))
		for _, y := range in {
			if y != x {
				r = append(r, y)
			}
		}
		d.rec[x] = r
	}
	for k := range d.w {
		d.count(&d.w[k], t, 1)
	}
}

func (d *DARTS) removeFromPool(t int32) {
	for k := range d.w {
		d.count(&d.w[k], t, -1)
	}
	in := d.inputs(t)
	for i, x := range in {
		d.taskLeft[x]--
		d.rec[x][d.recPos[int(d.inOff[t])+i]] = -1
		d.dead[x] += int32(len(in)) + 1
		if 2*int(d.dead[x]) > len(d.rec[x]) {
			d.compact(x)
		}
	}
	s := d.slot[t]
	d.slots[s] = -1
	for i := int(s) + 1; i < len(d.fen); i += i & -i {
		d.fen[i]--
	}
	d.poolN--
	d.state[t] = stNew // the caller sets the next state
}

// compact drops the dead records of data x.
func (d *DARTS) compact(x int32) {
	r, j := d.rec[x], 0
	for i := 0; i < len(r); {
		n := 2 + int(r[i+1])
		if t := r[i]; t >= 0 {
			copy(r[j:], r[i:i+n])
			off := int(d.inOff[t])
			for s, y := range d.inputs(t) {
				if y == x {
					d.recPos[off+s] = int32(j)
				}
			}
			j += n
		}
		i += n
	}
	d.rec[x], d.dead[x] = r[:j], 0
}

// records calls f with each pool task reading x and its other inputs.
func (d *DARTS) records(x int32, f func(t int32, others []int32)) {
	r := d.rec[x]
	for i := 0; i < len(r); {
		t, n := r[i], int(r[i+1])
		if t >= 0 {
			f(t, r[i+2:i+2+n])
		}
		i += 2 + n
	}
}

// missing counts the inputs not in w's set and stores up to two of them
// in first (when not nil).
func missing(w *worker, in []int32, first *[2]int32) int {
	m := 0
	for _, x := range in {
		if !w.has[x] {
			if first != nil && m < 2 {
				first[m] = x
			}
			m++
		}
	}
	return m
}

// count adds (sign 1) or removes (-1) pool task t's contribution to w's
// counters, given w.has: free with no input missing, S_0 of its missing
// input with one, S_1 of both with two.
func (d *DARTS) count(w *worker, t int32, sign int32) {
	var y [2]int32
	switch missing(w, d.inputs(t), &y) {
	case 0:
		if sign > 0 {
			d.addFree(w, t)
		} else {
			d.removeFree(w, t)
		}
	case 1:
		w.s0[y[0]] += sign
	case 2:
		if w.s1 != nil {
			w.s1[y[0]] += sign
			w.s1[y[1]] += sign
		}
	}
}

func (d *DARTS) addFree(w *worker, t int32) {
	w.freeIdx[t] = int32(len(w.free))
	w.free = append(w.free, t)
}

func (d *DARTS) removeFree(w *worker, t int32) {
	i, last := w.freeIdx[t], w.free[len(w.free)-1]
	w.free[i], w.freeIdx[last] = last, i
	w.free = w.free[:len(w.free)-1]
	w.freeIdx[t] = -1
}

// setHas moves data x into (val) or out of worker k's present-or-planned
// set, updating the counters of the pool tasks reading it: a task whose
// other inputs miss m0 of k's set goes from m0+1 missing inputs to m0 when
// x joins, and back when it leaves.
func (d *DARTS) setHas(k int, x int32, val bool) {
	w := &d.w[k]
	s1 := w.s1 != nil
	d.records(x, func(t int32, others []int32) {
		var y [2]int32
		m0 := missing(w, others, &y)
		switch {
		case val && m0 == 0: // x was its only missing input
			w.s0[x]--
			d.addFree(w, t)
		case val && m0 == 1:
			w.s0[y[0]]++
			if s1 {
				w.s1[x]--
				w.s1[y[0]]--
			}
		case val && m0 == 2 && s1:
			w.s1[y[0]]++
			w.s1[y[1]]++
		case !val && m0 == 0:
			d.removeFree(w, t)
			w.s0[x]++
		case !val && m0 == 1:
			w.s0[y[0]]--
			if s1 {
				w.s1[x]++
				w.s1[y[0]]++
			}
		case !val && m0 == 2 && s1:
			w.s1[y[0]]--
			w.s1[y[1]]--
		}
	})
	w.has[x] = val
}

// find returns the slot of the r-th (0-based) pool task in pool order.
func (d *DARTS) find(r int) int {
	pos, rem := 0, int32(r)
	step := 1
	for step*2 < len(d.fen) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if n := pos + step; n < len(d.fen) && d.fen[n] <= rem {
			pos = n
			rem -= d.fen[n]
		}
	}
	return pos // slots are 0-based, the tree 1-based
}

func (d *DARTS) growFenwick() {
	n := 2*len(d.fen) + 16
	d.fen = make([]int32, n)
	for s, t := range d.slots {
		if t >= 0 {
			d.fen[s+1]++
		}
	}
	for i := 1; i < n; i++ {
		if j := i + i&-i; j < n {
			d.fen[j] += d.fen[i]
		}
	}
}
