package batch

import (
	"fmt"
	"sort"

	"github.com/memsched/memsched/workloads/jobs"
)

// EvDone is a batch trace's last event: Job is the number of jobs started.
// A trace without it was cut short.
const EvDone = "done"

// Validate re-checks a batch trace from its header and events alone and
// returns the violations found (at most 50):
//   - every job starts once, after its submission, and ends when its load or
//     wait and its run end, or at its walltime;
//   - no node ever runs more cores than it has (core ids, when given, are
//     distinct and free);
//   - a job's file is there when it starts: a job that neither loads nor
//     waits finds it loaded on its node by a running job, or left there as
//     the rules allow; a waiting job waits for a running job's load; a
//     loading job loads for Size/Bandwidth, and only a file that is not
//     there;
//   - with plans in the trace, each pass's reservations (with the running
//     jobs' walltimes) never exceed a node's cores at any time — a
//     backfilled job never takes cores reserved for another — and a job
//     starts where and when its last plan put it.
func Validate(h *Header, evs []Event) []string {
	v := &validator{h: h, C: h.Cluster.CoresPerNode, N: h.Cluster.Nodes}
	v.run(evs)
	return v.bad
}

type vjob struct {
	submit, start, end int64
	cores, file        int
	size               float32
	duration, walltime int64
	node               int
	transfer, wait     int64
	started, ended     bool
}

type vfile struct {
	users     int
	loadUntil int64
	lastEnd   int64 // when its last user ended; -1 never
}

type vplan struct {
	node  int
	at    int64
	cores int
	until int64
}

// vnode is a node's state, made when an event first names the node: the
// header's node count only bounds the numbers, so a header claiming a
// million nodes costs nothing the events do not use.
type vnode struct {
	used      int
	coreBusy  []int // job id per core, 0 = free (ids are offset by 1); made at the first core ids
	files     map[int]*vfile
	lastStart int64 // latest start on the node before the current second
}

type validator struct {
	h         *Header
	C, N      int
	bad       []string
	jobs      map[int]*vjob
	nodes     map[int]*vnode
	startedAt []int // nodes started in the current second
	second    int64
	plans     map[int]vplan
	pass      []vplan // reservations of the current pass, incl. running windows
	passT     int64
	inPass    bool
	starts    int
	done      bool
}

func (v *validator) fail(format string, a ...any) {
	if len(v.bad) < 50 {
		v.bad = append(v.bad, fmt.Sprintf(format, a...))
	}
}

func (v *validator) run(evs []Event) {
	if err := v.h.Cluster.Check(); err != nil {
		v.fail("header: %v", err)
		return
	}
	v.jobs = map[int]*vjob{}
	v.nodes = map[int]*vnode{}
	v.plans = map[int]vplan{}
	v.second = -1
	last := int64(-1 << 62)
	for i, e := range evs {
		if e.T < last {
			v.fail("event %d (%s of job %d) at %d s is before the previous one (%d s)", i+1, e.Kind, e.Job, e.T, last)
		}
		last = e.T
		if e.T != v.second {
			for _, k := range v.startedAt {
				v.node(k).lastStart = v.second
			}
			v.startedAt = v.startedAt[:0]
			v.second = e.T
		}
		if v.inPass && e.Kind != EvPlan {
			v.endPass()
		}
		if e.Node >= v.N || e.Node < -1 {
			v.fail("event %d: node %d of %d", i+1, e.Node, v.N)
			continue
		}
		switch e.Kind {
		case EvSubmit:
			if _, dup := v.jobs[e.Job]; dup {
				v.fail("job %d submitted twice", e.Job)
			}
			v.jobs[e.Job] = &vjob{submit: e.T, cores: e.Cores, file: e.File, size: e.SizeGB, duration: e.Duration, walltime: e.Walltime}
		case EvPass:
			v.inPass, v.passT = true, e.T
			if e.Full {
				clear(v.plans)
			}
		case EvPlan:
			v.plan(e)
		case EvLoad:
			if e.Node < 0 {
				v.fail("load of job %d without a node", e.Job)
				continue
			}
			if j := v.jobs[e.Job]; j == nil || e.File != j.file || e.SizeGB != j.size {
				v.fail("job %d loads file %d of %g GB, not its submitted file", e.Job, e.File, e.SizeGB)
			}
			if want := e.T + jobs.LoadSeconds(e.SizeGB, v.h.Cluster.BandwidthGBs); e.Until != want {
				v.fail("job %d loads file %d on node %d at %d s until %d s; Size/Bandwidth gives %d s", e.Job, e.File, e.Node, e.T, e.Until, want)
			}
			f := v.file(e.Node, e.File)
			if v.present(e.Node, f, e.T) {
				v.fail("job %d loads file %d on node %d at %d s although it is there", e.Job, e.File, e.Node, e.T)
			}
			f.loadUntil = e.Until
		case EvStart:
			v.start(e)
		case EvEnd:
			v.end(e)
		case EvDone:
			v.done = true
			if e.Job != v.starts {
				v.fail("the trace ends with %d jobs started, but has %d start events", e.Job, v.starts)
			}
		default:
			v.fail("event %d: unknown kind %q", i+1, e.Kind)
		}
	}
	if !v.done {
		v.fail("the trace has no %q line: it was cut short", EvDone)
	}
}

