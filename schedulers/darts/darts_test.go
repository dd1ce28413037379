package darts

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// grid is the n×n 2D product by hand: data A_i = i, B_j = n+j; task
// T(i,j) = n*i+j reads (A_i, B_j), in row-major submission order.
func grid(n int, bytes int64) *workloads.Workload {
	w := &workloads.Workload{Name: fmt.Sprintf("grid%d", n)}
	for i := range 2 * n {
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: bytes})
	}
	for i := range n {
		for j := range n {
			w.Tasks = append(w.Tasks, workloads.Task{ID: len(w.Tasks), Kernel: "gemm", Flops: 1e11, Inputs: []int{i, n + j}})
			w.Coords.Add(int32(i), int32(j))
		}
	}
	return w
}

// fakeView is a hand-driven View for decision-level tests.
type fakeView struct {
	w       *workloads.Workload
	workers int
	present map[[2]int]bool
	buf     [][]int
	pipe    [][]int
	rng     *rand.Rand
}

func newFake(w *workloads.Workload, workers int, seed uint64) *fakeView {
	return &fakeView{w: w, workers: workers, present: map[[2]int]bool{},
		buf: make([][]int, workers), pipe: make([][]int, workers), rng: rand.New(rand.NewPCG(seed, 1))}
}

func (f *fakeView) Workload() *workloads.Workload    { return f.w }
func (f *fakeView) Platform() *hardware.Platform     { return nil }
func (f *fakeView) Workers() int                     { return f.workers }
func (f *fakeView) WorkerKind(int) string            { return hardware.GPU }
func (f *fakeView) WorkerNode(k int) int             { return k }
func (f *fakeView) Nodes() int                       { return f.workers + 1 }
func (f *fakeView) CurrentWorker() int               { return -1 }
func (f *fakeView) CanRun(int, int) bool             { return true }
func (f *fakeView) Now() float64                     { return 0 }
func (f *fakeView) Resident(k, d int) bool           { return f.present[[2]int{k, d}] }
func (f *fakeView) Present(k, d int) bool            { return f.present[[2]int{k, d}] }
func (f *fakeView) Buffer(k int) []int               { return f.buf[k] }
func (f *fakeView) Pipeline(k int) []int             { return f.pipe[k] }
func (f *fakeView) ComputeSeconds(int, int) float64  { return 1 }
func (f *fakeView) TransferSeconds(int, int) float64 { return 1 }
func (f *fakeView) Rand() *rand.Rand                 { return f.rng }
func (f *fakeView) Presence(k int) schedulers.Presence {
	on := make([]bool, len(f.w.Data)) // a snapshot: the tests set presence between calls
	for kd, p := range f.present {
		if kd[0] == k {
			on[kd[1]] = p
		}
	}
	return schedulers.NewPresence(on)
}
func (f *fakeView) Count(int)                   {}
func (f *fakeView) CountArray(int)              {}
func (f *fakeView) CountOps(schedulers.Op, int) {}
func (f *fakeView) TaskInputs(t int) []int32 {
	in := make([]int32, len(f.w.Tasks[t].Inputs))
	for k, d := range f.w.Tasks[t].Inputs {
		in[k] = int32(d)
	}
	return in
}
func (f *fakeView) setPresent(k int, ds ...int) *fakeView {
	for _, d := range ds {
		f.present[[2]int{k, d}] = true
	}
	return f
}

func start(t *testing.T, o Options, v schedulers.View) *DARTS {
	t.Helper()
	d := New(o)
	if err := d.Init(v); err != nil {
		t.Fatal(err)
	}
	for i := range v.Workload().Tasks {
		d.Push(i)
	}
	return d
}

func pullAll(d *DARTS, k int) []int {
	var out []int
	for {
		t, ok := d.Pull(k)
		if !ok {
			return out
		}
		out = append(out, t)
	}
}

// TestOneFromFreePresentData checks by hand the count of tasks one load
// from free through a data D when D is on the GPU (dynamic_data_aware.c
// dynamic_data_aware_scheduling_3D_matrix: data_not_available counts the
// inputs other than D not on the node, D's own state ignored). The GPU
// holds a = 0 and b = 1; T0 reads (a, b, c = 2), T1 reads (a, c, d = 3).
// T0 misses only c: it is free through c and one load from free through a
// and b. T1 misses c and d: one load from free through c and through d,
// two through a. So frees = (0, 0, 1, 0) and s1 = (1, 1, 1, 1); memsched
// before version 7 counted s1 = (0, 0, 1, 1).
func TestOneFromFreePresentData(t *testing.T) {
	w := &workloads.Workload{Name: "present"}
	for i := range 4 {
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: 1})
	}
	w.Tasks = []workloads.Task{
		{ID: 0, Kernel: "gemm", Flops: 1, Inputs: []int{0, 1, 2}},
		{ID: 1, Kernel: "gemm", Flops: 1, Inputs: []int{0, 2, 3}},
	}
	for _, three := range []bool{false, true} {
		d := start(t, Options{LUF: true, ThreeInputs: three, Order: "natural"}, newFake(w, 1, 1).setPresent(0, 0, 1))
		d.arrive()
		wk := &d.w[0]
		if got, want := wk.frees[:4], []int32{0, 0, 1, 0}; !slices.Equal(got, want) {
			t.Errorf("3inputs=%v: frees %v, want %v", three, got, want)
		}
		if got, want := wk.s1[:4], []int32{1, 1, 1, 1}; !slices.Equal(got, want) {
			t.Errorf("3inputs=%v: s1 %v, want %v", three, got, want)
		}
		// c frees T0 (and ranks first by one load from free among the
		// data freeing one task): T0, then T1 through its last missing d.
		if got := pullAll(d, 0); !slices.Equal(got, []int{0, 1}) {
			t.Errorf("3inputs=%v: order %v, want [0 1]", three, got)
		}
	}
}

