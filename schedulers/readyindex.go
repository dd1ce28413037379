package schedulers

import (
	"math"
	"slices"

	"github.com/memsched/memsched/workloads"
)

// ReadyIndex answers Ready's question — the first buffered task with the
// fewest bytes not present — without scanning the buffer per pop, for
// schedulers whose buffer holds thousands of tasks (dmdar queues every
// task). Per worker it keeps a tournament tree over the arrival order of
// its tasks, keyed by a recorded count of missing bytes (then priority,
// higher first, when Prio is set): its root is the least key, and the
// leftmost leaf holding it is the first task in buffer order, exactly
// what Ready picks.
//
// Keeping every count exact would move every queued task reading a data
// at each load and eviction (600 tasks per event on the 2D product at
// N = 600, 64 % of dmdar's time). The counts are lower bounds instead:
// a task's count is the bytes of the inputs it counts as missing, which
// were missing when counted. A load uncounts the data for the tasks that
// count it (each data lists them); an eviction does nothing, leaving the
// count low (on the memory node of the load or eviction: CPU cores share
// one). Next checks the first task of the least count: if its count is
// exact it is Ready's choice, since every other task's true count is at
// least its recorded one; if not, the task counts its missing inputs anew
// and moves up, and Next looks again. A task is thus recounted only when
// it reaches the front, and a data reloaded before that costs nothing.
//
// The owner calls Add when a task is queued for a worker (handed to its
// buffer, or planned for it), forwards its Observer events, and takes
// Ready's choice with Next (or Pop, for a buffer).
//
// It counts (View.Count) what Ready's scan examines: the inputs of the
// tasks up to the choice when the choice misses nothing, else of all; the
// tree's nodes also sum the queued tasks below them and their inputs,
// which give that count and the choice's index in the buffer.
//
// NewStarPUReadyIndex ranks as StarPU's code does (ReadyStarPU): a task's
// key is three counts, the bytes it reads that are not valid on the node,
// those of them not even loading, and the bytes not allocated (any mode),
// compared in that order, each a lower bound kept as above: the index
// follows every event that can lower one (a request handled, a load
// started or ended) and recounts a task when it reaches the front.
type ReadyIndex struct {
	// Prio, when set, breaks ties of missing bytes by priority, higher
	// first, before arrival: StarPU's pop of the first ready task of a
	// queue sorted by priority (dmdas: fifo_queues.c
	// _starpu_fifo_pop_first_ready_task). Set it before the first Add.
	Prio    []float64
	starpu  bool // StarPU's ranking (NewStarPUReadyIndex)
	v       View
	w       *workloads.Workload
	status  []Status    // per worker, with starpu when the view keeps it (StatusViewer)
	stamp   []uint32    // per task: the last event that visited it (Observe)
	event   uint32      // events observed
	keep    []int32     // scratch: the tasks an event leaves counting its data
	tasks   []readyTask // per task
	slots   []readySlot // inputs of the tasks with more than readyInline: tasks[t].off..
	node    []int       // per worker: its memory node
	queues  []readyTree // per worker: its tasks by arrival
	waiting *chunkLists // per memory node and data (list node*len(Data)+data): tasks that may count it
}

// readyTask is what the index knows of a task, kept together so that
// visiting a task touches one place: its inputs too, when it has at most
// readyInline (the tasks are visited at random, and a second array read
// per visit is a second cache miss).
type readyTask struct {
	// missing: bytes of its counted inputs, <= its missing bytes; under
	// StarPU's ranking, its bytes read and not valid (counted, a lower
	// bound), and loading and alloc its bytes not loading and not
	// allocated.
	missing, loading, alloc int64
	where                   int32 // worker whose buffer holds the task, -1 none
	seq                     int32 // arrival at that worker: its leaf in the worker's tree
	n                       int32 // its inputs (duplicates kept, as Ready counts them)
	w                       int32 // of them, the write-only ones (OpStatusWritten)
	off                     int32 // with more than readyInline inputs: its first slot
	in                      [readyInline]readySlot
}

