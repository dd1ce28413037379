// Package darts is DARTS (Data-Aware Reactive Task Scheduling, IPDPS 2022
// Alg. 5; thesis §3.8 Alg. 9) with its LUF eviction (Alg. 10) and the
// 3inputs (Alg. 11), OPTI and threshold variants, as the papers' code ran
// it: StarPU's src/sched_policies/dynamic_data_aware.c at the commit "Code
// utilisé pour expé" (c80ea6665, 13 October 2021) for the IPDPS figures,
// with the options of the artifact's code (60a8839af, February 2022) as
// parameters, and the rules of the tag papers/ICPP2023 (673878e09) that a
// StarPU run follows by default (version 3, traced against StarPU+SimGrid).
//
// Each worker k owns plannedTasks_k (unbounded) and its list of data not
// used yet (gpu_data). When k asks for a task and its plan is empty, DARTS
// scans the list from its head for the data D maximising the number of pool
// tasks reading D whose other inputs are on k (dynamic_data_aware_scheduling_
// one_data_popped), plans them and takes D out of the list; failing that it
// plans the head of the pool (label "random" there) and takes its inputs out
// of the list. LUF evicts the data least used by the plan and withdraws the
// planned tasks that read the victim.
//
// The rules of the October 2021 code, each a parameter (default first):
//
//   - order: "shuffled": when tasks arrive, the pool is shuffled
//     (randomize_task_list) and every worker's list holds every data of the
//     tasks in its own random order (randomize_data_not_used_yet, srandom
//     seeded by the run); "natural": submission order, lists rotated by
//     k·|D|/K (the artifact's NATURAL_ORDER=1, natural_order_data_not_used_yet).
//   - threshold, threshold_min_tasks: the scan stops after threshold list
//     entries ("i != choose_best_data_threshold"; every entry counts, data
//     whose tasks are all gone included), only when the batch of tasks that
//     arrived has more than threshold_min_tasks tasks ("if (NT_dynamic_outer
//     > 14400) choose_best_data_threshold = 110", commit a06ac2a93 onwards;
//     the artifact's THRESHOLD=1); 0 = the whole list.
//   - the count of D: pool tasks reading D whose every other input is on k,
//     i.e. valid or requested there (starpu_data_is_on_node), D's own state
//     ignored; planned_present adds data planned or pulled on k (the
//     artifact's SIMULATE_MEMORY=1, the thesis' reading of Alg. 9).
//   - ties: "first": the first in list order among the max count, then the
//     max of pool tasks reading D (task_using_data_list_size); "random":
//     uniform among the tied.
//   - fallback: "head": the pool's head (starpu_task_list_pop_front of the
//     shuffled main_task_list); "random": uniform; "rank": the task at rank
//     k·|pool|/K.
//   - the chosen data leaves the list (gpu_data_not_used_list_erase), as do
//     every entry of the fallback task's inputs; the planned tasks enter the
//     plan in the order of the data's task list (task_using_data_list,
//     push_front: last pushed first).
//   - eviction: under LUF, DARTS's victim selector (dynamic_data_aware_
//     victim_selector) withdraws the planned tasks reading the victim to the
//     pool's tail and puts the victim back in the list, at a random place
//     (reinsert = "random", push_data_not_used_yet_random_spot) or at its
//     place in the list's initial order ("place"); with eviction = lru the
//     code registers no selector, so evicted data never return to the list
//     (lru_returns = false) and, once the list is exhausted, every decision
//     is a fallback.
//   - free_tasks: pool tasks already free on k are planned first (not in
//     the papers' code: false).
//
// The rules of the tag papers/ICPP2023 (version 3), each a parameter
// defaulting to the tag (the October 2021 code behaves as the other value
// unless said):
//
//   - plan_order: "push": a chosen data's tasks enter the plan in the order
//     of its task_using_data_list, built with push_front when a task is
//     pushed (initialize_task_data_gpu_single_task_v1; October 2021 the
//     same: initialize_task_data_gpu_single_task at push) or withdrawn
//     back to the pool: the task pushed last first, whatever the shuffle;
//     "pool": the task last in the shuffled pool first (memsched before
//     version 3). On the 2D product the push order gives each column's
//     tasks in the same row order, and LRU then evicts the data the next
//     task needs, in a cascade (StarPU: 83 loads at N = 20, 500 MiB).
//   - refused: the runtime pumps tasks from DARTS into the GPU's FIFO
//     until the FIFO refuses one, which waits in refused_fifo_list
//     (dynamic_data_aware_can_push) and is returned first at the next pull
//     (get_task_to_return_pull_task_dynamic_data_aware): DARTS takes each
//     task, deciding when its plan is empty, one task before the FIFO has
//     room for it, and its inputs are requested only when the FIFO takes
//     it.
//   - tiebreak: "one_from_free": among data freeing as many tasks, the one
//     bringing the most tasks one load from free, then the largest
//     remaining expected time of its pool tasks
//     (update_best_data_single_decision_tree, DOPT_SELECTION_ORDER=0;
//     equal task times make it task_left); "task_left" (October 2021). The
//     two differ only with tasks of more than two inputs (the 3D product).
//     A task is one load from free through D when exactly one of its
//     inputs other than D is missing, D's own state ignored
//     (dynamic_data_aware_scheduling_3D_matrix: data_not_available == 1;
//     the artifact's code the same), for this tiebreak and for 3inputs;
//     memsched before version 7 also required D missing, which differs
//     only for a data on the GPU still in its list (an evicted data
//     relisted, then requested again by a planned task LUF kept).
//   - withdraw: "first": LUF's victim selector withdraws the first planned
//     task reading the victim only (dynamic_data_aware_victim_selector: the
//     withdrawn task is pushed at the tail of main_task_list, which sets its
//     next to NULL and ends the loop; October 2021 the same); "all".
//   - relist: "read": the victim returns to the list only while pool tasks
//     read it (!task_using_data_list_empty); "always" (October 2021).
//   - rng: "glibc" draws the shuffles and reinsertions from glibc's rand()
//     after srandom(srandom), skipping the application's app_draws draws
//     per pushed task (xgemm.c: one random() per task), with StarPU's
//     shuffle (randomize_new_task_list, randomize_full_data_not_used_yet),
//     so that the pool and the lists are StarPU's, draw for draw; "run":
//     the run's generator. A batch arriving while the pool is not empty is
//     shuffled alone and appended (October 2021's randomize_task_list; the
//     tag's randomize_full_task_list inserts it at random places).
//
// Each list starts in the order its data are first read by the pushed
// tasks, each task's inputs in order (gpu_data_not_used_list_push_back at
// push), before it is shuffled or rotated.
//
// Decisions are O(1) per scanned data: for every worker k DARTS keeps per
// data D the number of pool tasks reading D whose other inputs are on k
// (these counters move when a data joins or leaves k's set and when a task
// enters or leaves the pool), and the number of pool tasks reading a data of
// k's list: when it is zero, no data of the list frees a task, and under
// plain LRU, where data never return to the list, the worker stops moving
// its counters until tasks arrive. Each list keeps a tournament tree over
// its entries (dataList) that follows those counters, so that a decision
// without threshold, opti or random ties reads the scan's choice instead
// of scanning.
// It counts (View.Count) the operations of the StarPU code it follows: per
// scanned entry one step plus one buffer check per input of every pool task
// reading it, the second pass over the chosen data's tasks, the list scans
// of the fallback and of the reinsertion, the shuffles, and one step per
// data on the node in the victim selector.
package darts