// TestGrid3x3Decisions checks DARTS's first decisions on a 3×3 grid by hand
// (A_i = i, B_j = 3+j, T(i,j) = 3i+j), natural order (the list in the
// order the pushed tasks first read the data: A0 B0 B1 B2 A1 A2; the pool
// in submission order), ties to the first: nothing is on the GPU, so the
// fallback plans the pool's head T(0,0) and takes A0, B0 out of the list;
// then B1, B2, A1, A2 each free one task (task_left 3): B1 -> T(0,1); then
// A1 and A2 free two, A1 first -> T(1,1), T(1,0) (pushed last first); then
// B2 and A2 free two, B2 first -> T(1,2), T(0,2); then A2 -> T(2,2),
// T(2,1), T(2,0).
func TestGrid3x3Decisions(t *testing.T) {
	for _, free := range []bool{false, true} {
		d := start(t, Options{LUF: true, Order: "natural", FreeTasks: free}, newFake(grid(3, 1), 1, 1))
		got := pullAll(d, 0)
		if want := []int{0, 1, 4, 3, 5, 2, 8, 7, 6}; !slices.Equal(got, want) {
			t.Errorf("free_tasks=%v: order %v, want %v", free, got, want)
		}
	}
}

// A worker holding A0 and B0 can run T(0,0) with no load: free_tasks takes
// it first; without it, every data of the list frees one task (its own state
// is not looked at, as in the papers' code), so the first entry of the
// shuffled list decides among T(0,0) (A0 or B0), T(0,1), T(0,2), T(1,0) and
// T(2,0), and in natural order A0 gives T(0,0).
func TestResidentDataFreeTask(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		d := start(t, Options{LUF: true, FreeTasks: true}, newFake(grid(3, 1), 1, seed).setPresent(0, 0, 3))
		if got, _ := d.Pull(0); got != 0 {
			t.Errorf("seed %d: free_tasks first task %d, want T(0,0)=0", seed, got)
		}
		d = start(t, Options{LUF: true}, newFake(grid(3, 1), 1, seed).setPresent(0, 0, 3))
		if got, _ := d.Pull(0); !slices.Contains([]int{0, 1, 2, 3, 6}, got) {
			t.Errorf("seed %d: first task %d, want one freed by a single data", seed, got)
		}
	}
	d := start(t, Options{LUF: true, Order: "natural"}, newFake(grid(3, 1), 1, 1).setPresent(0, 0, 3))
	if got, _ := d.Pull(0); got != 0 {
		t.Errorf("A0, B0 present, natural order: first task %d, want T(0,0)", got)
	}
	// Only A0 present: loading B_j frees T(0,j); in natural order A0 comes
	// first but frees nothing (no B present), B0 is the first that frees.
	d = start(t, Options{LUF: true, Order: "natural"}, newFake(grid(3, 1), 1, 1).setPresent(0, 0))
	if got, _ := d.Pull(0); got != 0 {
		t.Errorf("A0 present: first task %d, want T(0,0)", got)
	}
}

// Two GPUs with nothing on them both fall back to the head of the shuffled
// pool: they rarely start on the same row or column; in natural order with
// the rank fallback GPU k starts at rank k*|pool|/K.
func TestTwoGPUsFirstChoices(t *testing.T) {
	share := 0
	for seed := uint64(1); seed <= 40; seed++ {
		d := start(t, Options{LUF: true}, newFake(grid(10, 1), 2, seed))
		a, _ := d.Pull(0)
		b, _ := d.Pull(1)
		if a/10 == b/10 || a%10 == b%10 {
			share++
		}
		d2 := start(t, Options{LUF: true}, newFake(grid(10, 1), 2, seed))
		a2, _ := d2.Pull(0)
		b2, _ := d2.Pull(1)
		if a != a2 || b != b2 {
			t.Fatalf("seed %d: not deterministic: (%d,%d) then (%d,%d)", seed, a, b, a2, b2)
		}
	}
	// Sharing a row or column by chance has probability 18/99.
	if share > 16 {
		t.Errorf("first tasks of the two GPUs share data in %d/40 seeds", share)
	}
	d := start(t, Options{LUF: true, Order: "natural", Fallback: "rank"}, newFake(grid(10, 1), 2, 1))
	a, _ := d.Pull(0)
	b, _ := d.Pull(1)
	if a != 0 || b != 50 {
		t.Errorf("natural order, rank fallback: first tasks (%d,%d), want (0,50)", a, b)
	}
}

