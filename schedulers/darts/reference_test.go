package darts

import (
	"slices"

	"github.com/memsched/memsched/internal/glibcrand"
	"github.com/memsched/memsched/schedulers"
)

// ref is a straightforward DARTS that recomputes the counts, task_left,
// n_b and n_p from scratch at every decision, following the same
// documented rules (and drawing the same random numbers in the same order).
// The property test checks that the incremental DARTS takes exactly its
// decisions. It counts in ops the operations of the StarPU code, walking
// what that code walks.
type ref struct {
	opt     Options
	ops     int
	v       schedulers.View
	inputs  [][]int
	pending []int
	batch   int
	pool    []int // pool order
	seq     []int // per task, when it was last pushed or withdrawn back (task_using_data_list order)
	seqN    int
	known   []bool
	plan    [][]int
	held    []int // refused: the task taken from the plan, not handed out yet, or -1
	has     [][]bool
	stale   [][]int // per worker and data, withdrawn tasks still counted in n_p (withdraw_count=keep)
	list    [][]int
	rank    [][]int
	glibc   *glibcrand.Rand
	comb    bool // rank by (frees, one load from free, task_left)
}

func (r *ref) Init(v schedulers.View) error {
	r.v = v
	wl := v.Workload()
	for _, t := range wl.Tasks {
		var in []int
		for _, x := range t.Inputs {
			if !slices.Contains(in, x) {
				in = append(in, x)
			}
		}
		r.inputs = append(r.inputs, in)
	}
	nd, nw := len(wl.Data), v.Workers()
	r.seq = make([]int, len(wl.Tasks))
	r.known = make([]bool, nd)
	r.plan = make([][]int, nw)
	r.list = make([][]int, nw)
	r.held = slices.Repeat([]int{-1}, nw)
	if r.opt.RNG == "glibc" {
		r.glibc = glibcrand.New(uint32(r.opt.Srandom))
	}
	for _, in := range r.inputs {
		r.comb = r.comb || (len(in) > 2 && r.opt.TieBreak != "task_left")
	}
	for k := range nw {
		h := make([]bool, nd)
		for x := range nd {
			h[x] = v.Present(k, x)
		}
		r.has = append(r.has, h)
		r.stale = append(r.stale, make([]int, nd))
		r.rank = append(r.rank, make([]int, nd))
	}
	return nil
}

func (r *ref) Push(t int) {
	r.pending = append(r.pending, t)
	r.stamp(t)
	if r.glibc != nil {
		for range r.opt.AppDraws {
			r.glibc.Int31()
		}
	}
}

func (r *ref) stamp(t int) {
	r.seqN++
	r.seq[t] = r.seqN
}

func (r *ref) enter(t int) { r.pool = append(r.pool, t) }

// pick is StarPU's shuffle: draw i = rand() % len(a), emit a[i], move the
// last element into its place.
func (r *ref) pick(a []int) []int {
	var out []int
	for len(a) > 0 {
		i := int(r.glibc.Int31()) % len(a)
		out = append(out, a[i])
		a[i] = a[len(a)-1]
		a = a[:len(a)-1]
	}
	return out
}

func (r *ref) arrive() {
	ts := r.pending
	r.pending = nil
	r.batch = len(ts)
	rnd := r.v.Rand()
	var fresh []int // in the order the pushed tasks first read them
	for _, t := range ts {
		for _, x := range r.inputs[t] {
			if !r.known[x] {
				r.known[x] = true
				fresh = append(fresh, x)
			}
		}
	}
	natural := r.opt.Order == "natural"
	switch {
	case natural:
	case r.glibc != nil:
		slices.Reverse(ts) // sched_list: last pushed first
		ts = r.pick(ts)
	default:
		for i := len(ts) - 1; i > 0; i-- {
			j := rnd.IntN(i + 1)
			ts[i], ts[j] = ts[j], ts[i]
		}
	}
	for _, t := range ts {
		r.enter(t)
	}
	for k := range r.list {
		l := append(r.list[k], fresh...)
		if natural {
			if n := len(l); n > 0 {
				off := k * (n / len(r.list))
				l = append(l[off:], l[:off]...)
			}
		} else if r.glibc != nil {
			l = r.pick(l)
		} else {
			for i := len(l) - 1; i > 0; i-- {
				j := rnd.IntN(i + 1)
				l[i], l[j] = l[j], l[i]
			}
		}
		for i, x := range l {
			r.rank[k][x] = i
		}
		r.list[k] = l
		r.ops += len(l)
	}
	r.ops += len(ts)
}

// checks is the buffer checks of a scan of x: the inputs of every pool task
// reading x.
func (r *ref) checks(x int) int {
	n := 0
	for _, t := range r.pool {
		if slices.Contains(r.inputs[t], x) {
			n += len(r.inputs[t])
		}
	}
	return n
}