// queries packs the status queries of a scan over some tasks: every one
// in the low 32 bits, those of write-only buffers in the high 32 bits, so
// that the tree's sums count both at once (a sum of packed counts is the
// packed sum while each stays below 2³²: the index refuses more inputs).
type queries int64

func (rt *readyTask) queries() queries { return queries(rt.n) | queries(rt.w)<<32 }

func (q queries) all() int     { return int(q & (1<<32 - 1)) }
func (q queries) written() int { return int(q >> 32) }

// readyInline is the number of inputs a task's record holds.
const readyInline = 2

// readySlot is one input of a task: its data, and the flags of the counts
// of the task that include it (slotMissing: missing, or under StarPU's
// ranking not valid; slotLoading, slotAlloc).
type readySlot int32

const (
	slotMissing readySlot = 1 << (28 + iota)
	slotLoading
	slotAlloc
	slotFlags = slotMissing | slotLoading | slotAlloc
	// maxReadyData bounds the data ids a slot holds.
	maxReadyData = 1 << 28
)

func (s readySlot) data() int { return int(s &^ slotFlags) }

func (s readySlot) counted() bool { return s&slotFlags != 0 }

// NewReadyIndex prepares the index for a run, ranking by missing bytes
// (Ready).
func NewReadyIndex(v View) *ReadyIndex { return newReadyIndex(v, false) }

// NewStarPUReadyIndex prepares the index for a run, ranking as StarPU's code
// does (ReadyStarPU).
func NewStarPUReadyIndex(v View) *ReadyIndex { return newReadyIndex(v, true) }

func newReadyIndex(v View, starpu bool) *ReadyIndex {
	w := v.Workload()
	if len(w.Data) >= maxReadyData {
		panic("schedulers: ReadyIndex: too many data")
	}
	r := &ReadyIndex{v: v, w: w, starpu: starpu, tasks: make([]readyTask, len(w.Tasks)),
		node: make([]int, v.Workers()), queues: make([]readyTree, v.Workers()), waiting: newChunkLists(v.Nodes() * len(w.Data))}
	n, total := 0, int64(0)
	for _, task := range w.Tasks {
		if len(task.Inputs) > readyInline {
			n += len(task.Inputs)
		}
		total += int64(len(task.Inputs))
	}
	if total >= 1<<31 {
		panic("schedulers: ReadyIndex: too many inputs") // their sum is packed in 32 bits (queries)
	}
	r.slots = make([]readySlot, 0, n)
	for t, task := range w.Tasks {
		rt := &r.tasks[t]
		*rt = readyTask{where: -1, n: int32(len(task.Inputs)), w: int32(writeOnly(w, t))}
		if len(task.Inputs) <= readyInline {
			for i, d := range task.Inputs {
				rt.in[i] = readySlot(d)
			}
			continue
		}
		rt.off = int32(len(r.slots))
		for _, d := range task.Inputs {
			r.slots = append(r.slots, readySlot(d))
		}
	}
	for k := range r.node {
		r.node[k] = v.WorkerNode(k)
		r.queues[k] = readyTree{ix: r, worker: int32(k)}
	}
	if starpu {
		r.stamp = make([]uint32, len(w.Tasks))
		if sv, ok := v.(StatusViewer); ok {
			r.status = make([]Status, v.Workers())
			for k := range r.status {
				r.status[k] = sv.Status(k)
			}
		}
	}
	return r
}

// statusOf is the worker's memory's Status (StatusOf, once for a view
// that keeps it).
func (r *ReadyIndex) statusOf(worker int) Status {
	if r.status != nil {
		return r.status[worker]
	}
	return StatusOf(r.v, worker)
}

// Reserve makes room for n more arrivals at worker, for owners that know
// how many tasks they are about to queue there (dmda queues every task at
// once): the arrays are then sized once instead of grown by copying.
func (r *ReadyIndex) Reserve(worker, n int) {
	q := &r.queues[worker]
	q.arrivals = slices.Grow(q.arrivals, n)
	q.grow(len(q.arrivals) + n)
}

