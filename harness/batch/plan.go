package batch

import (
	"slices"

	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

// span is a reservation of one core, [s, e).
type span struct{ s, e int64 }

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
	// With backfilling each core has its reservations, sorted by start:
	// the running job's [start, start+walltime) then the planned ones.
	res  [][]span
	nres []int // per node: reservations beyond the running jobs'

	freeNow int // cores free from now on: no reservation ends after now
	idleNow int // with backfilling: cores with no reservation covering now

	// File intervals of this pass.
	nfiles    [][]nodeFile // per node, files in order of first use
	dirty     []int
	fileNodes [][]int32 // by dense file number
	stamp     []uint32
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
	scratchCr []int
}

func newPlan(cl Cluster, bf bool, loadNow bool, running func() int) *plan {
	n, C := cl.Nodes, cl.CoresPerNode
	p := &plan{cl: cl, bf: bf, C: C, loadNow: loadNow, running: running,
		nfiles: make([][]nodeFile, n),
		stamp:  make([]uint32, n), start: make([]int64, n), startOK: make([]uint32, n)}
	if bf {
		p.res = make([][]span, n*C)
		p.nres = make([]int, n)
	} else {
		p.avail = make([]int64, n*C)
	}
	if bf {
		p.runSorted = make([]int64, n*C)
		p.idx = newNodeIndex(n, C, func(c, k int) int64 { return p.runSorted[k*C+c-1] })
	} else {
		p.idx = newNodeIndex(n, C, func(c, k int) int64 { return p.avail[k*C+c-1] })
	}
	return p
}

// reset empties the plan at now: each core is available at the walltime end
// of its running job (runEnd > now), else now (reset_cores in
// src/basic_functions.c).
func (p *plan) reset(now int64, runEnd []int64) {
	p.now = now
	p.freeNow, p.idleNow = 0, 0
	p.idx.advance(now)
	if !p.bf {
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
			if !slices.Equal(a, t) {
				copy(a, t)
				p.idx.touch(k)
			}
		}
		p.scratchT = t
		return
	}
	for i := range p.res {
		p.res[i] = p.res[i][:0]
		if runEnd[i] > now {
			p.res[i] = append(p.res[i], span{0, runEnd[i]})
		} else {
			p.freeNow++
			p.idleNow++
		}
	}
	clear(p.nres)
}

// advance moves an incremental plan to now without dropping reservations
// (the release plans new jobs on top of the current plan).
func (p *plan) advance(now int64) {
	p.now = now
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
	for _, r := range p.res {
		free, idle := true, true
		for _, s := range r {
			if s.e > now {
				free = false
				if s.s <= now {
					idle = false
				}
			}
		}
		if free {
			p.freeNow++
		}
		if idle {
			p.idleNow++
		}
	}
}