// TestLUFRules walks Alg. 10 on the 3×3 grid (natural order) after the
// pulls 0, 1, 4 (plan left: T(1,0) reading A1,B0; list B2, A2).
func TestLUFRules(t *testing.T) {
	v := newFake(grid(3, 1), 1, 1)
	d := start(t, Options{LUF: true, Order: "natural", Reinsert: "place"}, v)
	for _, want := range []int{0, 1, 4} {
		if got, _ := d.Pull(0); got != want {
			t.Fatalf("pull %d, want %d", got, want)
		}
	}
	const a0, a1, a2, b0, b1, b2 = 0, 1, 2, 3, 4, 5
	v.buf[0] = []int{0, 1, 4} // reads A0,B0 | A0,B1 | A1,B1
	if got := d.Victim(0, []int{a1, a2, b0}, true); got != a2 {
		t.Errorf("unused by buffer and plan: got %d, want A2", got)
	}
	if got := d.Victim(0, []int{b1, a0, a1}, true); got != -1 {
		t.Errorf("prefetch, all buffered: got %d, want -1", got)
	}
	// Belady in input slots: A0@1 B0@2 B1@4 A1@5.
	if got := d.Victim(0, []int{b1, a0, a1}, false); got != a1 {
		t.Errorf("fetch, all buffered: got %d, want A1 (furthest)", got)
	}
	v.buf[0] = []int{0} // A0,B0; plan T(1,0) reads A1,B0
	if got := d.Victim(0, []int{a1, b2}, false); got != b2 {
		t.Errorf("got %d, want B2 (n_b = n_p = 0)", got)
	}
	if got := d.Victim(0, []int{a0, a1}, false); got != a1 {
		t.Errorf("got %d, want A1 (the only one not buffered)", got)
	}
	// Evicting A1 withdraws T(1,0) to the pool's tail and puts A1, which
	// pool tasks read, back in the list at its place (B2, A1, A2). On the
	// GPU: A0, B0, B1. A2 frees T(2,0), T(2,1) -> T(2,1), T(2,0); then B2
	// frees T(0,2), T(2,2) -> T(2,2), T(0,2); then A1 frees the withdrawn
	// T(1,0), back in the pool last, and T(1,2).
	d.Observe(schedulers.Evicted, 0, a1)
	if got, want := pullAll(d, 0), []int{7, 6, 8, 2, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("after evicting A1: %v, want %v", got, want)
	}

	// Plain DARTS: LRU order, the plan is kept.
	d = start(t, Options{}, newFake(grid(3, 1), 1, 1))
	d.Pull(0)
	if got := d.Victim(0, []int{b1, a0}, true); got != b1 {
		t.Errorf("lru: got %d, want the first candidate", got)
	}
}

// The window of the threshold counts every list entry, data whose tasks
// are all gone included, and applies only above threshold_min_tasks; under
// LRU an evicted data never returns to the list, so once the list is
// exhausted every decision is the pool's head.
func TestThresholdAndExhaustedList(t *testing.T) {
	// 1 GPU, natural order: list A0 B0 B1 B2 A1 A2, A2 on the GPU. A0
	// frees nothing (no B present); B0 frees T(2,0). A window of 1 sees
	// only A0: the fallback plans the pool's head T(0,0); a window of 2
	// reaches B0. The window applies only above threshold_min_tasks.
	v := newFake(grid(3, 1), 1, 1).setPresent(0, 2)
	for _, c := range []struct{ window, min, want int }{{1, 0, 0}, {2, 0, 6}, {1, 8, 0}, {1, 9, 6}, {0, 0, 6}} {
		if got, _ := start(t, Options{LUF: true, Order: "natural", Threshold: c.window, ThresholdMinTasks: c.min}, v).Pull(0); got != c.want {
			t.Errorf("window %d above %d tasks: first task %d, want %d", c.window, c.min, got, c.want)
		}
	}

	// LRU: after the first decisions, evict B1: it does not return: the
	// list holds B2 and A2, and once they are taken the rest is fallbacks.
	d := start(t, Options{Order: "natural"}, newFake(grid(3, 1), 1, 1))
	for _, want := range []int{0, 1, 4, 3} {
		if got, _ := d.Pull(0); got != want {
			t.Fatalf("pull %d, want %d", got, want)
		}
	}
	d.Observe(schedulers.Evicted, 0, 4)
	if got := d.w[0].list.entries(nil); !slices.Equal(got, []int32{5, 2}) {
		t.Errorf("lru list after evicting B1: %v, want [B2 A2]", got)
	}
	d = start(t, Options{Order: "natural", LRUReturns: true, Reinsert: "place"}, newFake(grid(3, 1), 1, 1))
	for range 4 {
		d.Pull(0)
	}
	d.Observe(schedulers.Evicted, 0, 4)
	if got := d.w[0].list.entries(nil); !slices.Equal(got, []int32{4, 5, 2}) {
		t.Errorf("lru_returns list after evicting B1: %v, want [B1 B2 A2]", got)
	}
}