// inputs returns a task's slots, in its record or in slots.
func (r *ReadyIndex) inputs(rt *readyTask) []readySlot {
	if rt.n <= readyInline {
		return rt.in[:rt.n]
	}
	return r.slots[rt.off : rt.off+rt.n]
}

// Add records that task entered worker's buffer.
func (r *ReadyIndex) Add(worker, task int) {
	q := &r.queues[worker]
	rt := &r.tasks[task]
	rt.where, rt.seq, rt.missing, rt.loading, rt.alloc = int32(worker), int32(len(q.arrivals)), 0, 0, 0
	r.count(worker, task)
	q.push(int32(task))
}

// AddAll is Add of each task in turn (a plan queued at once), with the
// tree built once at the end: O(n) rather than a walk to the root per task.
func (r *ReadyIndex) AddAll(worker int, tasks []int) {
	r.Reserve(worker, len(tasks))
	q := &r.queues[worker]
	for _, task := range tasks {
		rt := &r.tasks[task]
		rt.where, rt.seq, rt.missing, rt.loading, rt.alloc = int32(worker), int32(len(q.arrivals)), 0, 0, 0
		r.count(worker, task)
		q.arrivals = append(q.arrivals, int32(task))
	}
	q.build()
}

// count counts every missing input of a task that is not counted yet
// (under StarPU's ranking, sets every count of the task to what the data's
// status says now).
func (r *ReadyIndex) count(worker, task int) {
	if r.starpu {
		r.countStarPU(worker, task)
		return
	}
	node := r.node[worker]
	on := r.v.Presence(worker)
	rt := &r.tasks[task]
	in := r.inputs(rt)
	for i := range in {
		s := &in[i]
		if d := s.data(); !s.counted() && !on.Has(d) {
			*s |= slotMissing
			rt.missing += r.w.Data[d].Bytes
			r.waiting.add(node*len(r.w.Data)+d, int32(task))
		}
	}
}

// flags are the counts an input of a task belongs to under StarPU's
// ranking, from its datum's status bits (fifo_queues.c
// _starpu_size_non_ready_buffers): not allocated in any mode; read and not
// valid; and of those, not loading.
func flags(status uint8, reads bool) readySlot {
	var f readySlot
	if status&StatusAllocated == 0 {
		f |= slotAlloc
	}
	if reads && status&StatusValid == 0 {
		f |= slotMissing
		if status&StatusLoading == 0 {
			f |= slotLoading
		}
	}
	return f
}

// setFlags makes slot i of a task count in the counts f, adjusting the
// task's counts; it reports whether the slot counted in none before.
func (r *ReadyIndex) setFlags(rt *readyTask, s *readySlot, f readySlot) (wasNone bool) {
	old := *s & slotFlags
	if old == f {
		return old == 0
	}
	b := r.w.Data[s.data()].Bytes
	add := func(flag readySlot, n *int64) {
		switch {
		case f&flag != 0 && old&flag == 0:
			*n += b
		case f&flag == 0 && old&flag != 0:
			*n -= b
		}
	}
	add(slotMissing, &rt.missing)
	add(slotLoading, &rt.loading)
	add(slotAlloc, &rt.alloc)
	*s = *s&^slotFlags | f
	return old == 0
}

// countStarPU sets a task's counts to what its inputs' status says now.
func (r *ReadyIndex) countStarPU(worker, task int) {
	node := r.node[worker]
	st := r.statusOf(worker)
	rt := &r.tasks[task]
	in := r.inputs(rt)
	modes := r.w.ModesOf(task)
	for i := range in {
		s := &in[i]
		d := s.data()
		reads := len(modes) == 0 || modes[i].Reads()
		if f := flags(st.Of(d), reads); r.setFlags(rt, s, f) && f != 0 {
			r.waiting.add(node*len(r.w.Data)+d, int32(task))
		}
	}
}

// key is a queued task's key in its worker's tree.
func (r *ReadyIndex) key(t int) readyKey {
	rt := &r.tasks[t]
	k := readyKey{missing: rt.missing, loading: rt.loading, alloc: rt.alloc}
	if r.Prio != nil {
		k.prio = r.Prio[t]
	}
	return k
}

