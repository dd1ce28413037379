// Package heteroprio implements StarPU's Heteroprio scheduler and its
// locality-aware variant LAHeteroprio (B. Bramas, "Impact study of data
// locality on task-based applications through the Heteroprio scheduler",
// PeerJ Computer Science 5:e190, 2019). Where the paper is silent, the
// rules follow StarPU's src/sched_policies/heteroprio.c: before the LA
// code was merged (commit 79d5d4ad3, 2021-03-16) and as merged with it
// (commit 9fb080759, 2021-06-22, the code of the paper's branch; the
// paper's own StarPU commit 22e8e132 is not public). Each rule names its
// function.
//
// Heteroprio: ready tasks go into buckets, one per task type; each worker
// kind visits the buckets in its own order (its priorities) and takes the
// first task it may, subject to the speedup factors. LAHeteroprio splits
// every bucket into one list per memory node (the 2D grid G(b, m)), pushes
// a task into the list of the node a data-locality affinity formula (DLAF)
// picks, and has each memory node's workers visit the grid in an access
// order built from a distance between nodes, subgroups of close nodes (S)
// and a locality coefficient (l).
package heteroprio

import (
	"fmt"
	"slices"

	"github.com/memsched/memsched/schedulers"
)

// Version counts decision changes of both schedulers (see the registry).
const Version = 1

// Options are the parameters of heteroprio and laheteroprio (those after
// MaxPrefetch: laheteroprio's only).
type Options struct {
	Priorities, SpeedupFactors, FactorRule, BucketOrder string
	MaxPrefetch                                         int
	DLAF, AutoStart, AutoTies                           string
	Theta, A                                            float64
	LCPU, LGPU, SCPU, SGPU                              int
	PrioDistance, IgnoreEverywhere                      string
	ProbeBytes                                          int
}

func commonArgs(a *schedulers.Args, o *Options) {
	a.String(&o.Priorities, "priorities", "speedup", nil, "each kind's bucket order, \"cpu=k1,k2,...;gpu=k3,...\" (COMPAS 2022 Table 2's priorities, 0 first), or speedup: the GPU by decreasing CPU/GPU speedup, the CPU by increasing speedup (the applications' priorities of PeerJ 2019 are not published)")
	a.String(&o.SpeedupFactors, "speedup_factors", "model", []string{"model", "off"}, "model: per bucket the fastest kind and each kind's slowdown from the performance model (PeerJ 2019 §Speedup factors; StarPU starpu_heteroprio_set_faster_arch/set_arch_slow_factor); off: no restriction")
	a.String(&o.FactorRule, "factor_rule", "ge", []string{"ge", "gt"}, "a slow worker takes from a bucket when its tasks per fastest worker are ≥ the slow factor (StarPU heteroprio.c; the paper's example: \"six or more\") or > it (the paper's rule: \"more than N_GPU × S_i\")")
	a.String(&o.BucketOrder, "bucket_order", "lifo", []string{"lifo", "fifo"}, "which end of a list a worker takes: lifo (StarPU heteroprio.c at 9fb080759: starpu_task_list_push_front/pop_front) or fifo (at 79d5d4ad3: prio_deque push_back, pop from the front)")
}

var heteroParams, heteroNew = schedulers.Typed(func(a *schedulers.Args, o *Options) {
	commonArgs(a, o)
	a.Int(&o.MaxPrefetch, "max_prefetch", 2, "tasks a worker takes from the buckets at once into its own queue (STARPU_HETEROPRIO_MAX_PREFETCH = 2); 1: one task per pop, as without prefetching")
}, func(o Options) (schedulers.Scheduler, error) { return newScheduler(o, false) })

