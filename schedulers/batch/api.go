// Package batch holds the job schedulers of thesis chapter 6 (FCFS, EFT, LEA,
// LEO, LEM, each with or without conservative backfilling) for the cluster
// simulator of harness/batch, and their registry.
//
// A scheduler only chooses a node. The simulator runs the loop the five
// share (Algorithms 13-17: jobs in submission order, each placed on the
// Cores(J) earliest-available cores of the chosen node from t_k, cores
// reserved until t_k + WallTime(J)) and answers the quantities the
// algorithms compare through a Board.
package batch

import (
	"fmt"
	"sort"
	"strings"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads/jobs"
)

// Board is what a scheduler sees while it places one job (Job): the plan
// being built at time Now.
type Board interface {
	Now() int64
	Nodes() int
	Job() *jobs.Job
	// Start is t_k: the earliest time node k has Cores(J) cores available
	// (with backfilling: available from t_k until t_k + WallTime(J)).
	Start(k int) int64
	// Load is t'_k − t_k, the time until File(J) is available on node k if
	// the job starts at tk (thesis §6.4.1, its three cases), in seconds, a
	// C float as the release computes it.
	Load(k int, tk int64) float32
	// Evict is LEA's EvictionPenalty: the time to reload the share
	// Cores(J)/cores-per-node of the files on node k that no planned job uses
	// after tk (Algorithm 15, line 7).
	Evict(k int, tk int64) float32
	// Ascend walks the nodes of [lo, hi) by increasing (bound, node), where
	// bound <= Start(k) (equal without backfilling): a scheduler prunes with
	// it instead of scanning every node. Close the cursor before the next
	// Ascend.
	Ascend(lo, hi int) Cursor
	// HasFile reports whether File(J) has planned uses on node k in this
	// pass: elsewhere Load is FullLoad.
	HasFile(k int) bool
	// AscendFile walks the nodes where HasFile holds by non-decreasing
	// bound, where bound <= Start(k), in no particular order of nodes.
	AscendFile() Cursor
	// FullLoad is Size(File(J))/Bandwidth, as Load computes it.
	FullLoad() float32
	// RunningNodes counts the nodes running at least one job now, counting
	// the jobs this plan starts now (LEM's test, Algorithm 17).
	RunningNodes() int
}

// Cursor walks nodes for Board.Ascend.
type Cursor interface {
	// Next returns the next node and its bound; ok is false past the last.
	Next() (k int, bound int64, ok bool)
	// SkipGroup passes over the other nodes with the bound Next returned last.
	SkipGroup()
	Close()
}

// Scheduler chooses the node of each job.
type Scheduler interface {
	// Choose returns the node for b.Job().
	Choose(b Board) int
	// Backfill says whether the plan uses conservative backfilling (thesis
	// §6.4.3, line 3').
	Backfill() bool
	// Scored says whether the scheduler scores files (EFT, LEA, LEO, LEM):
	// the release stops a planning pass at the first job needing more cores
	// than are free (fcfs_with_a_score_scheduler in src/scheduler.c), FCFS
	// when no core is free (fcfs_scheduler).
	Scored() bool
}

// Spec registers a scheduler with its typed parameters.
type Spec struct {
	Name string
	Doc  string
	// Version counts the scheduler's decision changes, from 1, as
	// schedulers.Spec.Version: it enters batch result keys (run.BatchKey).
	Version int
	Params  []schedulers.Param
	New     func(p schedulers.Params) (Scheduler, error)
}

// BackfillParam is accepted by every batch scheduler.
var BackfillParam = schedulers.Param{Name: "backfill", Kind: "bool", Default: "false",
	Doc: "conservative backfilling (the -BF variants, thesis §6.4.3)"}

var registry = map[string]Spec{}

// Register adds a scheduler; it panics on a duplicate, at init time.
func Register(s Spec) {
	if _, dup := registry[s.Name]; dup {
		panic("batch: duplicate registration of " + s.Name)
	}
	if s.Version < 1 {
		panic("batch: " + s.Name + " registers no Version (start at 1)")
	}
	s.Params = append([]schedulers.Param{BackfillParam}, s.Params...)
	registry[s.Name] = s
}

// List returns the registered schedulers, sorted by name.
func List() []Spec {
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names lists the registered names.
func Names() []string {
	var n []string
	for _, s := range List() {
		n = append(n, s.Name)
	}
	return n
}

// Lookup finds a scheduler, suggesting the closest name when it is unknown.
func Lookup(name string) (Spec, error) {
	s, ok := registry[strings.ToLower(name)]
	if !ok {
		return Spec{}, fmt.Errorf("unknown batch scheduler %q%s; the batch schedulers are %s", name, schedulers.Suggest(name, Names()), strings.Join(Names(), ", "))
	}
	return s, nil
}

// Build resolves parameters (defaults filled, unknown ones refused with the
// closest name) and constructs the scheduler.
func Build(name string, raw map[string]string) (Scheduler, Spec, schedulers.Params, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, s, nil, err
	}
	p, err := schedulers.ResolveParams(s.Name, s.Params, raw)
	if err != nil {
		return nil, s, nil, err
	}
	sch, err := s.New(p)
	return sch, s, p, err
}

// DisplayName is the thesis' name of a scheduler with its parameters:
// "LEA", "LEA-BF".
func DisplayName(name string, p schedulers.Params) string {
	n := strings.ToUpper(name)
	if p.Bool("backfill") {
		n += "-BF"
	}
	return n
}

// Reference returns s choosing nodes as the release writes it, scanning every
// node in order; the simulator's tests check that the fast choice agrees.
func Reference(s Scheduler) Scheduler {
	if r, ok := s.(interface{ scan(Board) int }); ok {
		return reference{s, r.scan}
	}
	return s
}

type reference struct {
	Scheduler
	scan func(Board) int
}

func (r reference) Choose(b Board) int { return r.scan(b) }