// place records in its worker's tree that a queued task's key changed
// from old.
func (r *ReadyIndex) place(t int, old readyKey) {
	rt := &r.tasks[t]
	r.queues[rt.where].update(int(rt.seq), old)
}

// Observes says the index follows loads only: an eviction leaves its counts
// lower bounds, rechecked when a task reaches the front. Under StarPU's
// ranking it follows what can lower a count: requests handled, loads
// started and ended.
func (r *ReadyIndex) Observes(kind EventKind) bool {
	if r.starpu {
		return kind == Requested || kind == LoadStarted || kind == Loaded
	}
	return kind == LoadStarted
}

// Observe keeps the counts lower bounds: a data starting to load is no
// longer missing for the tasks counting it; an eviction changes nothing
// until the task reaches the front (see Next).
func (r *ReadyIndex) Observe(kind EventKind, node, id int) {
	if r.starpu {
		if r.Observes(kind) {
			r.observeStarPU(node, id)
		}
		return
	}
	if kind != LoadStarted {
		return
	}
	list := node*len(r.w.Data) + id
	b := r.w.Data[id].Bytes
	r.waiting.each(list, func(t int32) {
		rt := &r.tasks[t]
		if rt.where < 0 || r.node[rt.where] != node {
			return // left the buffer, or queued elsewhere now
		}
		var drop int64
		in := r.inputs(rt)
		for i, s := range in {
			if s.counted() && s.data() == id {
				in[i] = s &^ slotFlags
				drop += b
			}
		}
		if drop > 0 {
			old := r.key(int(t))
			rt.missing -= drop
			r.place(int(t), old)
		}
	})
	r.waiting.clear(list)
}

// observeStarPU updates, after a change of datum id's status on node, the
// counts of the tasks queued there that count it: each count the status
// no longer justifies drops (an event only lowers them). The tasks still
// counting it stay listed.
func (r *ReadyIndex) observeStarPU(node, id int) {
	list := node*len(r.w.Data) + id
	if r.event++; r.event == 0 { // wrapped: older stamps could match
		clear(r.stamp)
		r.event = 1
	}
	keep := r.keep[:0]
	var st Status
	stOK := false
	r.waiting.each(list, func(t int32) {
		rt := &r.tasks[t]
		if rt.where < 0 || r.node[rt.where] != node || r.stamp[t] == r.event {
			return // left the buffer, queued elsewhere now, or seen
		}
		r.stamp[t] = r.event
		if !stOK {
			st, stOK = r.statusOf(int(rt.where)), true
		}
		status := st.Of(id)
		modes := r.w.ModesOf(int(t))
		old := r.key(int(t))
		counts := false
		in := r.inputs(rt)
		for i := range in {
			s := &in[i]
			if s.data() != id || !s.counted() {
				continue
			}
			reads := len(modes) == 0 || modes[i].Reads()
			r.setFlags(rt, s, *s&flags(status, reads)) // lower only
			counts = counts || s.counted()
		}
		if r.key(int(t)) != old {
			r.place(int(t), old)
		}
		if counts {
			keep = append(keep, t)
		}
	})
	r.waiting.clear(list)
	for _, t := range keep {
		r.waiting.add(list, t)
	}
	r.keep = keep[:0]
}

// Remove forgets a task, wherever it is queued.
func (r *ReadyIndex) Remove(task int) {
	if r.tasks[task].where >= 0 {
		r.forget(task)
	}
}

// forget takes a queued task out of its worker's tree and input counts.
func (r *ReadyIndex) forget(task int) {
	rt := &r.tasks[task]
	q, old := &r.queues[rt.where], r.key(task)
	rt.where = -1
	q.remove(int(rt.seq), old, rt.queries())
	in := r.inputs(rt)
	for i, s := range in {
		in[i] = readySlot(s.data())
	}
	rt.missing, rt.loading, rt.alloc = 0, 0, 0
}

// Next returns and forgets Ready's choice among the worker's tasks: the
// first task of the least count, once its count is exact.
func (r *ReadyIndex) Next(worker int) int {
	t, _ := r.next(worker)
	return t
}

