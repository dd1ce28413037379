package heteroprio

import (
	"fmt"
	"math"
	"sort"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/scratch"
	"github.com/memsched/memsched/schedulers"
)

// locality is LAHeteroprio's state: the memory nodes that have workers
// (StarPU's worker groups), their access orders over the grid, and the
// push-time choices that the best-memory-node difference (BMD) compares
// at pop time.
type locality struct {
	v      schedulers.View
	cfg    *config
	dlaf   DLAF
	theta  float64
	ignore string // sdhb, all or none
	keep   bool   // auto: equal BMDs keep the formula in use

	groups  []int // memory node of each group, in StarPU's node order (main memory first)
	scratch []float64
	acc     []access // data's result, reused
	on      []bool   // the acc entries' on slices, one after the other
	groupOf []int    // per worker
	rep     []int    // per group: a worker of it, to ask where data are
	master  int      // group of tasks the application submits (StarPU: the first CPU worker's node)
	access  [][]item
	dist    [][]float64 // between groups, Eq. 12
	perByte [][]float64 // MC_StarPU: seconds per byte from a node (group index, or len(groups) for main memory) to a group

	// Per task, in flat arrays (a slice per task cost 56 bytes and an
	// allocation): auto's candidates' choices at push (len(autoCandidates)
	// a task), the formula that placed it (an index into formulas) and
	// the group it was pushed to.
	current   int     // auto: index into autoCandidates of the formula in use
	formulas  []DLAF  // autoCandidates, or the one formula in use
	choice    []int32 // auto: per task and candidate, the group it chose at push
	placedBy  []uint8 // per task
	placed    []int32 // per task
	pops      int
	stolen    int
	mismatch  int   // pops where the placing formula now answers another group
	candMism  []int // auto: per candidate, BMD counter
	autoShare []int // auto: pushes placed by each candidate
}

// item is one step of an access order: the prio-th bucket of the worker's
// kind, in the list of a group.
type item struct{ prio, group int }

func newLocality(v schedulers.View, cfg *config, o Options) (*locality, error) {
	l := &locality{v: v, cfg: cfg, dlaf: DLAF(o.DLAF), theta: o.Theta, ignore: o.IgnoreEverywhere,
		keep: o.AutoTies == "keep"}
	home := v.Nodes() - 1
	nodeGroup := map[int]int{}
	addNode := func(n int) {
		for w := 0; w < v.Workers(); w++ {
			if v.WorkerNode(w) == n {
				nodeGroup[n] = len(l.groups)
				l.groups = append(l.groups, n)
				l.rep = append(l.rep, w)
				return
			}
		}
	}
	addNode(home)
	for n := 0; n < home; n++ {
		addNode(n)
	}
	l.groupOf = make([]int, v.Workers())
	l.master = -1
	for w := range l.groupOf {
		l.groupOf[w] = nodeGroup[v.WorkerNode(w)]
		if l.master < 0 && v.WorkerKind(w) == hardware.CPU {
			l.master = l.groupOf[w]
		}
	}
	if l.master < 0 {
		l.master = 0
	}
	kindOfGroup := make([]int, len(l.groups))
	for g, w := range l.rep {
		kindOfGroup[g] = cfg.kindOf[w]
	}
	l.dist = distances(v, l.groups, kindOfGroup, cfg, o.A, float64(o.ProbeBytes), o.PrioDistance)
	l.access = make([][]item, len(l.groups))
	for g := range l.groups {
		k := kindOfGroup[g]
		step, close := o.LCPU, o.SCPU
		if cfg.kinds[k] == hardware.GPU {
			step, close = o.LGPU, o.SGPU
		}
		l.access[g] = accessOrder(g, len(cfg.order[k]), byDistance(g, l.dist[g]), step, close)
	}
	homeIdx := len(l.groups)
	l.perByte = make([][]float64, len(l.groups)+1)
	for src := range l.perByte {
		l.perByte[src] = make([]float64, len(l.groups))
		srcNode := v.Platform().HomeNode()
		if src < homeIdx {
			srcNode = l.groups[src]
		}
		for g, node := range l.groups {
			l.perByte[src][g] = predict(v.Platform(), srcNode, node, 1)
		}
	}
	n := len(v.Workload().Tasks)
	l.placed = make([]int32, n)
	l.placedBy = make([]uint8, n)
	l.formulas = []DLAF{l.dlaf}
	if l.dlaf == "auto" {
		l.formulas = autoCandidates
		l.choice = make([]int32, n*len(autoCandidates))
		l.candMism = make([]int, len(autoCandidates))
		l.autoShare = make([]int, len(autoCandidates))
		start := DLAF(o.AutoStart)
		for i, c := range autoCandidates {
			if c == start {
				l.current = i
			}
		}
	}
	return l, nil
}

// byDistance lists the other groups from the closest, ties in StarPU's node
// order (StarPU sorts with qsort, whose order among equals is unspecified).
func byDistance(self int, dist []float64) []int {
	var others []int
	for g := range dist {
		if g != self {
			others = append(others, g)
		}
	}
	sort.SliceStable(others, func(i, j int) bool { return dist[others[i]] < dist[others[j]] })
	return others
}

