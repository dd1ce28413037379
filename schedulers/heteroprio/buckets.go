package heteroprio

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/suggest"
	"github.com/memsched/memsched/schedulers"
)

// Worker kinds in StarPU's architecture order (STARPU_CPU_WORKER = 0,
// then CUDA): the speedup-factor rule treats a bucket whose fastest kind
// is the first one as unrestricted (heteroprio.c pop_task_heteroprio_policy:
// "factor_base_arch_index == 0").
var kindOrder = []string{hardware.CPU, hardware.GPU}

// bucket holds the ready tasks of one priority set: here one task type
// (kernel), as in the papers ("the number of different operation types in
// most cases", PeerJ 2019 §Heteroprio). lists has one task list per
// memory node in LA mode, one list otherwise.
type bucket struct {
	kernel string
	lists  []deque
	n      int    // tasks in all its lists (StarPU tasks_queue_ntasks)
	valid  []bool // per kind index: the kind's workers may take its tasks
	// best is the kind index of the fastest kind, -1 when speedup factors
	// are off; slow[k] is how much slower kind k is (StarPU
	// starpu_heteroprio_set_faster_arch, set_arch_slow_factor).
	best int
	slow []float64
}

// deque is a task list: push at the back, pop at the back (LIFO, StarPU's
// starpu_task_list_push_front / pop_front) or at the front (FIFO).
type deque struct {
	items []int
	head  int
}

func (d *deque) len() int    { return len(d.items) - d.head }
func (d *deque) push(t int)  { d.items = append(d.items, t) }
func (d *deque) empty() bool { return d.head == len(d.items) }
func (d *deque) peek(lifo bool) int {
	if lifo {
		return d.items[len(d.items)-1]
	}
	return d.items[d.head]
}

func (d *deque) pop(lifo bool) int {
	var t int
	if lifo {
		t = d.items[len(d.items)-1]
		d.items = d.items[:len(d.items)-1]
	} else {
		t = d.items[d.head]
		d.head++
	}
	if d.head == len(d.items) {
		d.items, d.head = d.items[:0], 0
	}
	return t
}

// config is the bucket layout of a run: which bucket each task goes to,
// and each kind's access order over the buckets.
type config struct {
	kinds    []string // kinds present, in kindOrder
	slowest  bool     // kinds[0] is kindOrder[0]: index 0 is the slowest kind
	kindOf   []int    // per worker: index into kinds
	workers  [][]int  // per kind index: its workers
	buckets  []*bucket
	bucketOf []int   // per task
	order    [][]int // per kind index: bucket ids in access order
	strict   bool    // speedup factors compare with > instead of StarPU's ≥
}

// Model durations: StarPU's performance model gives a task's expected
// time on a kind, not the time it will take (the run's duration noise is
// not visible to schedulers).
func modelSeconds(v schedulers.View, task int, kind string) float64 {
	t := &v.Workload().Tasks[task]
	s, ok, err := v.Platform().KernelSeconds(t.Kernel, kind, t.Flops)
	if err != nil || !ok {
		return math.Inf(1)
	}
	return s
}

// newConfig builds the buckets (one per kernel of the workload, in order
// of first appearance), each kind's access order from the priorities
// parameter, and the speedup factors.
func newConfig(v schedulers.View, priorities string, factors bool) (*config, error) {
	c := &config{}
	present := map[string]bool{}
	for w := 0; w < v.Workers(); w++ {
		present[v.WorkerKind(w)] = true
	}
	kindIdx := map[string]int{}
	for _, k := range kindOrder {
		if present[k] {
			kindIdx[k] = len(c.kinds)
			c.kinds = append(c.kinds, k)
		}
	}
	c.slowest = len(c.kinds) > 0 && c.kinds[0] == kindOrder[0]
	c.workers = make([][]int, len(c.kinds))
	for w := 0; w < v.Workers(); w++ {
		k := kindIdx[v.WorkerKind(w)]
		c.kindOf = append(c.kindOf, k)
		c.workers[k] = append(c.workers[k], w)
	}
	wl := v.Workload()
	byKernel := map[string]int{}
	c.bucketOf = make([]int, len(wl.Tasks))
	mean := [][]float64{} // per bucket, per kind: mean model time
	for i := range wl.Tasks {
		name := wl.Tasks[i].Kernel
		b, ok := byKernel[name]
		if !ok {
			b = len(c.buckets)
			byKernel[name] = b
			c.buckets = append(c.buckets, &bucket{kernel: name, valid: make([]bool, len(c.kinds)), best: -1, slow: make([]float64, len(c.kinds))})
			mean = append(mean, make([]float64, len(c.kinds)))
		}
		c.bucketOf[i] = b
		for k, kind := range c.kinds {
			mean[b][k] += modelSeconds(v, i, kind)
		}
	}
	count := make([]float64, len(c.buckets))
	for _, b := range c.bucketOf {
		count[b]++
	}
	for b := range mean {
		for k := range mean[b] {
			mean[b][k] /= count[b]
		}
	}
	var err error
	if priorities == "" || priorities == "speedup" {
		c.order = speedupOrders(c.kinds, mean)
	} else if c.order, err = parseOrders(priorities, c.kinds, c.kernels(), v.Platform().Kernels); err != nil {
		return nil, err
	}
	for k, ord := range c.order {
		for _, b := range ord {
			if math.IsInf(mean[b][k], 1) {
				return nil, fmt.Errorf("priorities: kernel %s is listed for the %s workers, which cannot run it", c.buckets[b].kernel, c.kinds[k])
			}
			c.buckets[b].valid[k] = true
		}
	}
	for _, bk := range c.buckets {
		reached := false
		for k := range c.kinds {
			reached = reached || bk.valid[k]
		}
		if !reached {
			return nil, fmt.Errorf("priorities: kernel %s is in no worker kind's list (kinds %s); add it where it can run", bk.kernel, strings.Join(c.kinds, ", "))
		}
	}
	if factors {
		for b, bk := range c.buckets {
			best := -1
			for k := range c.kinds {
				if bk.valid[k] && (best < 0 || mean[b][k] < mean[b][best]) {
					best = k
				}
			}
			bk.best = best
			for k := range c.kinds {
				if bk.valid[k] {
					bk.slow[k] = mean[b][k] / mean[b][best]
				}
			}
		}
	}
	return c, nil
}

