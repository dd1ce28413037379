package schedulers

// Queues are per-worker FIFO queues of tasks linked through one array
// indexed by task: DMDA queues every task of a million-task set at once,
// which costs 4 bytes a task allocated once, where per-worker slices would
// grow by copying (five times their final size under append's growth).
// A task is in one queue at most.
type Queues struct {
	next       []int32 // per task: the task queued after it, -1 at a tail
	head, tail []int32 // per worker: -1 when empty
	n          []int   // per worker: its queued tasks
}

// NewQueues makes empty queues for workers over tasks 0..tasks-1.
func NewQueues(workers, tasks int) *Queues {
	q := &Queues{next: make([]int32, tasks), head: make([]int32, workers), tail: make([]int32, workers), n: make([]int, workers)}
	for w := range q.head {
		q.head[w], q.tail[w] = -1, -1
	}
	return q
}

// Push queues task at the tail of worker's queue.
func (q *Queues) Push(worker, task int) {
	q.next[task] = -1
	if t := q.tail[worker]; t >= 0 {
		q.next[t] = int32(task)
	} else {
		q.head[worker] = int32(task)
	}
	q.tail[worker] = int32(task)
	q.n[worker]++
}

// Len is the number of tasks in worker's queue.
func (q *Queues) Len(worker int) int { return q.n[worker] }

// Idle says worker's queue is empty.
func (q *Queues) Idle(worker int) bool { return q.head[worker] < 0 }

// Pop takes the head of worker's queue, false when it is empty.
func (q *Queues) Pop(worker int) (int, bool) {
	t := q.head[worker]
	if t < 0 {
		return 0, false
	}
	q.head[worker] = q.next[t]
	q.n[worker]--
	if q.head[worker] < 0 {
		q.tail[worker] = -1
	}
	return int(t), true
}
