package sim

import "github.com/memsched/memsched/harness/event"

// The engine is a pure state machine, in the manner of etcd's raft
// (rawnode.go Ready/Advance): it decides StarPU's runtime rules and asks
// its driver, through effects, for what takes time. A driver feeds it the
// time (Advance) and completions (CopyDone, TaskDone, Wake), then reads the
// effects the call produced (Effects, Events) and acknowledges them (Ack).
// The engine calls no driver and keeps no clock of its own. Two drivers
// carry the effects out: the simulator (simulate: an event heap, the link
// solver linkshare and the kernels' modelled durations) and the CUDA
// executor (harness/cudaexec: CUDA streams, measured completions).

// EffectKind says what an effect asks of the driver.
type EffectKind uint8

const (
	// EffectCopy starts Effect.Copy; the driver reports its end with
	// CopyDone(Effect.Copy).
	EffectCopy EffectKind = iota
	// EffectTask starts Effect.Task on Effect.Worker, its inputs resident;
	// the driver reports its end with TaskDone.
	EffectTask
	// EffectWake asks for Wake(Effect.Worker, Effect.At) once the time is
	// Effect.At: the end of a worker's charged scheduling time, of its
	// driver thread's host time, or of a peer copy's hold on its source.
	// None arises under Config.RealTime, which has none of them.
	EffectWake
	// EffectFreed says datum Effect.Copy.Data left node Effect.Copy.Node
	// (evicted or invalidated): its memory may be reused.
	EffectFreed
	// EffectClock starts the run's clock: after the submission and the
	// static planning, before the first copy or task. The papers'
	// benchmarks start their timer after starpu_do_schedule
	// (examples/mult/xgemm.c) unless the script counts the planning
	// (COUNT_DO_SCHEDULE), which a real run does by starting its clock
	// before Begin (Config.ChargeSchedTime), as the simulator charges it.
	EffectClock
)

// Copy is a copy between two memory nodes: a load into Node (from home,
// or from a peer GPU), or a write-back (Out) from Src to home, carrying
// the datum's Version.
type Copy struct {
	Node, Src, Data int // destination node (home for a write-back), source node, datum
	Prefetch        bool
	Out             bool
	Version         uint32
}

// Effect is one thing a call asks the driver to do, in the order the
// engine decided them.
type Effect struct {
	Kind   EffectKind
	Copy   Copy    // EffectCopy; EffectFreed: Node and Data
	Worker int     // EffectTask, EffectWake
	Task   int     // EffectTask
	At     float64 // EffectWake
	// Event is the index in Events of the copy's load_start or the task's
	// task_start, whose time a driver that measures it may correct; -1
	// when the run is not traced.
	Event int
}

// Effects are what the calls since the last Ack asked of the driver; the
// slice is reused after Ack.
func (e *Engine) Effects() []Effect { return e.effects }

// Events are the trace events of the calls since the last Ack (with
// Config.Trace set), at the engine's time; the slice is reused after Ack.
func (e *Engine) Events() []event.Event { return e.trace }

// Ack acknowledges the effects and events handed out.
func (e *Engine) Ack() {
	e.effects = e.effects[:0]
	e.trace = e.trace[:0]
}

func (e *Engine) wakeAt(t float64, w int) {
	e.effects = append(e.effects, Effect{Kind: EffectWake, Worker: w, At: t, Event: -1})
}

func (e *Engine) freed(ni, d int) {
	e.effects = append(e.effects, Effect{Kind: EffectFreed, Copy: Copy{Node: ni, Data: d}, Event: -1})
}