func (r *ref) missing(k, t int) []int {
	var m []int
	for _, x := range r.inputs[t] {
		if !r.has[k][x] {
			m = append(m, x)
		}
	}
	return m
}

func (r *ref) leave(t int) {
	r.pool = slices.DeleteFunc(r.pool, func(u int) bool { return u == t })
}

func (r *ref) mark(k, x int) {
	if r.opt.PlannedPresent {
		r.has[k][x] = true
	}
}

// Pull hands out the held task (refused) or the plan's head, then takes
// the next one (refused).
func (r *ref) Pull(k int) (int, bool) {
	if len(r.pending) > 0 {
		r.arrive()
	}
	t := r.held[k]
	r.held[k] = -1
	if t < 0 {
		if t = r.take(k); t < 0 {
			return 0, false
		}
	}
	for _, x := range r.inputs[t] {
		r.has[k][x] = true
	}
	if r.opt.Refused {
		r.held[k] = r.take(k)
	}
	return t, true
}

func (r *ref) take(k int) int {
	if len(r.plan[k]) == 0 {
		r.decide(k)
	}
	if len(r.plan[k]) == 0 {
		return -1
	}
	t := r.plan[k][0]
	r.plan[k] = r.plan[k][1:]
	return t
}

type refBest struct {
	data, s, one, tl, ties int
}

func (b *refBest) offer(x, s, one, tl int, rnd bool, v schedulers.View) {
	if b.ties == 0 || s > b.s || (s == b.s && (one > b.one || (one == b.one && tl > b.tl))) {
		*b = refBest{x, s, one, tl, 1}
	} else if s == b.s && one == b.one && tl == b.tl {
		b.ties++
		if rnd && v.Rand().IntN(b.ties) == 0 {
			b.data = x
		}
	}
}

// othersOn reports whether every input of t other than x is on worker k.
func (r *ref) othersOn(k, t, x int) bool {
	for _, y := range r.inputs[t] {
		if y != x && !r.has[k][y] {
			return false
		}
	}
	return true
}

// othersMissing counts the inputs of t other than x not on worker k (x's
// own state ignored: dynamic_data_aware.c's data_not_available).
func (r *ref) othersMissing(k, t, x int) int {
	m := 0
	for _, y := range r.inputs[t] {
		if y != x && !r.has[k][y] {
			m++
		}
	}
	return m
}

func (r *ref) decide(k int) {
	if len(r.pool) == 0 {
		return
	}
	if r.opt.FreeTasks {
		var free []int
		for _, t := range r.pool {
			if len(r.missing(k, t)) == 0 {
				free = append(free, t)
			}
		}
		if len(free) > 0 {
			for _, t := range free {
				r.leave(t)
			}
			r.plan[k] = append(r.plan[k], free...)
			return
		}
	}
	random := r.opt.Ties == "random"
	limit := len(r.list[k])
	if r.opt.Threshold > 0 && r.batch > r.opt.ThresholdMinTasks {
		limit = min(limit, r.opt.Threshold)
	}
	var b0, b1 refBest
	for _, x := range r.list[k][:limit] {
		r.ops += 1 + r.checks(x)
		s0, s1, tl := 0, 0, 0
		for _, t := range r.pool {
			if !slices.Contains(r.inputs[t], x) {
				continue
			}
			tl++
			if r.othersOn(k, t, x) {
				s0++
			}
			if r.othersMissing(k, t, x) == 1 {
				s1++
			}
		}
		if r.comb {
			// One ranking: frees, then the tasks one load from free, then
			// task_left (the remaining expected time of equal tasks).
			if s0 > 0 && r.opt.Opti {
				b0 = refBest{x, s0, s1, tl, 1}
				break
			}
			if s0 > 0 || s1 > 0 {
				b0.offer(x, s0, s1, tl, random, r.v)
			}
			continue
		}
		if s0 > 0 {
			if r.opt.Opti {
				b0 = refBest{x, s0, 0, tl, 1}
				break
			}
			b0.offer(x, s0, 0, tl, random, r.v)
		}
		if r.opt.ThreeInputs && s1 > 0 {
			b1.offer(x, s1, 0, tl, random, r.v)
		}
	}
	if r.comb {
		b1 = refBest{}
		if r.opt.ThreeInputs && b0.s == 0 && b0.one > 0 {
			b1 = refBest{b0.data, b0.one, 0, b0.tl, 1}
		}
	}
	switch {
	case b0.s > 0:
		r.ops += r.checks(b0.data)
		var ts []int
		for _, t := range r.pool {
			if slices.Contains(r.inputs[t], b0.data) && r.othersOn(k, t, b0.data) {
				ts = append(ts, t)
			}
		}
		if r.opt.PlanOrder == "pool" {
			pos := func(t int) int { return slices.Index(r.pool, t) }
			slices.SortFunc(ts, func(a, b int) int { return pos(b) - pos(a) })
		} else {
			slices.SortFunc(ts, func(a, b int) int { return r.seq[b] - r.seq[a] })
		}
		for _, t := range ts {
			r.leave(t)
		}
		r.plan[k] = append(r.plan[k], ts...)
		r.has[k][b0.data] = true // the first planned task is taken at once and will request it
		if i := slices.Index(r.list[k], b0.data); i >= 0 {
			r.list[k] = slices.Delete(r.list[k], i, i+1)
			r.ops += i + 1
		} else {
			r.ops += len(r.list[k])
		}
		r.mark(k, b0.data)
	case b1.s > 0:
		head := -1
		for _, t := range r.pool { // the pool's first, or the task pushed last
			if slices.Contains(r.inputs[t], b1.data) && r.othersMissing(k, t, b1.data) == 1 {
				if head < 0 || (r.opt.PlanOrder != "pool" && r.seq[t] > r.seq[head]) {
					head = t
				}
			}
		}
		if head < 0 {
			panic("ref: S_1 head not found")
		}
		r.planMarking(k, head)
	default:
		i := 0
		switch r.opt.Fallback {
		case "random":
			i = r.v.Rand().IntN(len(r.pool))
		case "rank":
			i = k * len(r.pool) / r.v.Workers()
		}
		r.planMarking(k, r.pool[i])
	}
}