var laParams, laNew = schedulers.Typed(func(a *schedulers.Args, o *Options) {
	commonArgs(a, o)
	a.String(&o.DLAF, "dlaf", "auto", []string{"auto", "laru", "mc_starpu", "ls_sdh", "ls_sdh2", "ls_sdhb", "lc_smwb"}, "push formula, paper definitions (Eqs. 6-9); auto chooses among ls_sdh, ls_sdh2, ls_sdhb, lc_smwb by BMD (StarPU's default STARPU_LAHETEROPRIO_PUSH=AUTO)")
	a.String(&o.AutoStart, "auto_start", "lc_smwb", []string{"ls_sdh", "ls_sdh2", "ls_sdhb", "lc_smwb"}, "the formula auto uses before any pop (StarPU initialize_heteroprio_policy: PUSH_LS_SDHB, whose code computes the paper's LC_SMWB)")
	a.String(&o.AutoTies, "auto_ties", "later", []string{"later", "keep"}, "auto, between formulas of equal BMD: the later one in StarPU's order ls_sdh, ls_sdh2, lc_smwb, ls_sdhb (heteroprio.c: \">=\" over match counts) or the one in use (the paper says only \"the one that has the lowest value\")")
	a.Float(&o.Theta, "theta", 1000, "LS_SDHB weight of written data (PeerJ 2019: θ = 1,000)")
	a.Float(&o.A, "a", 0.5, "distance = priority distance × a + transfer distance × (1 − a) (Eq. 12, a = 0.5)")
	a.Int(&o.LCPU, "l_cpu", 1, "locality coefficient of the CPU workers: buckets visited per node before the next node (STARPU_LAHETEROPRIO_PRIO_STEP_CPU, default 1); 0 = all the kind's buckets")
	a.Int(&o.LGPU, "l_gpu", 0, "locality coefficient of the GPU workers (STARPU_LAHETEROPRIO_PRIO_STEP_CUDA, default all the kind's buckets); 0 = all")
	a.Int(&o.SCPU, "s_cpu", -1, "close-subgroup size of the CPU node (STARPU_LAHETEROPRIO_S_CPU, default nodes − 1); -1 = every other node")
	a.Int(&o.SGPU, "s_gpu", 1, "close-subgroup size of a GPU node (STARPU_LAHETEROPRIO_S_CUDA, default 1); -1 = every other node")
	a.String(&o.PrioDistance, "prio_distance", "paper", []string{"paper", "starpu"}, "paper: Eq. 11 over the k-th buckets of the two access arrays (Table 2's values); starpu: over each bucket's position (+1, 0 when absent), heteroprio.c starpu_heteroprio_map_wgroup_memory_nodes_hp")
	a.String(&o.IgnoreEverywhere, "ignore_everywhere", "sdhb", []string{"sdhb", "all", "none"}, "data present on every node are ignored (PeerJ 2019: \"it should be ignored\"): in LS_SDHB only (StarPU get_best_mem_node), in every formula, or never")
	a.Int(&o.ProbeBytes, "probe_bytes", 1073741824, "bytes of the transfer-time probe of the distance matrix (Eq. 10: starpu_transfer_predict(j, i, 1024³))")
}, func(o Options) (schedulers.Scheduler, error) { return newScheduler(o, true) })

func init() {
	schedulers.Register(schedulers.Spec{
		Name:    "heteroprio",
		Version: Version,
		Doc:     "StarPU Heteroprio (PeerJ CS 2019 §Heteroprio): one bucket per task type, one bucket order per worker kind, speedup factors for slow workers; each worker pre-takes up to max_prefetch tasks and idle workers steal from same-kind workers (heteroprio.c, use_locality = 0)",
		Params:  heteroParams,
		Buffer:  1,
		New:     heteroNew,
	})
	schedulers.Register(schedulers.Spec{
		Name:    "laheteroprio",
		Version: Version,
		Doc:     "LAHeteroprio (PeerJ CS 2019): Heteroprio with one task list per (bucket, memory node), push by a data-locality affinity formula (laru, mc_starpu, ls_sdh, ls_sdh2, ls_sdhb, lc_smwb, or auto: the lowest best-memory-node difference), pop in an access order from the node distance matrix, subgroups S and locality coefficient l",
		Params:  laParams,
		Buffer:  1,
		New:     laNew,
	})
}

