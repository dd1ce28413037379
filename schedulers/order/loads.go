package order

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/memsched/memsched/internal/minheap"
	"github.com/memsched/memsched/workloads"
)

// Eviction policies accepted by Loads.
const (
	PolicyBelady = "belady"
	PolicyLRU    = "lru"
)

// Loads counts the data loads of running order on one PU whose memory holds
// capacity bytes (thesis §2.2): at each step the scheduler evicts, loads the
// missing inputs of the task, then runs it. Eviction is thrifty: data leave
// memory only when the missing inputs do not fit, and never the inputs of
// the current task. It returns the number of loads and the bytes loaded.
//
//   - "belady" (MIN, thesis Theorem 1): evict the data whose next use in
//     order is the furthest; data never used again first; ties to the
//     lowest data id. Optimal for a fixed order with equal sizes.
//   - "lru": evict the least recently used data, a use being the start of a
//     task reading it; ties (data of one task) to the lowest data id.
//
// With heterogeneous sizes victims are evicted one at a time, in that
// priority, until the missing inputs fit. order may be any sequence of task
// ids (e.g. one package), as ints or int32s. It is an error if a task's
// inputs alone exceed capacity.
func Loads[T ~int | ~int32](w *workloads.Workload, order []T, capacity int64, policy string) (loads int, bytes int64, err error) {
	if policy != PolicyBelady && policy != PolicyLRU {
		return 0, 0, fmt.Errorf("order: unknown eviction policy %q (want %q or %q)", policy, PolicyBelady, PolicyLRU)
	}
	// The input sets of order's tasks, computed once in one array (the
	// model reads each three times): no slice per task.
	total := 0
	for _, t := range order {
		if t >= 0 && int(t) < len(w.Tasks) {
			total += len(w.Tasks[t].Inputs)
		}
	}
	sets := newCSR(len(order), total)
	size := dataBytes(w)
	for _, t := range order {
		if t < 0 || int(t) >= len(w.Tasks) {
			return 0, 0, fmt.Errorf("order: task %d out of range [0,%d)", t, len(w.Tasks))
		}
		set := sets.addSet(w.Tasks[t].Inputs)
		var s int64
		for _, d := range set {
			s += size[d]
		}
		if s > capacity {
			return 0, 0, fmt.Errorf("order: task %d needs %d bytes of inputs, more than the capacity %d", t, s, capacity)
		}
	}
	pol := lru
	if policy == PolicyBelady {
		pol = belady
	}
	l, b := simulate(len(order), sets.row, size, capacity, pol, nil)
	return l, b, nil
}

type evictPolicy int

const (
	belady evictPolicy = iota
	lru
)

// simulate runs the thrifty model over the n steps whose input sets at
// gives (a set need only stay valid until the next call). A heap holds
// resident data by eviction priority with lazy deletion: an entry is
// current iff it carries the data's present key. trace, if not nil, sees
// every eviction and load of step p (tests use it to check eviction sets).
func simulate(n int, at func(p int) []int32, size []int64, capacity int64, pol evictPolicy, trace func(p int, d int32, load bool)) (int, int64) {
	const never = math.MaxInt64
	// Belady: the steps using each data, in order, and per data the index
	// in them of its current use; the next one is the data's key.
	var uses [][]int32
	var cur []int32
	if pol == belady {
		uses = readersOf(len(size), n, at)
		cur = make([]int32, len(size))
	}
	resident := make([]bool, len(size))
	key := make([]int64, len(size))
	var h minheap.Heap[keyEntry] // Belady: largest next use first; LRU: key = −last use
	var used, loaded int64
	loads, nResident := 0, 0
	var inHeap []bool // compact's scratch
	for p := range n {
		ds := at(p)
		var need int64
		for _, d := range ds {
			if !resident[d] {
				need += size[d]
			}
			if pol == lru {
				// The current task's resident inputs become the most
				// recent before any eviction, which also protects them.
				key[d] = -int64(p)
				if resident[d] {
					h.Push(keyEntry{key: key[d], id: d})
				}
			}
		}
		// Under Belady the current inputs' keys equal p, below every other
		// resident key, so they are never reached: their total fits.
		for used+need > capacity {
			e := h.Pop()
			if !resident[e.id] || key[e.id] != e.key {
				continue
			}
			resident[e.id] = false
			nResident--
			used -= size[e.id]
			if trace != nil {
				trace(p, e.id, false)
			}
		}
		for _, d := range ds {
			if !resident[d] {
				resident[d] = true
				nResident++
				used += size[d]
				loaded += size[d]
				loads++
				if trace != nil {
					trace(p, d, true)
				}
			}
			if pol == belady {
				cur[d]++
				key[d] = never
				if u := uses[d]; int(cur[d]) < len(u) {
					key[d] = int64(u[cur[d]])
				}
			}
			h.Push(keyEntry{key: key[d], id: d})
		}
		if len(h) > 2*nResident+compactSlack {
			if inHeap == nil {
				inHeap = make([]bool, len(size))
			}
			h = compact(h, resident, key, inHeap)
		}
	}
	return loads, loaded
}