func TestRegistration(t *testing.T) {
	_, spec, p, err := schedulers.Build("darts", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "3inputs=false,app_draws=1,buffer=0,eviction=luf,fallback=head,free_tasks=false,lru_returns=false,opti=false,order=shuffled,phases=round,plan_order=push,planned_present=false,refused=true,reinsert=random,relist=read,rng=run,srandom=0,threshold=0,threshold_min_tasks=14400,tiebreak=one_from_free,ties=first,withdraw=first,withdraw_count=keep"; p.Canonical() != want {
		t.Errorf("defaults %s, want %s", p.Canonical(), want)
	}
	if spec.BufferDepth(p, 10) != 10 {
		t.Errorf("buffer default %d, want the platform's 10", spec.BufferDepth(p, 10))
	}
	if _, _, _, err := schedulers.Build("darts", map[string]string{"threshold": "-1"}); err == nil {
		t.Error("threshold=-1 accepted")
	}
	if _, _, _, err := schedulers.Build("darts", map[string]string{"eviction": "belady"}); err == nil {
		t.Error("eviction=belady accepted")
	}
}

// randomInstance draws a small task set (1 to 3 inputs per task, unequal
// sizes, sometimes dependencies) and a platform whose memory barely holds
// the largest task.
func randomInstance(r *rand.Rand) (*workloads.Workload, *hardware.Platform) {
	const unit = 1 << 20
	nd, nt := 2+r.IntN(12), 1+r.IntN(40)
	w := &workloads.Workload{Name: "random"}
	var total int64
	for i := range nd {
		b := int64(1+r.IntN(4)) * unit
		total += b
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: b})
	}
	deps := r.IntN(3) == 0
	for i := range nt {
		var in []int
		for range 1 + r.IntN(min(3, nd)) {
			if x := r.IntN(nd); !slices.Contains(in, x) {
				in = append(in, x)
			}
		}
		var dp []int
		if deps && i > 0 {
			for range r.IntN(3) {
				if p := r.IntN(i); !slices.Contains(dp, p) {
					dp = append(dp, p)
				}
			}
		}
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "gemm", Flops: float64(1+r.IntN(5)) * 1e9, Inputs: in})
		w.Deps = append(w.Deps, dp)
	}
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		panic(err)
	}
	p.GPUs = 1 + r.IntN(3)
	p.SetMemoryBytes(min(total, w.MaxInputBytes()+int64(r.IntN(3))*unit))
	return w, p
}

func randomOptions(r *rand.Rand) Options {
	return Options{LUF: r.IntN(4) != 0, ThreeInputs: r.IntN(2) == 0, Opti: r.IntN(3) == 0,
		Threshold: []int{0, 0, 1, 2, 3}[r.IntN(5)], ThresholdMinTasks: []int{0, 10, 14400}[r.IntN(3)],
		Order: []string{"shuffled", "natural"}[r.IntN(2)], Ties: []string{"first", "random"}[r.IntN(2)],
		Fallback: []string{"head", "random", "rank"}[r.IntN(3)], Reinsert: []string{"random", "place"}[r.IntN(2)],
		LRUReturns: r.IntN(2) == 0, PlannedPresent: r.IntN(2) == 0, FreeTasks: r.IntN(3) == 0,
		TieBreak: []string{"one_from_free", "task_left"}[r.IntN(2)], Withdraw: []string{"first", "all"}[r.IntN(2)],
		Relist: []string{"read", "always"}[r.IntN(2)], PlanOrder: []string{"push", "pool"}[r.IntN(2)],
		Refused: r.IntN(2) == 0, RNG: []string{"run", "glibc"}[r.IntN(2)], Srandom: r.IntN(3), AppDraws: r.IntN(3),
		WithdrawDrop: r.IntN(2) == 0}
}

// randView gives one implementation its own random stream, and adds the
// operations it counts to ops when not nil.
type randView struct {
	schedulers.View
	r   *rand.Rand
	ops *int
}

func (v randView) Rand() *rand.Rand { return v.r }

func (v randView) Count(n int) {
	if v.ops != nil {
		*v.ops += n
	}
	v.View.Count(n)
}

func (v randView) CountArray(n int) {
	if v.ops != nil {
		*v.ops += n
	}
	v.View.CountArray(n)
}

func (v randView) CountOps(k schedulers.Op, n int) {
	if v.ops != nil {
		*v.ops += n
	}
	v.View.CountOps(k, n)
}

// lockstep drives the fast DARTS and the reference on the same events and
// records the first call where they disagree, in their choices or in the
// operations counted so far.
type lockstep struct {
	fast    *DARTS
	ref     *ref
	seed    uint64
	diff    string
	fastOps int
}

func (l *lockstep) Init(v schedulers.View) error {
	if err := l.fast.Init(randView{v, rand.New(rand.NewPCG(l.seed, 7)), &l.fastOps}); err != nil {
		return err
	}
	return l.ref.Init(randView{v, rand.New(rand.NewPCG(l.seed, 7)), nil})
}

func (l *lockstep) Push(t int) { l.fast.Push(t); l.ref.Push(t) }

