// Package schedulers holds the scheduler contract (StarPU's push/pull), the
// registry of schedulers with their typed parameters, and the small parts
// several schedulers compose: Ready reordering, planned lists with work
// stealing, Belady over a plan.
//
// A scheduler is pure and deterministic: everything it may see comes through
// a read-only View, including time and a seeded random source.
package schedulers

import (
	"math/rand/v2"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/workloads"
)

// View is the read-only state of a run that a scheduler may consult.
// Workers are numbered GPUs first, then CPU cores; each computes from a
// memory node (GPU g's memory is node g; CPU cores share main memory), and
// the questions about memory are asked of the worker's node.
type View interface {
	Workload() *workloads.Workload
	Platform() *hardware.Platform
	Workers() int
	WorkerKind(worker int) string // hardware.GPU or hardware.CPU
	WorkerNode(worker int) int    // the memory node the worker computes from
	Nodes() int                   // memory nodes; the home node (where data live at the start) is the last
	// CurrentWorker is the worker a call is made for (the one pulling,
	// popping or evicting, or whose finished task released the task being
	// pushed), -1 for the application's submissions: StarPU's
	// starpu_worker_get_id() inside a scheduler hook.
	CurrentWorker() int
	Now() float64 // seconds of simulated (or real) time
	// Resident reports whether a valid copy of data is on the worker's memory.
	Resident(worker, data int) bool
	// Present reports whether data is loaded or being loaded on the worker.
	Present(worker, data int) bool
	// Presence answers Present for the worker's memory without a call per
	// data (Ready asks it of every input of every buffered task). It is
	// live: it follows the run.
	Presence(worker int) Presence
	// TaskInputs is the data a task accesses, in the order of its
	// Workload().Tasks[task].Inputs, read from the engine's compact record
	// of the task (one cache line, where the workload's task and its inputs
	// array are two: Ready asks it of every buffered task). Do not modify it.
	TaskInputs(task int) []int32
	// Buffer lists the tasks a worker holds but has not started fetching,
	// in order (StarPU's taskBuffer). Do not modify it.
	Buffer(worker int) []int
	// Pipeline lists the popped tasks of a worker, oldest (computing or next
	// to compute) first. Do not modify it.
	Pipeline(worker int) []int
	// CanRun reports whether the worker's kind can run the task's kernel.
	CanRun(worker, task int) bool
	ComputeSeconds(worker, task int) float64 // NaN when it cannot run it
	// TransferSeconds is the uncontended time to load data on the worker
	// from home.
	TransferSeconds(worker, data int) float64
	Rand() *rand.Rand
	// Count reports ops elementary operations that the papers' StarPU
	// implementation of the scheduler performs in the current call (tasks
	// scanned by Ready, data examined by DARTS, future uses looked up by
	// Belady...), the complexity cited beside the call. Under the runtime
	// setting sched_cost = "model" the engine charges them to the worker
	// the call is for, so a run reproduces the papers' scheduling overhead
	// without depending on this program's speed. An operation here is a
	// step through StarPU's linked structures: a list element visited, a
	// data handle's state queried (runtime op_seconds each).
	Count(ops int)
	// CountArray reports comparisons over contiguous arrays (HFP's packing
	// of StarPU's HFP.c compares sorted data arrays of packages), a cheaper
	// operation (runtime array_op_seconds each).
	CountArray(ops int)
	// CountOps reports operations of one kind (Count and CountArray are
	// CountOps(OpStep, n) and CountOps(OpArray, n)): StarPU's C code does
	// different work per step for each kind, so each has its own cost.
	CountOps(kind Op, ops int)
}

// Op is a kind of operation a scheduler's StarPU implementation performs,
// each priced by its own runtime cost under sched_cost = "model".
type Op int