// node is node k's state (0 <= k < N).
func (v *validator) node(k int) *vnode {
	n := v.nodes[k]
	if n == nil {
		n = &vnode{files: map[int]*vfile{}, lastStart: -1}
		v.nodes[k] = n
	}
	return n
}

func (v *validator) file(k, f int) *vfile {
	files := v.node(k).files
	x, ok := files[f]
	if !ok {
		x = &vfile{lastEnd: -1, loadUntil: -1}
		files[f] = x
	}
	return x
}

// present: a running job holds the file, or the rules keep it after its
// last job.
func (v *validator) present(k int, f *vfile, t int64) bool {
	if f.users > 0 {
		return true
	}
	if f.lastEnd < 0 {
		return false
	}
	if v.h.Rules.Reuse == "same-second" {
		return f.lastEnd == t
	}
	return v.node(k).lastStart < f.lastEnd
}

func (v *validator) start(e Event) {
	j, ok := v.jobs[e.Job]
	switch {
	case !ok:
		v.fail("job %d starts at %d s without being submitted", e.Job, e.T)
		return
	case j.started:
		v.fail("job %d starts twice (at %d s and %d s)", e.Job, j.start, e.T)
		return
	case e.T < j.submit:
		v.fail("job %d starts at %d s before its submission at %d s", e.Job, e.T, j.submit)
	case e.Node < 0:
		v.fail("job %d starts without a node", e.Job)
		return
	}
	// A start restates the job's cores, file and walltime: they must be
	// the submitted ones.
	if e.Cores != j.cores {
		v.fail("job %d starts with %d cores; it was submitted with %d", e.Job, e.Cores, j.cores)
	}
	if e.File != j.file {
		v.fail("job %d starts with file %d; it was submitted with file %d", e.Job, e.File, j.file)
	}
	if e.Until != e.T+j.walltime {
		v.fail("job %d starts at %d s with its walltime ending at %d s; its walltime of %d s ends at %d s", e.Job, e.T, e.Until, j.walltime, e.T+j.walltime)
	}
	if e.Transfer < 0 || e.Wait < 0 || e.Transfer > 0 && e.Wait > 0 {
		v.fail("job %d starts loading %d s and waiting %d s: a job loads, waits or neither", e.Job, e.Transfer, e.Wait)
	}
	v.starts++
	j.started, j.start, j.node, j.transfer, j.wait = true, e.T, e.Node, e.Transfer, e.Wait
	k := e.Node
	n := v.node(k)
	n.used += j.cores
	if n.used > v.C {
		v.fail("node %d runs %d cores at %d s (it has %d) when job %d starts", k, n.used, e.T, v.C, e.Job)
	}
	if len(e.CoreIDs) > 0 && len(e.CoreIDs) != j.cores {
		v.fail("job %d asks for %d cores and starts on %d core ids", e.Job, j.cores, len(e.CoreIDs))
	}
	for _, c := range e.CoreIDs {
		if c < 0 || c >= v.C {
			v.fail("job %d starts on core %d of node %d (cores 0 to %d)", e.Job, c, k, v.C-1)
			continue
		}
		if n.coreBusy == nil {
			n.coreBusy = make([]int, v.C)
		}
		if b := n.coreBusy[c]; b != 0 {
			v.fail("job %d starts on core %d of node %d at %d s, busy with job %d", e.Job, c, k, e.T, b-1)
		}
		n.coreBusy[c] = e.Job + 1
	}
	if p, ok := v.plans[e.Job]; v.h.Plans && (!ok || p.node != k || p.at != e.T) {
		v.fail("job %d starts on node %d at %d s, not where its plan put it (%+v, planned %v)", e.Job, k, e.T, p, ok)
	}
	if j.file != 0 {
		f := v.file(k, j.file)
		switch {
		case e.Transfer > 0:
			if f.loadUntil != e.T+e.Transfer {
				v.fail("job %d starts at %d s loading file %d for %d s without its load event", e.Job, e.T, j.file, e.Transfer)
			}
		case e.Wait > 0:
			// A load outlives a loader killed at its walltime: the node's
			// file entry keeps its transfer end (add_data_in_node in the
			// release's src/basic_functions.c), so a job the reuse rule
			// lets use the file waits for it.
			if !v.present(k, f, e.T) || f.loadUntil != e.T+e.Wait {
				v.fail("job %d waits %d s at %d s for file %d on node %d, which is not there or not loaded until then", e.Job, e.Wait, e.T, j.file, k)
			}
		default:
			if !v.present(k, f, e.T) || f.users > 0 && f.loadUntil > e.T {
				v.fail("job %d starts at %d s on node %d without loading or waiting, but file %d is not there", e.Job, e.T, k, j.file)
			}
		}
		f.users++
	}
	want := e.T + min(j.duration+e.Transfer+e.Wait, j.walltime)
	j.end = want
	v.startedAt = append(v.startedAt, k)
}

