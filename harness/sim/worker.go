package sim

import (
	"math"
	"slices"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// worker is one GPU or CPU core: its task buffer, its pipeline of popped
// tasks and the task it computes.
type worker struct {
	id, node int
	slot     int     // position among its node's workers
	kind     int     // index into Engine.kinds
	depth    int     // pipeline depth
	buffer   *buffer // shared by the node's workers with Config.NodeBuffer
	pipe     []int
	// launchAt holds, for the first popped tasks whose data are all there,
	// when the driver has launched their kernels (Runtime.TaskIssueUs): a
	// task computes once the previous one ended and it is launched. Empty
	// when launching costs nothing.
	launchAt []float64
	busy     bool    // computing pipe[0]
	pulling  bool    // the scheduler has nothing for it for now
	blockedT float64 // busy with charged scheduling time until then
	wakeT    float64 // its pending wake-up event (0: none)
	popWakeT float64 // its pending wake-up at its driver's end of host time (driverHeld)
	pumpDue  bool    // it pulled since the scheduler's last Pumped call
	// lockD is the datum whose header lock the worker holds, having posted
	// its request at lockT, until its next pull (Runtime.LockFree); -1: none.
	lockD int32
	lockT float64
}

// check, set by tests, holds a node's candidates (kick) and head against
// a scan of its workers where kick or head reads them.
var check func(e *Engine, n *node)

// kickAll makes every worker progress at once. In StarPU the workers
// woken at the same simulated time are SimGrid actors that take turns at
// every simcall, and a pull moves one task into a worker's FIFO: they pull
// one task each, in worker order, round after round (Runtime.NodeAfterNode
// false; driver_cuda.c _starpu_cuda_worker and
// _starpu_cuda_driver_run_once, driver_common.c
// _starpu_get_multi_worker_task, component_worker.c
// simple_worker_pull_task, component_fifo.c fifo_pull_task,
// component_eager.c eager_can_push). NodeAfterNode kicks each node once,
// its workers pulling all they can before the next node's.
func (e *Engine) kickAll() {
	if !e.pullInTurn || e.inTurn {
		for n := range e.nodes {
			e.kick(n)
		}
		return
	}
	e.inTurn = true
	for more := true; more; {
		more = false
		for n := range e.nodes {
			e.pullsLeft = false
			e.kick(n)
			more = more || e.pullsLeft
		}
		if e.rounder != nil {
			e.rounder.EndRound()
		}
	}
	e.inTurn = false
	e.pullsLeft = false
}

// kick makes the workers of a memory node progress as far as they can now.
// The workers sharing a node (CPU cores) each fill their buffer and
// pipeline, then the node handles the requests of all of them at once, so
// that 48 cores do not handle the same queue 48 times per event.
func (e *Engine) kick(n int) {
	node := e.nodes[n]
	if check != nil {
		check(e, node)
	}
	if len(node.workers) == 1 {
		e.step(node.workers[0], true)
		return
	}
	// Most of 48 cores, kicked at every event of their node, have nothing
	// to do: the scan visits the candidates only, in worker order (it
	// decides ties), including those a step makes candidates behind it.
	for i := node.stepping.Next(0); i >= 0; i = node.stepping.Next(i + 1) {
		w := node.workers[i]
		if e.inert(e.workers[w], node) {
			node.stepping.Del(i)
			continue
		}
		e.step(w, false)
	}
	e.startTransfer(n)
	if len(node.workers) == 0 {
		return
	}
	node.batch = true // fetches requested again are handled once, below
	for i := node.starting.Next(0); i >= 0; i = node.starting.Next(i + 1) {
		w := node.workers[i]
		if wk := e.workers[w]; wk.busy || len(wk.pipe) == 0 {
			node.starting.Del(i)
			continue
		}
		e.startCompute(w)
	}
	node.batch = false
	if node.refetch {
		node.refetch = false
		e.startTransfer(n)
	}
}

// wake makes a worker a candidate of its node's kick again: something
// inert reads changed, its pulling flag, pipeline or scheduling time.
func (e *Engine) wake(wk *worker) { e.nodes[wk.node].stepping.Add(wk.slot) }

// resized wakes the workers whose buffer length changed: may it pull, may
// it pop. A buffer shared by the node's workers wakes them all.
func (e *Engine) resized(wk *worker) {
	if n := e.nodes[wk.node]; e.cfg.NodeBuffer {
		n.stepping.Fill(len(n.workers))
	} else {
		n.stepping.Add(wk.slot)
	}
}

// inert reports whether step would do nothing for a worker sharing its
// node (the caller starts the node's requests and tasks): it is not held
// by scheduling time, may not pull (its buffer is full, or the scheduler
// had nothing for it) and cannot pop. Where what it reads changes so that
// a worker may no longer be inert, the worker is woken (wake, resized,
// node.unblock): kick looks at the woken only.
func (e *Engine) inert(wk *worker, n *node) bool {
	return wk.blockedT <= e.now && !e.mayPull(wk) && !mayPop(wk, n)
}

// mayPull says the worker's buffer has room and the scheduler has not said
// it has nothing for it.
func (e *Engine) mayPull(wk *worker) bool {
	return (e.cfg.Buffer < 0 || wk.buffer.len() < e.cfg.Buffer) && !wk.pulling
}

// mayPop says the worker's pipeline has room for a task of its buffer and
// its node's driver launches kernels (StarPU's driver pops only then).
func mayPop(wk *worker, n *node) bool {
	return n.barrier < 0 && len(wk.pipe) < wk.depth && wk.buffer.len() > 0
}

// step makes a worker progress: refill its buffer and pipeline, start its
// node's next transfers (unless the caller does it for the node) and its
// next task.
func (e *Engine) step(w int, issue bool) {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	if wk.blockedT > e.now {
		e.wakeUp(w, wk)
		return
	}
	if e.progress > 0 && issue && n.gpu {
		e.iterate(w, n)
	} else if e.taskIssue > 0 && n.gpu {
		// StarPU's CUDA driver launches the tasks whose inputs arrived
		// before it handles requests and pops (driver_cuda.c
		// _starpu_cuda_driver_run_once).
		e.launch(w)
	}
	if issue && n.gpu && !e.rt.PopBeforeProgress {
		// ... and it handles the node's data requests (allocating, and
		// evicting for, the next copies) before it pops: a task popped now
		// and the task its pop lets the scheduler push refresh their data
		// in LRU order only after those evictions (driver_cuda.c
		// _starpu_cuda_driver_run_once: __starpu_datawizard_progress, then
		// _starpu_get_multi_worker_task).
		e.startTransfer(wk.node)
	}
	// One pop per driver iteration (Runtime.PopAtOnce false): the driver
	// handles the node's requests between pops.
	one := issue && n.gpu && !e.rt.PopAtOnce
	for {
		e.fill(w, one)
		if wk.blockedT > e.now {
			e.wakeUp(w, wk)
			return
		}
		if !issue {
			return // the caller handles the node's requests and starts its workers
		}
		blocked := n.barrier >= 0
		e.startTransfer(wk.node)
		if blocked && n.barrier < 0 {
			continue // the driver got unblocked: it pops and launches again
		}
		e.startCompute(w)
		if one && e.mayPopNow(w) {
			continue // its next iteration pops again
		}
		if !n.allocated {
			return
		}
		n.allocated = false
		// The allocation of an input in mode W made popped tasks ready
		// without an event, as no copy was needed: StarPU's driver, which
		// polls, pops again at its next iteration (driver_cuda.c,
		// _starpu_cuda_driver_run_once; _starpu_get_multi_worker_task pops
		// once no popped task is transferring).
		if !e.mayPopNow(w) {
			return
		}
	}
}

// mayPopNow says step would pop a task: it pops again after an allocation
// only then, so that its loop ends.
func (e *Engine) mayPopNow(w int) bool {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	return wk.blockedT <= e.now && mayPop(wk, n) && e.popReady(w) && !e.driverHeld(w, wk, n)
}

// driverHeld says a GPU's driver thread still spends host time
// (Node.driverT), so that it pops nothing before then, and wakes the worker
// then, once (Runtime.PopDuringDriverTime false: StarPU's driver pops in
// its next iteration, after its SimGrid sleeps).
func (e *Engine) driverHeld(w int, wk *worker, n *node) bool {
	if e.rt.PopDuringDriverTime || !n.gpu || n.driverT <= e.now {
		return false
	}
	if wk.popWakeT != n.driverT {
		wk.popWakeT = n.driverT
		e.wakeAt(n.driverT, w)
	}
	return true
}

// popReady says no popped task of the worker is still transferring (or the
// driver pops anyway, Runtime.PopWhileFetching).
func (e *Engine) popReady(w int) bool {
	wk := e.workers[w]
	if e.progress > 0 && e.taskIssue > 0 && e.nodes[wk.node].gpu && len(wk.launchAt) < len(wk.pipe) && !e.rt.PopWhileFetching {
		// StarPU pops only once its last popped task is launched
		// (_starpu_get_multi_worker_task: task_transferring is reset at
		// the launch, in the next iteration's poll; Runtime.ProgressUs).
		return false
	}
	return e.rt.PopWhileFetching || e.readyPrefix(w) == len(wk.pipe)
}

// wakeUp schedules the worker's wake-up at the end of its scheduling time,
// once: a held worker is stepped at every kick of its node, and a wake-up
// per step made duplicates that each kicked the node again, multiplying
// with the node's held cores (48 cores under a measured charge grew to
// tens of GB).
func (e *Engine) wakeUp(w int, wk *worker) {
	if wk.wakeT != wk.blockedT {
		wk.wakeT = wk.blockedT
		e.wakeAt(wk.blockedT, w)
	}
}

// fill refills the worker's buffer from the scheduler and its pipeline from
// the buffer; with one, it pops at most one task and refills the buffer
// after it.
func (e *Engine) fill(w int, one bool) {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	pulled, popped := false, false
	for changed := true; changed; {
		changed = false
		for e.mayPull(wk) {
			if e.inTurn && pulled {
				e.pullsLeft = true // its next pull waits for the others' turn (kickAll)
				break
			}
			if e.idler != nil && e.idler.Idle(w) {
				wk.pulling = true // what the call would have said
				break
			}
			var task int
			var ok bool
			e.timed(w, func() error { task, ok = e.sched.Pull(w); return nil })
			if !ok {
				wk.pulling = true
				break
			}
			e.addToBuffer(w, task)
			changed, pulled = true, true
			wk.pumpDue = e.pumper != nil
			if wk.blockedT > e.now {
				return
			}
		}
		if wk.pumpDue && !e.mayPull(wk) && wk.blockedT <= e.now {
			// The pump's pull that the full buffer refuses.
			wk.pumpDue = false
			e.timed(w, func() error { e.pumper.Pumped(w); return nil })
			if wk.blockedT > e.now {
				return
			}
		}
		// StarPU's driver pops a task only when its pipeline has room and no
		// popped task is still transferring its data
		// (_starpu_get_multi_worker_task: "don't push a task if we are
		// already transferring one").
		// Popping changes no residency: once the popped tasks are known to
		// be ready, only the task just popped needs checking. Most steps of
		// a node's many CPU workers pop nothing: they skip the check.
		if popped || !mayPop(wk, n) {
			continue // changed says whether the buffer grew
		}
		ready := e.popReady(w)
		for ready && mayPop(wk, n) {
			if e.driverHeld(w, wk, n) {
				break
			}
			task := e.pop(w)
			e.popTask(w, task)
			ready = e.rt.PopWhileFetching || n.holds(e.inputs(task))
			changed = true
			if one {
				popped = true
				break
			}
		}
	}
}

// readyPrefix counts the popped tasks, oldest first, whose data are all
// on the node: the kernels StarPU has launched (or is running).
func (e *Engine) readyPrefix(w int) int {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	for i, t := range wk.pipe {
		if !n.holds(e.inputs(t)) {
			return i
		}
	}
	return len(wk.pipe)
}

// holds reports whether every one of the data is on the node.
func (n *node) holds(data []int32) bool {
	for _, d := range data {
		if n.state[d] != resident {
			return false
		}
	}
	return true
}

// addToBuffer gives a task to a worker and, unless it was prefetched when
// pushed (pushNode), prefetches its inputs there (prefetchInputs).
func (e *Engine) addToBuffer(w, task int) {
	if task < 0 || task >= len(e.w.Tasks) {
		e.faultf("scheduler returned task %d, outside 0..%d", task, len(e.w.Tasks)-1)
	}
	r := &e.tasks[task]
	if r.waiting != 0 {
		e.faultf("scheduler returned task %d whose dependencies are not done (or which was already returned)", task)
	}
	wk := e.workers[w]
	if math.IsNaN(e.duration(w, task)) {
		e.faultf("scheduler gave task %d (kernel %s) to worker %d, a %s, which cannot run it", task, e.w.Tasks[task].Kernel, w, e.kinds[wk.kind])
	}
	r.waiting = -1 // taken
	wk.buffer.add(task)
	e.resized(wk)
	if wk.node != e.pushNode { // prefetched when pushed (task->prefetched)
		stall := !e.rt.LockFree && e.nodes[wk.node].gpu && e.lockHeld(w, task)
		wk.lockD = -1 // its next pull: it released the lock it held
		last := e.prefetchInputs(wk.node, task)
		switch n := e.nodes[wk.node]; {
		case stall:
			// It spun on the lock, handling its node's requests
			// (_starpu_datawizard_progress), and holds none now.
			e.issue(wk.node)
			if n.driverT > e.now {
				wk.blockedT = max(wk.blockedT, n.driverT)
				e.wake(wk)
			}
		case last >= 0 && !e.rt.LockFree && n.gpu:
			wk.lockD, wk.lockT = last, e.now
		}
	}
}

// lockHeld says another GPU worker holds the header lock of one of the
// task's inputs now: it posted that datum's request at this time and has
// not pulled since (Runtime.LockFree; coherency.c _starpu_fetch_data_on_node
// takes every input's header lock, present or not).
func (e *Engine) lockHeld(w, task int) bool {
	for _, d := range e.inputs(task) {
		for _, o := range e.workers {
			if o.id != w && o.lockD == d && o.lockT == e.now {
				return true
			}
		}
	}
	return false
}

// prefetchInputs requests a task's inputs on a node as StarPU's prefetch of
// a task pushed to a worker or a node does (starpu_prefetch_task_input_for,
// _on_node): each missing datum once, in order, while a request that finds
// the datum already there refreshes it in LRU order
// (_starpu_memchunk_recently_used); the task counts among those that
// prefetched each input (want: nb_tasks_prefetch) until it is popped.
//
// It returns the last datum it requested, -1 if none.
func (e *Engine) prefetchInputs(ni, task int) int32 {
	n := e.nodes[ni]
	last := int32(-1)
	for k, d := range e.inputs(task) {
		n.want[d]++
		switch n.state[d] {
		case absent:
			e.requestPrefetch(ni, int(d), e.mode(task, k))
			last = d
		case resident:
			if !e.rt.TouchAtStart {
				n.touch(int(d))
			}
		}
	}
	return last
}

// popTask moves a task into the pipeline and fetches its missing data; a
// queued prefetch of those becomes the fetch (StarPU upgrades the request).
func (e *Engine) popTask(w, task int) {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	wk.pipe = append(wk.pipe, task)
	n.popped(w)
	if !wk.busy {
		n.starting.Add(wk.slot)
	}
	e.pops++
	e.tasks[task].popSeq = e.pops
	n.progressed = false // the pop ends the driver's iteration (iterate)
	if e.fetchInput > 0 {
		// _starpu_fetch_task_input sleeps after requesting each input.
		e.driverSpend(n, e.fetchInput*float64(len(e.inputs(task))))
	}
	if e.cfg.Decisions {
		e.taskEvent("pop", w, wk.node, task)
	}
	for k, d := range e.inputs(task) {
		if n.state[d] != resident && n.pin[d] == 0 {
			e.stats.PopMissing++
		}
		n.want[d]--
		n.pin[d]++
		switch n.state[d] {
		case absent:
			// StarPU creates the fetch request anew: from the pending
			// prefetch's source it takes that request over, from another
			// it is handled first (fetches before prefetches) and the
			// prefetch then finds the data coming.
			e.dropPrefetchSource(wk.node, int(d))
			n.prefReq[d] = false
			if !e.fetching(n, int(d)) {
				n.fetchQ = append(n.fetchQ, e.newRequest(wk.node, int(d), false, e.mode(task, k) == workloads.W))
			}
		case resident:
			if !e.rt.TouchAtStart {
				n.touch(int(d))
			}
		}
	}
}

// fetching says whether a fetch of d waits in the node's queue: a popped
// task needing it too reuses that request (StarPU's
// _starpu_search_existing_data_request).
func (e *Engine) fetching(n *node, d int) bool {
	return slices.ContainsFunc(n.fetchQ, func(q request) bool { return q.data == d })
}

// startCompute starts the worker's oldest popped task once its data are
// on the node.
func (e *Engine) startCompute(w int) {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	if e.taskIssue > 0 && n.gpu {
		e.launch(w)
	}
	if wk.busy || len(wk.pipe) == 0 || (n.barrier >= 0 && n.done >= n.barrier) {
		return // idle, or the driver is blocked and launched no more kernels
	}
	if len(wk.launchAt) > 0 && wk.launchAt[0] > e.now {
		if wk.wakeT != wk.launchAt[0] { // not launched yet: wake up then
			wk.wakeT = wk.launchAt[0]
			e.wakeAt(wk.wakeT, w)
		}
		return
	}
	task := wk.pipe[0]
	inputs := e.inputs(task)
	for k, d := range inputs {
		if n.state[d] != resident {
			if n.state[d] == absent {
				// Evicted while it waited: fetch it first (once: the
				// request may be queued already, by afterLeave or by an
				// earlier call; several workers share a node's queue).
				i := slices.IndexFunc(n.fetchQ, func(q request) bool { return q.data == int(d) })
				if i < 0 {
					n.fetchQ = append(n.fetchQ, e.newRequest(wk.node, int(d), false, e.mode(task, k) == workloads.W))
					i = len(n.fetchQ) - 1
				}
				r := n.fetchQ[i]
				copy(n.fetchQ[1:i+1], n.fetchQ[:i])
				n.fetchQ[0] = r
				if n.batch {
					n.refetch = true
				} else {
					e.startTransfer(wk.node)
				}
			}
			return
		}
	}
	wk.busy = true
	if e.rt.TouchAtStart {
		for _, d := range inputs {
			n.touch(int(d))
		}
	}
	var freed []int
	if e.tasks[task].written {
		freed = e.acquire(wk.node, task)
	}
	i := e.taskEvent("task_start", w, wk.node, task)
	e.observe(schedulers.Started, w, task)
	e.effects = append(e.effects, Effect{Kind: EffectTask, Worker: w, Task: task, Event: i})
	for _, o := range freed {
		e.kick(o) // invalidation freed memory there
	}
}

// launch has the driver launch, in order, the popped tasks whose data are
// all on the node: StarPU's CUDA driver queues a task's kernel when its
// inputs have arrived (driver_cuda.c execute_job_on_cuda), and in SimGrid
// sleeps 10 µs "for the GPU task queueing" first (simgrid.c
// _starpu_simgrid_submit_job); the GPU runs the queued kernels one after
// the other.
func (e *Engine) launch(w int) {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	for len(wk.launchAt) < len(wk.pipe) && n.holds(e.inputs(wk.pipe[len(wk.launchAt)])) {
		wk.launchAt = append(wk.launchAt, e.driverSpend(n, e.taskIssue))
		n.progressed = false // a poll's launch: its request handling comes next (iterate)
	}
}

// iterate begins a GPU driver's iteration as StarPU's CUDA driver runs it
// in SimGrid mode (Runtime.ProgressUs > 0; driver_cuda.c
// _starpu_cuda_driver_run_once), in its order:
//
//  1. poll: it launches the popped task whose inputs all arrived, 10 µs
//     (execute_job_on_cuda, simgrid.c _starpu_simgrid_submit_job), and
//     notes the kernels that ended (finish_job_on_cuda);
//  2. progress: __starpu_datawizard_progress calls
//     ___starpu_datawizard_progress for every memory node the worker
//     drives, its NUMA node(s) then its GPU (topology.c
//     _starpu_init_workers_binding), each sleeping 1 µs first ("XXX",
//     datawizard.c) and then handling the node's requests: the copies
//     that ended (_starpu_handle_pending_node_data_requests), then new
//     copies, 10 µs each (simgrid.c _starpu_simgrid_transfer);
//  3. pop: _starpu_get_multi_worker_task pops one task, and only once no
//     popped task is transferring (worker->task_transferring NULL: the
//     last popped task is launched), then fetches its inputs, 1 µs each
//     (coherency.c _starpu_fetch_task_input);
//  4. with nothing done it waits (starpu_pthread_wait_wait) until a
//     copy's end (simgrid.c transfer_execute:
//     _starpu_wake_all_blocked_workers_on_node), a kernel's end or a push
//     wakes it.
//
// An event that finds the driver waiting (driverT < now) starts an
// iteration: the launches of step 1, then step 2's sleeps. One that finds
// it busy, or at the end of its host time (the wake-up driverHeld set),
// goes on with the iteration it is in: step 2 is charged once per
// iteration (node.progressed), and a launch or a pop ends it. A copy's end is seen only in step
// 2 (loadDone charges the sleeps and sets copyEnded): that iteration
// issues the next copies before the task the copy made ready is launched,
// which happens in the next iteration's poll, before it pops again.
func (e *Engine) iterate(w int, n *node) {
	if n.copyEnded {
		n.copyEnded = false // loadDone charged step 2: issue, then launch
		return
	}
	if n.driverT < e.now {
		n.progressed = false // it was waiting: a new iteration
	}
	if e.taskIssue > 0 {
		e.launch(w)
	}
	if !n.progressed {
		n.progressed = true
		e.driverSpend(n, e.progress)
	}
}

// TaskDone is the driver's report that a task finished.
func (e *Engine) TaskDone(w, task int) {
	wk := e.workers[w]
	n := e.nodes[wk.node]
	wk.busy = false
	wk.pipe = append(wk.pipe[:0], wk.pipe[1:]...) // in place: the pipeline is a few tasks
	if len(wk.launchAt) > 0 {
		wk.launchAt = append(wk.launchAt[:0], wk.launchAt[1:]...)
	}
	n.starting.Add(wk.slot)
	n.ended(w)
	e.wake(wk)
	inputs := e.inputs(task)
	for _, d := range inputs {
		n.pin[d]--
	}
	n.done++
	e.done++
	e.stats.Tasks++
	e.stats.PerWorker[w]++
	e.taskEvent("task_end", w, wk.node, task)
	for _, d := range inputs {
		if e.w.Data[d].Scratch && wk.node != e.home && n.pin[d] == 0 && n.want[d] == 0 && n.state[d] == resident {
			e.discard(wk.node, int(d))
		}
	}
	e.observe(schedulers.Finished, w, task)
	if e.done == len(e.w.Tasks) {
		e.tasksEnd = e.now
	}
	released := false
	for _, c := range e.children.Of(task) {
		e.tasks[c].waiting--
		if e.tasks[c].waiting == 0 {
			e.timed(w, func() error { e.pushTask(c); return nil })
			released = true
		}
	}
	if released {
		for _, o := range e.workers {
			o.pulling = false
			e.wake(o)
		}
		// The worker that released the tasks pulls first: in StarPU it
		// pushes them itself and returns to its driver loop, while idle
		// workers are only woken (starpu_wake_worker_relax_light).
		e.kick(wk.node)
		e.kickAll()
		return
	}
	wk.pulling = false
	e.wake(wk)
	e.kick(wk.node)
	// Memory freed on the node may unblock nothing elsewhere; other workers
	// only need a kick when the scheduler may now have work for them
	// (stealing).
	for o, ok := range e.workers {
		if o != w && ok.pulling && ok.buffer.len() == 0 {
			ok.pulling = false
			e.wake(ok)
			e.kick(ok.node)
		}
	}
}

// discard drops a scratch datum after the task that wrote it: its value is
// not needed (starpu_data_invalidate_submit), so it is freed without a
// write-back.
func (e *Engine) discard(ni, d int) {
	n := e.nodes[ni]
	bytes := e.w.Data[d].Bytes
	n.set(d, absent)
	n.used -= bytes
	n.lruRemove(d)
	e.stats.Invalidations++
	e.dataEvent("invalidate", ni, d, bytes, "", 0)
	e.freed(ni, d)
	e.observe(schedulers.Evicted, ni, d)
}

// acquire grants a starting task its writes (StarPU's MSI coherency,
// coherency.c _starpu_fetch_data_on_node in W mode): every other copy of a
// data it writes is invalidated, main memory's included, so the node's
// copy becomes the only valid one. A copy still in use elsewhere means
// the workload lacks a dependency. It returns the nodes whose memory it
// freed.
func (e *Engine) acquire(node, task int) (freed []int) {
	for k, in := range e.inputs(task) {
		d := int(in)
		if !e.mode(task, k).Writes() || e.w.Data[d].Scratch {
			continue // a scratch datum's value matters to nobody
		}
		e.version[d]++
		for o, m := range e.nodes {
			if o == node {
				continue
			}
			switch m.state[d] {
			case absent, flushing:
				// A write-back in flight carries the old version: it will
				// not validate home (see finishFlow).
			case resident:
				if m.pin[d] > 0 || m.want[d] > 0 || m.reading[d] > 0 {
					e.faultf("task %d writes data %d while a task on node %d still uses it (pin %d, want %d, reading %d): the workload lacks a dependency", task, d, o, m.pin[d], m.want[d], m.reading[d])
				}
				if o == e.home {
					m.set(d, absent)
					continue
				}
				m.set(d, absent)
				m.used -= e.w.Data[d].Bytes
				m.lruRemove(d)
				e.stats.Invalidations++
				e.dataEvent("invalidate", o, d, e.w.Data[d].Bytes, "", 0)
				e.freed(o, d)
				e.observe(schedulers.Evicted, o, d)
				freed = append(freed, o)
			default:
				e.faultf("task %d writes data %d while it is being copied to node %d: the workload lacks a dependency", task, d, o)
			}
		}
	}
	return freed
}

// pop takes the task a worker starts next out of its buffer: the
// scheduler's choice (Popper), else the oldest.
func (e *Engine) pop(w int) int {
	wk := e.workers[w]
	task := e.unbuffer(w)
	e.resized(wk)
	return task
}

// unbuffer takes the task pop returns out of the buffer.
func (e *Engine) unbuffer(w int) int {
	b := e.workers[w].buffer
	if e.byTask != nil {
		var task int
		e.timed(w, func() error { task = e.byTask.PopTask(w); return nil })
		if !b.take(task) {
			e.faultf("scheduler popped task %d, which is not in worker %d's buffer", task, w)
		}
		return task
	}
	i := 0
	if e.popper != nil {
		e.timed(w, func() error { i = e.popper.Pop(w, b.dense()); return nil })
	}
	return b.removeAt(i)
}