const (
	// OpStep is a step through StarPU's linked structures: a list element
	// visited, a datum examined (DARTS' scans of its data and planned
	// tasks; runtime op_seconds).
	OpStep Op = iota
	// OpArray is a comparison over contiguous arrays (HFP.c's packing;
	// array_op_seconds).
	OpArray
	// OpStatus is a query of a datum's state on a memory node: Ready's
	// ranking of a queued task's buffers (fifo_queues.c
	// _starpu_fifo_pop_first_ready_task, starpu_data_query_status2);
	// status_op_seconds.
	OpStatus
	// OpPredict is one of dmda's predictions at push: a worker's expected
	// end, or the transfer estimate of one input on it
	// (deque_modeling_policy_data_aware.c compute_all_performance_predictions,
	// starpu_task_expected_data_transfer_time); predict_op_seconds.
	OpPredict
	// OpBelady is a look-up of Belady's next uses (HFP.c
	// belady_victim_selector over next_use_tab, or memsched's walk of the
	// remaining plan); belady_op_seconds.
	OpBelady
	// OpStatusWritten is a status query of a write-only buffer (the C
	// tile of xgemm.c's cl_gemm0), counted besides its OpStatus: each of
	// the N² C tiles is its own handle, met once per scan, so its query
	// misses the caches the 2N A and B handles stay in (issue 34's
	// hypothesis: the 2-GPU random-order DMDAR of IPDPS 2022 scans every
	// queued task at each pop); status_written_op_seconds, on top of
	// status_op_seconds.
	OpStatusWritten
	// OpProgramRun is one run of an external program with its input and
	// output files: HFP.c hmetis() (HMETIS=1) writes the hypergraph to
	// Output_maxime/input_hMETIS.txt, runs hmetis through system() and
	// reads its .part file back; program_run_seconds.
	OpProgramRun
	// NumOps counts the kinds.
	NumOps
)

// Sharer is implemented by views whose runs may share what a scheduler
// computes from the workload and platform alone (a sweep's runs of one
// point: hMETIS+R's partition, a file generated beforehand in the papers'
// protocol). Share returns what compute returns, computed once for all the
// runs that ask with the same key: the key must name every input of
// compute, compute must not use the run's random source or state, and the
// value, shared by concurrent runs, is read only.
// Operations compute counts are replayed to the runs that did not compute,
// so a model-charged run costs the same either way; a run charged its
// measured wall time always computes.
type Sharer interface {
	Share(key string, compute func() (any, error)) (any, error)
}

// Shared computes through the view's Sharer if it has one, else at once.
func Shared[T any](v View, key string, compute func() (T, error)) (T, error) {
	s, ok := v.(Sharer)
	if !ok {
		return compute()
	}
	r, err := s.Share(key, func() (any, error) { return compute() })
	if err != nil {
		var zero T
		return zero, err
	}
	return r.(T), nil
}

// Presence is the read-only set of data present (loaded or being loaded)
// on a memory node, kept by the executor.
type Presence struct{ present []bool }

// NewPresence is what an executor hands out for a node whose presence it
// keeps in present (indexed by data id).
func NewPresence(present []bool) Presence { return Presence{present} }

// Has reports whether the data is present.
func (p Presence) Has(data int) bool { return p.present[data] }

// What StarPU reports of a datum on a memory node
// (user_interactions.c starpu_data_query_status2), the bits of a Status.
const (
	// StatusAllocated: memory is allocated for the datum (is_allocated).
	StatusAllocated uint8 = 1 << iota
	// StatusValid: a valid copy is there (is_valid).
	StatusValid
	// StatusLoading: a request for it was handled and has not completed
	// (is_loading: the replicate's load_request), whether its copy runs,
	// waits for the copy engine, or waits for memory.
	StatusLoading
)

// Status is the read-only status of the data on a memory node, kept by the
// executor: what StarPU's Ready ranking asks (ReadyStarPU).
type Status struct{ status []uint8 }

// NewStatus is what an executor hands out for a node whose statuses it
// keeps in status (indexed by data id, bits StatusAllocated...).
func NewStatus(status []uint8) Status { return Status{status} }