func (l *lockstep) Pull(k int) (int, bool) {
	a, aok := l.fast.Pull(k)
	b, bok := l.ref.Pull(k)
	if (a != b || aok != bok) && l.diff == "" {
		l.diff = fmt.Sprintf("Pull(%d): fast (%d,%v), reference (%d,%v)", k, a, aok, b, bok)
	}
	l.checkOps(fmt.Sprintf("Pull(%d)", k))
	return a, aok
}

func (l *lockstep) Victim(k int, cands []int, prefetch bool) int {
	a, b := l.fast.Victim(k, cands, prefetch), l.ref.Victim(k, cands, prefetch)
	if a != b && l.diff == "" {
		l.diff = fmt.Sprintf("Victim(%d, %v, %v): fast %d, reference %d", k, cands, prefetch, a, b)
	}
	l.checkOps(fmt.Sprintf("Victim(%d)", k))
	return a
}

func (l *lockstep) Observe(kind schedulers.EventKind, k, id int) {
	l.fast.Observe(kind, k, id)
	l.ref.Observe(kind, k, id)
	l.checkOps(fmt.Sprintf("Observe(%v, %d, %d)", kind, k, id))
}

func (l *lockstep) checkOps(after string) {
	if l.fastOps != l.ref.ops && l.diff == "" {
		l.diff = fmt.Sprintf("after %s: %d operations counted, reference %d", after, l.fastOps, l.ref.ops)
	}
}

// simulate runs a scheduler on the simulator and checks that every task ran
// exactly once.
func simulate(t *testing.T, w *workloads.Workload, p *hardware.Platform, s schedulers.Scheduler, buffer int, seed uint64) (*sim.Stats, uint64) {
	t.Helper()
	ran := make([]int, len(w.Tasks))
	h := fnv.New64a()
	st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buffer, Pipeline: p.Runtime.Pipeline, Seed: seed,
		Trace: func(e event.Event) {
			if e.Ev == "task_end" {
				ran[e.Task]++
			}
			fmt.Fprintf(h, "%g %s %d %d %d|", e.T, e.Ev, e.Worker, e.Task, e.Data)
		}})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range ran {
		if n != 1 {
			t.Fatalf("task %d ran %d times", i, n)
		}
	}
	return st, h.Sum64()
}

// TestMatchesReference: on random small instances with tight memory, the
// incremental DARTS takes exactly the reference's decisions, for every
// combination of options, and every task runs once.
func TestMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(2022, 5))
	for i := range 400 {
		w, p := randomInstance(r)
		o := randomOptions(r)
		buffer := 1 + r.IntN(5)
		p.Runtime.Pipeline = 1 + r.IntN(3)
		seed := r.Uint64()
		l := &lockstep{fast: New(o), ref: &ref{opt: o}, seed: seed}
		// The lists' trees decide, with a leaf per slot or per block (else
		// mostly scans: the lists are short).
		l.fast.exact, l.fast.slotLeaves = i%3 != 2, i%3 == 0
		simulate(t, w, p, l, buffer, seed)
		if l.diff != "" {
			t.Fatalf("instance %d (%d tasks, %d data, %d GPUs, memory %d, options %+v, buffer %d): %s",
				i, len(w.Tasks), len(w.Data), p.GPUs, p.MemoryBytes, o, buffer, l.diff)
		}
	}
}

// lufCheck flags a LUF victim read by a buffered or popped task while some
// other candidate is not.
type lufCheck struct {
	*DARTS
	v   schedulers.View
	bad string
}

func (c *lufCheck) Init(v schedulers.View) error { c.v = v; return c.DARTS.Init(v) }

func (c *lufCheck) Victim(k int, cands []int, prefetch bool) int {
	got := c.DARTS.Victim(k, cands, prefetch)
	needed := map[int]bool{}
	for _, ts := range [][]int{c.v.Buffer(k), c.v.Pipeline(k)} {
		for _, task := range ts {
			for _, x := range c.v.Workload().Tasks[task].Inputs {
				needed[x] = true
			}
		}
	}
	if got >= 0 && needed[got] && c.bad == "" {
		for _, x := range cands {
			if !needed[x] {
				c.bad = fmt.Sprintf("evicted %d needed by the buffer of gpu%d while %d was not (candidates %v)", got, k, x, cands)
			}
		}
	}
	return got
}

func TestLUFSparesBufferedData(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for i := range 300 {
		w, p := randomInstance(r)
		o := randomOptions(r)
		o.LUF = true
		c := &lufCheck{DARTS: New(o)}
		simulate(t, w, p, c, 1+r.IntN(6), r.Uint64())
		if c.bad != "" {
			t.Fatalf("instance %d: %s", i, c.bad)
		}
	}
}

