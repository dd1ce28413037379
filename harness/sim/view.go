package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/saturating"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// The View a scheduler sees: read-only state, by worker. A worker's memory
// is its node's, shared with the node's other workers.

func (e *Engine) Workload() *workloads.Workload { return e.w }
func (e *Engine) Platform() *hardware.Platform  { return e.p }
func (e *Engine) Workers() int                  { return len(e.workers) }
func (e *Engine) Now() float64                  { return e.now }
func (e *Engine) Rand() *rand.Rand              { return e.rng }

// Pumps says the engine calls schedulers.Pumper's Pumped (fill).
func (e *Engine) Pumps() bool { return e.pumper != nil }

// InTurn says whether the engine is in a round of in-turn pulls, which it
// closes with the scheduler's EndRound (schedulers.RoundView).
func (e *Engine) InTurn() bool { return e.inTurn && e.rounder != nil }

// Share is schedulers.Sharer: what compute returns, computed once among the
// runs that share Config.Share. The operations compute counts are kept with
// the result and counted again by the runs that did not compute it, so a
// model-charged run costs the same whoever computed. So is its wall time:
// a run that did not compute counts the computation's, measured once, in
// its scheduling and run wall times, and not its wait for it (a waiting
// run lends its sweep slot), so that these times do not depend on which
// run computed. A run charged its measured wall time, or run on real GPUs,
// computes itself: its charge is the time the computation takes.
func (e *Engine) Share(key string, compute func() (any, error)) (any, error) {
	if e.cfg.Share == nil || e.charge == chargeMeasured || e.cfg.RealTime {
		return compute()
	}
	type counted struct {
		v    any
		ops  [schedulers.NumOps]int64
		wall time.Duration
	}
	here := false
	t0 := e.clock()
	r, err := e.cfg.Share(key, func() (any, error) {
		here = true
		ops0, c0 := e.stats.SchedOps, e.clock()
		v, err := compute()
		return counted{v, opsSince(ops0, e.stats.SchedOps), e.clock() - c0}, err
	})
	if err != nil {
		return nil, err
	}
	c := r.(counted)
	if !here {
		for k, n := range c.ops {
			e.stats.SchedOps[k] = saturating.Add(e.stats.SchedOps[k], n)
		}
		adjust := c.wall - (e.clock() - t0) // the scheduler calls are timed: the call sharing counts its wait
		e.stats.SchedWall += adjust
		e.stats.WallAdjust += adjust
	}
	return c.v, nil
}

// clock reads Config.Clock (0 without one).
func (e *Engine) clock() time.Duration {
	if e.cfg.Clock == nil {
		return 0
	}
	return e.cfg.Clock()
}

// WorkerKind is hardware.GPU or hardware.CPU.
func (e *Engine) WorkerKind(w int) string { return e.kinds[e.workers[w].kind] }

// WorkerNode is the memory node a worker computes from.
func (e *Engine) WorkerNode(w int) int { return e.workers[w].node }

// Nodes is the number of memory nodes; the home node is the last.
func (e *Engine) Nodes() int { return len(e.nodes) }

// CurrentWorker is the worker the scheduler is being called for: the one
// that pulls, pops or evicts, or whose finished task released the task
// being pushed; -1 for the application's own submissions (StarPU's
// starpu_worker_get_id() inside a push).
func (e *Engine) CurrentWorker() int { return e.current }

func (e *Engine) Resident(w, d int) bool { return e.nodes[e.workers[w].node].state[d] == resident }

func (e *Engine) Present(w, d int) bool { return e.nodes[e.workers[w].node].present[d] }

func (e *Engine) Presence(w int) schedulers.Presence {
	return schedulers.NewPresence(e.nodes[e.workers[w].node].present)
}

// Status is what StarPU reports of the data on the worker's memory
// (schedulers.StatusViewer).
func (e *Engine) Status(w int) schedulers.Status {
	return schedulers.NewStatus(e.nodes[e.workers[w].node].status)
}

func (e *Engine) Buffer(w int) []int   { return e.workers[w].buffer.dense() }
func (e *Engine) Pipeline(w int) []int { return e.workers[w].pipe }

// CanRun reports whether the worker's kind has a rate for the task's kernel.
func (e *Engine) CanRun(w, t int) bool { return !math.IsNaN(e.duration(w, t)) }

// ComputeSeconds is the task's duration on the worker (NaN when it cannot
// run it).
func (e *Engine) ComputeSeconds(w, t int) float64 { return e.duration(w, t) }

// TransferSeconds is the uncontended time to bring data to the worker's
// memory from where the runtime would copy it (source: the fastest valid
// copy, as StarPU's starpu_data_expected_transfer_time), two hops when
// the only valid copies must go through home; 0 for a worker computing
// from home.
func (e *Engine) TransferSeconds(w, d int) float64 {
	n := e.workers[w].node
	if n == e.home || e.homeGBps[n] <= 0 {
		return 0
	}
	bytes := float64(e.w.Data[d].Bytes) / 1e9
	switch src := e.source(n, d); {
	case src == e.home:
		return bytes / e.homeGBps[n]
	case src >= 0:
		return bytes / e.peerGBps[src][n]
	}
	for o, m := range e.nodes {
		if o != e.home && m.state[d] == resident && e.upGBps[o] > 0 {
			return bytes/e.upGBps[o] + bytes/e.homeGBps[n]
		}
	}
	return bytes / e.homeGBps[n]
}