// Of is the datum's status bits.
func (s Status) Of(data int) uint8 { return s.status[data] }

// StatusViewer is a View that keeps StarPU's status of the data (the
// simulator does). A View without it is read through Presence and
// Resident (StatusOf).
type StatusViewer interface {
	Status(worker int) Status
}

// StatusOf is the worker's memory's Status: the view's own, or, for a view
// that keeps none, one read off Presence and Resident (present: allocated,
// and loading unless valid).
func StatusOf(v View, worker int) Status {
	if sv, ok := v.(StatusViewer); ok {
		return sv.Status(worker)
	}
	st := make([]uint8, len(v.Workload().Data))
	on := v.Presence(worker)
	for d := range st {
		switch {
		case v.Resident(worker, d):
			st[d] = StatusAllocated | StatusValid
		case on.Has(d):
			st[d] = StatusAllocated | StatusLoading
		}
	}
	return Status{st}
}

// Scheduler is the contract every scheduler fulfils. Init sees the whole
// workload; Push announces a task whose dependencies are met (every task of
// an independent set is pushed once, in submission order, right after Init);
// Pull gives the next task for a worker whose buffer has room, or false when
// it has none for now.
type Scheduler interface {
	Init(v View) error
	Push(task int)
	Pull(worker int) (task int, ok bool)
}

// Idler is implemented by schedulers that can tell at once that Pull would
// return no task, change nothing and count no operations: the engine then
// does not make the call. Workers poll (StarPU's drivers pull whenever they
// have room), and 48 idle cores made dozens of timed calls per task that
// did nothing. Idle is asked before every Pull and is not timed: it must
// be a few comparisons, without side effects.
type Idler interface {
	Idle(worker int) bool
}

// Pumper is implemented by schedulers that are pulled once more when a
// worker's buffer is full, as StarPU's pump does (starpu_sched_component_
// pump_to pulls until the worker's FIFO refuses a task; DARTS keeps the
// refused task, dynamic_data_aware_can_push). The engine calls Pumped, timed
// like Pull, when a worker that pulled a task since the last call finds its
// buffer full: after the prefetches of that task's inputs, and after what
// they made the worker wait for (hardware.Runtime.LockFree).
type Pumper interface {
	Pumped(worker int)
}

// PumpView is implemented by a View whose engine calls Pumped (the
// simulator's): a Pumper whose view lacks it (a unit test's) decides at the
// end of Pull instead.
type PumpView interface {
	Pumps() bool
}

// Rounder is implemented by schedulers whose decisions in one round of
// in-turn pulls are made in two phases. In StarPU the workers woken at the
// same simulated time are SimGrid actors that take turns at every simcall
// (hardware.Runtime.NodeAfterNode false): a scheduler that reads its shared
// state without a lock and then takes a lock to change it has every
// worker of the round read before any of them changes it. The engine calls
// EndRound after each round of its in-turn pulls (each worker pulling at
// most once), and only while RoundView.InTurn says the pulls are in turn.
type Rounder interface {
	EndRound()
}

// RoundView is implemented by a View whose engine calls EndRound (the
// simulator's): InTurn says whether the current pull belongs to a round of
// in-turn pulls that EndRound will close. A Rounder whose view lacks it (a
// unit test's, a real machine's) decides at once.
type RoundView interface {
	InTurn() bool
}

// Evictor is implemented by schedulers that choose eviction victims
// themselves (Belady for HFP, LUF for DARTS). Candidates are the node's
// evictable data, least recently used first (node = the GPU on GPU-only
// platforms). Returning -1 declines; a decline is honoured only for a
// prefetch (a fetch then falls back to LRU).
type Evictor interface {
	Victim(node int, candidates []int, prefetch bool) int
}