import (
	"fmt"
	"math"
	"slices"

	"github.com/memsched/memsched/internal/bitset"
	"github.com/memsched/memsched/internal/glibcrand"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

func init() {
	schedulers.Register(schedulers.Spec{
		Name:    "darts",
		Version: 7,
		Doc:     "DARTS (IPDPS 2022, thesis Alg. 9) as StarPU's dynamic_data_aware.c of October 2021 ran it: per GPU, scan a shuffled list of data not used yet for the one whose loading frees the most pool tasks and plan them; LUF eviction (Alg. 10); variants 3inputs (Alg. 11), opti, threshold",
		Params:  dartsParams,
		New:     dartsNew,
	})
}

// dartsParams and dartsNew declare DARTS's parameters once, bound to the
// Options they set.
var dartsParams, dartsNew = schedulers.Typed(func(a *schedulers.Args, o *Options) {
	a.Choice(&o.LUF, "luf", "eviction", "luf", []string{"luf", "lru"}, "luf: Least Used in the Future (thesis Alg. 10), withdrawing planned tasks that read the victim; lru: the runtime's LRU (plain DARTS)")
	a.Bool(&o.ThreeInputs, "3inputs", false, "when no data frees a task, plan the head of S_1(D) for the D maximising S_1 (tasks one more load from free) before falling back (thesis Alg. 11; artifact APP=1)")
	a.Bool(&o.Opti, "opti", false, "stop the data scan at the first data that frees a task (thesis §3.8.3; artifact THRESHOLD=2)")
	a.Int(&o.Threshold, "threshold", 0, "scan at most this many entries of the data list per decision (every entry counts); 0 = all (the papers' DARTS+LUF+TH: 110)").Min(0)
	a.Int(&o.ThresholdMinTasks, "threshold_min_tasks", 14400, "the threshold applies only when more than this many tasks arrive together (dynamic_data_aware.c: NT_dynamic_outer > 14400)").Min(0)
	a.String(&o.Order, "order", "shuffled", []string{"shuffled", "natural"}, "shuffled: the pool and each GPU's data list in random order (randomize_task_list, randomize_data_not_used_yet); natural: submission order, lists rotated by k|D|/K (artifact NATURAL_ORDER=1)")
	a.String(&o.Ties, "ties", "first", []string{"first", "random"}, "among data freeing as many tasks and read by as many pool tasks: the first in list order (the papers' code) or uniformly at random")
	a.String(&o.TieBreak, "tiebreak", "one_from_free", []string{"one_from_free", "task_left"}, "among data freeing as many tasks: one_from_free: the most pool tasks one load from free (their inputs other than D miss one), then the largest remaining expected time of D's pool tasks (dynamic_data_aware.c update_best_data_single_decision_tree, DOPT_SELECTION_ORDER=0; with equal task times that time orders as D's pool tasks do); task_left: the most pool tasks reading D (October 2021, task_using_data_list_size). They differ only when tasks read more than two data")
	a.String(&o.Fallback, "fallback", "head", []string{"head", "random", "rank"}, "the task planned when no data frees one: the pool's head (the papers' code), uniform, or the one at rank k|pool|/K")
	a.String(&o.Reinsert, "reinsert", "random", []string{"random", "place"}, "where an evicted data returns to the GPU's list: a random place (push_data_not_used_yet_random_spot) or its place in the initial order")
	a.String(&o.Withdraw, "withdraw", "first", []string{"first", "all"}, "under LUF, the planned tasks reading the victim that go back to the pool: first: the first in plan order only (dynamic_data_aware_victim_selector's loop ends there: starpu_task_list_push_back of the withdrawn task to main_task_list sets its next to NULL); all: every one (thesis Alg. 10)")
	a.Choice(&o.WithdrawDrop, "drop", "withdraw_count", "keep", []string{"keep", "drop"}, "under LUF, whether a task withdrawn from the plan still counts in n_p of its inputs: keep: it does, until it is planned and popped again (dynamic_data_aware_victim_selector moves it back to main_task_list without decrementing nb_task_in_planned_task, which only pull_task decrements when it pops a planned task); drop: it no longer does (thesis Alg. 10, memsched before version 6)")
	a.String(&o.Relist, "relist", "read", []string{"read", "always"}, "under LUF, whether the victim returns to the GPU's list: read: only while pool tasks read it (dynamic_data_aware_victim_selector: !task_using_data_list_empty); always: every eviction (October 2021)")
	a.Bool(&o.LRUReturns, "lru_returns", false, "with eviction=lru, evicted data return to the list too (false: the papers' code registers no DARTS code on eviction under LRU)")
	a.Bool(&o.PlannedPresent, "planned_present", false, "data planned or pulled on the GPU count as on it when counting freed tasks (artifact SIMULATE_MEMORY=1); false: only data valid or requested there (starpu_data_is_on_node)")
	a.Bool(&o.FreeTasks, "free_tasks", false, "plan pool tasks whose inputs are all on the GPU before choosing a new data (not in the papers' code)")
	a.Bool(&o.Refused, "refused", true, "DARTS is asked for one task more than the GPU's FIFO takes and holds it until the next pull, so it decides one task ahead (dynamic_data_aware_can_push: refused_fifo_list); false: it decides when the FIFO has room")
	a.String(&o.PlanOrder, "plan_order", "push", []string{"push", "pool"}, "order of the tasks a chosen data frees in the plan: push: the task pushed (or withdrawn back) last first (task_using_data_list, push_front at push: dynamic_data_aware.c initialize_task_data_gpu_single_task_v1); pool: the task last in the shuffled pool first (memsched before version 3)")
	a.String(&o.RNG, "rng", "run", []string{"run", "glibc"}, "the draws of the shuffles and of the random reinsertion: run: the run's generator (its seed); glibc: glibc's rand() after srandom(srandom) as StarPU's DARTS draws them (dynamic_data_aware.c starpu_sched_component_dynamic_data_aware_create, randomize_new_task_list, randomize_full_data_not_used_yet, push_data_not_used_yet_random_spot), so that orders match a StarPU run draw for draw")
	a.Int(&o.Srandom, "srandom", 0, "with rng=glibc, the seed given to srandom (StarPU's SEED variable, 0 unless set: the scripts set SEED=0)").Min(0)
	a.Choice(&o.Serial, "serial", "phases", "round", []string{"round", "serial"}, "round: the decisions of the workers pulling in one round of in-turn pulls all scan the data lists before any of them plans (REFINED_MUTEX, include/schedulers/dynamic_data_aware.h: dynamic_data_aware.c dynamic_data_aware_scheduling_3D_matrix scans without the lock, then takes refined_mutex to plan, a simcall at which the SimGrid actors woken together take turns); a plan whose freed tasks others took meanwhile restarts the decision on a conflict with another GPU's choice (data_conflict, Dopt) and then plans the pool's head, as the planned list is empty; serial: each decision's scan and plan back to back (memsched before version 5)")
	a.Int(&o.AppDraws, "app_draws", 1, "with rng=glibc, the random() calls the application makes per submitted task before the scheduler draws (examples/mult/xgemm.c main: random()%100 < chance_to_be_created, once per task)").Min(0)
}, func(o Options) (schedulers.Scheduler, error) { return New(o), nil })

// Options are DARTS's parameters (see dartsParams for their meaning).
type Options struct {
	LUF               bool
	ThreeInputs       bool
	Opti              bool
	Threshold         int
	ThresholdMinTasks int
	Order             string // "shuffled" (default when empty) or "natural"
	Ties              string // "first" (default) or "random"
	TieBreak          string // "one_from_free" (default when empty) or "task_left"
	Fallback          string // "head" (default), "random" or "rank"
	Reinsert          string // "random" (default) or "place"
	LRUReturns        bool
	Withdraw          string // "first" (default when empty) or "all"
	Relist            string // "read" (default when empty) or "always"
	WithdrawDrop      bool   // withdraw_count=drop: a withdrawn task leaves n_p
	PlannedPresent    bool
	FreeTasks         bool
	PlanOrder         string // "push" (default when empty) or "pool"
	Refused           bool
	RNG               string // "run" (default when empty) or "glibc"
	Srandom           int    // glibc's seed
	AppDraws          int    // the application's random() calls per pushed task
	Serial            bool   // phases=serial: scan and plan back to back
}

// Task states.
const (
	stNew     uint8 = iota // not pushed yet (dependencies)
	stPending              // pushed, waiting for the next pull to join the pool
	stPool                 // in the shared ready pool
	stPlan                 // in some worker's plannedTasks
	stGone                 // returned by Pull: owned by the runtime
)

// DARTS is the scheduler; it implements Evictor and Observer too.
type DARTS struct {
	opt Options
	v   schedulers.View
	// pumped: the engine calls Pumped once the FIFO is full, after the
	// prefetches of the task pulled last (schedulers.PumpView); otherwise
	// Pull takes the refused task at once.
	pumped bool
	nw     int
	// homeWorkers: some workers compute from main memory, whose copies a
	// write-back validates without a load start (Observes).
	homeWorkers bool

	flat    []int32    // the inputs of the tasks with more than two, deduplicated, in one array
	tasks   []task     // per task, its inputs and state in one place
	readers [][]reader // per data, the pool tasks reading it, and some that left (see readers.go)
	inPool  bitset.Set // per task, in the pool
	seated  bitset.Set // per entry a task may have in readers (see seat), whether it has it

	pending []int32 // pushed, not yet in the pool
	seq     []int32 // per task, when it was pushed or withdrawn back to the pool (task_using_data_list order)
	nseq    int32
	glibc   *glibcrand.Rand // rng=glibc: StarPU's rand()
	batch   int             // tasks of the last batch that arrived (NT_dynamic_outer)

	// The pool, ordered by entry: slot i of the order holds slots[i]
	// (-1 when vacated); the Fenwick tree counts occupied slots so that
	// the r-th pool task is found in O(log n). Only the fallbacks random
	// and rank need it: the head is found from first, below which every
	// slot is vacated (slots are only appended).
	slots    []int32 // a pool task's slot is its pos: slots grow with every entry, so it orders the tasks by their last entry (task_using_data_list order)
	fen      []int32 // 1-based Fenwick tree over slots; nil with fallback head
	first    int
	poolN    int
	taskLeft []int32 // per data, pool tasks reading it
	opsLeft  []int32 // per data, inputs of the pool tasks reading it (the buffer checks of a scan)
	known    []bool  // per data, in the lists already (read by a task that arrived)

	w []worker
	// rv: phases=round on an engine that pulls in turn. The decisions of
	// one round of in-turn pulls are made one after the other, each
	// planning at once (its worker's pull returns a task), but each scans
	// the pool as it was before the plans of the others in the round: the
	// tasks in round are counted back in for the scan (undone). dopt is
	// per worker its last chosen data, -1 after a fallback (Dopt).
	rv     schedulers.RoundView
	round  []roundPlan
	undone []int32
	dopt   []int32
	// comb: data are ranked by (frees, s1, task_left), s1 counting the
	// tasks one load from free (tiebreak one_from_free on tasks of more
	// than two inputs; with at most two, (frees, task_left) is the same
	// order, as task_left = frees + those one load from free).
	comb bool
	wide bool // a data has 2^21 readers or more: comb's packed keys would saturate, so decisions scan

	stamp  uint32 // LUF scratch: data read by the buffer carry the stamp
	nbMark []uint32
	nbPos  []int32
	tmp    []int32

	// Tests: the lists' trees always follow the counters (dataList.exact),
	// with a leaf per slot, so that a key not updated is seen.
	exact, slotLeaves bool
}

// task is what DARTS keeps of a task, in 16 bytes (one cache line holds
// four): its inputs (deduplicated) are in[:n] when it has at most two, as
// most tasks have, else flat[in[0]:in[0]+n].
type task struct {
	in     [2]int32
	pos    int32 // in the pool, its slot; planned, its index in its worker's plan
	n      uint8
	state  uint8
	planOf uint16 // the worker whose plan holds it, when planned
}

type worker struct {
	// dormant: no pool task reads a data of the list (listed == 0) and no
	// data can return to the list (lru without lru_returns nor
	// free_tasks). Until tasks arrive, no task enters the pool, so the
	// counters of the listed data stay zero, and those of the other data
	// are never read again (data leave the list for good): they are left
	// as they are. Tasks that arrive only read listed data or data no task
	// read before, whose counters are exact (zero) when the worker wakes.
	dormant bool
	has     []bool   // per data: valid or requested on the worker (starpu_data_is_on_node), or planned there under planned_present
	frees   []int32  // per data D: pool tasks reading D whose other inputs are all on the worker (D freeing them, or free)
	s1      []int32  // per data D: pool tasks reading D with exactly one input other than D missing, D's own state ignored (3inputs, or comb)
	free    []int32  // pool tasks with miss 0, kept only with free_tasks
	freeIdx []int32  // per task, index in free or -1
	list    dataList // gpu_data: data not used yet, in scan order (duplicates possible, as upstream)
	inList  []int32  // per data, its entries in list
	listed  int      // pool tasks reading a data in list, once per such data (sum of task_left over the listed data)
	listOps int      // opsLeft summed over list's entries (the buffer checks of a whole scan)
	rank    []int32  // per data, its place in the list's initial order (reinsert = place)
	plan    []int32  // plannedTasks; entries of withdrawn tasks are dead
	head    int
	live    int
	planCnt []int32 // per data, planned tasks reading it (LUF's n_p)
	// stale counts per data the withdrawn tasks StarPU still counts in
	// nb_task_in_planned_task (withdraw_count=keep): LUF reads planCnt+stale.
	stale []int32
	held  int32 // refused: the task taken from the plan that the runtime's FIFO has not taken yet, or -1
}

// choice is a decision's scan phase: what dynamic_data_aware.c
// dynamic_data_aware_scheduling_3D_matrix finds before it takes
// refined_mutex to plan.
type choice struct {
	kind     uint8 // chFree, chOne or chFallback
	data     int32 // chFree: the data whose free tasks are planned
	one      int32 // chOne: the task one load from free (best_1_from_free_task)
	conflict bool  // another worker's last chosen data is data (data_conflict)
	ops      int
}

const (
	chFallback uint8 = iota
	chFree
	chOne
)

// roundPlan is a task worker k planned in the current round.
type roundPlan struct {
	k int
	t int32
}

// New builds a DARTS scheduler with the given options.
func New(o Options) *DARTS { return &DARTS{opt: o} }

func (d *DARTS) Init(v schedulers.View) error {
	d.v = v
	if p, ok := v.(schedulers.PumpView); ok {
		d.pumped = p.Pumps()
	}
	if r, ok := v.(schedulers.RoundView); ok && !d.opt.Serial {
		d.rv = r
	}
	wl := v.Workload()
	nt, nd := len(wl.Tasks), len(wl.Data)
	d.nw = v.Workers()
	for k := range d.nw {
		// Memory events name a node and the state is per worker, as
		// dynamic_data_aware.c keeps it per GPU: worker k must be the
		// only one computing on node k.
		if n := v.WorkerNode(k); n != k {
			return fmt.Errorf("darts: worker %d computes on memory node %d; DARTS keeps one state per GPU, named by its node, so each worker needs a node of its own (CPU cores share one): use darts-dag, which handles the cores of a node", k, n)
		}
		d.homeWorkers = d.homeWorkers || v.WorkerNode(k) == v.Nodes()-1
	}
	if d.nw > math.MaxUint16 {
		return fmt.Errorf("darts: %d workers, at most %d supported", d.nw, math.MaxUint16)
	}
	if err := d.index(wl); err != nil {
		return err
	}
	d.comb = false
	if d.opt.TieBreak != "task_left" {
		for i := range d.tasks {
			if d.tasks[i].n > 2 {
				d.comb = true
				break
			}
		}
	}
	d.slots = make([]int32, 0, nt)
	d.seq = make([]int32, nt)
	d.nseq = 0
	d.glibc = nil
	if d.opt.RNG == "glibc" {
		d.glibc = glibcrand.New(uint32(d.opt.Srandom))
	}
	if d.opt.Fallback == "random" || d.opt.Fallback == "rank" {
		d.fen = make([]int32, nt+1)
	}
	// The counters a scan reads have one more entry, the holes' in the
	// lists (see dataList), always zero.
	d.taskLeft = make([]int32, nd+1)
	d.opsLeft = make([]int32, nd+1)
	d.known = make([]bool, nd)
	d.nbMark = make([]uint32, nd)
	d.nbPos = make([]int32, nd)
	d.w = make([]worker, d.nw)
	for k := range d.w {
		w := &d.w[k]
		w.has = make([]bool, nd)
		w.frees = make([]int32, nd+1)
		w.inList = make([]int32, nd)
		if d.opt.ThreeInputs || d.comb {
			w.s1 = make([]int32, nd+1)
		}
		shift := uint(blockShift)
		if d.slotLeaves {
			shift = 0
		}
		w.list.init(nd, [2][]int32{w.frees, w.s1}, d.taskLeft, shift)
		w.list.exact = d.exact
		w.list.comb = d.comb
		if d.opt.FreeTasks {
			w.freeIdx = make([]int32, nt)
			for i := range w.freeIdx {
				w.freeIdx[i] = -1
			}
		}
		w.planCnt = make([]int32, nd)
		w.stale = make([]int32, nd)
		w.held = -1
		w.rank = make([]int32, nd)
		for x := range nd {
			w.has[x] = v.Present(k, x)
		}
	}
	d.round = d.round[:0]
	d.dopt = make([]int32, d.nw)
	for k := range d.dopt {
		d.dopt[k] = -1
	}
	return nil
}

// index records every task's inputs, deduplicated, and sizes the reader
// sets.
func (d *DARTS) index(wl *workloads.Workload) error {
	d.tasks = make([]task, len(wl.Tasks))
	readers := make([]int, len(wl.Data))
	var in []int32
	for i, t := range wl.Tasks {
		in = in[:0]
		for _, x := range t.Inputs {
			if !slices.Contains(in, int32(x)) {
				in = append(in, int32(x))
				readers[x]++
			}
		}
		r := task{n: uint8(len(in))}
		switch {
		case len(in) > 255:
			return fmt.Errorf("darts: task %d has %d inputs, at most 255 supported", i, len(in))
		case len(in) <= len(r.in):
			copy(r.in[:], in)
		default:
			r.in[0] = int32(len(d.flat))
			d.flat = append(d.flat, in...)
		}
		d.tasks[i] = r
	}
	d.initReaders(readers)
	d.wide = slices.Max(append(readers, 0)) >= 1<<21
	return nil
}

// Push queues a task; it joins the pool at the next pull (upstream's
// push_task fills sched_list, which pull_task shuffles into main_task_list).
func (d *DARTS) Push(t int) {
	d.tasks[t].state = stPending
	d.pending = append(d.pending, int32(t))
	d.stampSeq(int32(t))
	if d.glibc != nil {
		d.glibc.Skip(d.opt.AppDraws)
	}
}

// stampSeq records that t enters its data's task lists now: they are
// push_front lists (task_using_data_list), read from the task that entered
// last.
func (d *DARTS) stampSeq(t int32) {
	d.seq[t] = d.nseq
	d.nseq++
}

// arrive moves the pending tasks into the pool (shuffled, or in submission
// order) and their new data into every worker's list, which is then
// reordered (dynamic_data_aware_pull_task: randomize_task_list,
// randomize_data_not_used_yet).
func (d *DARTS) arrive() {
	ts := d.pending
	d.pending = nil
	d.batch = len(ts)
	var fresh []int32
	for _, t := range ts {
		for _, x := range d.inputs(t) {
			if !d.known[x] {
				d.known[x] = true
				fresh = append(fresh, x)
			}
		}
	}
	// fresh is in the order the handles are first seen in push order, each
	// task's in its buffers' order: gpu_data_not_used_list_push_back at push
	// (initialize_task_data_gpu_single_task_v1).
	for k := range d.w {
		d.w[k].dormant = false // see worker.dormant: its counters are exact for what the tasks read
	}
	// The counters are sums, so the tasks are counted in submission order
	// (consecutive inputs in memory) and only their slots follow the shuffle.
	for _, t := range ts {
		d.count(t, 1)
	}
	natural := d.opt.Order == "natural"
	r := d.v.Rand()
	switch {
	case natural:
	case d.glibc != nil:
		// randomize_new_task_list: sched_list holds the batch last pushed
		// first; each draw takes a task of the array to the pool's tail and
		// moves the array's last into its place.
		slices.Reverse(ts)
		selectionShuffle(ts, d.glibc)
	default:
		for i := len(ts) - 1; i > 0; i-- { // Fisher-Yates, as randomize_task_list
			j := r.IntN(i + 1)
			ts[i], ts[j] = ts[j], ts[i]
		}
	}
	for _, t := range ts {
		d.enter(t)
	}
	ops := len(ts)
	for k := range d.w {
		w := &d.w[k]
		for _, x := range fresh {
			d.listCount(w, x, 1)
		}
		list := append(w.list.entries(d.tmp[:0]), fresh...)
		if natural {
			if n := len(list); n > 0 {
				off := k * (n / d.nw)
				list = append(list[off:], list[:off]...)
			}
		} else if d.glibc != nil {
			selectionShuffle(list, d.glibc) // randomize_full_data_not_used_yet
		} else {
			for i := len(list) - 1; i > 0; i-- {
				j := r.IntN(i + 1)
				list[i], list[j] = list[j], list[i]
			}
		}
		for i, x := range list {
			w.rank[x] = int32(i)
		}
		ops += len(list)
		w.list.build(list)
		d.tmp = list[:0]
		d.sleep(w)
	}
	d.v.Count(ops)
}

// Pull returns the head of the worker's plan, refilling it first. With
// refused, DARTS has already taken the task it returns from the plan: the
// runtime's pump (starpu_sched_component_pump_to) pulls from DARTS until the
// GPU's FIFO refuses a task, which waits in refused_fifo_list
// (dynamic_data_aware_can_push) and is the next one returned
// (get_task_to_return_pull_task_dynamic_data_aware); so each decision is
// made when the task before it enters the FIFO, one task ahead.
func (d *DARTS) Pull(k int) (int, bool) {
	if len(d.pending) > 0 {
		d.arrive()
	}
	w := &d.w[k]
	t := w.held
	w.held = -1
	if t < 0 {
		if t = d.take(k); t < 0 {
			return 0, false
		}
	}
	// The runtime requests every input when the task enters the worker's
	// buffer: it is on the worker from now on.
	for _, x := range d.inputs(t) {
		if !w.has[x] {
			d.setHas(k, x, true)
		}
	}
	if d.opt.Refused && !d.pumped {
		w.held = d.take(k)
	}
	return int(t), true
}

// EndRound closes a round of in-turn pulls (schedulers.Rounder): the
// scans of the next round see every plan made so far.
func (d *DARTS) EndRound() { d.round = d.round[:0] }

// Pumped is the pump's pull that the GPU's full FIFO refuses: with
// refused, DARTS takes the next task then, after the prefetches of the
// task pulled before it (and what they made the worker wait for), and holds
// it (dynamic_data_aware_can_push: refused_fifo_list).
func (d *DARTS) Pumped(k int) {
	if w := &d.w[k]; d.opt.Refused && w.held < 0 {
		if len(d.pending) > 0 {
			d.arrive()
		}
		w.held = d.take(k)
	}
}

// take takes the head of worker k's plan, refilling it first; -1 when
// there is none. The task is no longer planned (nb_task_in_planned_task)
// but its inputs are not requested yet.
func (d *DARTS) take(k int) int32 {
	w := &d.w[k]
	if w.live == 0 {
		w.plan, w.head = w.plan[:0], 0
		d.decide(k)
	}
	return d.next(k)
}

// next takes the head of worker k's plan; -1 when it is empty.
func (d *DARTS) next(k int) int32 {
	w := &d.w[k]
	for w.head < len(w.plan) {
		t := w.plan[w.head]
		w.head++
		if !d.planned(k, t, w.head-1) {
			continue // withdrawn by LUF
		}
		d.tasks[t].state = stGone
		w.live--
		for _, x := range d.inputs(t) {
			w.planCnt[x]--
		}
		return t
	}
	return -1
}

// decide refills worker k's empty plan (Algorithm 9, with 11 when
// 3inputs): its scan, then its plan.
func (d *DARTS) decide(k int) { d.decideIn(k, true) }

// decideIn is decide; in a round (phases=round), the scan sees the pool
// as it was before the plans of the round's other workers when undo
// (their actors took refined_mutex after every scan of the round).
func (d *DARTS) decideIn(k int, undo bool) {
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
	c := d.choose(k, undo)
	d.plan(k, c)
}

// choose is a decision's scan (dynamic_data_aware_scheduling_3D_matrix up
// to LOCK(refined_mutex)): the data to plan, and whether another worker's
// last choice is the same data (data_conflict: Dopt).
func (d *DARTS) choose(k int, undo bool) choice {
	w := &d.w[k]
	if undo && len(d.round) > 0 {
		for _, p := range d.round {
			if p.k != k && d.tasks[p.t].state != stPool {
				d.count(p.t, 1)
				d.undone = append(d.undone, p.t)
			}
		}
		defer func() {
			for _, t := range d.undone {
				d.count(t, -1)
			}
			d.undone = d.undone[:0]
		}()
	}
	var rng interface{ IntN(int) int }
	if d.opt.Ties == "random" {
		rng = d.v.Rand()
	}
	limit := math.MaxInt
	if d.opt.Threshold > 0 && d.batch > d.opt.ThresholdMinTasks {
		limit = d.opt.Threshold
	}
	var b0, b1 best
	// Every entry scanned counts, plus the inputs of the pool tasks
	// reading it (the buffer checks).
	entries, checks := min(limit, w.list.n), 0
	switch {
	case w.listed == 0: // no data of the list is read by a pool task: nothing to find
	case rng == nil && !d.opt.Opti && limit >= w.list.n && !(d.comb && d.wide):
		b := w.list.choose()
		b0, b1, checks = b[0], b[1], w.listOps
	default:
		b0, b1, entries, checks = d.scan(w, limit, rng)
	}
	if d.comb {
		// One ranking for both: with 3inputs, when no data frees a task,
		// the best data's tasks one load from free (the same pass's
		// best_1_from_free_task).
		b1 = best{}
		if d.opt.ThreeInputs && b0.s == 0 && b0.one > 0 {
			b1 = best{data: b0.data, s: b0.one, tl: b0.tl, populated: true}
		}
	}
	c := choice{ops: entries + checks, data: -1, one: -1}
	switch {
	case b0.s > 0:
		c.kind, c.data = chFree, b0.data
	case b1.s > 0:
		// The first of D's tasks one load from free: in task_using_data_list
		// order, the task pushed last (plan_order push), or the pool's
		// first (pool).
		c.kind, c.data = chOne, b1.data
		hs := int32(0)
		offer := func(t int32) {
			if m, _ := d.others(w, t, b1.data); m != 1 {
				return // not one load from free through D (D's own state ignored)
			}
			key := -d.seq[t]
			if d.opt.PlanOrder == "pool" {
				key = d.tasks[t].pos
			}
			if c.one < 0 || key < hs {
				c.one, hs = t, key
			}
		}
		for _, r := range d.prune(b1.data) {
			offer(r.t)
		}
		for _, t := range d.undone {
			if slices.Contains(d.inputs(t), b1.data) {
				offer(t) // planned by another worker after this scan: ismember fails at the plan
			}
		}
	}
	x := int32(-1)
	switch {
	case b0.populated:
		x = b0.data
	case b1.populated:
		x = b1.data
	}
	for i, y := range d.dopt {
		if i != k && y == x && x >= 0 {
			c.conflict = true
		}
	}
	d.dopt[k] = x
	return c
}

// plan is a decision's plan, under refined_mutex: the tasks the chosen data
// frees now, the task one load from free if still in the pool, else the
// fallback. In a round, other workers may have planned every task the data
// freed since the scan: with a conflict the decision restarts, and either
// way the fallback task is planned (the planned list is empty: the code
// falls through to its label random).
func (d *DARTS) plan(k int, c choice) {
	w := &d.w[k]
	ops := c.ops
	switch c.kind {
	case chFree:
		x := c.data
		if w.frees[x] == 0 {
			ops += int(d.opsLeft[x]) + d.unlist(k, x, false)
			d.v.Count(ops)
			if c.conflict {
				d.decideIn(k, false) // after its plan: the round's earlier plans are made, the later not
			}
			d.fallback(k)
			return
		}
		ops += int(d.opsLeft[x]) // the second pass over D's tasks
		// The first task planned is pulled at once and requests D: the
		// same walk that finds D's tasks counts D as on the worker for the
		// others, once the planned ones have left the pool.
		load := !w.has[x]
		ts := d.walk(k, x, true, load, true)
		if d.opt.PlanOrder == "pool" {
			// The task last in the pool first.
			slices.SortFunc(ts, func(a, b int32) int { return int(d.tasks[b].pos - d.tasks[a].pos) })
		} else {
			// task_using_data_list order: the task pushed, or withdrawn
			// back, last first.
			slices.SortFunc(ts, func(a, b int32) int { return int(d.seq[b] - d.seq[a]) })
		}
		for _, t := range ts {
			d.removeFromPool(t)
			d.addToPlan(k, t)
		}
		d.tmp = ts
		w.has[x] = true
		ops += d.unlist(k, x, false)
	case chOne:
		if c.one < 0 || d.tasks[c.one].state != stPool {
			d.v.Count(ops)
			d.fallback(k)
			return
		}
		ops += d.planMarking(k, c.one)
	default:
		d.v.Count(ops)
		d.fallback(k)
		return
	}
	d.v.Count(ops)
}

// fallback plans the task of the fallback (label random: the pool's head)
// when the pool has one.
func (d *DARTS) fallback(k int) {
	d.dopt[k] = -1
	if d.poolN == 0 {
		return
	}
	r := 0
	switch d.opt.Fallback {
	case "random":
		r = d.v.Rand().IntN(d.poolN)
	case "rank":
		r = k * d.poolN / d.nw
	}
	d.v.Count(d.planMarking(k, d.slots[d.find(r)]))
}

// scan is the scan of upstream's loop over the first limit entries of w's
// list, for the options the tree does not serve (opti, random ties, a
// threshold): it returns the best data, the entries scanned and their
// buffer checks.
func (d *DARTS) scan(w *worker, limit int, rng interface{ IntN(int) int }) (b0, b1 best, entries, checks int) {
	l := &w.list
	for _, x := range l.slots[:l.end] {
		if entries == limit {
			break
		}
		if x == l.hole {
			continue
		}
		entries++
		checks += int(d.opsLeft[x])
		tl := d.taskLeft[x]
		if d.comb {
			s, one := w.frees[x], w.s1[x]
			if s > 0 && d.opt.Opti {
				b0 = best{data: x, s: s, one: one, tl: tl, populated: true}
				break // the scan stops here
			}
			if s > 0 || one > 0 {
				b0.offerComb(x, s, one, tl, rng)
			}
			continue
		}
		if s := w.frees[x]; s > 0 {
			if d.opt.Opti {
				b0 = best{data: x, s: s, tl: tl, populated: true}
				break // the scan stops here
			}
			b0.offer(x, s, tl, rng)
		}
		if d.opt.ThreeInputs {
			if s := w.s1[x]; s > 0 {
				b1.offer(x, s, tl, rng)
			}
		}
	}
	return b0, b1, entries, checks
}

// best is a running argmax over (s, task_left), ties broken uniformly at
// random by reservoir sampling (rng != nil) or kept first.
type best struct {
	data      int32
	s, tl     int32
	one       int32 // comb: the tasks one load from free
	ties      int
	populated bool
}

// offerComb is offer over (s, one, task_left).
func (b *best) offerComb(x, s, one, tl int32, rng interface{ IntN(int) int }) {
	switch {
	case !b.populated || s > b.s || (s == b.s && (one > b.one || (one == b.one && tl > b.tl))):
		*b = best{data: x, s: s, one: one, tl: tl, ties: 1, populated: true}
	case s == b.s && one == b.one && tl == b.tl:
		b.ties++
		if rng != nil && rng.IntN(b.ties) == 0 {
			b.data = x
		}
	}
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

// planMarking plans one task and takes its inputs out of the worker's list
// (every entry of them: upstream erases while it walks the list once per
// input); it returns the operations of those walks.
func (d *DARTS) planMarking(k int, t int32) int {
	d.removeFromPool(t)
	d.addToPlan(k, t)
	w := &d.w[k]
	ops := 0
	for _, x := range d.inputs(t) {
		ops += d.unlist(k, x, true)
		if d.opt.PlannedPresent && !w.has[x] {
			d.setHas(k, x, true)
		}
	}
	return ops
}

// unlist erases x from worker k's list: its first entry, or every entry;
// it returns the entries walked (the first entry's position, or the whole
// list).
func (d *DARTS) unlist(k int, x int32, every bool) int {
	w := &d.w[k]
	l := &w.list
	n := l.n
	if w.inList[x] == 0 {
		return n // upstream walks the whole list in vain
	}
	if !every {
		p := l.at[x]
		i := l.rank(p)
		l.remove(p)
		d.listCount(w, x, -1)
		d.sleep(w)
		return i + 1
	}
	for l.at[x] >= 0 {
		l.remove(l.at[x])
	}
	d.listCount(w, x, -w.inList[x])
	d.sleep(w)
	return n
}

// listCount records delta entries of x added to w's list (removed when
// negative).
func (d *DARTS) listCount(w *worker, x int32, delta int32) {
	was := w.inList[x] > 0
	w.inList[x] += delta
	if now := w.inList[x] > 0; now != was {
		if now {
			w.listed += int(d.taskLeft[x])
		} else {
			w.listed -= int(d.taskLeft[x])
		}
	}
	w.listOps += int(delta * d.opsLeft[x])
}

// sleep makes w dormant when no pool task reads a data of its list and no
// data can return to the list (see worker.dormant).
func (d *DARTS) sleep(w *worker) {
	if w.listed == 0 && !d.opt.LUF && !d.opt.LRUReturns && !d.opt.FreeTasks {
		w.dormant = true
	}
}

// relist puts an evicted x back in worker k's list (upstream inserts a new
// entry even when one is there already) and returns the entries walked.
func (d *DARTS) relist(k int, x int32) int {
	w := &d.w[k]
	l := &w.list
	i := 0
	if d.opt.Reinsert == "place" {
		for _, y := range l.slots[:l.end] {
			if y != l.hole {
				if w.rank[y] >= w.rank[x] {
					break
				}
				i++
			}
		}
	} else if l.n > 0 && d.glibc != nil {
		i = d.glibc.Mod(l.n)
	} else if l.n > 0 {
		i = d.v.Rand().IntN(l.n) // rand() % size: before any entry, never after the last
	}
	l.insert(i, x)
	d.listCount(w, x, 1)
	return i + 1
}

// planned says whether entry i of worker k's plan, task t, is live (not
// withdrawn by LUF since).
func (d *DARTS) planned(k int, t int32, i int) bool {
	r := d.tasks[t]
	return r.state == stPlan && int(r.planOf) == k && int(r.pos) == i
}

func (d *DARTS) addToPlan(k int, t int32) {
	w := &d.w[k]
	d.tasks[t].state = stPlan
	if d.rv != nil && d.rv.InTurn() {
		d.round = append(d.round, roundPlan{k, t})
	}
	d.tasks[t].planOf = uint16(k)
	d.tasks[t].pos = int32(len(w.plan))
	w.plan = append(w.plan, t)
	w.live++
	for _, x := range d.inputs(t) {
		w.planCnt[x]++
	}
}

func (d *DARTS) sortByPool(ts []int32) {
	slices.SortFunc(ts, func(a, b int32) int { return int(d.tasks[a].pos - d.tasks[b].pos) })
}

// addToPool puts t at the tail of the pool and counts it on every worker.
func (d *DARTS) addToPool(t int32) {
	d.count(t, 1)
	d.enter(t)
}

func (d *DARTS) removeFromPool(t int32) {
	d.count(t, -1)
	s := d.tasks[t].pos
	d.slots[s] = -1
	if d.fen != nil {
		for i := int(s) + 1; i < len(d.fen); i += i & -i {
			d.fen[i]--
		}
	}
	d.poolN--
	d.leave(t)
	d.tasks[t].state = stNew // the caller sets the next state
}

// enter gives t, counted already, the pool's next slot.
func (d *DARTS) enter(t int32) {
	d.tasks[t].state = stPool
	d.join(t)
	s := int32(len(d.slots))
	d.slots = append(d.slots, t)
	d.tasks[t].pos = s
	if d.fen != nil {
		if len(d.slots) >= len(d.fen) {
			d.growFenwick()
		} else {
			for i := int(s) + 1; i < len(d.fen); i += i & -i {
				d.fen[i]++
			}
		}
	}
	d.poolN++
}

// count adds (sign 1) or removes (-1) pool task t's contribution to every
// counter: task_left and the buffer checks of its inputs, each worker's
// counters (but a dormant one's) and the pool tasks reading its list.
func (d *DARTS) count(t int32, sign int32) {
	in := d.inputs(t)
	n := sign * int32(len(in))
	for _, x := range in {
		d.taskLeft[x] += sign
		d.opsLeft[x] += n
	}
	for k := range d.w {
		w := &d.w[k]
		m, listed, entries := 0, int32(0), int32(0) // inputs missing, listed, their entries
		for _, x := range in {
			if !w.has[x] {
				m++
			}
			if e := w.inList[x]; e > 0 {
				listed++
				entries += e
				w.list.touch(x) // its task_left moves, and its counters unless dormant
			}
		}
		w.listed += int(sign * listed)
		w.listOps += int(n * entries)
		w.list.moved += int(listed)
		if !w.dormant {
			d.countOn(w, t, sign, m)
		}
		if sign < 0 {
			d.sleep(w)
		}
	}
}

// inputs are task t's inputs, deduplicated.
func (d *DARTS) inputs(t int32) []int32 {
	r := &d.tasks[t]
	if r.n <= 2 {
		return r.in[:r.n:r.n]
	}
	end := r.in[0] + int32(r.n)
	return d.flat[r.in[0]:end:end]
}

// missing returns the number of t's inputs not in w.has.
func (d *DARTS) missing(w *worker, t int32) int {
	m := 0
	for _, x := range d.inputs(t) {
		if !w.has[x] {
			m++
		}
	}
	return m
}

// others returns how many of t's inputs other than x are not in w.has,
// and the last of those.
func (d *DARTS) others(w *worker, t, x int32) (m int, o int32) {
	for _, y := range d.inputs(t) {
		if y != x && !w.has[y] {
			m++
			o = y
		}
	}
	return m, o
}

// countOn adds (sign 1) or removes (-1) pool task t's contribution to w's
// counters, given w.has and the m inputs of t missing there.
func (d *DARTS) countOn(w *worker, t int32, sign int32, m int) {
	switch m {
	case 0:
		d.setFree(w, t, sign > 0)
		for _, x := range d.inputs(t) {
			w.frees[x] += sign
		}
	case 1:
		for _, x := range d.inputs(t) {
			if !w.has[x] {
				w.frees[x] += sign
				break
			}
		}
		// One input missing: each input on w is one load from free.
		if w.s1 != nil {
			for _, x := range d.inputs(t) {
				if w.has[x] {
					w.s1[x] += sign
				}
			}
		}
	case 2:
		if w.s1 != nil {
			for _, x := range d.inputs(t) {
				if !w.has[x] {
					w.s1[x] += sign
				}
			}
		}
	}
}

// setFree adds t to w's free list or removes it (kept only with
// free_tasks).
func (d *DARTS) setFree(w *worker, t int32, in bool) {
	switch {
	case w.freeIdx == nil:
	case in:
		w.freeIdx[t] = int32(len(w.free))
		w.free = append(w.free, t)
	default:
		i, last := w.freeIdx[t], w.free[len(w.free)-1]
		w.free[i], w.freeIdx[last] = last, i
		w.free = w.free[:len(w.free)-1]
		w.freeIdx[t] = -1
	}
}

// setHas moves data x into (val) or out of the data counted as on worker
// k, moving each pool task reading it from its old counters to its new ones
// in one step (as countOn(-1), the change, countOn(+1) would; the counters
// are sums and the free list a set, so the order of the tasks does not
// matter).
func (d *DARTS) setHas(k int, x int32, val bool) {
	w := &d.w[k]
	if !w.dormant {
		d.walk(k, x, val, true, false)
	}
	w.has[x] = val
}

// walk visits the pool tasks reading x, dropping from x's set the tasks
// out of the pool (as prune). With move it moves worker k's counters of
// those it does not collect for x joining (val) or leaving its data
// (w.has[x] still as it was); with collect it returns, in d.tmp, those
// whose other inputs are on worker k (x frees them).
func (d *DARTS) walk(k int, x int32, val, move, collect bool) []int32 {
	w := &d.w[k]
	move = move && !w.dormant
	ts := d.tmp[:0]
	if !move && !collect {
		return ts
	}
	rs := d.readers[x]
	i, j := 0, 0
	if w.s1 == nil && w.freeIdx == nil && w.list.stale {
		i, j, ts = d.walkPairs(w, x, rs, val && move, !val && move, collect, ts)
	}
	for ; i < len(rs); i++ {
		r := rs[i]
		if !d.inPool.Has(int(r.t)) {
			d.seated.Del(d.seat(r, x))
			continue
		}
		rs[j] = r
		j++
		ts = d.visit(w, r, x, val, move, collect, ts)
	}
	d.readers[x] = rs[:j]
	if move {
		w.list.moved += j // about the keys it moved
		if w.s1 != nil {
			w.list.touch(x) // gain and lose move its s1
		}
	}
	return ts
}

// walkPairs is walk's loop, without calls so that it runs in registers,
// for its common case: tasks with two inputs (nearly every visit on the 2D
// product), no s1 nor free list, and a stale list (touch does nothing). It
// stops at the first entry of another kind, returning its index, the
// entries kept so far and ts. A task is collected when its other input o is
// on w; else, or when nothing is collected, o's count moves (up or down),
// whether the task frees x or misses o as well.
func (d *DARTS) walkPairs(w *worker, x int32, rs []reader, up, down, collect bool, ts []int32) (i, j int, _ []int32) {
	has, frees, inPool, seated := w.has, w.frees, d.inPool, d.seated
	delta := int32(0)
	switch {
	case up:
		delta = 1
	case down:
		delta = -1
	}
	n := len(ts)
	ts = slices.Grow(ts, len(rs))[:n+len(rs)] // room for every task: append would be a call
	for ; i < len(rs); i++ {
		r := rs[i]
		o := r.o
		if o < 0 {
			break
		}
		if !inPool.Has(int(r.t)) {
			b := 0 // as seat
			if x > o {
				b = 1
			}
			seated.Del(2*int(r.t) + b)
			continue
		}
		rs[j] = r
		j++
		if collect && has[o] {
			ts[n] = r.t
			n++
		} else {
			frees[o] += delta
		}
	}
	return i, j, ts[:n]
}

// visit is walk's step for pool task r.t, appended to ts when collected.
func (d *DARTS) visit(w *worker, r reader, x int32, val, move, collect bool, ts []int32) []int32 {
	m, o := 0, r.o // other inputs missing on w, and the last of them
	switch {
	case r.o >= 0:
		if !w.has[r.o] {
			m = 1
		}
	case r.o == many:
		m, o = d.others(w, r.t, x)
	}
	switch {
	case collect && m == 0:
		ts = append(ts, r.t)
	case !move:
	case val:
		d.gain(w, r, x, m, o)
	default:
		d.lose(w, r, x, m, o)
	}
	return ts
}

// gain moves pool task r.t's contribution when its missing input x arrives
// on w (w.has[x] still false); m of its other inputs are missing there, o
// the last of them.
func (d *DARTS) gain(w *worker, r reader, x int32, m int, o int32) {
	switch m {
	case 0: // missing x only: free now, so it counts for its other inputs too
		d.setFree(w, r.t, true)
		d.freesOthers(w, r, x, 1)
		d.s1Present(w, r.t, x, x, -1) // they were one load (x) from free
	case 1: // missing x and o: now missing only o
		// x stays one load from free (o's, before x's); o no longer is,
		// and the inputs on w other than x now are.
		if w.s1 != nil {
			w.s1[o]--
		}
		d.s1Present(w, r.t, x, o, 1)
		w.frees[o]++
		w.list.touch(o)
	case 2: // now missing two
		d.countS1(w, r.t, x, 1)
	}
}

// lose moves pool task r.t's contribution when its input x leaves w
// (w.has[x] still true); m of its other inputs are missing there, o the
// last of them.
func (d *DARTS) lose(w *worker, r reader, x int32, m int, o int32) {
	switch m {
	case 0: // was free: now missing x only, so it counts for x alone
		d.setFree(w, r.t, false)
		d.freesOthers(w, r, x, -1)
		d.s1Present(w, r.t, x, x, 1) // they are one load (x) from free
	case 1: // was missing o: now missing o and x
		w.frees[o]--
		w.list.touch(o)
		// x stays one load from free (o's, then x's); o now is, and the
		// inputs on w other than x no longer are.
		if w.s1 != nil {
			w.s1[o]++
		}
		d.s1Present(w, r.t, x, o, -1)
	case 2: // was missing two: now three
		d.countS1(w, r.t, x, -1)
	}
}

// freesOthers adds sign to frees of r.t's inputs other than x.
func (d *DARTS) freesOthers(w *worker, r reader, x, sign int32) {
	switch r.o {
	case alone:
	case many:
		for _, y := range d.inputs(r.t) {
			if y != x {
				w.frees[y] += sign
				w.list.touch(y)
			}
		}
	default:
		w.frees[r.o] += sign
		w.list.touch(r.o)
	}
}

// s1Present adds sign to s1 of t's inputs on w other than x and o (s1
// only).
func (d *DARTS) s1Present(w *worker, t, x, o, sign int32) {
	if w.s1 == nil {
		return
	}
	for _, y := range d.inputs(t) {
		if y != x && y != o && w.has[y] {
			w.s1[y] += sign
			w.list.touch(y)
		}
	}
}

// countS1 adds sign to s1 of t's inputs other than x missing on w (s1
// only).
func (d *DARTS) countS1(w *worker, t, x, sign int32) {
	if w.s1 == nil {
		return
	}
	for _, y := range d.inputs(t) {
		if y != x && !w.has[y] {
			w.s1[y] += sign
			w.list.touch(y)
		}
	}
}

// find returns the slot of the r-th (0-based) pool task in pool order.
func (d *DARTS) find(r int) int {
	if d.fen == nil { // fallback head: r = 0
		for d.slots[d.first] < 0 {
			d.first++
		}
		return d.first
	}
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

// selectionShuffle is the shuffle of dynamic_data_aware.c
// (randomize_new_task_list, randomize_full_data_not_used_yet): draw r =
// rand() % (n-i), emit a[r], move the array's last element into its place.
func selectionShuffle(a []int32, g *glibcrand.Rand) {
	n := len(a)
	tab := slices.Clone(a)
	for i := range n {
		r := g.Mod(n - i)
		a[i] = tab[r]
		tab[r] = tab[n-i-1]
	}
}