// compactSlack is how many stale entries past twice the resident data the
// heap may hold before compact (a variable: tests compact at every step).
var compactSlack = 64

// compact keeps the heap's current entries, one per resident data: every
// step pushes its inputs, so without it the heap would hold an entry per
// use (two million at a million tasks) where a few resident data are
// current. The pops come out in the same (key, id) order. inHeap is all
// false before and after.
func compact(h minheap.Heap[keyEntry], resident []bool, key []int64, inHeap []bool) minheap.Heap[keyEntry] {
	q := h[:0]
	for _, e := range h {
		if resident[e.id] && key[e.id] == e.key && !inHeap[e.id] {
			inHeap[e.id] = true
			q = append(q, e)
		}
	}
	for _, e := range q {
		inHeap[e.id] = false
	}
	q.Init()
	return q
}

// MaxOptimalTasks is the largest task set OptimalLoads accepts when all data
// have the same size; MaxOptimalTasksHetero the largest with heterogeneous
// sizes (exhaustive search over orders).
const (
	MaxOptimalTasks       = 12
	MaxOptimalTasksHetero = 9
)

// OptimalLoads returns the minimum number of loads over all task orders,
// each run with Belady's eviction (thesis Problem 2), and an order reaching
// it.
//
// With equal data sizes it is a DP with memoisation over (tasks done, live
// resident data) that also chooses evictions freely: by thesis Theorem 1
// Belady is optimal for every order, so this minimum is the minimum over
// orders of Loads(order, "belady"). Resident data no remaining task reads
// are dropped from the state (they are free space). Tasks with identical
// inputs are interchangeable, so only the lowest-id one is branched on. The
// first best order in increasing task ids is returned.
//
// With heterogeneous sizes Belady is no longer optimal (thesis §2.4), so
// every order is enumerated and run with Belady; ties keep the fewer bytes,
// then the first order found.
//
// Errors: more than MaxOptimalTasks tasks (MaxOptimalTasksHetero with
// heterogeneous sizes), more than 64 distinct data in the equal-size case,
// or a task whose inputs exceed capacity.
func OptimalLoads(w *workloads.Workload, capacity int64) (loads int, order []int, err error) {
	m := len(w.Tasks)
	if m == 0 {
		return 0, []int{}, nil
	}
	in := inputSets(w)
	size := dataBytes(w)
	equal, unit := true, int64(-1)
	for t, s := range in {
		var sum int64
		for _, d := range s {
			sum += size[d]
			if unit < 0 {
				unit = size[d]
			} else if size[d] != unit {
				equal = false
			}
		}
		if sum > capacity {
			return 0, nil, fmt.Errorf("order: task %d needs %d bytes of inputs, more than the capacity %d", t, sum, capacity)
		}
	}
	if equal {
		if m > MaxOptimalTasks {
			return 0, nil, fmt.Errorf("order: OptimalLoads is limited to %d tasks, got %d", MaxOptimalTasks, m)
		}
		return optimalEqual(in, unit, capacity)
	}
	if m > MaxOptimalTasksHetero {
		return 0, nil, fmt.Errorf("order: OptimalLoads with heterogeneous sizes is limited to %d tasks, got %d", MaxOptimalTasksHetero, m)
	}
	return optimalHetero(in, size, capacity)
}