// accessOrder is the pop order of a group's workers over the grid (PeerJ
// 2019 §Memory node subgroups; heteroprio.c
// starpu_heteroprio_map_wgroup_memory_nodes_hp): per block of l of its
// kind's buckets, those buckets in its own lists, then each of them in the
// lists of its S closest groups; then, bucket after bucket, the lists of
// the other groups, only to steal. l = 0 takes all the buckets at once, S
// = -1 every other group.
func accessOrder(self, nprio int, others []int, l, s int) []item {
	if l <= 0 || l > nprio {
		l = nprio
	}
	if s < 0 || s > len(others) {
		s = len(others)
	}
	var out []item
	for block := 0; block < nprio; block += l {
		end := min(block+l, nprio)
		for p := block; p < end; p++ {
			out = append(out, item{p, self})
		}
		for p := block; p < end; p++ {
			for _, g := range others[:s] {
				out = append(out, item{p, g})
			}
		}
	}
	for p := 0; p < nprio; p++ {
		for _, g := range others[s:] {
			out = append(out, item{p, g})
		}
	}
	return out
}

// distances is Eq. 12 between groups: the priority distance times a plus
// the normalised transfer time of probe bytes (Eq. 10) times 1 − a.
func distances(v schedulers.View, groups, kindOf []int, cfg *config, a, probe float64, prioRule string) [][]float64 {
	n := len(groups)
	tr := make([][]float64, n)
	maxT := 0.0
	for i := range tr {
		tr[i] = make([]float64, n)
		for j := range tr[i] {
			if i != j {
				tr[i][j] = predict(v.Platform(), groups[j], groups[i], probe)
				maxT = max(maxT, tr[i][j])
			}
		}
	}
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
		for j := range d[i] {
			if i == j {
				continue
			}
			t := 0.0
			if maxT > 0 {
				t = tr[i][j] / maxT
			}
			oi, oj := cfg.order[kindOf[i]], cfg.order[kindOf[j]]
			frac := priorityFraction(oi, oj)
			if prioRule == "starpu" {
				frac = priorityFractionStarPU(oi, oj, len(cfg.buckets))
			}
			d[i][j] = (1-frac)*a + t*(1-a)
		}
	}
	return d
}

// priorityFraction is the fraction of Eq. 11: Σ_k |P(i,k) − P(j,k)| over
// the k-th buckets of the two access arrays (the shorter padded with 0),
// over (NP+1)(NP+2)/2 with NP the longer length. distance_priority is
// 1 − fraction: 1 for identical orders (PeerJ 2019 Table 2).
func priorityFraction(pi, pj []int) float64 {
	np := max(len(pi), len(pj))
	diff := 0.0
	for k := 0; k < np; k++ {
		var a, b int
		if k < len(pi) {
			a = pi[k]
		}
		if k < len(pj) {
			b = pj[k]
		}
		diff += math.Abs(float64(a - b))
	}
	return diff / (float64(np+1) * float64(np+2) / 2)
}

// priorityFractionStarPU is StarPU's reading: per bucket, the difference of
// its positions (+1, 0 when a kind does not visit it).
func priorityFractionStarPU(pi, pj []int, nbuckets int) float64 {
	pos := func(order []int) []int {
		p := make([]int, nbuckets)
		for k, b := range order {
			p[b] = k + 1
		}
		return p
	}
	a, b := pos(pi), pos(pj)
	diff := 0.0
	for k := range a {
		diff += math.Abs(float64(a[k] - b[k]))
	}
	m := max(len(pi), len(pj))
	return diff / (float64(m+1) * float64(m+2) / 2)
}

// predict is the uncontended time to copy bytes from one memory node to
// another (StarPU starpu_transfer_predict): over the GPU's path to main
// memory, NVLink between linked GPUs, else two hops through main memory.
func predict(p *hardware.Platform, src, dst int, bytes float64) float64 {
	home := p.HomeNode()
	if src == dst {
		return 0
	}
	hop := func(n int) float64 {
		if g := p.HomeGBps(n); g > 0 {
			return bytes / (g * 1e9)
		}
		return 0
	}
	switch {
	case src == home:
		return hop(dst)
	case dst == home:
		return hop(src)
	case p.Topology.NVLink && p.Topology.NVLinkGBps > 0:
		return bytes / (p.Topology.NVLinkGBps * 1e9)
	}
	return hop(src) + hop(dst)
}

// data describes a task's data for the formulas, with the pushing (or
// popping) worker's view of where they are. The result is scratch, valid
// until the next call (a push or pop allocated it anew: 180 MB at a million
// tasks).
func (l *locality) data(t int) []access {
	w := l.v.Workload()
	in, ng := w.Tasks[t].Inputs, len(l.groups)
	l.acc = scratch.Resize(l.acc, len(in))
	l.on = scratch.Resize(l.on, len(in)*ng)
	for i, d := range in {
		on := l.on[i*ng : (i+1)*ng : (i+1)*ng]
		for g, wk := range l.rep {
			on[g] = l.v.Present(wk, d)
		}
		l.acc[i] = access{size: float64(w.Data[d].Bytes), write: w.Mode(t, i).Writes(), on: on}
	}
	return l.acc
}