// Scheduler is Heteroprio, with locality (LAHeteroprio) or without.
type Scheduler struct {
	v    schedulers.View
	o    Options
	la   bool
	lifo bool
	cfg  *config

	remaining []int // per kind: tasks in buckets it may take (StarPU nb_remaining_tasks_per_arch_index)

	// Heteroprio without locality: each worker's own queue
	// (heteroprio.c _heteroprio_worker_wrapper.tasks_queue).
	queue       [][]int
	prefetched  []int // per kind
	maxPrefetch int

	loc *locality // LAHeteroprio's grid state
	// changes counts the pushes and takes; found[g][k] is its value when a
	// walk of group g's access order for kind k last found nothing to take.
	// The walk depends on nothing else, so idle workers of a group (20
	// cores polling at every event) repeat it only after a change.
	changes int
	found   [][]int
}

func newScheduler(o Options, la bool) (*Scheduler, error) {
	s := &Scheduler{o: o, la: la, lifo: o.BucketOrder != "fifo", maxPrefetch: o.MaxPrefetch}
	if !la && s.maxPrefetch < 1 {
		return nil, fmt.Errorf("heteroprio: max_prefetch = %d; use at least 1 (StarPU's STARPU_HETEROPRIO_MAX_PREFETCH is 2)", s.maxPrefetch)
	}
	if la {
		type kv struct {
			k string
			v int
		}
		for _, x := range []kv{{"l_cpu", o.LCPU}, {"l_gpu", o.LGPU}} {
			if x.v < 0 {
				return nil, fmt.Errorf("laheteroprio: %s = %d; use a number of buckets >= 1, or 0 for all of them", x.k, x.v)
			}
		}
		for _, x := range []kv{{"s_cpu", o.SCPU}, {"s_gpu", o.SGPU}} {
			if x.v < -1 {
				return nil, fmt.Errorf("laheteroprio: %s = %d; use a number of nodes >= 0, or -1 for every other node", x.k, x.v)
			}
		}
		if a := o.A; a < 0 || a > 1 {
			return nil, fmt.Errorf("laheteroprio: a = %g; use a weight in [0, 1]", a)
		}
		if o.Theta < 0 || o.ProbeBytes <= 0 {
			return nil, fmt.Errorf("laheteroprio: theta must be >= 0 and probe_bytes > 0")
		}
	}
	return s, nil
}

// Init builds the buckets (and, with locality, the grid and access orders).
func (s *Scheduler) Init(v schedulers.View) error {
	s.v = v
	var err error
	if s.cfg, err = newConfig(v, s.o.Priorities, s.o.SpeedupFactors == "model"); err != nil {
		return fmt.Errorf("%s: %w", s.name(), err)
	}
	s.cfg.strict = s.o.FactorRule == "gt"
	s.remaining = make([]int, len(s.cfg.kinds))
	lists := 1
	if s.la {
		if s.loc, err = newLocality(v, s.cfg, s.o); err != nil {
			return err
		}
		lists = len(s.loc.groups)
		s.found = make([][]int, len(s.loc.access))
		for g := range s.found {
			s.found[g] = slices.Repeat([]int{-1}, len(s.cfg.kinds))
		}
	} else {
		s.queue = make([][]int, v.Workers())
		s.prefetched = make([]int, len(s.cfg.kinds))
	}
	for _, b := range s.cfg.buckets {
		b.lists = make([]deque, lists)
	}
	return nil
}

func (s *Scheduler) name() string {
	if s.la {
		return "laheteroprio"
	}
	return "heteroprio"
}

// Push stores a ready task in its bucket (heteroprio.c
// push_task_heteroprio_policy): the only list, or the list of the memory
// node the push formula picks.
func (s *Scheduler) Push(t int) {
	b := s.cfg.buckets[s.cfg.bucketOf[t]]
	list := 0
	if s.la {
		list = s.loc.push(t)
	}
	b.lists[list].push(t)
	b.n++
	s.changes++
	for k, ok := range b.valid {
		if ok {
			s.remaining[k]++
		}
	}
}

// take removes the task at the chosen end of a list and updates the
// counters.
func (s *Scheduler) take(b *bucket, list int) int {
	t := b.lists[list].pop(s.lifo)
	b.n--
	s.changes++
	for k, ok := range b.valid {
		if ok {
			s.remaining[k]--
		}
	}
	return t
}