func (v *validator) end(e Event) {
	j, ok := v.jobs[e.Job]
	if !ok || !j.started || j.ended {
		v.fail("job %d ends at %d s without running", e.Job, e.T)
		return
	}
	j.ended = true
	if e.T != j.end {
		v.fail("job %d ends at %d s; started at %d s with %d s of load/wait, %d s of run and a walltime of %d s, it ends at %d s",
			e.Job, e.T, j.start, j.transfer+j.wait, j.duration, j.walltime, j.end)
	}
	if e.Node != j.node {
		v.fail("job %d ends on node %d but ran on node %d", e.Job, e.Node, j.node)
	}
	n := v.node(j.node)
	n.used -= j.cores
	for i, b := range n.coreBusy {
		if b == e.Job+1 {
			n.coreBusy[i] = 0
		}
	}
	if j.file != 0 {
		f := v.file(j.node, j.file)
		f.users--
		if f.users == 0 {
			f.lastEnd = e.T
		}
	}
}

func (v *validator) plan(e Event) {
	if !v.inPass {
		v.fail("plan of job %d outside a pass", e.Job)
		return
	}
	if e.At < v.passT {
		v.fail("pass at %d s plans job %d at %d s, in the past", v.passT, e.Job, e.At)
	}
	if j := v.jobs[e.Job]; j == nil || e.Cores != j.cores || e.Until != e.At+j.walltime {
		v.fail("pass at %d s plans job %d with %d cores from %d s to %d s, not its submitted cores and walltime", v.passT, e.Job, e.Cores, e.At, e.Until)
	}
	p := vplan{node: e.Node, at: e.At, cores: e.Cores, until: e.Until}
	v.plans[e.Job] = p
	v.pass = append(v.pass, p)
}

// endPass checks that the plan after a pass — its reservations, those of
// earlier passes still pending, and the running jobs until their walltimes
// — fits every node's cores at every time.
func (v *validator) endPass() {
	v.inPass = false
	v.pass = v.pass[:0]
	if !v.h.Plans {
		return
	}
	type edge struct {
		t int64
		d int
	}
	byNode := map[int][]edge{}
	for id, p := range v.plans {
		if j := v.jobs[id]; j != nil && !j.started {
			byNode[p.node] = append(byNode[p.node], edge{p.at, p.cores}, edge{p.until, -p.cores})
		}
	}
	for _, j := range v.jobs {
		if j.started && !j.ended {
			if until := j.start + j.walltime; until > v.passT {
				byNode[j.node] = append(byNode[j.node], edge{v.passT, j.cores}, edge{until, -j.cores})
			}
		}
	}
	for k, es := range byNode {
		sort.Slice(es, func(a, b int) bool { return es[a].t < es[b].t || es[a].t == es[b].t && es[a].d < es[b].d })
		n := 0
		for _, x := range es {
			if n += x.d; n > v.C {
				v.fail("the pass at %d s reserves %d cores of node %d at %d s (it has %d): a reservation was not respected", v.passT, n, k, x.t, v.C)
				break
			}
		}
	}
}
