package multreeprio

import (
	"math"
	"slices"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/ordtree"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

func init() {
	schedulers.Register(schedulers.Spec{
		Name: "critical-path", Version: Version, Buffer: 1,
		Doc:    "the static scheduler of COMPAS 2022 §4 based only on the critical-path heuristic: a list schedule in which any idle worker that can run a task takes the most critical ready task (smallest latest start time), with no processing-unit affinity",
		Params: criticalParams,
		New:    criticalNew,
	})
}

var criticalParams, criticalNew = schedulers.Typed(func(a *schedulers.Args, dur *string) { cpDurationArg(a, dur) },
	func(dur string) (schedulers.Scheduler, error) { return &Critical{dur: dur}, nil })

// Critical is the critical-path-only list scheduler: ready tasks ordered by
// degree of criticality (1 − LST/length: ascending latest start), first
// pushed first among equals; one tree per worker kind, since a kind takes
// only what it can run.
type Critical struct {
	v     schedulers.View
	dur   string
	cp    *workloads.CriticalPath
	kinds []string // kinds present, one tree each
	trees []*ordtree.Tree[key]
	keys  taskKeys
	seq   int32
}

// Init runs the two critical-path passes.
func (c *Critical) Init(v schedulers.View) error {
	c.v = v
	for _, k := range []string{hardware.CPU, hardware.GPU} {
		for w := 0; w < v.Workers(); w++ {
			if v.WorkerKind(w) == k {
				c.kinds = append(c.kinds, k)
				c.trees = append(c.trees, ordtree.New(before))
				break
			}
		}
	}
	wl := v.Workload()
	xi := modelTimes(v, c.kinds)
	c.cp = wl.Analyse(func(t int) float64 { return duration(xi.of(t), c.dur) })
	c.keys = newTaskKeys(len(wl.Tasks), len(c.trees))
	return nil
}

// Push inserts the task in the tree of every kind that can run it.
func (c *Critical) Push(t int) {
	k := key{score: c.cp.Criticality(t), seq: c.seq, task: int32(t)}
	c.seq++
	for i, kind := range c.kinds {
		if math.IsInf(modelSeconds(c.v, t, kind), 1) {
			c.keys.put(i, key{score: -1, seq: k.seq, task: int32(t)})
			continue
		}
		c.keys.put(i, k)
		c.trees[i].Insert(k)
	}
}

// Pull takes the most critical ready task the worker's kind can run.
func (c *Critical) Pull(w int) (int, bool) {
	if !schedulers.PipelineRoom(c.v, w) {
		return 0, false
	}
	tr := c.trees[slices.Index(c.kinds, c.v.WorkerKind(w))]
	k, ok := tr.Min()
	if !ok {
		return 0, false
	}
	t := int(k.task)
	for i := range c.trees {
		if kk, in := c.keys.of(t, i); in {
			c.trees[i].Delete(kk)
		}
	}
	return t, true
}
