package darts

import (
	"slices"

	"github.com/memsched/memsched/schedulers"
)

// ref is a straightforward DARTS that recomputes S_0, S_1, task_left,
// n_b and n_p from scratch at every decision, following the same
// documented rules. The property test checks that the incremental DARTS
// takes exactly its decisions.
type ref struct {
	opt    Options
	v      schedulers.View
	inputs [][]int
	pool   []int // pool order
	plan   [][]int
	has    [][]bool
	order  [][]int
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
	r.plan = make([][]int, nw)
	for k := range nw {
		h := make([]bool, nd)
		o := make([]int, nd)
		for x := range nd {
			h[x] = v.Present(k, x)
			o[x] = (x + k*(nd/nw)) % nd
		}
		r.has = append(r.has, h)
		r.order = append(r.order, o)
	}
	return nil
}

func (r *ref) Push(t int) { r.pool = append(r.pool, t) }

func (r *ref) missing(k, t int) []int {
	var m []int
	for _, x := range r.inputs[t] {
		if !r.has[k][x] {
			m = append(m, x)
		}
	}
	return m
}

func (r *ref) take(t int) {
	r.pool = slices.DeleteFunc(r.pool, func(u int) bool { return u == t })
}

func (r *ref) Pull(k int) (int, bool) {
	if len(r.plan[k]) == 0 {
		r.decide(k)
	}
	if len(r.plan[k]) == 0 {
		return 0, false
	}
	t := r.plan[k][0]
	r.plan[k] = r.plan[k][1:]
	return t, true
}

type refBest struct {
	data, s, tl, ties int
}

func (b *refBest) offer(x, s, tl int, rnd bool, v schedulers.View) {
	if b.ties == 0 || s > b.s || (s == b.s && tl > b.tl) {
		*b = refBest{x, s, tl, 1}
	} else if s == b.s && tl == b.tl {
		b.ties++
		if rnd && v.Rand().IntN(b.ties) == 0 {
			b.data = x
		}
	}
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
				r.take(t)
			}
			r.plan[k] = append(r.plan[k], free...)
			return
		}
	}
	var b0, b1 refBest
	scanned := 0
	for _, x := range r.order[k] {
		if r.has[k][x] {
			continue
		}
		s0, s1, tl := 0, 0, 0
		for _, t := range r.pool {
			if !slices.Contains(r.inputs[t], x) {
				continue
			}
			tl++
			switch len(r.missing(k, t)) {
			case 1:
				s0++
			case 2:
				s1++
			}
		}
		if tl == 0 {
			continue
		}
		if s0 > 0 {
			if r.opt.Opti {
				b0 = refBest{x, s0, tl, 1}
				break
			}
			b0.offer(x, s0, tl, r.opt.RandomTies, r.v)
		}
		if r.opt.ThreeInputs && s1 > 0 {
			b1.offer(x, s1, tl, r.opt.RandomTies, r.v)
		}
		scanned++
		if r.opt.Threshold > 0 && scanned >= r.opt.Threshold {
			break
		}
	}
	switch {
	case b0.s > 0:
		var ts []int
		for _, t := range r.pool {
			if m := r.missing(k, t); len(m) == 1 && m[0] == b0.data {
				ts = append(ts, t)
			}
		}
		for _, t := range ts {
			r.take(t)
		}
		r.plan[k] = append(r.plan[k], ts...)
		r.has[k][b0.data] = true
	case b1.s > 0:
		for _, t := range r.pool {
			if m := r.missing(k, t); len(m) == 2 && slices.Contains(m, b1.data) {
				r.planMarking(k, t)
				return
			}
		}
		panic("ref: S_1 head not found")
	default:
		i := k * len(r.pool) / r.v.Workers()
		if r.opt.RandomTies {
			i = r.v.Rand().IntN(len(r.pool))
		}
		r.planMarking(k, r.pool[i])
	}
}

func (r *ref) planMarking(k, t int) {
	r.take(t)
	r.plan[k] = append(r.plan[k], t)
	for _, x := range r.inputs[t] {
		r.has[k][x] = true
	}
}

func (r *ref) Victim(k int, cands []int, prefetch bool) int {
	if !r.opt.LUF {
		return cands[0]
	}
	firstUse := map[int]int{}
	pos := 0
	for _, t := range append(slices.Clone(r.v.Pipeline(k)), r.v.Buffer(k)...) {
		for _, x := range r.inputs[t] {
			pos++
			if _, ok := firstUse[x]; !ok {
				firstUse[x] = pos
			}
		}
	}
	np := func(x int) int {
		n := 0
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
			for _, t := range r.plan[k] {
				if slices.Contains(r.inputs[t], id) {
					r.pool = append(r.pool, t)
				} else {
					keep = append(keep, t)
				}
			}
			r.plan[k] = keep
		}
		r.has[k][id] = false
	}
}
