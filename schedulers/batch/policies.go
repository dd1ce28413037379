package batch

import (
	"fmt"

	"github.com/memsched/memsched/schedulers"
)

// Parameters of the score schedulers.
var (
	weightParam = schedulers.Param{Name: "w", Kind: "int", Default: "500",
		Doc: "weight W of the load overhead t'_k − t_k (thesis §6.4.2: W = 500)"}
	evictParam = schedulers.Param{Name: "evict_weight", Kind: "int", Default: "1",
		Doc: "weight of the eviction penalty (1 in Algorithm 15; the release's second multiplier, x500_x1)"}
	stickyParam = schedulers.Param{Name: "sticky", Kind: "bool", Default: "false",
		Doc: "LEO: once a node that can start the job now is met, score every later node of the scan as EFT too (the release's fcfs_with_a_score_scheduler keeps the switched multipliers for the rest of the job's scan); false scores node by node (Algorithm 16)"}
	busyParam = schedulers.Param{Name: "busy_threshold", Kind: "int", Default: "100",
		Doc: "LEM: percent of nodes running at least one job above which LEA's weights apply, else EFT's (Algorithm 17: every node busy; the release's BUSY_CLUSTER_THRESHOLD=100, compared as running*100/nodes < threshold)"}
)

func init() {
	Register(Spec{Name: "fcfs", Version: 1, Doc: "First-Come-First-Served: each job in submission order on the node with the earliest availability t_k (Algorithm 13; ties to the first node)",
		New: func(p schedulers.Params) (Scheduler, error) { return fcfs{bf: p.Bool("backfill")}, nil }})
	Register(Spec{Name: "eft", Version: 1, Doc: "Earliest-Finish-Time: the node where File(J) is available first, t'_k (Algorithm 14)",
		New: func(p schedulers.Params) (Scheduler, error) {
			return &score{bf: p.Bool("backfill"), load: 1}, nil
		}})
	Register(Spec{Name: "lea", Version: 1, Doc: "Locality and Eviction Aware: min t_k + W·(t'_k − t_k) + EvictionPenalty (Algorithm 15)",
		Params: []schedulers.Param{weightParam, evictParam},
		New: func(p schedulers.Params) (Scheduler, error) {
			return newScore(p, modeLEA)
		}})
	Register(Spec{Name: "leo", Version: 1, Doc: "Locality and Eviction Opportunistic: EFT's score on nodes that can start the job now, LEA's elsewhere (Algorithm 16)",
		Params: []schedulers.Param{weightParam, evictParam, stickyParam},
		New: func(p schedulers.Params) (Scheduler, error) {
			return newScore(p, modeLEO)
		}})
	Register(Spec{Name: "lem", Version: 1, Doc: "Locality and Eviction Mixed: LEA when every node runs a job, EFT otherwise (Algorithm 17)",
		Params: []schedulers.Param{weightParam, evictParam, busyParam},
		New: func(p schedulers.Params) (Scheduler, error) {
			return newScore(p, modeLEM)
		}})
}

// fcfs places a job on the first node with the smallest t_k
// (schedule_job_on_earliest_available_cores in src/basic_functions.c).
type fcfs struct{ bf bool }

func (f fcfs) Backfill() bool { return f.bf }
func (fcfs) Scored() bool     { return false }

// Choose visits nodes by increasing bound of t_k: the first node whose t_k
// no later bound can beat is the release's choice.
func (fcfs) Choose(b Board) int {
	best, bestT := -1, int64(0)
	c := b.Ascend(0, b.Nodes())
	defer c.Close()
	for k, bound, ok := c.Next(); ok; k, bound, ok = c.Next() {
		if best >= 0 {
			if bound > bestT {
				break
			}
			if bound == bestT && k > best {
				c.SkipGroup() // t_k >= bestT and a later node: none can win
				continue
			}
		}
		if tk := b.Start(k); best < 0 || tk < bestT || tk == bestT && k < best {
			best, bestT = k, tk
		}
	}
	return best
}

// scan is Choose as the release writes it: every node in order, stopping at
// the first that can start the job now. Tests check Choose against it.
func (fcfs) scan(b Board) int {
	now, best, bestT := b.Now(), -1, int64(0)
	for k, n := 0, b.Nodes(); k < n; k++ {
		tk := b.Start(k)
		if best < 0 || tk < bestT {
			best, bestT = k, tk
			if tk == now {
				break
			}
		}
	}
	return best
}

type mode int

const (
	modeFixed mode = iota // EFT, LEA: the same weights everywhere
	modeLEA
	modeLEO
	modeLEM
)

// score is the score schedulers: the node with the smallest
// t_k + load·(t'_k − t_k) + evict·EvictionPenalty, ties to the first node.
type score struct {
	bf          bool
	mode        mode
	load, evict int // weights (EFT: 1, 0; LEA: W, 1)
	w, e        int // LEA's weights, for LEO and LEM
	sticky      bool
	busy        int
}

func newScore(p schedulers.Params, m mode) (Scheduler, error) {
	s := &score{bf: p.Bool("backfill"), mode: m, w: p.Int("w"), e: p.Int("evict_weight"), sticky: p.Bool("sticky"), busy: p.Int("busy_threshold")}
	if s.w < 0 || s.e < 0 {
		return nil, fmt.Errorf("weights w=%d, evict_weight=%d: want numbers >= 0", s.w, s.e)
	}
	if m == modeLEM && (s.busy < 0 || s.busy > 101) {
		return nil, fmt.Errorf("busy_threshold=%d: want a percentage from 0 to 101 (101: always EFT)", s.busy)
	}
	s.load, s.evict = s.w, s.e
	return s, nil
}

