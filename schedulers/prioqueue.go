package schedulers

import (
	"cmp"
	"math"
	"slices"

	"github.com/memsched/memsched/internal/minheap"
	"github.com/memsched/memsched/workloads"
)

// PrioQueue holds tasks sorted by priority, as StarPU's priority lists
// (src/common/prio_list.h): the head is the highest priority, earliest
// pushed among equals; the tail the lowest priority, latest pushed among
// equals; the back of the highest priority is its latest pushed task.
// Every operation is O(log n); removing a task anywhere is O(1) (the heaps
// drop it lazily). The tail and back heaps are built at their first pop: a
// queue popped at its head only (DARTS's, AP's) keeps one heap, a third of
// the memory (48 MB for a million ready tasks).
type PrioQueue struct {
	prio             []float64
	head             minheap.Heap[headItem]
	tail             minheap.Heap[tailItem]
	back             minheap.Heap[backItem]
	hasTail, hasBack bool
	set              *pushes // shared by the queues of a set
	n                int
}

// pushes numbers the pushes of a set of queues. The numbers are 32 bits,
// so that a heap item is 16 bytes (24 with 64-bit task and number); when
// they run out, renumber gives the queued items 1..n in the same order.
type pushes struct {
	seq    []uint32 // per task: its push while queued, 0 when not queued
	next   uint32   // the last push's number
	queues []*PrioQueue
}

// maxPush is the last push number before a renumbering (tests lower it).
var maxPush uint32 = math.MaxUint32

type qItem struct {
	prio float64
	task int32
	seq  uint32
}

type headItem qItem // highest priority, then earliest
type tailItem qItem // lowest priority, then latest
type backItem qItem // highest priority, then latest

func (a headItem) Before(b headItem) bool {
	return a.prio > b.prio || (a.prio == b.prio && a.seq < b.seq)
}
func (a tailItem) Before(b tailItem) bool {
	return a.prio < b.prio || (a.prio == b.prio && a.seq > b.seq)
}
func (a backItem) Before(b backItem) bool {
	return a.prio > b.prio || (a.prio == b.prio && a.seq > b.seq)
}

// NewPrioQueue sorts tasks by prio (indexed by task id; shared, not copied).
func NewPrioQueue(prio []float64) *PrioQueue { return NewPrioQueues(prio, 1)[0] }

// NewPrioQueues returns k queues of the same priorities among which a task
// is in one at most (LWS's per-worker queues). They share one table and
// count of pushes, 8 bytes a task instead of 8k; a stale entry left by a
// task that moved to another queue is recognised by its push number, as
// within one queue. Has and Remove are then those of the queue holding the
// task.
func NewPrioQueues(prio []float64, k int) []*PrioQueue {
	set := &pushes{seq: make([]uint32, len(prio)), queues: make([]*PrioQueue, k)}
	for i := range set.queues {
		set.queues[i] = &PrioQueue{prio: prio, set: set}
	}
	return slices.Clone(set.queues)
}

// Reserve makes room for n queued tasks at once: a scheduler that is
// pushed every task of an independent task set at the start (DARTS's
// readyTasks, AP's queue) sizes the heap once instead of doubling it up to
// a million entries, each doubling a fresh allocation that is cleared and
// copied.
func (q *PrioQueue) Reserve(n int) { q.head.Grow(n - len(q.head)) }

// ReadyAtStart is the number of tasks without dependencies: those the
// engine pushes before any task runs.
func ReadyAtStart(w *workloads.Workload) int {
	n := 0
	for i := range w.Tasks {
		if len(w.DepsOf(i)) == 0 {
			n++
		}
	}
	return n
}