// SelectiveEvictor is an Evictor that may leave every choice to LRU (DARTS
// with eviction=lru, a plan without Belady). ChoosesVictims is asked once,
// after Init; when it says no, the engine evicts in LRU order without
// listing the candidates and calling Victim at each eviction.
type SelectiveEvictor interface {
	Evictor
	ChoosesVictims() bool
}

// PushPrefetcher is implemented by schedulers whose tasks enter, when
// pushed, a StarPU FIFO component above all the workers
// (STARPU_SCHED_SIMPLE_FIFO_ABOVE, as modular-eager-prefetching builds):
// that component prefetches each task it is pushed
// (component_fifo.c fifo_push_local_task,
// starpu_sched_component_prefetch_on_node) when every worker below it
// computes from one memory node. The engine then requests the prefetches
// of a task's inputs on that node as the task is pushed, not when it enters
// a worker's buffer (unless hardware.Runtime.PrefetchAtBuffer). It asks
// PrefetchesAtPush once, after Init.
type PushPrefetcher interface {
	PrefetchesAtPush() bool
}

// Popper is implemented by schedulers that choose which buffered task a
// worker starts next (Ready). It returns an index into buffer, and is asked
// for every pop, even from a buffer of one task.
type Popper interface {
	Pop(worker int, buffer []int) int
}

// TaskPopper is a Popper that can name the task it pops without being
// shown the buffer (Ready's index knows it): the engine then takes it out
// of the buffer without shifting the tasks behind it. PopsTasks is asked
// once, after Init; PopTask returns a task of the worker's buffer, the one
// Pop would have indexed, and counts the same operations.
type TaskPopper interface {
	Popper
	PopsTasks() bool
	PopTask(worker int) int
}

// EventKind names what an Observer is told.
type EventKind uint8

const (
	LoadStarted EventKind = iota // data is now present (loading, or allocated for a write) on the node
	Loaded                       // data is valid on the node
	Evicted                      // data left the node (evicted, or invalidated by a write elsewhere)
	Started                      // a task starts on the worker
	Finished                     // a task ends on the worker
	// Requested: a request for the data was handled on the node: its
	// memory is allocated and its copy queued, or it found no memory
	// (Status: StarPU then reports the data loading). It comes before the
	// copy's LoadStarted; Ready's StarPU index follows it.
	Requested
	// EventKinds is the number of kinds.
	EventKinds
)

// Observer is implemented by schedulers that follow memory and task events.
// where is the memory node for data events and the worker for task events
// (the same number for a GPU and its memory). Data events of a node that no
// worker computes from (main memory on a GPU-only platform) are not
// reported.
type Observer interface {
	Observe(kind EventKind, where, id int)
}

// SelectiveObserver is an Observer that follows only some kinds of events
// (Ready's index: loads only). The engine asks once, after Init, and does
// not call it for the others: every call is timed (two clock reads), and
// at a million tasks the calls that do nothing were a fifth of DMDAR's run.
type SelectiveObserver interface {
	Observer
	Observes(kind EventKind) bool
}

// The optional interfaces below are what a run's record asks of its
// scheduler after the run (harness/run): none of them changes a decision.

// Partitioned is implemented by schedulers that partition the task graph
// with a tool they choose at run time (hMETIS+R: the hMETIS binary, or the
// built-in partitioner): Partitioner names the one the run used, for the
// record's partitioner field.
type Partitioned interface {
	Partitioner() string
}

// ModelPlanner is implemented by schedulers with a static plan (Planned):
// ModelPlan is the plan as computed in Init, one task list per worker, and
// whether it runs with Belady. The record's model_loads counts its loads in
// the abstract model of thesis §2.2 (schedulers/order.Loads).
type ModelPlanner interface {
	ModelPlan() (plans [][]int32, belady bool)
}

// StatsReporter is implemented by schedulers that count things about their
// own decisions (LAHeteroprio's best-memory-node difference and stolen
// tasks): SchedStats gives them by name, for the record's sched_stats,
// after the run.
type StatsReporter interface {
	SchedStats() map[string]float64
}