// Pop returns the index in buffer of Ready's choice and forgets the task.
// buffer must hold the worker's tasks in the order they were added (a
// buffer keeps its order when tasks leave it): the choice's index is the
// number of its tasks queued before it. (A popper naming the task, a
// TaskPopper, takes Next instead: the engine need not show the buffer.)
func (r *ReadyIndex) Pop(worker int, buffer []int) int {
	t, i := r.next(worker)
	if i >= len(buffer) || buffer[i] != t {
		panic("schedulers: ReadyIndex out of sync with the buffer")
	}
	return i
}

// next is Next, also returning the number of the worker's tasks queued
// before the choice. A recount that raises a task's count leaves the
// least key where it was, so the next candidate is the following arrival
// of that key in the same block when there is one: the block's
// candidates are recounted in one pass, and the tree is told once.
func (r *ReadyIndex) next(worker int) (task, before int) {
	q := &r.queues[worker]
	for {
		i, before, scanned := q.first()
		if i < 0 {
			panic("schedulers: ReadyIndex.Next on a worker with no task")
		}
		least := q.key(i)
		_, end := q.block(i / readyBlock)
		for a := i; a < end; a++ {
			k := q.key(a)
			if k == readyGone {
				continue
			}
			t := int(q.arrivals[a])
			if k == least {
				r.count(worker, t)
				if r.key(t) == k {
					ops := q.queuedInputs() // the scan found no complete task: it saw all
					if r.stops(worker, t, k) {
						ops = scanned + r.tasks[t].queries()
					}
					r.v.CountOps(OpStatus, ops.all())
					if n := ops.written(); n > 0 {
						r.v.CountOps(OpStatusWritten, n)
					}
					r.forget(t) // also rescans the block: its least key was k
					return t, before
				}
			}
			before++
			scanned += r.tasks[t].queries()
		}
		q.rescan(i / readyBlock) // every candidate's count was low: they moved up
	}
}

// stops says whether Ready's scan stops at its choice t, of key k, rather
// than scanning every queued task: Ready stops at a task missing nothing;
// StarPU's scan (_starpu_fifo_pop_first_ready_task) stops at the first
// task with nothing not valid if it has nothing unallocated either, which
// is then the choice: so it stops at t when t has nothing not valid nor
// unallocated and no task before t has nothing not valid (one with a
// written input not allocated yet).
func (r *ReadyIndex) stops(worker, t int, k readyKey) bool {
	if k.missing != 0 || k.alloc != 0 {
		return false
	}
	if !r.starpu {
		return true
	}
	q := &r.queues[worker]
	for {
		i := q.firstNoneMissing()
		a := int(q.arrivals[i])
		if a == t {
			return true
		}
		old := r.key(a)
		r.count(worker, a)
		if r.key(a) != old {
			r.place(a, old)
		}
		if r.tasks[a].missing == 0 {
			return false // it has nothing not valid: the scan went on past it
		}
	}
}

// readyKey orders a worker's queued tasks for Ready: fewer missing bytes
// first (under StarPU's ranking: bytes not valid, then not loading, then
// not allocated), then higher priority (zero without Prio); arrival breaks
// ties.
type readyKey struct {
	missing, loading, alloc int64
	prio                    float64
}

// readyGone is the key of a task that left the queue.
var readyGone = readyKey{missing: math.MaxInt64}

func (a readyKey) less(b readyKey) bool {
	switch {
	case a.missing != b.missing:
		return a.missing < b.missing
	case a.loading != b.loading:
		return a.loading < b.loading
	case a.alloc != b.alloc:
		return a.alloc < b.alloc
	}
	return a.prio > b.prio
}

// readyBlock is the number of consecutive arrivals under one leaf of a
// readyTree: a leaf scans them, which is cheaper than the levels of tree
// (and their cache misses) it saves. Left arrivals cost no record read
// (readyLeft), so smaller blocks pay: mHFP 2D N=600 5.66 G instructions
// with 16, 5.55 G with 8, 6.07 G with 32 (4 about as 8).
const readyBlock = 8

