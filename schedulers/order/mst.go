package order

import (
	"slices"

	"github.com/memsched/memsched/internal/minheap"
	"github.com/memsched/memsched/workloads"
)

// MST returns the maximum spanning tree order of Yoo et al. as adapted in
// thesis Algorithm 4: Prim's algorithm on G^T (edge weight = bytes shared by
// two tasks), listing tasks in their order of inclusion in the tree.
//
// It starts at task 0 (Key(v0) = 1); the next task is the unvisited one with
// the largest key (the heaviest edge to the tree), ties to the lowest id;
// when no unvisited task has a positive key, the lowest-id unvisited task
// starts a new component. No m×m structure is built: a task added to the
// tree raises the keys of the readers of its data. Once a data's readers
// have been raised to its size, a later task reading it can raise them
// further only if it shares a second data with one of them; tasks that
// share at most one data with every other task (all of a 2D product's)
// therefore walk each data's readers once in all, O(Σ_d |readers(d)| +
// m log m), and the others walk all their neighbours, as before.
func MST(w *workloads.Workload) []int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	in := taskInputs(w) // computed per visit: no set kept per task
	users := readersOf(len(w.Data), m, in)
	bytes := dataBytes(w)
	pairs := sharesPair(m, in)
	raised := make([]bool, len(w.Data)) // every reader's key >= the data's size

	key := make([]int64, m)
	visited := make([]bool, m)
	h := make(minheap.Heap[keyEntry], 0, m) // at least one entry per task raised
	var sc *neighbourScan                   // made for the first task sharing two data with another
	order := make([]int, 0, m)
	next := 0 // lowest id that may still be unvisited, for new components
	for len(order) < m {
		v := -1
		for len(h) > 0 {
			e := h.Pop()
			// Lazy deletion: keys only grow, so an entry is current iff it
			// still carries the task's key.
			if !visited[e.id] && e.key == key[e.id] {
				v = int(e.id)
				break
			}
		}
		if v < 0 {
			for visited[next] {
				next++
			}
			v = next
		}
		visited[v] = true
		order = append(order, v)
		raise := func(u int32, k int64) {
			if !visited[u] && k > key[u] {
				key[u] = k
				h.Push(keyEntry{key: k, id: u})
			}
		}
		vin := in(v)
		if pairs[v] {
			if sc == nil {
				sc = newNeighbourScan(m)
			}
			sc.scan(v, vin, users, bytes)
			for _, u := range sc.touched {
				raise(u, sc.acc[u])
			}
			for _, d := range vin {
				raised[d] = true
			}
			continue
		}
		// v shares one data at most with any task: its weight to a reader
		// of d is bytes[d], already a lower bound of the key once raised.
		for _, d := range vin {
			if !raised[d] {
				raised[d] = true
				for _, u := range users[d] {
					raise(u, bytes[d])
				}
			}
		}
	}
	return order
}

// sharesPair reports, per task, whether another task reads two of its
// inputs too (in gives task t's input set): the pairs of every task's
// inputs, sorted, hold a shared pair twice. Without any duplicate (a 2D
// product's tasks share one data at most) no task needs looking up.
func sharesPair(m int, in func(t int) []int32) []bool {
	n := 0
	for t := range m {
		s := in(t)
		n += len(s) * (len(s) - 1) / 2
	}
	pairs := make([]uint64, 0, n)
	for t := range m {
		pairs = appendPairs(pairs, in(t))
	}
	slices.Sort(pairs)
	out := make([]bool, m)
	dup := false
	for i := 1; i < len(pairs) && !dup; i++ {
		dup = pairs[i] == pairs[i-1]
	}
	if !dup {
		return out
	}
	var mine []uint64
	for t := range m {
		mine = appendPairs(mine[:0], in(t))
		for _, p := range mine {
			// A task's set has no pair twice: a second copy is another task's.
			if i, _ := slices.BinarySearch(pairs, p); i+1 < len(pairs) && pairs[i+1] == p {
				out[t] = true
				break
			}
		}
	}
	return out
}

// appendPairs appends the pairs of a sorted set, each as one integer.
func appendPairs(pairs []uint64, s []int32) []uint64 {
	for a := range s {
		for b := a + 1; b < len(s); b++ {
			pairs = append(pairs, uint64(s[a])<<32|uint64(s[b]))
		}
	}
	return pairs
}

// keyEntry orders by larger key first, then lower id.
type keyEntry struct {
	key int64
	id  int32
}

func (a keyEntry) Before(b keyEntry) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	return a.id < b.id
}

// CuthillMcKee returns the Cuthill–McKee order of G^T (thesis Algorithm 3),
// reversed when reverse is true (RCM, the variant the papers use).
//
// Weighted degree of a task = Σ bytes shared with all other tasks. The
// order starts at the task of minimum weighted degree (ties: lowest id); it
// then appends, for each ordered task in turn, its not-yet-ordered
// neighbours sorted by non-decreasing weighted degree (ties: lowest id).
// When a component is exhausted it restarts from the unvisited task of
// minimum weighted degree (ties: lowest id).
func CuthillMcKee(w *workloads.Workload, reverse bool) []int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	in := taskInputs(w) // computed per visit: no set kept per task
	users := readersOf(len(w.Data), m, in)
	bytes := dataBytes(w)

	// Σ_u w(v,u) = Σ_{d∈D(v)} bytes(d)·(readers(d)−1): no neighbour scan.
	deg := make([]int64, m)
	for v := range m {
		for _, d := range in(v) {
			deg[v] += bytes[d] * int64(len(users[d])-1)
		}
	}
	less := func(a, b int32) int {
		if deg[a] != deg[b] {
			if deg[a] < deg[b] {
				return -1
			}
			return 1
		}
		return int(a) - int(b)
	}
	// Restart candidates, by (degree, id).
	byDeg := make([]int32, m)
	for i := range byDeg {
		byDeg[i] = int32(i)
	}
	slices.SortFunc(byDeg, less)

	inOrder := make([]bool, m)
	// A data whose readers were listed once has them all in the order:
	// later tasks reading it skip it, so each data is walked once.
	listed := make([]bool, len(w.Data))
	order := make([]int, 0, m)
	restart := 0
	var nb []int32
	for head := 0; len(order) < m; head++ {
		if head == len(order) {
			for inOrder[byDeg[restart]] {
				restart++
			}
			v := byDeg[restart]
			inOrder[v] = true
			order = append(order, int(v))
		}
		v := order[head]
		nb = nb[:0]
		for _, d := range in(v) {
			if listed[d] {
				continue
			}
			listed[d] = true
			for _, u := range users[d] {
				if !inOrder[u] {
					inOrder[u] = true // also dedups u reached through several data
					nb = append(nb, u)
				}
			}
		}
		slices.SortFunc(nb, less)
		for _, u := range nb {
			order = append(order, int(u))
		}
	}
	if reverse {
		slices.Reverse(order)
	}
	return order
}