func TestDeterministic(t *testing.T) {
	w := grid(12, 14<<20)
	p, _ := hardware.Load("v100-gemini")
	p.GPUs = 3
	p.SetMemoryMiB(100)
	for _, o := range []Options{{LUF: true}, {ThreeInputs: true, Opti: true, Ties: "random", PlannedPresent: true}} {
		st1, h1 := simulate(t, w, p, New(o), 10, 42)
		st2, h2 := simulate(t, w, p, New(o), 10, 42)
		if h1 != h2 || st1.Makespan != st2.Makespan || st1.Loads != st2.Loads {
			t.Errorf("%+v: two runs with seed 42 differ", o)
		}
		_, h3 := simulate(t, w, p, New(o), 10, 43)
		if h3 == h1 {
			t.Errorf("%+v: seeds 42 and 43 gave the same trace", o)
		}
	}
}

// TestRunGenerated goes through run.Run on generated workloads when the
// generators exist: the 2D product and the Cholesky task set, with and
// without dependencies.
func TestRunGenerated(t *testing.T) {
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	p.GPUs = 2
	p.SetMemoryMiB(250)
	for _, spec := range []workloads.Spec{
		{Kind: "matmul2d", N: 20},
		{Kind: "cholesky", N: 8},
		{Kind: "cholesky", N: 8, Deps: true},
		{Kind: "matmul3d", N: 4},
	} {
		w, err := workloads.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, params := range []map[string]string{nil, {"eviction": "lru"}, {"3inputs": "true", "opti": "true"}, {"threshold": "5", "threshold_min_tasks": "0", "order": "natural"}} {
			rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "darts", Params: params, Seed: 1})
			if err != nil {
				t.Fatalf("%s %v: %v", w.Name, params, err)
			}
			if rec.Tasks != len(w.Tasks) {
				t.Errorf("%s %v: %d of %d tasks", w.Name, params, rec.Tasks, len(w.Tasks))
			}
		}
	}
}

// recount wraps DARTS and, after every call, recomputes its incremental
// counters from scratch (the pool, each worker's has, the plans) and
// records the first call after which they differ. A worker's frees and s1
// are compared on the data of its list, the only ones a decision reads; its
// list's entries, the pool tasks reading them and their buffer checks on
// the whole list. A dormant worker must have no pool task reading its list.
type recount struct {
	*DARTS
	bad string
}

func (c *recount) Push(t int) { c.DARTS.Push(t); c.check("Push") }

func (c *recount) Pull(k int) (int, bool) {
	t, ok := c.DARTS.Pull(k)
	c.check(fmt.Sprintf("Pull(%d)", k))
	return t, ok
}

func (c *recount) Victim(k int, cands []int, prefetch bool) int {
	v := c.DARTS.Victim(k, cands, prefetch)
	c.check(fmt.Sprintf("Victim(%d)", k))
	return v
}

func (c *recount) Observe(kind schedulers.EventKind, k, id int) {
	c.DARTS.Observe(kind, k, id)
	c.check(fmt.Sprintf("Observe(%v, %d, %d)", kind, k, id))
}

func (c *recount) check(after string) {
	if c.bad != "" {
		return
	}
	d := c.DARTS
	nd := len(d.readers)
	taskLeft, opsLeft := make([]int32, nd+1), make([]int32, nd+1) // the last, the lists' holes
	pool := 0
	for t := range d.tasks {
		in := d.inputs(int32(t))
		if d.tasks[t].state != stPool {
			continue
		}
		pool++
		for _, x := range in {
			taskLeft[x]++
			opsLeft[x] += int32(len(in))
		}
	}
	fail := func(format string, a ...any) {
		if c.bad == "" {
			c.bad = "after " + after + ": " + fmt.Sprintf(format, a...)
		}
	}
	if pool != d.poolN {
		fail("pool %d, counted %d", pool, d.poolN)
	}
	if err := d.checkReaders(); err != "" {
		fail("%s", err)
	}
	if !slices.Equal(taskLeft, d.taskLeft) || !slices.Equal(opsLeft, d.opsLeft) {
		fail("task_left %v / ops %v, counted %v / %v", taskLeft, opsLeft, d.taskLeft, d.opsLeft)
	}
	for k := range d.w {
		w := &d.w[k]
		s0, s1, f0, planCnt := make([]int32, nd), make([]int32, nd), make([]int32, nd), make([]int32, nd)
		var free []int32
		for t := range d.tasks {
			in := d.inputs(int32(t))
			switch d.tasks[t].state {
			case stPlan:
				if int(d.tasks[t].planOf) == k {
					for _, x := range in {
						planCnt[x]++
					}
				}
				continue
			case stPool:
			default:
				continue
			}
			var missing []int32
			for _, x := range in {
				if !w.has[x] {
					missing = append(missing, x)
				}
			}
			switch len(missing) {
			case 0:
				free = append(free, int32(t))
				for _, x := range in {
					f0[x]++
				}
			case 1: // one load from free through each input on the worker
				s0[missing[0]]++
				for _, x := range in {
					if w.has[x] {
						s1[x]++
					}
				}
			case 2:
				s1[missing[0]]++
				s1[missing[1]]++
			}
		}
		if !slices.Equal(planCnt, w.planCnt) {
			fail("worker %d: n_p %v, counted %v", k, planCnt, w.planCnt)
		}
		list := w.list.entries(nil)
		if err := w.list.check(); err != "" {
			fail("worker %d: list %v: %s", k, list, err)
		}
		for _, x := range list { // the counters read: those of the data in the list
			if s0[x]+f0[x] != w.frees[x] || (w.s1 != nil && s1[x] != w.s1[x]) {
				fail("worker %d data %d: s0 %d f0 %d s1 %d, counted %d %v", k, x, s0[x], f0[x], s1[x], w.frees[x], w.s1)
			}
		}
		inList, listed, listOps := make([]int32, nd), 0, 0
		for _, x := range list {
			if inList[x] == 0 {
				listed += int(taskLeft[x])
			}
			inList[x]++
			listOps += int(opsLeft[x])
		}
		if !slices.Equal(inList, w.inList) || listed != w.listed || listOps != w.listOps {
			fail("worker %d: entries %v, pool tasks reading them %d, checks %d; counted %v %d %d",
				k, inList, listed, listOps, w.inList, w.listed, w.listOps)
		}
		if w.dormant && listed > 0 {
			fail("worker %d dormant, %d pool tasks read its list", k, listed)
		}
		if w.freeIdx != nil {
			got := slices.Sorted(slices.Values(w.free))
			if !slices.Equal(free, got) {
				fail("worker %d: free %v, counted %v", k, free, got)
			}
			for i, t := range w.free {
				if int(w.freeIdx[t]) != i {
					fail("worker %d: free task %d at %d, indexed %d", k, t, i, w.freeIdx[t])
				}
			}
		}
	}
}