func optimalEqual(in [][]int32, unit, capacity int64) (int, []int, error) {
	m := len(in)
	// Dense data indices as bits.
	idx := map[int32]int{}
	mask := make([]uint64, m)
	for t, s := range in {
		for _, d := range s {
			b, ok := idx[d]
			if !ok {
				b = len(idx)
				if b == 64 {
					return 0, nil, errors.New("order: OptimalLoads handles at most 64 distinct data")
				}
				idx[d] = b
			}
			mask[t] |= 1 << b
		}
	}
	M := len(idx) // zero-size data: everything fits
	if unit > 0 && capacity/unit < int64(M) {
		M = int(capacity / unit)
	}
	full := uint32(1)<<m - 1
	live := make([]uint64, full+1) // data read by the tasks not in S
	for S := uint32(0); S <= full; S++ {
		for t := 0; t < m; t++ {
			if S&(1<<t) == 0 {
				live[S] |= mask[t]
			}
		}
	}
	// first[t]: t is the lowest id among the tasks with its exact inputs.
	first := make([]bool, m)
	for t := range first {
		first[t] = true
		for u := 0; u < t; u++ {
			if mask[u] == mask[t] {
				first[t] = false
			}
		}
	}
	type state struct {
		S uint32
		C uint64
	}
	memo := map[state]int{}
	// candidates returns the branches from (S, C): the task to run, its
	// loads and the next state; eviction sets in Gosper order.
	var f func(S uint32, C uint64) int
	each := func(S uint32, C uint64, visit func(t int, miss int, S2 uint32, C2 uint64) bool) {
		for t := 0; t < m; t++ {
			if S&(1<<t) != 0 || !interchangeableFirst(t, S, mask, first) {
				continue
			}
			miss := bits.OnesCount64(mask[t] &^ C)
			union := C | mask[t]
			S2 := S | 1<<t
			k := bits.OnesCount64(union) - M
			if k <= 0 {
				if !visit(t, miss, S2, union&live[S2]) {
					return
				}
				continue
			}
			if !subsets(C&^mask[t], k, func(E uint64) bool {
				return visit(t, miss, S2, (union&^E)&live[S2])
			}) {
				return
			}
		}
	}
	f = func(S uint32, C uint64) int {
		if S == full {
			return 0
		}
		st := state{S, C}
		if v, ok := memo[st]; ok {
			return v
		}
		best := math.MaxInt
		each(S, C, func(_ int, miss int, S2 uint32, C2 uint64) bool {
			best = min(best, miss+f(S2, C2))
			return true
		})
		memo[st] = best
		return best
	}
	opt := f(0, 0)
	// Rebuild the first optimal order.
	order := make([]int, 0, m)
	S, C := uint32(0), uint64(0)
	for S != full {
		target := f(S, C)
		each(S, C, func(t int, miss int, S2 uint32, C2 uint64) bool {
			if miss+f(S2, C2) == target {
				order = append(order, t)
				S, C = S2, C2
				return false
			}
			return true
		})
	}
	return opt, order, nil
}

// interchangeableFirst reports whether t is the lowest-id pending task among
// those with identical inputs (the others give the same loads).
func interchangeableFirst(t int, S uint32, mask []uint64, first []bool) bool {
	if first[t] {
		return true
	}
	for u := 0; u < t; u++ {
		if S&(1<<u) == 0 && mask[u] == mask[t] {
			return false
		}
	}
	return true
}

// subsets calls visit on every k-subset of set (as a mask), in increasing
// order of the combination of bit positions; it stops when visit does.
func subsets(set uint64, k int, visit func(uint64) bool) bool {
	var pos []uint
	for s := set; s != 0; s &= s - 1 {
		pos = append(pos, uint(bits.TrailingZeros64(s)))
	}
	n := len(pos)
	if k > n {
		return true // cannot happen: the task's inputs fit
	}
	c := make([]int, k)
	for i := range c {
		c[i] = i
	}
	for {
		var E uint64
		for _, i := range c {
			E |= 1 << pos[i]
		}
		if !visit(E) {
			return false
		}
		i := k - 1
		for i >= 0 && c[i] == n-k+i {
			i--
		}
		if i < 0 {
			return true
		}
		c[i]++
		for j := i + 1; j < k; j++ {
			c[j] = c[j-1] + 1
		}
	}
}

func optimalHetero(in [][]int32, size []int64, capacity int64) (int, []int, error) {
	m := len(in)
	bestLoads, bestBytes := math.MaxInt, int64(math.MaxInt64)
	var best []int
	cur := make([]int, 0, m)
	seq := make([][]int32, 0, m)
	used := make([]bool, m)
	var dfs func()
	dfs = func() {
		if len(cur) == m {
			l, b := simulate(len(seq), setsAt(seq), size, capacity, belady, nil)
			if l < bestLoads || (l == bestLoads && b < bestBytes) {
				bestLoads, bestBytes = l, b
				best = append(best[:0], cur...)
			}
			return
		}
		for t := 0; t < m; t++ {
			if used[t] || !sameInputsFirst(t, used, in) {
				continue
			}
			used[t] = true
			cur = append(cur, t)
			seq = append(seq, in[t])
			dfs()
			used[t] = false
			cur = cur[:len(cur)-1]
			seq = seq[:len(seq)-1]
		}
	}
	dfs()
	return bestLoads, best, nil
}

// sameInputsFirst: t is the lowest-id unused task among those with its
// inputs (tasks with identical inputs give identical request sequences).
func sameInputsFirst(t int, used []bool, in [][]int32) bool {
	for u := 0; u < t; u++ {
		if !used[u] && equalSets(in[u], in[t]) {
			return false
		}
	}
	return true
}

func equalSets(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
