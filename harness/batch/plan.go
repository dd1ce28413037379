package batch

import (
	"math/bits"
	"slices"

	"github.com/memsched/memsched/internal/bitset"
	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

// step is a point of a node's core usage profile: from t on, used cores
// are reserved (until the next step).
type step struct {
	t    int64
	used int
}

// use is one planned use of a file on a node: from s, loaded at r, used
// until e (the release's Interval triples: start, start + transfer, start +
// walltime).
type use struct{ s, r, e int64 }

// nodeFile is a file's planned uses on a node in this pass, in planning
// order; the end of the last one (its tail) decides LEA's eviction penalty.
type nodeFile struct {
	file int
	size float32
	uses []use
	maxE int64 // the latest end of its uses: no use covers a later time
}

// plan is the board of reservations a planning pass builds, and the
// schedulers' view of it (it implements schedulers/batch.Board).
type plan struct {
	cl  Cluster
	bf  bool
	now int64
	C   int

	// Without backfilling each core has one number, the time it becomes
	// available for good (the release's Core.available_time); a node's
	// cores are kept sorted, so t_k is the Cores(J)-th smallest.
	avail []int64
	// With backfilling each node has the profile of its reserved cores over
	// time, the running jobs' until their walltimes and the planned ones.
	// Reservations on one node are intervals, so they fit its cores
	// whenever they never overlap more than C deep (interval graphs are
	// perfect): counting cores is exact, and the cores are picked at start.
	prof    [][]step
	planned []int        // per node: reservations beyond the running jobs'
	stale   []bool       // per node: a job started or ended since the reset
	bfNow   bool         // Rules.Backfill == "now"
	fat     []int64      // bfNow: per c and node ([(c-1)*nodes+k]), when c cores are free for good
	hole    []int64      // bfNow: per c and node, how long c cores stay free from now
	fatOK   []bool       // per node: fat and hole are up to date
	idle    []bitset.Set // bfNow: per c, bitset of the nodes with c cores idle now
	nowCur  bfNowCursor
	maxUsed []int // per node: the profile's maximum

	freeNow int // cores free from now on: no reservation ends after now
	idleNow int // with backfilling: cores with no reservation covering now

	// File intervals of this pass.
	nfiles    [][]nodeFile // per node, files in order of first use
	dirty     []int
	fileNodes [][]int32 // by dense file number
	fileSlots [][]int32 // by dense file number, beside fileNodes: its index in nfiles[k]
	fo        fileOrder // the job's file's nodes by bound
	nowFiles  []entry   // onlyNow's walk of the file's nodes
	stamp     []uint32  // per node: fileGen when it holds the bound file
	slot      []int32   // per node stamped: the bound file's index in nfiles[k]
	fileGen   uint32
	stampFile int // the file stamped (-1: none)
	stampN    int // how many of its nodes are stamped (a prefix of fileNodes)
	cur       uint32

	// The job being placed.
	job       *jobs.Job
	file      int     // its dense file number
	loadFull  float32 // its file's full load time, Size/Bandwidth in C floats
	start     []int64 // t_k per node, valid when startOK[k] == cur
	startOK   []uint32
	running   func() int // RunningNodes
	idx       *nodeIndex
	runSorted []int64 // with backfilling: each node's running ends, sorted
	loadNow   bool    // Rules.LoadBase == "now"
	scratchT  []int64
}

func newPlan(cl Cluster, bf, bfNow, loadNow bool, running func() int) *plan {
	n, C := cl.Nodes, cl.CoresPerNode
	p := &plan{cl: cl, bf: bf, bfNow: bf && bfNow, C: C, loadNow: loadNow, running: running,
		nfiles: make([][]nodeFile, n),
		stamp:  make([]uint32, n), slot: make([]int32, n), start: make([]int64, n), startOK: make([]uint32, n),
		fo: newFileOrder(n)}
	if bf {
		p.prof = make([][]step, n)
		p.planned = make([]int, n)
		p.stale = make([]bool, n)
		p.maxUsed = make([]int, n)
		for k := range p.prof {
			p.prof[k] = []step{{0, 0}}
		}
	} else {
		p.avail = make([]int64, n*C)
	}
	switch {
	case p.bfNow:
		// A job starts now on a node whose hole of c cores from now lasts
		// its walltime, else when c cores are free for good: the index
		// orders nodes by the latter, the cursor adds the former.
		p.fat = make([]int64, n*C)
		p.hole = make([]int64, n*C)
		p.fatOK = make([]bool, n)
		p.idle = make([]bitset.Set, C)
		for c := range p.idle {
			p.idle[c] = bitset.New(n)
		}
		p.idx = newNodeIndex(n, C, func(c, k int) int64 { return p.freeAt(k, c) })
	case bf:
		p.runSorted = make([]int64, n*C)
		p.idx = newNodeIndex(n, C, p.firstFree)
	default:
		p.idx = newNodeIndex(n, C, func(c, k int) int64 { return p.avail[k*C+c-1] })
	}
	return p
}

// reset empties the plan at now: each core is available at the walltime end
// of its running job (runEnd > now), else now (reset_cores in
// src/basic_functions.c).
//
// The index's times (without backfilling, and backfilling now) then depend
// only on the running jobs and the clock: the index goes back to its times
// at the last reset, but for the nodes whose running jobs changed.
func (p *plan) reset(now int64, runEnd []int64) {
	p.now = now
	p.fo.valid = false // the bounds follow the clock
	p.freeNow, p.idleNow = 0, 0
	if !p.bf {
		defer p.idx.resetTo(now)
		t := p.scratchT[:0]
		for k := 0; k < p.cl.Nodes; k++ {
			a := p.avail[k*p.C : (k+1)*p.C]
			t = append(t[:0], runEnd[k*p.C:(k+1)*p.C]...)
			for i := range t {
				t[i] = max(t[i], now)
				if t[i] <= now {
					p.freeNow++
				}
			}
			slices.Sort(t)
			copy(a, t)
		}
		p.scratchT = t
		return
	}
	if p.bfNow {
		defer p.idx.resetTo(now)
	} else {
		p.idx.advance(now)
	}
	for k := 0; k < p.cl.Nodes; k++ {
		t := p.scratchT[:0]
		for _, e := range runEnd[k*p.C : (k+1)*p.C] {
			if e > now {
				t = append(t, e)
			}
		}
		slices.Sort(t)
		p.scratchT = t
		used := len(t)
		pr := append(p.prof[k][:0], step{now, used})
		for i, e := range t {
			used--
			if i+1 < len(t) && t[i+1] == e {
				continue
			}
			pr = append(pr, step{e, used})
		}
		p.prof[k] = pr
		if !p.bfNow && (p.planned[k] > 0 || p.stale[k]) {
			p.touch(k) // reservations dropped: the index's time may be earlier
		}
		p.planned[k], p.maxUsed[k], p.stale[k] = 0, len(t), false
		p.freeNow += p.C - len(t)
		p.idleNow += p.C - len(t)
		p.nowChanged(k)
	}
}

// touch marks node k's times changed (its t_k or its bound).
func (p *plan) touch(k int) {
	p.idx.touch(k)
	p.fo.note(k)
}

// changed marks node k's profile changed.
func (p *plan) changed(k int) {
	if p.bf {
		p.touch(k)
	}
	if p.bfNow {
		p.nowChanged(k)
	}
}

// firstFree is the index's time of node k for c cores with backfilling
// into any future window: the first step of its profile with c cores free.
// No window of c cores opens before, whatever the walltime, so it bounds
// t_k from below with the planned reservations counted; a bound counting
// the running jobs only had FCFS visit most nodes once the queue's
// reservations filled the profiles (a week of thesis rules took over 30
// minutes). A reservation only delays it, so a node the index has not
// caught up with yet keeps a lower time, still a bound.
func (p *plan) firstFree(c, k int) int64 {
	limit := p.C - c
	for _, s := range p.prof[k] {
		if s.used <= limit {
			return s.t
		}
	}
	panic("batch: a profile that never frees its cores") // it ends at 0 cores used
}

// nowChanged updates what depends on the present of node k's profile: its
// holes from now and its idle cores (backfilling now).
func (p *plan) nowChanged(k int) {
	if p.bfNow {
		p.fatOK[k] = false
		free := p.C - p.prof[k][0].used
		for c := 1; c <= p.C; c++ {
			p.idle[c-1].Put(k, c <= free)
		}
	}
}

// freeAt is when node k has c cores free for good: the first step after
// which the profile never uses more than C − c cores.
//
// The times are laid out by core count, so the nodes a job looks at (one
// c) share cache lines.
func (p *plan) freeAt(k, c int) int64 {
	if !p.fatOK[k] {
		p.fillFreeAt(k)
	}
	return p.fat[(c-1)*p.cl.Nodes+k]
}

// fillFreeAt computes node k's fat and hole for every core count.
func (p *plan) fillFreeAt(k int) {
	n, C, pr := p.cl.Nodes, p.C, p.prof[k]
	// Walk back from the end: the suffix maximum grows, and a larger
	// limit of used cores (fewer cores wanted) reaches further back.
	m, i := 0, len(pr)
	for limit := 0; limit < C; limit++ {
		for i > 0 && max(m, pr[i-1].used) <= limit {
			i--
			m = max(m, pr[i].used)
		}
		p.fat[(C-limit-1)*n+k] = max(pr[i].t, p.now) // the profile ends at 0 used: i < len(pr)
	}
	// The hole of c cores from now ends at the first step using more than
	// C − c cores: walking forward, a step using u cores ends the holes of
	// every c > C − u not ended before.
	lo := C + 1 // the holes of c >= lo have ended
	for _, s := range pr {
		for c := C - s.used + 1; c < lo; c++ {
			p.hole[(c-1)*n+k] = max(s.t, p.now) - p.now
		}
		lo = min(lo, C-s.used+1)
		if lo == 1 {
			break
		}
	}
	for c := 1; c < lo; c++ {
		p.hole[(c-1)*n+k] = never
	}
	p.fatOK[k] = true
}

// idleAt reports whether c cores of node k are idle now (bfNow).
func (p *plan) idleAt(k, c int) bool { return p.idle[c-1].Has(k) }

// holeNow is how long c cores of node k stay free from now.
func (p *plan) holeNow(k, c int) int64 {
	if !p.fatOK[k] {
		p.fillFreeAt(k)
	}
	return p.hole[(c-1)*p.cl.Nodes+k]
}

// advance moves an incremental plan to now without dropping reservations
// (the release plans new jobs on top of the current plan).
func (p *plan) advance(now int64) {
	p.now = now
	p.fo.valid = false // the bounds follow the clock
	p.freeNow, p.idleNow = 0, 0
	p.idx.advance(now)
	if !p.bf {
		for _, a := range p.avail {
			if a <= now {
				p.freeNow++
			}
		}
		return
	}
	for k, pr := range p.prof {
		i := 0
		for i+1 < len(pr) && pr[i+1].t <= now {
			i++
		}
		pr = pr[i:]
		pr[0].t = max(pr[0].t, now)
		p.prof[k] = pr
		p.maxUsed[k] = 0
		for _, s := range pr {
			p.maxUsed[k] = max(p.maxUsed[k], s.used)
		}
		p.freeNow += p.C - p.maxUsed[k]
		p.idleNow += p.C - pr[0].used
		// Dropping the past keeps the times after now when c cores are
		// free for good (the index's); the others are now, and the index
		// frees them as its clock moves.
		p.nowChanged(k)
	}
}

// clearFiles empties the file intervals (get_current_intervals rebuilds
// them at every pass).
func (p *plan) clearFiles() {
	p.fo.valid = false
	p.stampFile = -1
	for _, k := range p.dirty {
		fs := p.nfiles[k]
		for i := range fs {
			p.fileNodes[fs[i].file] = p.fileNodes[fs[i].file][:0]
			p.fileSlots[fs[i].file] = p.fileSlots[fs[i].file][:0]
			fs[i].uses = fs[i].uses[:0]
		}
		p.nfiles[k] = fs[:0]
	}
	p.dirty = p.dirty[:0]
}

func (p *plan) addInterval(k, file int, size float32, s, r, e int64) {
	fs := p.nfiles[k]
	if len(fs) == 0 {
		p.dirty = append(p.dirty, k)
	}
	for i := range fs {
		if fs[i].file == file {
			fs[i].uses = append(fs[i].uses, use{s, r, e})
			fs[i].maxE = max(fs[i].maxE, e)
			return
		}
	}
	// Reuse the uses slice left in the backing array by clearFiles.
	if len(fs) < cap(fs) {
		fs = fs[:len(fs)+1]
		fs[len(fs)-1].file, fs[len(fs)-1].size = file, size
		fs[len(fs)-1].uses = append(fs[len(fs)-1].uses[:0], use{s, r, e})
	} else {
		fs = append(fs, nodeFile{file: file, size: size, uses: []use{{s, r, e}}})
	}
	fs[len(fs)-1].maxE = e
	p.nfiles[k] = fs
	p.fileNodes[file] = append(p.fileNodes[file], int32(k))
	p.fileSlots[file] = append(p.fileSlots[file], int32(len(fs)-1))
}

// bind makes j, of dense file number f, the job being placed. The nodes of
// its file are stamped; consecutive jobs of one file (a burst) only stamp
// the nodes the file gained.
func (p *plan) bind(j *jobs.Job, f int) {
	p.job, p.file = j, f
	p.cur++
	if p.cur == 0 { // wrapped: stale stamps could match
		clear(p.startOK)
		p.cur = 1
	}
	if f != p.stampFile {
		p.fileGen++
		if p.fileGen == 0 {
			clear(p.stamp)
			p.fileGen = 1
		}
		p.stampFile, p.stampN = f, 0
	}
	nodes := p.fileNodes[f]
	for i := p.stampN; i < len(nodes); i++ {
		p.stamp[nodes[i]], p.slot[nodes[i]] = p.fileGen, p.fileSlots[f][i]
	}
	p.stampN = len(nodes)
	p.loadFull = j.SizeGB / p.cl.BandwidthGBs
}

// runChanged gives node k's running jobs' ends to the node index (with
// backfilling, its bound of t_k is the c-th smallest end).
func (p *plan) runChanged(k int, runEnd []int64) {
	p.idx.runChanged(k)
	if !p.bf || p.bfNow {
		return
	}
	p.stale[k] = true
	r := p.runSorted[k*p.C : (k+1)*p.C]
	copy(r, runEnd)
	slices.Sort(r)
	p.touch(k)
}

// Board implementation.

func (p *plan) Ascend(lo, hi int) sched.Cursor {
	if !p.bfNow {
		return p.idx.ascend(p.job.Cores, lo, hi)
	}
	// The nodes that can start the job now, in node order, then the others
	// by when its cores are free for good (the index's tree; a node free
	// for good now can start it now and came first).
	cu := p.idx.ascend(p.job.Cores, lo, hi)
	cu.tree = true
	p.nowCur = bfNowCursor{p: p, k: lo, hi: min(hi, p.cl.Nodes), tree: cu}
	return &p.nowCur
}

// bfNowCursor is Ascend with the backfilling-now rule: exact bounds.
type bfNowCursor struct {
	p       *plan
	k, hi   int
	done    bool // past the nodes that start now
	nowOnly bool // stop there
	tree    *cursor
}

func (c *bfNowCursor) Next() (int, int64, bool) {
	p := c.p
	idle := p.idle[p.job.Cores-1]
	for !c.done && c.k < c.hi {
		w := idle[c.k>>6] >> (c.k & 63)
		if w == 0 { // no node with the cores idle in the rest of this word
			c.k = (c.k>>6 + 1) << 6
			continue
		}
		k := c.k + bits.TrailingZeros64(w)
		c.k = k + 1
		if k < c.hi && p.holeNow(k, p.job.Cores) >= p.job.Walltime {
			return k, p.now, true
		}
	}
	c.done = true
	if c.nowOnly {
		return 0, 0, false
	}
	return c.tree.Next()
}

func (c *bfNowCursor) SkipGroup() {
	if c.done {
		c.tree.SkipGroup()
	} else {
		c.done = true
	}
}

func (c *bfNowCursor) Close()      {}
func (p *plan) HasFile(k int) bool { return p.file != 0 && p.stamp[k] == p.fileGen }
func (p *plan) fileNodesOf() []int32 {
	if p.file == 0 {
		return nil
	}
	return p.fileNodes[p.file]
}

// AscendFile walks the nodes with planned uses of the job's file by
// increasing fileBound.
func (p *plan) AscendFile() sched.Cursor {
	return p.fo.ascend(p.file, p.job.Cores, p.fileNodesOf(), p.fileBound)
}

// fileBound is a lower bound of t_k that changes only when node k is
// touched or the clock moves: the index's time (now where the node has the
// cores idle and may start the job now, backfilling now).
func (p *plan) fileBound(k int) int64 {
	c := p.job.Cores
	switch {
	case p.bfNow:
		if p.idleAt(k, c) {
			return p.now
		}
		return p.freeAt(k, c)
	case p.bf:
		return max(p.runSorted[k*p.C+c-1], p.now)
	}
	return max(p.avail[k*p.C+c-1], p.now)
}
func (p *plan) FullLoad() float32 {
	if p.file == 0 {
		return 0
	}
	return p.loadFull
}

func (p *plan) Now() int64        { return p.now }
func (p *plan) Nodes() int        { return p.cl.Nodes }
func (p *plan) Job() *jobs.Job    { return p.job }
func (p *plan) RunningNodes() int { return p.running() }

func (p *plan) Start(k int) int64 {
	if p.startOK[k] == p.cur {
		return p.start[k]
	}
	var t int64
	switch {
	case p.bfNow:
		if p.idleAt(k, p.job.Cores) && p.holeNow(k, p.job.Cores) >= p.job.Walltime {
			t = p.now
		} else {
			t = p.freeAt(k, p.job.Cores)
		}
	case p.bf:
		if p.planned[k] == 0 && !p.stale[k] { // only running jobs: the index's time is exact
			t = max(p.runSorted[k*p.C+p.job.Cores-1], p.now)
		} else {
			t = p.window(k, p.job.Cores, p.job.Walltime)
		}
	default:
		t = max(p.avail[k*p.C+p.job.Cores-1], p.now)
	}
	p.start[k], p.startOK[k] = t, p.cur
	return t
}

// Load is t'_k − t_k: 0 when a planned use of the file on node k covers tk
// with the file loaded, the rest of the load when one covers tk while the
// file is loading, the full load otherwise (the first interval covering tk
// decides, is_my_file_on_node_at_certain_time_and_transfer_time).
func (p *plan) Load(k int, tk int64) float32 {
	if p.file == 0 {
		return 0
	}
	if p.stamp[k] == p.fileGen {
		f := &p.nfiles[k][p.slot[k]]
		if tk > f.maxE {
			return p.loadFull
		}
		for _, v := range f.uses {
			if v.s > tk || tk > v.e {
				continue
			}
			if v.r <= tk {
				return 0
			}
			if p.loadNow {
				return float32(v.r - p.now)
			}
			return float32(v.r - tk)
		}
	}
	return p.loadFull
}

// Evict is the time to reload Cores(J)/m of the files of node k whose last
// planned use ends by tk, other than File(J)
// (time_to_reload_percentage_of_files_ended_at_certain_time).
func (p *plan) Evict(k int, tk int64) float32 {
	var sum float32
	for i := range p.nfiles[k] {
		f := &p.nfiles[k][i]
		if f.file != p.file && f.uses[len(f.uses)-1].e <= tk {
			sum += f.size
		}
	}
	if sum == 0 {
		return 0
	}
	return sum * (float32(p.job.Cores) / float32(p.C)) / p.cl.BandwidthGBs
}

// window is t_k with backfilling: the earliest time from now when node k
// has c cores free for w seconds (thesis §6.4.3, line 3').
func (p *plan) window(k, c int, w int64) int64 {
	pr := p.prof[k]
	limit := p.C - c
	for i := 0; i < len(pr); i++ {
		if pr[i].used > limit {
			continue
		}
		tau := max(pr[i].t, p.now)
		j := i + 1
		for j < len(pr) && pr[j].t < tau+w && pr[j].used <= limit {
			j++
		}
		if j == len(pr) || pr[j].t >= tau+w {
			return tau
		}
		i = j // the window breaks at step j: try after it
	}
	panic("batch: no window after the last reservation") // the profile ends at 0 cores used
}

// reserve books c cores of node k from t for w seconds. Without
// backfilling the Cores(J) cores available first are taken (cores[0..c-1] of
// the sorted node, the release's choice); with backfilling the profile
// counts them.
func (p *plan) reserve(k int, t, w int64, c int) {
	if !p.bf {
		a := p.avail[k*p.C : (k+1)*p.C]
		for i := 0; i < c; i++ {
			if a[i] <= p.now {
				p.freeNow--
			}
			a[i] = t + w
		}
		slices.Sort(a)
		p.touch(k)
		return
	}
	pr := p.split(p.split(p.prof[k], t), t+w)
	before := pr[0].used
	for i := range pr {
		if pr[i].t >= t && pr[i].t < t+w {
			pr[i].used += c
		}
	}
	p.prof[k] = pr
	p.idleNow -= pr[0].used - before
	m := 0
	for _, s := range pr {
		m = max(m, s.used)
	}
	p.freeNow -= m - p.maxUsed[k]
	p.maxUsed[k] = m
	p.planned[k]++
	p.changed(k)
}

// split makes t a step of the profile.
func (p *plan) split(pr []step, t int64) []step {
	i, found := slices.BinarySearchFunc(pr, t, func(s step, t int64) int { return cmp64(s.t, t) })
	if found {
		return pr
	}
	return slices.Insert(pr, i, step{t, pr[i-1].used})
}

// fitsNow reports whether node k can start a job of c cores and walltime w
// now (the release's check of holes when no core is free for good,
// only_check_conservative_backfill).
func (p *plan) fitsNow(k, c int, w int64) bool {
	limit := p.C - c
	for _, s := range p.prof[k] {
		if s.t >= p.now+w {
			break
		}
		if s.used > limit {
			return false
		}
	}
	return true
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