// kernels lists the buckets' kernels, by bucket id.
func (c *config) kernels() []string {
	out := make([]string, len(c.buckets))
	for i, b := range c.buckets {
		out[i] = b.kernel
	}
	return out
}

// speedupOrders is the default priority rule, the one COMPAS 2022 Table 2
// follows for its Cholesky test cases: each kind visits first the kernels
// it runs best relative to the other kinds (the GPU by decreasing
// CPU/GPU speedup, the CPU by increasing speedup); a kernel only one kind
// runs comes first for that kind. Ties keep the order of first appearance.
func speedupOrders(kinds []string, mean [][]float64) [][]int {
	out := make([][]int, len(kinds))
	for k := range kinds {
		var ids []int
		aff := make([]float64, len(mean))
		for b := range mean {
			if math.IsInf(mean[b][k], 1) {
				continue
			}
			ids = append(ids, b)
			// affinity: how much slower the best other kind is
			other := math.Inf(1)
			for o := range kinds {
				if o != k {
					other = min(other, mean[b][o])
				}
			}
			aff[b] = other / mean[b][k]
			if len(kinds) == 1 {
				aff[b] = 0
			}
		}
		sort.SliceStable(ids, func(i, j int) bool { return aff[ids[i]] > aff[ids[j]] })
		out[k] = ids
	}
	return out
}

// parseOrders reads "cpu=trsm,potrf,syrk,gemm;gpu=gemm,syrk,potrf,trsm":
// per kind, kernels in the order its workers visit their buckets (COMPAS
// 2022 Table 2's priorities, 0 first). Kernels the workload lacks are
// skipped.
func parseOrders[K any](s string, kinds []string, kernels []string, known map[string]K) ([][]int, error) {
	byKernel := map[string]int{}
	for b, k := range kernels {
		byKernel[k] = b
	}
	out := make([][]int, len(kinds))
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		kind, list, ok := strings.Cut(part, "=")
		kind = strings.TrimSpace(kind)
		if !ok || (kind != hardware.CPU && kind != hardware.GPU) {
			return nil, fmt.Errorf("priorities %q: want kind=kernel,kernel,...;kind=... with kind cpu or gpu (or \"speedup\")", s)
		}
		if seen[kind] {
			return nil, fmt.Errorf("priorities %q: kind %s is listed twice", s, kind)
		}
		seen[kind] = true
		k := -1
		for i, kk := range kinds {
			if kk == kind {
				k = i
			}
		}
		used := map[string]bool{}
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			if used[name] {
				return nil, fmt.Errorf("priorities %q: kernel %s is listed twice for %s", s, name, kind)
			}
			used[name] = true
			if _, ok := known[name]; !ok {
				names := make([]string, 0, len(known))
				for n := range known {
					names = append(names, n)
				}
				sort.Strings(names)
				return nil, fmt.Errorf("priorities %q: the platform has no kernel %q%s", s, name, suggest.Closest(name, names))
			}
			b, ok := byKernel[name]
			if !ok || k < 0 {
				continue // a kernel this workload lacks, or a kind this platform lacks
			}
			out[k] = append(out[k], b)
		}
	}
	for _, name := range kernels {
		listed := false
		for _, part := range strings.Split(s, ";") {
			_, list, _ := strings.Cut(part, "=")
			for _, n := range strings.Split(list, ",") {
				listed = listed || strings.TrimSpace(n) == name
			}
		}
		if !listed {
			var names []string
			for _, part := range strings.Split(s, ";") {
				_, list, _ := strings.Cut(part, "=")
				for _, n := range strings.Split(list, ",") {
					names = append(names, strings.TrimSpace(n))
				}
			}
			return nil, fmt.Errorf("priorities %q: the workload's kernel %s is not listed%s", s, name, suggest.Closest(name, names))
		}
	}
	return out, nil
}

// mayTake is the speedup-factor rule (PeerJ 2019 §Speedup factors; StarPU
// heteroprio.c pop_task_heteroprio_policy): a worker of kind k takes from
// the bucket if speedup factors are off, if the fastest kind is the CPU
// (StarPU's architecture 0), if k is the fastest kind, or if the bucket
// holds at least slow[k] tasks per worker of the fastest kind.
func (c *config) mayTake(b *bucket, k int) bool {
	if b.best < 0 || (b.best == 0 && c.slowest) || k == b.best { // no faster kind to wait for
		return true
	}
	if c.strict {
		return float32(b.n)/float32(len(c.workers[b.best])) > float32(b.slow[k])
	}
	return SlowWorkerMayTake(b.n, len(c.workers[b.best]), b.slow[k])
}

// SlowWorkerMayTake is the threshold of the speedup factors: a slow
// worker may take one of ntasks tasks when ntasks/nfast ≥ slow (StarPU
// uses ≥; the paper writes "more than N_GPU × S_i" and, in its example,
// "six or more" for three GPUs twice as fast). StarPU stores and compares
// the factors as C floats, which also absorbs the rounding of a ratio of
// mean times (7.000000000000001 for 0.7/0.1).
func SlowWorkerMayTake(ntasks, nfast int, slow float64) bool {
	return float32(ntasks)/float32(nfast) >= float32(slow)
}
