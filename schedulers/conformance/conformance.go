// Package conformance checks that a scheduler keeps the contract every
// memsched scheduler keeps, on small instances of the papers' workloads:
//
//   - every task runs exactly once, with its inputs resident, after its
//     dependencies, within the memory cap (the trace validator replays the
//     run);
//   - the same seed gives the same schedule, event for event;
//   - it runs independent task sets on one GPU; it may refuse other
//     instances it does not support (an ordering for one GPU, a static
//     planner given a task graph), with an error before anything runs,
//     never a panic;
//   - so is every value of its choice and bool parameters, and unbounded
//     and single-task buffers;
//   - its shortcuts change nothing: run without them (Idler,
//     SelectiveObserver, SelectiveEvictor, TaskPopper hidden, so the engine
//     makes every call the contract defines), the schedule and the counted
//     operations are the same.
//
// It runs the scheduler's Spec directly, registered or not, so an author
// checks a scheduler of their own, in Go or behind exec:PATH:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, schedulers.Spec{Name: "mine", New: newMine})
//	}
//
//	spec, err := schedulers.Lookup("exec:./my-scheduler.py") // with schedulers/external linked in
package conformance

import (
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// Instance is one workload on one platform size.
type Instance struct {
	Name   string
	Spec   workloads.Spec
	GPUs   int
	MemMiB float64 // per GPU; 2D block-rows are 14.06 MiB, 3D and Cholesky tiles 3.5 MiB
}

// Required says whether every scheduler must run the instance: an
// independent task set on one GPU. A scheduler may refuse the others (an
// ordering for one GPU, a static planner given a task graph), with an
// error before anything runs.
func (in Instance) Required() bool { return in.GPUs == 1 && !in.Spec.Deps }

// Instances are the workloads every scheduler meets: small, with memory
// tight enough to evict, on one and several GPUs.
var Instances = []Instance{
	{Name: "2d-1gpu", Spec: workloads.Spec{Kind: workloads.KindMatmul2D, N: 6}, GPUs: 1, MemMiB: 60},
	{Name: "sparse-1gpu", Spec: workloads.Spec{Kind: workloads.KindSparse2D, N: 12, Keep: 0.3}, GPUs: 1, MemMiB: 50},
	{Name: "randompairs-1gpu", Spec: workloads.Spec{Kind: workloads.KindRandomPairs, N: 5}, GPUs: 1, MemMiB: 50},
	{Name: "2d-2gpu", Spec: workloads.Spec{Kind: workloads.KindMatmul2D, N: 8}, GPUs: 2, MemMiB: 50},
	{Name: "2d-random-order-4gpu", Spec: workloads.Spec{Kind: workloads.KindMatmul2D, N: 8, Order: workloads.OrderRandom}, GPUs: 4, MemMiB: 45},
	{Name: "3d-2gpu", Spec: workloads.Spec{Kind: workloads.KindMatmul3D, N: 3}, GPUs: 2, MemMiB: 15},
	{Name: "sparse-2gpu", Spec: workloads.Spec{Kind: workloads.KindSparse2D, N: 12, Keep: 0.3}, GPUs: 2, MemMiB: 50},
	{Name: "randompairs-2gpu", Spec: workloads.Spec{Kind: workloads.KindRandomPairs, N: 5}, GPUs: 2, MemMiB: 50},
	{Name: "cholesky-set-2gpu", Spec: workloads.Spec{Kind: workloads.KindCholesky, N: 5}, GPUs: 2, MemMiB: 15},
	{Name: "cholesky-dag-1gpu", Spec: workloads.Spec{Kind: workloads.KindCholesky, N: 5, Deps: true}, GPUs: 1, MemMiB: 15},
	{Name: "cholesky-dag-2gpu", Spec: workloads.Spec{Kind: workloads.KindCholesky, N: 5, Deps: true}, GPUs: 2, MemMiB: 15},
	{Name: "3d-dag-2gpu", Spec: workloads.Spec{Kind: workloads.KindMatmul3D, N: 3, Deps: true}, GPUs: 2, MemMiB: 15},
}

// Run checks spec on every instance with its default parameters, then with
// each variant of its parameters on the 2D product on two GPUs (on one
// when it refuses two).
func Run(t *testing.T, spec schedulers.Spec) {
	t.Helper()
	if spec.New == nil {
		t.Fatalf("scheduler %q has no constructor (Spec.New)", spec.Name)
	}
	refused := map[string]bool{}
	for _, in := range Instances {
		t.Run(in.Name, func(t *testing.T) { refused[in.Name] = Check(t, spec, in, nil) })
	}
	in := Instances[3]
	if refused[in.Name] {
		in = Instances[0]
	}
	for _, p := range Variants(spec) {
		t.Run(in.Name+"/"+p.Canonical(), func(t *testing.T) { Check(t, spec, in, p) })
	}
}

// Variants lists parameter settings beyond the defaults: each other value
// of a bool or choice parameter, and unbounded and single-task buffers.
func Variants(spec schedulers.Spec) []schedulers.Params {
	out := []schedulers.Params{{"buffer": "1"}, {"buffer": "-1"}}
	for _, p := range spec.Params {
		var values []string
		switch {
		case p.Kind == "bool":
			values = []string{"true", "false"}
		case len(p.Choices) > 0:
			values = p.Choices
		}
		for _, v := range values {
			if v != p.Default {
				out = append(out, schedulers.Params{p.Name: v})
			}
		}
	}
	return out
}

// Check runs one instance twice with the same seed and reports its
// problems as test errors; it returns whether the scheduler refused the
// instance (as it may an optional one).
func Check(t *testing.T, spec schedulers.Spec, in Instance, params schedulers.Params) bool {
	t.Helper()
	problems, refused := Problems(spec, in, params)
	if refused != nil {
		t.Logf("refused: %v", refused)
	}
	for _, p := range problems {
		t.Error(p)
	}
	return refused != nil
}

// Problems runs one instance twice with the same seed and says what is
// wrong (nil when the scheduler conforms); refused is the error of an
// allowed refusal.
func Problems(spec schedulers.Spec, in Instance, params schedulers.Params) (problems []string, refused error) {
	first, err := execute(spec, in, params)
	if err != nil {
		if !in.Required() && !run.IsPanic(err) && len(first.events) == 0 {
			return nil, err
		}
		return []string{err.Error()}, nil
	}
	if first.rec.Tasks != len(first.w.Tasks) {
		problems = append(problems, fmt.Sprintf("ran %d tasks of %d", first.rec.Tasks, len(first.w.Tasks)))
	}
	tr := &trace.Trace{Header: trace.Header{Platform: first.platform}, Events: first.events, Result: &first.rec}
	if bad := trace.Validate(tr, first.w); len(bad) > 0 {
		problems = append(problems, fmt.Sprintf("invalid schedule (%d problems), first: %s", len(bad), bad[0]))
	}
	second, err := execute(spec, in, params)
	if err != nil {
		return append(problems, "second run with the same seed: "+err.Error()), nil
	}
	if i := firstDifference(first.events, second.events); i >= 0 {
		problems = append(problems, fmt.Sprintf("not deterministic: with the same seed, event %d differs: %s then %s", i, describe(first.events, i), describe(second.events, i)))
	}
	bare := spec
	bare.New = func(p schedulers.Params) (schedulers.Scheduler, error) {
		s, err := spec.New(p)
		return plain{s}, err
	}
	third, err := execute(bare, in, params)
	if err != nil {
		return append(problems, "run without its shortcuts: "+err.Error()), nil
	}
	switch i := firstDifference(first.events, third.events); {
	case i >= 0:
		problems = append(problems, fmt.Sprintf("its shortcuts change the run: event %d is %s, without them %s", i, describe(first.events, i), describe(third.events, i)))
	case first.rec.SchedOps != third.rec.SchedOps || first.rec.SchedArrayOps != third.rec.SchedArrayOps || first.rec.SchedStatusOps != third.rec.SchedStatusOps || first.rec.SchedPredictOps != third.rec.SchedPredictOps || first.rec.SchedBeladyOps != third.rec.SchedBeladyOps || first.rec.SchedStatusWrittenOps != third.rec.SchedStatusWrittenOps:
		problems = append(problems, fmt.Sprintf("its shortcuts change the counted operations (steps, array, status, Belady): %d, %d, %d, %d; without them %d, %d, %d, %d",
			first.rec.SchedOps, first.rec.SchedArrayOps, first.rec.SchedStatusOps, first.rec.SchedBeladyOps, third.rec.SchedOps, third.rec.SchedArrayOps, third.rec.SchedStatusOps, third.rec.SchedBeladyOps))
	}
	return problems, nil
}

// plain is a scheduler with its shortcuts hidden: it is a Popper, Evictor
// and Observer whatever it wraps, answering as the engine does for a
// scheduler without them (the first buffered task, the least recently used
// candidate, nothing), and it is none of Idler, SelectiveObserver,
// SelectiveEvictor or TaskPopper, so the engine calls it for everything.
// It keeps what the scheduler declares of its behaviour (PushPrefetcher,
// Pumper, Rounder).
type plain struct{ s schedulers.Scheduler }

func (p plain) PrefetchesAtPush() bool {
	pp, ok := p.s.(schedulers.PushPrefetcher)
	return ok && pp.PrefetchesAtPush()
}

// Pumped forwards the pump's refused pull (schedulers.Pumper): when the
// scheduler decides is behaviour, not a shortcut.
func (p plain) Pumped(w int) {
	if q, ok := p.s.(schedulers.Pumper); ok {
		q.Pumped(w)
	}
}

// EndRound forwards the end of a round of in-turn pulls
// (schedulers.Rounder): how the scheduler's decisions of a round see each
// other is behaviour, not a shortcut.
func (p plain) EndRound() {
	if q, ok := p.s.(schedulers.Rounder); ok {
		q.EndRound()
	}
}

func (p plain) Init(v schedulers.View) error { return p.s.Init(v) }
func (p plain) Push(t int)                   { p.s.Push(t) }
func (p plain) Pull(w int) (int, bool)       { return p.s.Pull(w) }

func (p plain) Pop(w int, buffer []int) int {
	if q, ok := p.s.(schedulers.Popper); ok {
		return q.Pop(w, buffer)
	}
	return 0
}

func (p plain) Victim(node int, candidates []int, prefetch bool) int {
	if e, ok := p.s.(schedulers.Evictor); ok {
		return e.Victim(node, candidates, prefetch)
	}
	return candidates[0]
}

func (p plain) Observe(kind schedulers.EventKind, where, id int) {
	if o, ok := p.s.(schedulers.Observer); ok {
		o.Observe(kind, where, id)
	}
}

func (p plain) Close() error {
	if c, ok := p.s.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type outcome struct {
	w        *workloads.Workload
	platform *hardware.Platform
	rec      run.Record
	events   []event.Event
}

func execute(spec schedulers.Spec, in Instance, params schedulers.Params) (outcome, error) {
	w, err := workloads.Generate(in.Spec.WithDefaults())
	if err != nil {
		return outcome{}, err
	}
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		return outcome{}, err
	}
	p.GPUs = in.GPUs
	p.SetMemoryMiB(in.MemMiB)
	o := outcome{w: w, platform: p}
	raw := map[string]string{}
	for k, v := range params {
		raw[k] = v
	}
	o.rec, err = run.Run(run.Config{Workload: w, Platform: p, Spec: &spec, Params: raw, Seed: 7,
		Trace: func(e event.Event) { o.events = append(o.events, e) }})
	return o, err
}

func firstDifference(a, b []event.Event) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func describe(evs []event.Event, i int) string {
	if i >= len(evs) {
		return "(the end)"
	}
	return fmt.Sprintf("%+v", evs[i])
}