// checkReaders compares the reader sets with the pool: each data's set
// holds its pool readers, with their other input, once each, and some
// tasks out of the pool; an entry is seated exactly when it is in its set.
func (d *DARTS) checkReaders() string {
	seated := 0
	for x, rs := range d.readers {
		var got, want []int32
		for _, r := range rs {
			in := d.inputs(r.t)
			if r != entryOf(r.t, int32(x), in) || !slices.Contains(in, int32(x)) || !d.seated.Has(d.seat(r, int32(x))) {
				return fmt.Sprintf("data %d: entry %+v, task inputs %v, seated %v", x, r, in, d.seated.Has(d.seat(r, int32(x))))
			}
			if d.tasks[r.t].state == stPool {
				got = append(got, r.t)
			}
		}
		seated += len(rs)
		for _, r := range rs {
			if d.inPool.Has(int(r.t)) != (d.tasks[r.t].state == stPool) {
				return fmt.Sprintf("task %d: state %d, in pool %v", r.t, d.tasks[r.t].state, d.inPool.Has(int(r.t)))
			}
		}
		for t := range d.tasks {
			if d.tasks[t].state == stPool && slices.Contains(d.inputs(int32(t)), int32(x)) {
				want = append(want, int32(t))
			}
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			return fmt.Sprintf("data %d: pool readers in its set %v, want each once: %v", x, got, want)
		}
	}
	if n := d.inPool.Count(); n != d.poolN {
		return fmt.Sprintf("%d tasks marked in the pool, %d there", n, d.poolN)
	}
	if n := d.seated.Count(); n != seated {
		return fmt.Sprintf("%d entries seated, %d in the sets", n, seated)
	}
	return ""
}

// TestCountersMatchRecount: on random small instances, for every
// combination of options, the counters DARTS moves on each event (pool
// entries and exits, loads, evictions, plans and withdrawals) equal a
// recomputation from scratch after every call, and so do the keys of the
// lists' trees (kept exact, so that every key is checked).
func TestCountersMatchRecount(t *testing.T) {
	r := rand.New(rand.NewPCG(2021, 10))
	for i := range 1000 {
		w, p := randomInstance(r)
		o := randomOptions(r)
		buffer := 1 + r.IntN(5)
		p.Runtime.Pipeline = 1 + r.IntN(3)
		c := &recount{DARTS: New(o)}
		// The lists' trees follow every change with a leaf per slot: check
		// verifies every key. One instance in three lets the lists go
		// stale, where walks take walkPairs.
		c.exact, c.slotLeaves = i%3 != 2, i%3 != 2
		simulate(t, w, p, c, buffer, r.Uint64())
		if c.bad != "" {
			t.Fatalf("instance %d (%d tasks, %d data, %d GPUs, options %+v, buffer %d): %s",
				i, len(w.Tasks), len(w.Data), p.GPUs, o, buffer, c.bad)
		}
	}
}

// stagedInstance draws tasks in stages, each reading its own data and
// depending on a task of the previous stage, so that data no task read before
// arrive after the workers' lists ran dry.
func stagedInstance(r *rand.Rand) (*workloads.Workload, *hardware.Platform) {
	const unit = 1 << 20
	w := &workloads.Workload{Name: "staged"}
	var prev, cur []int
	for s := range 2 + r.IntN(3) {
		m := 2 + r.IntN(4)
		base := len(w.Data)
		for i := range m {
			w.Data = append(w.Data, workloads.Data{ID: base + i, Bytes: int64(1+r.IntN(3)) * unit})
		}
		prev, cur = cur, nil
		for range 2 + r.IntN(8) {
			in := []int{base + r.IntN(m)}
			if x := base + r.IntN(m); x != in[0] {
				in = append(in, x)
			}
			if s > 0 && r.IntN(3) == 0 {
				in = append(in, r.IntN(base)) // an older data too
			}
			var dp []int
			if len(prev) > 0 { // one task of the previous stage: stages overlap
				dp = []int{prev[r.IntN(len(prev))]}
			}
			id := len(w.Tasks)
			w.Tasks = append(w.Tasks, workloads.Task{ID: id, Kernel: "gemm", Flops: float64(1+r.IntN(5)) * 1e9, Inputs: in})
			w.Deps = append(w.Deps, dp)
			cur = append(cur, id)
		}
	}
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		panic(err)
	}
	p.GPUs = 1 + r.IntN(3)
	p.SetMemoryBytes(w.MaxInputBytes() + int64(r.IntN(3))*unit)
	return w, p
}