func (r *ref) planMarking(k, t int) {
	r.leave(t)
	r.plan[k] = append(r.plan[k], t)
	for _, x := range r.inputs[t] {
		r.ops += len(r.list[k])
		r.list[k] = slices.DeleteFunc(r.list[k], func(y int) bool { return y == x })
		r.mark(k, x)
	}
}

func (r *ref) Victim(k int, cands []int, prefetch bool) int {
	if !r.opt.LUF {
		return cands[0]
	}
	r.ops += len(cands)
	firstUse := map[int]int{}
	pos := 0
	pulled := append(slices.Clone(r.v.Pipeline(k)), r.v.Buffer(k)...)
	if r.held[k] >= 0 {
		pulled = append(pulled, r.held[k])
	}
	for _, t := range pulled {
		for _, x := range r.inputs[t] {
			pos++
			if _, ok := firstUse[x]; !ok {
				firstUse[x] = pos
			}
		}
	}
	np := func(x int) int {
		n := r.stale[k][x]
		for _, t := range r.plan[k] {
			if slices.Contains(r.inputs[t], x) {
				n++
			}
		}
		return n
	}
	victim, least := -1, 0
	for _, c := range cands {
		if _, used := firstUse[c]; used {
			continue
		}
		n := np(c)
		if n == 0 {
			return c
		}
		if victim < 0 || n < least {
			victim, least = c, n
		}
	}
	if victim >= 0 {
		return victim
	}
	if prefetch {
		return -1
	}
	r.ops += len(cands) * pos
	far := -1
	for _, c := range cands {
		if firstUse[c] > far {
			victim, far = c, firstUse[c]
		}
	}
	return victim
}

func (r *ref) Observe(kind schedulers.EventKind, k, id int) {
	switch kind {
	case schedulers.LoadStarted, schedulers.Loaded:
		r.has[k][id] = true
	case schedulers.Evicted:
		if r.opt.LUF {
			var keep []int
			withdrawn := 0
			for _, t := range r.plan[k] {
				if slices.Contains(r.inputs[t], id) && (withdrawn == 0 || r.opt.Withdraw == "all") {
					r.stamp(t)
					r.enter(t)
					withdrawn++
					if !r.opt.WithdrawDrop {
						for _, x := range r.inputs[t] {
							r.stale[k][x]++
						}
					}
				} else {
					keep = append(keep, t)
				}
			}
			r.plan[k] = keep
		}
		r.has[k][id] = false
		relist := r.known[id]
		if r.opt.LUF && r.opt.Relist != "always" {
			relist = false // only while a pool task reads it
			for _, t := range r.pool {
				relist = relist || slices.Contains(r.inputs[t], id)
			}
		}
		if (r.opt.LUF || r.opt.LRUReturns) && relist {
			l := r.list[k]
			i := 0
			if r.opt.Reinsert == "place" {
				for i < len(l) && r.rank[k][l[i]] < r.rank[k][id] {
					i++
				}
			} else if len(l) > 0 && r.glibc != nil {
				i = int(r.glibc.Int31()) % len(l)
			} else if len(l) > 0 {
				i = r.v.Rand().IntN(len(l))
			}
			r.list[k] = slices.Insert(l, i, id)
			r.ops += i + 1
		}
	}
}
