// Package multreeprio implements MulTreePrio (H. Tayeb, B. Bramas, A.
// Guermouche, M. Faverge, "MulTreePrio: Scheduling task-based applications
// for heterogeneous computing systems", COMPAS 2022), its static variant
// with a critical-path bonus (MulTreePrio+CP) and the static scheduler
// based only on the critical path, as the paper compares them (§4).
//
// MulTreePrio keeps one balanced tree of ready tasks per memory node
// (§3.1); a ready task is inserted, with one score per node (Eq. 8), into
// the tree of every node whose processing units can run it, and a worker
// takes the best-scored task of its node's tree that the speedup-factor
// heuristic (§3.3) lets it run, removing it from every tree. The paper
// leaves several rules open (seeds_003_004.md §A.7); each is a named
// parameter below, with the reading it defaults to.
package multreeprio

import (
	"fmt"
	"math"
	"slices"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/ordtree"
	"github.com/memsched/memsched/internal/scratch"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Version counts decision changes of the three schedulers.
const Version = 1

// Options are the parameters of multreeprio and multreeprio+cp.
type Options struct {
	Starving      string
	B1Floor       bool
	SpeedupFilter bool
	PerWorker     bool // remaining = per-worker
	CPBonus       bool
	Static        bool
	MaximaAfter   bool // maxima = after
	Rescore       bool
	LIFO          bool // ties = lifo
	CPDuration    string
}

func cpDurationArg(a *schedulers.Args, dst *string) {
	a.String(dst, "cp_duration", "min", []string{"min", "mean"},
		"task duration in the critical-path passes: min over the kinds that run it (\"the critical path with an infinity of resources\", Fig. 3) or the mean over them (§A.7 #7)")
}

// args binds the parameters; cp sets the defaults of multreeprio+cp.
func args(cp bool) func(*schedulers.Args, *Options) {
	return func(a *schedulers.Args, o *Options) {
		a.String(&o.Starving, "starving", "idle", []string{"idle", "empty", "fewer"},
			"starving(W_m), undefined in the paper (§A.7 #1): idle = a worker of the node has no task; empty = the node's tree is empty; fewer = fewer ready tasks in its tree than workers")
		a.Bool(&o.B1Floor, "b1_floor", true, "B1 (Eq. 12) with the floor as printed; false reads the brackets as parentheses (§A.7 #2)")
		a.Bool(&o.SpeedupFilter, "speedup_filter", true, "the speedup-factor heuristic (§3.3): a kind that is not the task's fastest takes it only when the fastest kind's remaining work exceeds the task's cost there")
		a.Choice(&o.PerWorker, "per-worker", "remaining", "per-worker", []string{"per-worker", "total"},
			"the fastest kind's remaining work in that test (§A.7 #6): its running and ready work per worker of that kind, or in total")
		a.Bool(&o.CPBonus, "cp_bonus", cp, "add B6 = 1 − LST/CP length, the degree of criticality (§3.3), as a sixth bonus (§A.7 #8)")
		a.Bool(&o.Static, "static", cp, "static scores: normalisers are the maxima over the whole DAG and the starving terms (B2, P1) are dropped, since no run-time state exists before the run; false: maxima \"so far\" (§A.7 #3)")
		a.Choice(&o.MaximaAfter, "after", "maxima", "before", []string{"before", "after"},
			"when a task's own values enter the running maxima \"so far\" (§A.7 #3): before its scores (every ratio ≤ 1) or after")
		a.Bool(&o.Rescore, "rescore", false, "re-score the tasks of a node's tree, with the current starving state and maxima, when one of its workers pulls; false: a task's scores are fixed when it becomes ready (§A.7 #4: the paper scores \"a newly ready task\")")
		a.Choice(&o.LIFO, "lifo", "ties", "fifo", []string{"fifo", "lifo"}, "order of equal scores in a tree (§A.7 #5): the task ready first, or last")
		cpDurationArg(a, &o.CPDuration)
	}
}

func init() {
	for _, cp := range []bool{false, true} {
		name, doc := "multreeprio", "MulTreePrio (COMPAS 2022): one balanced tree of ready tasks per memory node, scores per (task, node) from five bonuses and a penalty (Eq. 8), speedup-factor heuristic at pop"
		if cp {
			name, doc = "multreeprio+cp", "MulTreePrio+CP (COMPAS 2022 §4): the static version of MulTreePrio with the critical-path bonus (degree of criticality 1 − LST/CP length)"
		}
		params, build := schedulers.Typed(args(cp), func(o Options) (schedulers.Scheduler, error) { return New(o), nil })
		schedulers.Register(schedulers.Spec{Name: name, Version: Version, Buffer: 1, Doc: doc, Params: params, New: build})
	}
}

// key orders a tree: higher score first, then earlier pushes (FIFO, §A.7 #5).
// key is a task's place in a tree: 16 bytes, so that a tree node is 32
// (internal/ordtree).
type key struct {
	score float64
	seq   int32
	task  int32
}

func before(a, b key) bool { return a.score > b.score || (a.score == b.score && a.seq < b.seq) }

// Scheduler is MulTreePrio (static or not, with or without B6).
type Scheduler struct {
	v        schedulers.View
	starving string
	floor    bool
	filter   bool
	perWork  bool
	cpBonus  bool
	static   bool
	cpDur    string
	after    bool // maxima updated after scoring
	rescore  bool
	lifo     bool

	// Memory nodes with workers, and their processing-unit kind.
	groups  []int
	groupOf []int // per worker
	kindOf  []int // per group: index into kinds
	kinds   []string
	members [][]int // per group: its workers
	byKind  [][]int // per kind: its workers

	xi   times // per task, per kind: model time (Inf: cannot run)
	succ *workloads.Successors
	nod  []float64
	cp   *workloads.CriticalPath

	trees []*ordtree.Tree[key]
	keys  taskKeys // per task, per group: its key
	seq   int32

	// Running maxima (§B, "so far"), per group where the paper writes P_m.
	qHigh   float64
	qHighP  []float64
	xiLong  []float64
	nodHigh []float64

	readyWork []float64 // per kind: model time of ready tasks whose fastest kind it is
	startAt   []float64 // per worker: when its running task started (NaN: none)

	// Scratch of metricsOf and TermsOf, per group: a push allocates only
	// the terms it returns.
	qP, sigma, starvingOf, pen []float64
	nP                         []int
	termsOut                   []*Terms
	termsBuf                   []Terms
}

// New builds MulTreePrio from resolved parameters.
func New(o Options) *Scheduler {
	return &Scheduler{starving: o.Starving, floor: o.B1Floor, filter: o.SpeedupFilter,
		perWork: o.PerWorker, cpBonus: o.CPBonus, static: o.Static, cpDur: o.CPDuration,
		after: o.MaximaAfter, rescore: o.Rescore, lifo: o.LIFO}
}

// Init indexes the platform's memory nodes and the DAG's metrics.
func (s *Scheduler) Init(v schedulers.View) error {
	s.v = v
	s.groupOf = make([]int, v.Workers())
	nodeGroup := map[int]int{}
	kindIdx := map[string]int{}
	for _, k := range []string{hardware.CPU, hardware.GPU} {
		for w := 0; w < v.Workers(); w++ {
			if v.WorkerKind(w) == k {
				kindIdx[k] = len(s.kinds)
				s.kinds = append(s.kinds, k)
				break
			}
		}
	}
	s.byKind = make([][]int, len(s.kinds))
	for w := 0; w < v.Workers(); w++ {
		n := v.WorkerNode(w)
		g, ok := nodeGroup[n]
		if !ok {
			g = len(s.groups)
			nodeGroup[n] = g
			s.groups = append(s.groups, n)
			s.kindOf = append(s.kindOf, kindIdx[v.WorkerKind(w)])
			s.members = append(s.members, nil)
		}
		if s.kinds[s.kindOf[g]] != v.WorkerKind(w) {
			return fmt.Errorf("multreeprio: memory node %d has workers of two kinds; the paper ties one kind of processing unit to a node", n)
		}
		s.groupOf[w] = g
		s.members[g] = append(s.members[g], w)
		k := kindIdx[v.WorkerKind(w)]
		s.byKind[k] = append(s.byKind[k], w)
	}
	wl := v.Workload()
	n := len(wl.Tasks)
	s.xi = modelTimes(v, s.kinds)
	s.succ = wl.Successors()
	s.nod = make([]float64, n)
	for t := range wl.Tasks {
		for _, c := range s.succ.Of(t) {
			s.nod[t] += 1 / float64(len(wl.DepsOf(c)))
		}
	}
	if s.cpBonus {
		s.cp = wl.Analyse(func(t int) float64 { return duration(s.xi.of(t), s.cpDur) })
	}
	s.trees = make([]*ordtree.Tree[key], len(s.groups))
	less := before
	if s.lifo {
		less = func(a, b key) bool { return a.score > b.score || (a.score == b.score && a.seq > b.seq) }
	}
	for g := range s.trees {
		s.trees[g] = ordtree.New(less)
	}
	s.keys = newTaskKeys(n, len(s.groups))
	s.qHighP = make([]float64, len(s.groups))
	s.xiLong = make([]float64, len(s.groups))
	s.nodHigh = make([]float64, len(s.groups))
	s.readyWork = make([]float64, len(s.kinds))
	s.startAt = make([]float64, v.Workers())
	for w := range s.startAt {
		s.startAt[w] = math.NaN()
	}
	if s.static {
		for t := range wl.Tasks {
			s.observeMaxima(t)
		}
	}
	return nil
}

// times holds the model time of every task on every kind, flat: a slice a
// task would cost 24 bytes more each.
type times struct {
	kinds int
	x     []float64
}

// modelTimes computes ξ(T, P_m) for every task and each of the kinds.
func modelTimes(v schedulers.View, kinds []string) times {
	n := len(v.Workload().Tasks)
	m := times{kinds: len(kinds), x: make([]float64, 0, n*len(kinds))}
	for t := range n {
		for _, kind := range kinds {
			m.x = append(m.x, modelSeconds(v, t, kind))
		}
	}
	return m
}

// of returns the times of task t, per kind (shared: do not modify).
func (m times) of(t int) []float64 {
	return m.x[t*m.kinds : (t+1)*m.kinds : (t+1)*m.kinds]
}

// at is the time of task t on kind k.
func (m times) at(t, k int) float64 { return m.x[t*m.kinds+k] }

// modelSeconds is the performance model's time of a task on a kind
// (ξ(T, P_m)); +Inf when the kind cannot run it.
func modelSeconds(v schedulers.View, task int, kind string) float64 {
	t := &v.Workload().Tasks[task]
	sec, ok, err := v.Platform().KernelSeconds(t.Kernel, kind, t.Flops)
	if err != nil || !ok {
		return math.Inf(1)
	}
	return sec
}

// duration is a task's length in the critical-path passes.
func duration(xi []float64, rule string) float64 {
	best, sum, n := math.Inf(1), 0.0, 0
	for _, x := range xi {
		if math.IsInf(x, 1) {
			continue
		}
		best = min(best, x)
		sum += x
		n++
	}
	if rule == "mean" && n > 0 {
		return sum / float64(n)
	}
	return best
}

// metrics are the quantities of Appendix A for one task.
type metrics struct {
	qTot  float64   // Q_succ(T), Eq. 10b
	qP    []float64 // per group: Q_succ(T, P_m), Eq. 10a
	nP    []int     // per group: |succ(T, P_m)|
	nSucc int
	sigma []float64 // per group: σ(T, P_m), Eq. 11 (0 when it cannot run there)
	sBest float64
}

func (s *Scheduler) metricsOf(t int) metrics {
	// The slices are scratch: valid until the next call.
	s.qP, s.nP, s.sigma = scratch.Zeroed(s.qP, len(s.groups)), scratch.Zeroed(s.nP, len(s.groups)), scratch.Zeroed(s.sigma, len(s.groups))
	m := metrics{qP: s.qP, nP: s.nP, sigma: s.sigma, nSucc: len(s.succ.Of(t))}
	for _, c := range s.succ.Of(t) {
		m.qTot += duration(s.xi.of(c), "min")
		for g := range s.groups {
			if x := s.xi.at(c, s.kindOf[g]); !math.IsInf(x, 1) {
				m.qP[g] += x
				m.nP[g]++
			}
		}
	}
	worst := 0.0
	for _, x := range s.xi.of(t) {
		if !math.IsInf(x, 1) {
			worst = max(worst, x)
		}
	}
	for g := range s.groups {
		if x := s.xi.at(t, s.kindOf[g]); !math.IsInf(x, 1) {
			m.sigma[g] = worst / x
			m.sBest = max(m.sBest, m.sigma[g])
		}
	}
	return m
}

// observeMaxima updates the normalisers with a task's values.
func (s *Scheduler) observeMaxima(t int) {
	m := s.metricsOf(t)
	s.qHigh = max(s.qHigh, m.qTot)
	for g := range s.groups {
		s.qHighP[g] = max(s.qHighP[g], m.qP[g])
		if x := s.xi.at(t, s.kindOf[g]); !math.IsInf(x, 1) {
			s.xiLong[g] = max(s.xiLong[g], x)
			s.nodHigh[g] = max(s.nodHigh[g], s.nod[t])
		}
	}
}

// isStarving is starving(W_m) as 0/1 (§A.7 #1).
func (s *Scheduler) isStarving(g int) float64 {
	switch s.starving {
	case "empty":
		if s.trees[g].Len() == 0 {
			return 1
		}
	case "fewer":
		if s.trees[g].Len() < len(s.members[g]) {
			return 1
		}
	default:
		for _, w := range s.members[g] {
			if len(s.v.Buffer(w)) == 0 && len(s.v.Pipeline(w)) == 0 {
				return 1
			}
		}
	}
	return 0
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// Terms are the heuristics of one (task, node) pair (Appendix B): the
// bonuses B1-B5 (Eqs. 12-16), B6 with cp_bonus, and the penalty P1
// (Eq. 17), each in [0, 1].
type Terms struct {
	B  [6]float64
	P1 float64
}

// Score is Eq. 8: (ΣB − ΣP + |P|) / (|B| + |P|), with |B| = 5 (6 with
// the critical-path bonus) and |P| = 1.
func (t Terms) Score(cpBonus bool) float64 {
	nb := 5.0
	if cpBonus {
		nb = 6
	}
	sum := 0.0
	for _, b := range t.B {
		sum += b
	}
	return (sum - t.P1 + 1) / (nb + 1)
}

// TermsOf computes a newly ready task's heuristics for every node, nil for
// a node that cannot run it. Without static, the normalisers first take
// the task's own values ("so far", §A.7 #3).
func (s *Scheduler) TermsOf(t int) []*Terms {
	out := slices.Clone(s.terms(t))
	for g, tm := range out {
		if tm != nil {
			c := *tm
			out[g] = &c
		}
	}
	return out
}

// terms is TermsOf in scratch space, valid until the next call.
func (s *Scheduler) terms(t int) []*Terms {
	if !s.static && !s.after {
		s.observeMaxima(t)
	}
	if !s.static && s.after {
		defer s.observeMaxima(t)
	}
	m := s.metricsOf(t)
	s.starvingOf = scratch.Zeroed(s.starvingOf, len(s.groups))
	starving := s.starvingOf
	if !s.static {
		for g := range s.groups {
			starving[g] = s.isStarving(g)
		}
	}
	x := float64(m.nSucc) * ratio(m.qTot, s.qHigh)
	if s.floor {
		x = math.Floor(x)
	}
	b1 := 1 - math.Exp(-x)
	b2 := 0.0
	for g := range s.groups {
		b2 += (1 - math.Exp(-ratio(m.qP[g], s.qHighP[g])*float64(m.nP[g]))) * starving[g]
	}
	b2 /= float64(len(s.groups))
	b6 := 0.0
	if s.cpBonus {
		b6 = s.cp.Criticality(t)
	}
	// P1 sums the other nodes' terms: the sum over all nodes less the own.
	s.pen = scratch.Zeroed(s.pen, len(s.groups))
	pen := s.pen
	penSum := 0.0
	for o := range s.groups {
		if m.sigma[o] > 0 {
			pen[o] = (1 - 1/m.sigma[o]) * starving[o]
			penSum += pen[o]
		}
	}
	s.termsOut, s.termsBuf = scratch.Zeroed(s.termsOut, len(s.groups)), scratch.Zeroed(s.termsBuf, len(s.groups))
	out := s.termsOut
	for g := range s.groups {
		xi := s.xi.at(t, s.kindOf[g])
		if math.IsInf(xi, 1) {
			continue
		}
		sigma := m.sigma[g]
		tm := &s.termsBuf[g]
		tm.B[0], tm.B[1], tm.B[5] = b1, b2, b6
		tm.B[2] = 1 - 1/sigma
		if m.sBest > 1 {
			tm.B[3] = ratio(xi, s.xiLong[g]) * (sigma - 1) / (m.sBest - 1)
		}
		tm.B[4] = ratio(s.nod[t], s.nodHigh[g])
		if len(s.groups) > 1 {
			tm.P1 = (penSum - pen[g]) / float64(len(s.groups)-1)
		}
		out[g] = tm
	}
	return out
}

// Groups lists the memory nodes that have trees, in tree order.
func (s *Scheduler) Groups() []int { return s.groups }

// Push scores a newly ready task and inserts it in the tree of every node
// that can run it.
func (s *Scheduler) Push(t int) {
	for g, tm := range s.terms(t) {
		if tm == nil {
			s.keys.put(g, key{score: -1, seq: s.seq, task: int32(t)})
			continue
		}
		k := key{score: tm.Score(s.cpBonus), seq: s.seq, task: int32(t)}
		s.keys.put(g, k)
		s.trees[g].Insert(k)
	}
	s.seq++
	s.readyWork[s.fastest(t)] += duration(s.xi.of(t), "min")
}

// fastest is the kind index with the smallest model time.
func (s *Scheduler) fastest(t int) int {
	best := 0
	for k, x := range s.xi.of(t) {
		if x < s.xi.at(t, best) {
			best = k
		}
	}
	return best
}

// remaining is the work left to a kind's workers: the model time of their
// tasks not yet done (less what the running ones already did) and of the
// ready tasks for which the kind is the fastest; per worker by default.
func (s *Scheduler) remaining(k int) float64 {
	r := s.readyWork[k]
	now := s.v.Now()
	for _, w := range s.byKind[k] {
		for _, t := range s.v.Pipeline(w) {
			r += s.xi.at(t, k)
		}
		for _, t := range s.v.Buffer(w) {
			r += s.xi.at(t, k)
		}
		if !math.IsNaN(s.startAt[w]) {
			r -= now - s.startAt[w]
		}
	}
	if s.perWork {
		r /= float64(len(s.byKind[k]))
	}
	return r
}

// Idle says the worker's pipeline and buffer are full.
func (s *Scheduler) Idle(w int) bool { return !schedulers.PipelineRoom(s.v, w) }

// Pull gives the worker the best task of its node's tree that the
// speedup-factor heuristic accepts (§3.3), when its pipeline has room.
func (s *Scheduler) Pull(w int) (int, bool) {
	if s.Idle(w) {
		return 0, false
	}
	g := s.groupOf[w]
	k := s.kindOf[g]
	if s.rescore {
		s.rescoreTree(g)
	}
	rem := map[int]float64{}
	chosen := -1
	s.trees[g].Ascend(func(key key) bool {
		t := int(key.task)
		if s.filter {
			if f := s.fastest(t); f != k {
				r, ok := rem[f]
				if !ok {
					r = s.remaining(f)
					rem[f] = r
				}
				if !(r > s.xi.at(t, k)) {
					return true
				}
			}
		}
		chosen = t
		return false
	})
	if chosen < 0 {
		return 0, false
	}
	for o := range s.trees {
		if key, in := s.keys.of(chosen, o); in {
			s.trees[o].Delete(key)
		}
	}
	s.readyWork[s.fastest(chosen)] -= duration(s.xi.of(chosen), "min")
	return chosen, true
}

// rescoreTree scores a node's ready tasks again (rescore).
func (s *Scheduler) rescoreTree(g int) {
	var keys []key
	s.trees[g].Ascend(func(k key) bool { keys = append(keys, k); return true })
	for _, k := range keys {
		s.trees[g].Delete(k)
		nk := key{score: s.terms(int(k.task))[g].Score(s.cpBonus), seq: k.seq, task: k.task}
		s.keys.put(g, nk)
		s.trees[g].Insert(nk)
	}
}

// Observes says MulTreePrio follows task starts and ends only.
func (s *Scheduler) Observes(kind schedulers.EventKind) bool {
	return kind == schedulers.Started || kind == schedulers.Finished
}

// Observe follows task starts and ends, for the remaining work.
func (s *Scheduler) Observe(kind schedulers.EventKind, where, id int) {
	switch kind {
	case schedulers.Started:
		s.startAt[where] = s.v.Now()
	case schedulers.Finished:
		s.startAt[where] = math.NaN()
	}
}