// TestDormantWorkers: under plain LRU a worker whose list ran dry stops
// moving its counters; when new data arrive, its decisions and counters
// still match the reference and a recount.
func TestDormantWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(2021, 11))
	for i := range 300 {
		w, p := stagedInstance(r)
		o := randomOptions(r)
		o.LUF, o.LRUReturns, o.FreeTasks = false, false, false
		buffer := 1 + r.IntN(3)
		seed := r.Uint64()
		l := &lockstep{fast: New(o), ref: &ref{opt: o}, seed: seed}
		l.fast.exact, l.fast.slotLeaves = i%3 != 2, i%3 == 0
		simulate(t, w, p, l, buffer, seed)
		c := &recount{DARTS: New(o)}
		c.exact, c.slotLeaves = true, true
		simulate(t, w, p, c, buffer, seed)
		if l.diff != "" || c.bad != "" {
			t.Fatalf("instance %d (%d tasks, %d data, %d GPUs, options %+v, buffer %d): %s%s",
				i, len(w.Tasks), len(w.Data), p.GPUs, o, buffer, l.diff, c.bad)
		}
	}
}

// TestRefusesSharedNode: DARTS names a worker's state by its memory node,
// so CPU cores sharing main memory are refused with an error that names
// darts-dag, while one core on its own node runs.
func TestRefusesSharedNode(t *testing.T) {
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindMatmul2D, N: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, cpus := range []int{1, 3} {
		p, err := hardware.Load("epyc7642-ooc")
		if err != nil {
			t.Fatal(err)
		}
		p.CPUs = cpus
		_, err = sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: New(Options{})})
		switch {
		case cpus == 1 && err != nil:
			t.Fatalf("one core: %v", err)
		case cpus > 1 && (err == nil || !strings.Contains(err.Error(), "darts-dag")):
			t.Fatalf("%d cores sharing a node: err = %v, want a refusal naming darts-dag", cpus, err)
		}
	}
}

// turnView is a fakeView whose pulls are in turn (schedulers.RoundView).
type turnView struct {
	*fakeView
	inTurn bool
}

func (v *turnView) InTurn() bool { return v.inTurn }

// TestRoundScansBeforePlans checks phases=round: in a round of in-turn
// pulls, worker 1's scan sees the pool as it was before worker 0 planned
// (dynamic_data_aware_scheduling_3D_matrix scans before it takes
// refined_mutex), so it chooses what it would choose deciding first; the
// counters are as they were after the scan; and after EndRound, or with
// phases=serial, it sees worker 0's plan.
func TestRoundScansBeforePlans(t *testing.T) {
	differ := 0
	for seed := uint64(1); seed <= 40; seed++ {
		mk := func(inTurn, serial bool) *DARTS {
			v := &turnView{newFake(grid(6, 1), 2, seed).setPresent(0, 0, 6).setPresent(1, 0, 1), inTurn}
			return start(t, Options{LUF: true, Serial: serial}, v)
		}
		first := mk(true, false)
		first.arrive() // the pushed tasks join the pool at the first pull
		want := first.choose(1, true)

		d := mk(true, false)
		d.Pull(0)
		frees := slices.Clone(d.w[1].frees)
		left := slices.Clone(d.taskLeft)
		got := d.choose(1, true)
		if got.kind != want.kind || got.data != want.data {
			t.Errorf("seed %d: in turn, worker 1 chose (%d, %d), deciding first (%d, %d)", seed, got.kind, got.data, want.kind, want.data)
		}
		if !slices.Equal(frees, d.w[1].frees) || !slices.Equal(left, d.taskLeft) {
			t.Errorf("seed %d: the scan left the counters changed", seed)
		}
		if got.data == d.dopt[0] && got.data >= 0 && !got.conflict {
			t.Errorf("seed %d: worker 0 chose %d too, no conflict seen", seed, got.data)
		}
		d.EndRound()
		after := d.choose(1, true)

		s := mk(false, true)
		s.Pull(0)
		serial := s.choose(1, true)
		if after.kind != serial.kind || after.data != serial.data {
			t.Errorf("seed %d: after EndRound worker 1 chose (%d, %d), serially (%d, %d)", seed, after.kind, after.data, serial.kind, serial.data)
		}
		if serial.data != want.data {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("worker 0's plan never changed worker 1's choice: the test checks nothing")
	}
}