// renumber gives the queued items of the set the pushes 1..n in their
// order, which keeps every comparison, and rebuilds the heaps.
func (s *pushes) renumber() {
	type held struct {
		q  *PrioQueue
		it qItem
	}
	var all []held
	for _, q := range s.queues {
		for _, it := range q.live() {
			all = append(all, held{q, it})
		}
		q.head, q.tail, q.back = q.head[:0], q.tail[:0], q.back[:0]
	}
	slices.SortFunc(all, func(a, b held) int { return cmp.Compare(a.it.seq, b.it.seq) })
	for k := range all {
		h := &all[k]
		h.it.seq = uint32(k + 1)
		s.seq[h.it.task] = h.it.seq
		h.q.push(h.it)
	}
	s.next = uint32(len(all))
}

// Len is the number of queued tasks.
func (q *PrioQueue) Len() int { return q.n }

// Has reports whether the task is queued (in this queue, or in another of
// its set).
func (q *PrioQueue) Has(t int) bool { return q.set.seq[t] != 0 }

// Push queues a task (after the queued tasks of its priority).
func (q *PrioQueue) Push(t int) {
	s := q.set
	if s.next >= maxPush {
		s.renumber()
	}
	s.next++
	s.seq[t] = s.next
	q.n++
	q.push(qItem{task: int32(t), prio: q.prio[t], seq: s.next})
	if len(q.tail) > 4*q.n+1024 || len(q.head) > 4*q.n+1024 || len(q.back) > 4*q.n+1024 {
		q.compact()
	}
}

// push adds an item to the heaps the queue keeps.
func (q *PrioQueue) push(it qItem) {
	q.head.Push(headItem(it))
	if q.hasTail {
		q.tail.Push(tailItem(it))
	}
	if q.hasBack {
		q.back.Push(backItem(it))
	}
}

// live lists the queued items; the head heap holds them all.
func (q *PrioQueue) live() []qItem {
	live := make([]qItem, 0, q.n)
	for _, it := range q.head {
		if q.set.seq[it.task] == it.seq {
			live = append(live, qItem(it))
		}
	}
	return live
}

// compact drops the removed tasks the heaps still hold.
func (q *PrioQueue) compact() {
	live := q.live()
	q.head, q.tail, q.back = q.head[:0], q.tail[:0], q.back[:0]
	for _, it := range live {
		q.push(it)
	}
}

// Remove dequeues a task wherever it is; false if it was not queued.
func (q *PrioQueue) Remove(t int) bool {
	if q.set.seq[t] == 0 {
		return false
	}
	q.set.seq[t] = 0
	q.n--
	return true
}

// Head returns the highest-priority task without removing it.
func (q *PrioQueue) Head() (int, bool) {
	for len(q.head) > 0 {
		if it := q.head[0]; q.set.seq[it.task] == it.seq {
			return int(it.task), true
		}
		q.head.Pop()
	}
	return 0, false
}

// PopHead removes and returns the highest-priority task.
func (q *PrioQueue) PopHead() (int, bool) {
	t, ok := q.Head()
	if ok {
		q.Remove(t)
	}
	return t, ok
}

// PopTail removes and returns the lowest-priority task, the latest pushed
// among equals.
func (q *PrioQueue) PopTail() (int, bool) {
	if !q.hasTail {
		// Items are ordered totally (by sequence among equal priorities),
		// so a heap built now pops what one kept since the start would.
		q.hasTail = true
		for _, it := range q.live() {
			q.tail = append(q.tail, tailItem(it))
		}
		q.tail.Init()
	}
	for len(q.tail) > 0 {
		it := q.tail.Pop()
		if q.set.seq[it.task] == it.seq {
			q.Remove(int(it.task))
			return int(it.task), true
		}
	}
	return 0, false
}

// PopBackHighest removes and returns the latest pushed task of the highest
// priority (StarPU's _starpu_prio_deque_deque_task_for_worker).
func (q *PrioQueue) PopBackHighest() (int, bool) {
	if !q.hasBack {
		q.hasBack = true
		for _, it := range q.live() {
			q.back = append(q.back, backItem(it))
		}
		q.back.Init()
	}
	for len(q.back) > 0 {
		it := q.back.Pop()
		if q.set.seq[it.task] == it.seq {
			q.Remove(int(it.task))
			return int(it.task), true
		}
	}
	return 0, false
}