// readyTree is one worker's queued tasks by arrival, and a tournament
// tree over the arrival positions: leaf b stands for arrivals
// b*readyBlock.., and every node holds the least key below it, with the
// number of queued arrivals below and their inputs. The first arrival
// holding the root's key is Ready's choice. Changing a key walks up only
// while minima change.
//
// An arrival's key is its task's (ix.key) while the task is queued there,
// readyGone once it left: the tree reads the tasks' records rather than
// copying their keys, which at a million queued tasks saves 20 bytes a
// task and the copies of growing those arrays. So the owner changes a
// task's record first, then tells the tree the key it had (update).
// An arrival that remove took out is also marked readyLeft, so that the
// scans of a block pass it without reading its task's record: Ready takes
// most tasks near the front, whose blocks are mostly left arrivals.
type readyTree struct {
	ix       *ReadyIndex
	worker   int32
	arrivals []int32 // by arrival: the task, readyLeft once removed
	size     int     // leaves: a power of two, or 0
	node     []readyNode
}

// readyLeft marks an arrival taken out by remove.
const readyLeft = -1

// readyNode is a node of a readyTree (1-based heap layout, leaves from
// size on).
type readyNode struct {
	key    readyKey // least key below
	queued int64    // queued arrivals below
	inputs queries  // their inputs' status queries
}

// key is arrival i's key: its task's while queued here, else readyGone.
func (t *readyTree) key(i int) readyKey {
	// queued(i) written out, so that key stays inlinable.
	task := t.arrivals[i]
	if task < 0 {
		return readyGone
	}
	rt := &t.ix.tasks[task]
	if rt.where != t.worker || int(rt.seq) != i {
		return readyGone
	}
	k := readyKey{missing: rt.missing, loading: rt.loading, alloc: rt.alloc}
	if p := t.ix.Prio; p != nil {
		k.prio = p[task]
	}
	return k
}

// inputs is the status queries of arrival i's task, 0 once it left.
func (t *readyTree) inputs(i int) queries {
	if rt := t.queued(i); rt != nil {
		return rt.queries()
	}
	return 0
}

// queued is the record of arrival i's task while it is queued here at
// that arrival, else nil.
func (t *readyTree) queued(i int) *readyTask {
	task := t.arrivals[i]
	if task < 0 {
		return nil
	}
	if rt := &t.ix.tasks[task]; rt.where == t.worker && int(rt.seq) == i {
		return rt
	}
	return nil
}

// push adds an arrival of task, whose record already says it is queued
// here as the next arrival.
func (t *readyTree) push(task int32) {
	i := len(t.arrivals)
	if i == cap(t.arrivals) { // double: append grows a long slice by a quarter, copying it ever more often
		t.arrivals = slices.Grow(t.arrivals, i)
	}
	t.arrivals = append(t.arrivals, task)
	t.grow(i + 1)
	t.account(i, 1, t.inputs(i))
	t.update(i, readyGone)
}

// grow doubles the leaves until they cover n arrivals.
func (t *readyTree) grow(n int) {
	size := max(1, t.size)
	for size*readyBlock < n {
		size *= 2
	}
	if size == t.size {
		return
	}
	node := make([]readyNode, 2*size)
	for j := range node {
		node[j].key = readyGone
	}
	copy(node[size:], t.node[t.size:])
	t.size, t.node = size, node
	t.sumUp()
}

// sumUp recomputes the inner nodes from the leaves.
func (t *readyTree) sumUp() {
	for j := t.size - 1; j > 0; j-- {
		l, r := &t.node[2*j], &t.node[2*j+1]
		t.node[j] = readyNode{key: least(l.key, r.key), queued: l.queued + r.queued, inputs: l.inputs + r.inputs}
	}
}

// build recomputes every node from the arrivals' records (for arrivals
// pushed without telling the tree).
func (t *readyTree) build() {
	t.grow(len(t.arrivals))
	for b := range t.size {
		leaf := readyNode{key: readyGone}
		lo, hi := t.block(b)
		for i := lo; i < hi; i++ {
			if rt := t.queued(i); rt != nil {
				leaf.key = least(leaf.key, t.key(i))
				leaf.queued++
				leaf.inputs += rt.queries()
			}
		}
		t.node[t.size+b] = leaf
	}
	t.sumUp()
}