func (s *score) Backfill() bool { return s.bf }
func (*score) Scored() bool     { return true }

// weights returns the LEA/EFT multipliers of a job for its whole scan:
// LEM's depend on how many nodes run a job.
func (s *score) weights(b Board) (int, int) {
	if s.mode == modeLEM {
		// running*100/nodes < threshold, in integers as the release writes it.
		if b.RunningNodes()*100/b.Nodes() < s.busy {
			return 1, 0
		}
		return s.w, s.e
	}
	return s.load, s.evict
}

// scan is the release's choice (fcfs_with_a_score_scheduler in
// src/scheduler.c): every node in order; in C floats, the score is
// t_k + load·(t'_k − t_k) + evict·EvictionPenalty truncated to whole
// seconds; a node replaces the best only with a strictly smaller score; LEO
// scores a node that can start the job now as EFT (with sticky, every later
// node too). The partial sums skip nodes that cannot win: every term is
// >= 0 and float addition of non-negative terms is monotone. Tests check
// Choose against it.
func (s *score) scan(b Board) int {
	now := b.Now()
	wl, we := s.weights(b)
	best, bestScore := -1, int64(0)
	for k, n := 0, b.Nodes(); k < n; k++ {
		tk := b.Start(k)
		ml, me := wl, we
		if s.mode == modeLEO && tk == now {
			ml, me = 1, 0
			if s.sticky {
				wl, we = 1, 0
			}
		}
		if best >= 0 && tk >= bestScore {
			continue
		}
		part := float32(tk) + float32(ml)*b.Load(k, tk)
		if best >= 0 && !(part < float32(bestScore)) {
			continue
		}
		if me != 0 {
			part += float32(me) * b.Evict(k, tk)
			if best >= 0 && !(part < float32(bestScore)) {
				continue
			}
		}
		if sc := int64(part); best < 0 || sc < bestScore {
			best, bestScore = k, sc
		}
	}
	return best
}

// Choose is scan's choice, the lowest-index node of smallest score, found
// without scoring every node: the nodes holding or loading File(J) are
// scored first, then the others, whose load is the full one, by increasing
// bound of t_k until the score's lower bound passes the best score.
func (s *score) Choose(b Board) int {
	now, n := b.Now(), b.Nodes()
	wl, we := s.weights(b)
	// LEO with sticky multipliers: EFT's weights from the first node that
	// can start the job now.
	k0 := n
	if s.mode == modeLEO && s.sticky {
		c := b.Ascend(0, n)
		for k, bound, ok := c.Next(); ok && bound <= now; k, bound, ok = c.Next() {
			if b.Start(k) == now {
				k0 = k
				break
			}
		}
		c.Close()
	}
	c := choice{b: b, s: s, now: now, k0: k0, wl: wl, we: we, best: -1}
	fc := b.AscendFile()
	for k, bound, ok := fc.Next(); ok; k, bound, ok = fc.Next() {
		if c.best >= 0 && bound > c.bestScore {
			break // a score is at least t_k: no later node can win
		}
		c.eval(k, b.Start(k))
	}
	fc.Close()
	// The other nodes, in ranges where the smallest weight a node may get
	// grows with its bound, so the score's lower bound does too.
	switch {
	case s.mode == modeLEO && s.sticky:
		c.ascend(0, k0, wl, wl)
		c.ascend(k0, n, 1, 1)
	case s.mode == modeLEO:
		c.ascend(0, n, min(1, wl), wl)
	default:
		c.ascend(0, n, wl, wl)
	}
	return c.best
}

// choice is one job's search for the best score.
type choice struct {
	b         Board
	s         *score
	now       int64
	k0        int // LEO with sticky multipliers: EFT's weights from this node
	wl, we    int
	best      int
	bestScore int64
}

func (c *choice) weights(k int, tk int64) (int, int) {
	leo := c.s.mode == modeLEO
	if leo && c.s.sticky && k >= c.k0 || leo && !c.s.sticky && tk == c.now {
		return 1, 0
	}
	return c.wl, c.we
}

func (c *choice) eval(k int, tk int64) {
	if c.best >= 0 && tk > c.bestScore {
		return
	}
	ml, me := c.weights(k, tk)
	part := float32(tk) + float32(ml)*c.b.Load(k, tk)
	if c.best >= 0 && int64(part) > c.bestScore {
		return
	}
	if me != 0 {
		part += float32(me) * c.b.Evict(k, tk)
	}
	if sc := int64(part); c.best < 0 || sc < c.bestScore || sc == c.bestScore && k < c.best {
		c.best, c.bestScore = k, sc
	}
}

// ascend scores the nodes of [lo, hi) without File(J) by increasing bound
// of t_k, until the score's lower bound, bound + weight × full load with
// the smallest weight the node may get (wNow at bound now, w after),
// passes the best score.
func (c *choice) ascend(lo, hi, wNow, w int) {
	full := c.b.FullLoad()
	cur := c.b.Ascend(lo, hi)
	defer cur.Close()
	for k, bound, ok := cur.Next(); ok; k, bound, ok = cur.Next() {
		hasFile := c.b.HasFile(k) // scored already, but it still bounds the rest
		if c.best >= 0 {
			mw := w
			if bound <= c.now {
				mw = wNow
			}
			low := int64(float32(bound) + float32(mw)*full)
			if low > c.bestScore {
				return
			}
			if low == c.bestScore && k > c.best {
				cur.SkipGroup()
				continue
			}
		}
		if !hasFile {
			c.eval(k, c.b.Start(k))
		}
	}
}