// Pull is StarPU's pop_task_heteroprio_policy, called when the worker's
// pipeline has room.
func (s *Scheduler) Pull(w int) (int, bool) {
	if s.Idle(w) {
		return 0, false
	}
	if s.la {
		return s.pullLA(w)
	}
	return s.pullQueue(w)
}

// Idle says Pull would return at once: the worker has no room, or no task
// is left for its kind (nothing queued or prefetched to steal, without
// locality), or with locality its group's last walk found nothing and no
// task was pushed or taken since.
func (s *Scheduler) Idle(w int) bool {
	if !schedulers.PipelineRoom(s.v, w) {
		return true
	}
	k := s.cfg.kindOf[w]
	if s.la {
		return s.remaining[k] == 0 || s.found[s.loc.groupOf[w]][k] == s.changes
	}
	return s.remaining[k] == 0 && len(s.queue[w]) == 0 && s.prefetched[k] == 0
}

// pullLA scans the worker's node's access order and takes the first task
// the speedup factors allow; no worker queue, no stealing (heteroprio.c
// pop_task_heteroprio_policy, use_locality branch). Pull has checked Idle:
// tasks remain for the worker's kind, and something changed since its
// group's last walk found nothing.
func (s *Scheduler) pullLA(w int) (int, bool) {
	k := s.cfg.kindOf[w]
	g := s.loc.groupOf[w]
	for _, it := range s.loc.access[g] {
		b := s.cfg.buckets[s.cfg.order[k][it.prio]]
		if b.lists[it.group].empty() || !s.cfg.mayTake(b, k) {
			continue
		}
		t := s.take(b, it.group)
		s.loc.popped(t, w, it.group)
		return t, true
	}
	s.found[g][k] = s.changes
	return 0, false
}

// pullQueue is Heteroprio without locality: the worker fills its own queue
// up to max_prefetch tasks from its buckets in priority order (only one
// when fewer tasks remain than workers), then takes from it, or steals
// from the next worker of its kind that has queued tasks.
func (s *Scheduler) pullQueue(w int) (int, bool) {
	k := s.cfg.kindOf[w]

	if s.remaining[k] != 0 {
		want := s.maxPrefetch - len(s.queue[w])
		want = min(want, s.remaining[k])
		if s.remaining[k] < s.v.Workers() {
			want = 0
			if len(s.queue[w]) == 0 {
				want = 1
			}
		}
		for _, id := range s.cfg.order[k] {
			b := s.cfg.buckets[id]
			for want > 0 && !b.lists[0].empty() && s.cfg.mayTake(b, k) {
				s.queue[w] = append(s.queue[w], s.take(b, 0))
				s.prefetched[k]++
				want--
			}
			if want == 0 {
				break
			}
		}
	}
	if len(s.queue[w]) > 0 {
		s.prefetched[k]--
		return s.popQueue(w), true
	}
	if s.prefetched[k] == 0 {
		return 0, false
	}
	n := s.v.Workers()
	for i := 1; i < n; i++ { // circular, starting just after ourself
		victim := (w + i) % n
		if s.cfg.kindOf[victim] == k && len(s.queue[victim]) > 0 {
			s.prefetched[k]--
			return s.popQueue(victim), true
		}
	}
	return 0, false
}

// popQueue takes from a worker's queue the task of the highest bucket id,
// the most recently queued among equals: StarPU's prio_deque orders by
// task->priority, which heteroprio sets to the bucket id, and queued tasks
// are pushed at the front (_starpu_prio_deque_pop_task_for_worker).
func (s *Scheduler) popQueue(w int) int {
	q := s.queue[w]
	best := len(q) - 1
	for i := len(q) - 2; i >= 0; i-- {
		if s.cfg.bucketOf[q[i]] > s.cfg.bucketOf[q[best]] {
			best = i
		}
	}
	t := q[best]
	s.queue[w] = append(q[:best], q[best+1:]...)
	return t
}

// SchedStats reports LAHeteroprio's locality counters (nothing for
// Heteroprio): see locality.stats.
func (s *Scheduler) SchedStats() map[string]float64 {
	if s.loc == nil {
		return nil
	}
	return s.loc.stats()
}

var _ schedulers.StatsReporter = (*Scheduler)(nil)