// remove accounts for arrival i's task leaving, whose record already says
// so; old is the key it had, q its inputs' queries.
func (t *readyTree) remove(i int, old readyKey, q queries) {
	t.arrivals[i] = readyLeft
	t.account(i, -1, -q)
	t.update(i, old)
}

// account adds to the queued arrivals and inputs above arrival i.
func (t *readyTree) account(i int, queued int64, inputs queries) {
	for j := t.size + i/readyBlock; j > 0; j /= 2 {
		t.node[j].queued += queued
		t.node[j].inputs += inputs
	}
}

// queuedInputs is the status queries of the queued arrivals' inputs.
func (t *readyTree) queuedInputs() queries {
	if t.size == 0 {
		return 0
	}
	return t.node[1].inputs
}

func least(a, b readyKey) readyKey {
	if b.less(a) {
		return b
	}
	return a
}

// update records that arrival i's key changed from old.
func (t *readyTree) update(i int, old readyKey) {
	k := t.key(i)
	j := t.size + i/readyBlock
	switch m := t.node[j].key; {
	case k.less(m):
		t.propagate(j, k)
	case old == m && k != m: // the least key may have gone up
		t.rescan(i / readyBlock)
	}
}

// block is the range of the arrivals under leaf b.
func (t *readyTree) block(b int) (lo, hi int) {
	return b * readyBlock, min(len(t.arrivals), (b+1)*readyBlock)
}

// rescan recomputes the least key of leaf b's arrivals.
func (t *readyTree) rescan(b int) {
	lo, hi := t.block(b)
	m := readyGone
	if t.ix.Prio == nil && !t.ix.starpu { // the keys are counts alone: compare those
		// queued(a) written out: this loop is most of Ready's time.
		tasks := t.ix.tasks
		for a, task := range t.arrivals[lo:hi] {
			if task == readyLeft {
				continue
			}
			if rt := &tasks[task]; rt.where == t.worker && int(rt.seq) == lo+a && rt.missing < m.missing {
				m.missing = rt.missing
			}
		}
	} else {
		for a := lo; a < hi; a++ {
			m = least(m, t.key(a))
		}
	}
	t.propagate(t.size+b, m)
}

// propagate sets node j's least key to m and fixes its ancestors, walking
// up only while their minima change.
func (t *readyTree) propagate(j int, m readyKey) {
	for t.node[j].key != m {
		t.node[j].key = m
		if j == 1 {
			return
		}
		j /= 2
		m = least(t.node[2*j].key, t.node[2*j+1].key)
	}
}

// firstNoneMissing returns the first arrival whose recorded key has
// nothing missing, which the caller knows exists.
func (t *readyTree) firstNoneMissing() int {
	j := 1
	for j < t.size {
		j *= 2
		if t.node[j].key.missing != 0 {
			j++
		}
	}
	lo, hi := t.block(j - t.size)
	for i := lo; i < hi; i++ {
		if k := t.key(i); k.missing == 0 {
			return i
		}
	}
	panic("schedulers: readyTree out of sync")
}

// first returns the first arrival holding the least key (-1 if every
// task left), the number of queued arrivals before it, and their inputs.
func (t *readyTree) first() (i, before int, inputs queries) {
	if t.size == 0 || t.node[1].key == readyGone {
		return -1, 0, 0
	}
	m, j := t.node[1].key, 1
	var queued int64
	for j < t.size {
		j *= 2
		if t.node[j].key != m {
			queued += t.node[j].queued
			inputs += t.node[j].inputs
			j++
		}
	}
	lo, hi := t.block(j - t.size)
	for i := lo; i < hi; i++ {
		k := t.key(i)
		if k == m {
			return i, int(queued), inputs
		}
		if k != readyGone {
			queued++
			inputs += t.inputs(i)
		}
	}
	panic("schedulers: readyTree out of sync")
}