// clearFiles empties the file intervals (get_current_intervals rebuilds
// them at every pass).
func (p *plan) clearFiles() {
	for _, k := range p.dirty {
		fs := p.nfiles[k]
		for i := range fs {
			p.fileNodes[fs[i].file] = p.fileNodes[fs[i].file][:0]
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
	p.nfiles[k] = fs
	p.fileNodes[file] = append(p.fileNodes[file], int32(k))
}

// bind makes j, of dense file number f, the job being placed.
func (p *plan) bind(j *jobs.Job, f int) {
	p.job, p.file = j, f
	p.cur++
	if p.cur == 0 { // wrapped: stale stamps could match
		clear(p.stamp)
		clear(p.startOK)
		p.cur = 1
	}
	for _, k := range p.fileNodes[f] {
		p.stamp[k] = p.cur
	}
	p.loadFull = j.SizeGB / p.cl.BandwidthGBs
}

// runChanged gives node k's running jobs' ends to the node index (with
// backfilling, its bound of t_k is the c-th smallest end).
func (p *plan) runChanged(k int, runEnd []int64) {
	if !p.bf {
		return
	}
	r := p.runSorted[k*p.C : (k+1)*p.C]
	copy(r, runEnd)
	slices.Sort(r)
	p.idx.touch(k)
}

// Board implementation.

func (p *plan) Ascend(lo, hi int) sched.Cursor { return p.idx.ascend(p.job.Cores, lo, hi) }
func (p *plan) HasFile(k int) bool             { return p.file != 0 && p.stamp[k] == p.cur }
func (p *plan) FileNodes() []int32 {
	if p.file == 0 {
		return nil
	}
	return p.fileNodes[p.file]
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
	if p.bf {
		t = p.window(k, p.job.Cores, p.job.Walltime)
	} else {
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
	if p.stamp[k] == p.cur {
		var uses []use
		for i := range p.nfiles[k] {
			if p.nfiles[k][i].file == p.file {
				uses = p.nfiles[k][i].uses
				break
			}
		}
		for _, v := range uses {
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

// window is t_k with backfilling: the earliest time from now when node k has
// c cores free for w seconds (thesis §6.4.3, line 3').
func (p *plan) window(k, c int, w int64) int64 {
	cores := p.res[k*p.C : (k+1)*p.C]
	if p.nres[k] == 0 { // only running jobs: the c-th smallest end
		t := p.scratchT[:0]
		for _, r := range cores {
			e := p.now
			if len(r) > 0 {
				e = max(e, r[0].e)
			}
			t = append(t, e)
		}
		slices.Sort(t)
		p.scratchT = t
		return t[c-1]
	}
	cand := append(p.scratchT[:0], p.now)
	for _, r := range cores {
		for _, s := range r {
			if s.e > p.now {
				cand = append(cand, s.e)
			}
		}
	}
	slices.Sort(cand)
	p.scratchT = cand
	last := int64(-1)
	for _, tau := range cand {
		if tau == last {
			continue
		}
		last = tau
		n := 0
		for _, r := range cores {
			if coreFree(r, tau, tau+w) {
				n++
			}
		}
		if n >= c {
			return tau
		}
	}
	panic("batch: no window after the last reservation") // the last end always frees every core
}

func coreFree(r []span, s, e int64) bool {
	for _, x := range r {
		if x.s < e && x.e > s {
			return false
		}
	}
	return true
}

// reserve books c cores of node k from t for w seconds and returns the cores
// (with backfilling; nil without). Without backfilling the Cores(J) cores
// available first are taken (cores[0..c-1] of the sorted node). With
// backfilling, among the cores free on [t, t+w), those whose next
// reservation starts soonest are taken first, then those free for good that
// became free last: holes are filled before whole free cores (the release's
// BACKFILL_MODE 2, fill_cores_minimize_holes in src/backfill_functions.c).
func (p *plan) reserve(k int, t, w int64, c int) []int {
	if !p.bf {
		a := p.avail[k*p.C : (k+1)*p.C]
		for i := 0; i < c; i++ {
			if a[i] <= p.now {
				p.freeNow--
			}
			a[i] = t + w
		}
		slices.Sort(a)
		p.idx.touch(k)
		return nil
	}
	cores := p.res[k*p.C : (k+1)*p.C]
	type cand struct {
		i          int
		next, prev int64
	}
	var cs []cand
	for i, r := range cores {
		if !coreFree(r, t, t+w) {
			continue
		}
		next, prev := int64(1<<62), int64(-1)
		for _, x := range r {
			if x.s >= t+w {
				next = min(next, x.s)
			}
			if x.e <= t {
				prev = max(prev, x.e)
			}
		}
		cs = append(cs, cand{i, next, prev})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.next != b.next:
			return cmp64(a.next, b.next)
		case a.prev != b.prev:
			return cmp64(b.prev, a.prev)
		}
		return a.i - b.i
	})
	out := p.scratchCr[:0]
	for _, x := range cs[:c] {
		r := cores[x.i]
		wasFree, wasIdle := true, true
		for _, s := range r {
			if s.e > p.now {
				wasFree = false
				if s.s <= p.now {
					wasIdle = false
				}
			}
		}
		if wasFree {
			p.freeNow--
		}
		if wasIdle && t <= p.now {
			p.idleNow--
		}
		pos, _ := slices.BinarySearchFunc(r, t, func(s span, t int64) int { return cmp64(s.s, t) })
		cores[x.i] = slices.Insert(r, pos, span{t, t + w})
		out = append(out, x.i)
	}
	p.nres[k]++
	p.scratchCr = out
	return out
}

// fitsNow reports whether node k can start a job of c cores and walltime w
// now (the release's check of holes when no core is free for good,
// only_check_conservative_backfill).
func (p *plan) fitsNow(k, c int, w int64) bool {
	n := 0
	for _, r := range p.res[k*p.C : (k+1)*p.C] {
		if coreFree(r, p.now, p.now+w) {
			if n++; n >= c {
				return true
			}
		}
	}
	return false
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