// groupOfWorker is the group a call is made for: the worker's, or for the
// application's submissions the master group.
func (l *locality) callerGroup() int {
	if w := l.v.CurrentWorker(); w >= 0 {
		return l.groupOf[w]
	}
	return l.master
}

// choose is get_best_mem_node for one formula, from the caller's view.
func (l *locality) choose(f DLAF, t int, acc []access) int {
	caller := l.callerGroup()
	switch f {
	case LaRU:
		return caller
	case MCStarPU:
		return l.cheapest(t, acc)
	}
	ignore := l.ignore == "all" || (l.ignore == "sdhb" && f == LSSDHB)
	if l.scratch == nil {
		l.scratch = make([]float64, 4*len(l.groups))
	}
	s, maximize := scores(f, acc, len(l.groups), l.theta, ignore, l.scratch)
	return best(s, maximize, caller)
}

// cheapest is MC_StarPU: the group with the least expected transfer time
// for the data the task reads (starpu_task_expected_data_transfer_time_for;
// ties go to the first group, as heteroprio.c compares with "<").
func (l *locality) cheapest(t int, acc []access) int {
	wl := l.v.Workload()
	task := &wl.Tasks[t]
	win, winT := 0, math.Inf(1)
	for g := range l.groups {
		total := 0.0
		for i, a := range acc {
			if !wl.Mode(t, i).Reads() || a.on[g] {
				continue
			}
			d := task.Inputs[i]
			src := math.Inf(1)
			for h, w := range l.rep {
				if h != g && l.v.Resident(w, d) {
					src = min(src, l.perByte[h][g]*a.size)
				}
			}
			if math.IsInf(src, 1) { // valid only in main memory without workers, or in flight
				src = l.perByte[len(l.groups)][g] * a.size
			}
			total += src
		}
		if total < winT {
			win, winT = g, total
		}
	}
	return win
}

// push places a newly ready task and records the choices BMD compares.
func (l *locality) push(t int) int {
	acc := l.data(t)
	var g int
	if l.dlaf == "auto" {
		choice := l.choice[t*len(autoCandidates):][:len(autoCandidates)]
		for i, f := range autoCandidates {
			choice[i] = int32(l.choose(f, t, acc))
		}
		g = int(choice[l.current])
		l.placedBy[t] = uint8(l.current)
		l.autoShare[l.current]++
	} else {
		g = l.choose(l.dlaf, t, acc)
	}
	l.placed[t] = int32(g)
	return g
}

// popped updates the counters when worker w takes task t from a list: the
// BMD of the formula that placed it (PeerJ 2019 §Automatic DLAF selection:
// the formula is evaluated again at pop and compared with its push-time
// answer) and, in auto mode, every candidate's BMD and the formula to use
// next (the lowest BMD; StarPU counts matches and takes the highest, ties
// to the later formula).
func (l *locality) popped(t, w, list int) {
	l.pops++
	if list != l.groupOf[w] {
		l.stolen++
	}
	acc := l.data(t)
	if l.choose(l.formulas[l.placedBy[t]], t, acc) != int(l.placed[t]) {
		l.mismatch++
	}
	if l.dlaf != "auto" {
		return
	}
	choice := l.choice[t*len(autoCandidates):][:len(autoCandidates)]
	for i, f := range autoCandidates {
		if l.choose(f, t, acc) != int(choice[i]) {
			l.candMism[i]++
		}
	}
	best := 0
	for i := range autoCandidates {
		if l.candMism[i] <= l.candMism[best] {
			best = i
		}
	}
	if l.keep && l.candMism[l.current] == l.candMism[best] {
		best = l.current
	}
	l.current = best
}

// stats are the record's scheduler counters: bmd_pct, the BMD of the
// placing formula in percent of popped tasks (for LaRU, the share of tasks
// popped by a worker of another node than the pusher's); stolen_pct, tasks
// taken from another node's list; for auto, each candidate's BMD and share
// of the pushes.
func (l *locality) stats() map[string]float64 {
	pct := func(n int) float64 {
		if l.pops == 0 {
			return 0
		}
		return 100 * float64(n) / float64(l.pops)
	}
	out := map[string]float64{"bmd_pct": pct(l.mismatch), "stolen_pct": pct(l.stolen), "pops": float64(l.pops)}
	if l.dlaf == "auto" {
		pushes := 0
		for _, n := range l.autoShare {
			pushes += n
		}
		for i, f := range autoCandidates {
			out[fmt.Sprintf("bmd_pct_%s", f)] = pct(l.candMism[i])
			if pushes > 0 {
				out[fmt.Sprintf("pushed_pct_%s", f)] = 100 * float64(l.autoShare[i]) / float64(pushes)
			}
		}
	}
	return out
}
