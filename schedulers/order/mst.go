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
// starts a new component. Cost: O(Σ_d |readers(d)|² + m log m) through the
// readers of each data; no m×m structure is built.
func MST(w *workloads.Workload) []int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	in := inputSets(w)
	users := readers(len(w.Data), in)
	bytes := dataBytes(w)

	key := make([]int64, m)
	visited := make([]bool, m)
	sc := newNeighbourScan(m)
	var h minheap.Heap[keyEntry]
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
		sc.scan(v, in, users, bytes)
		for _, u := range sc.touched {
			if !visited[u] && sc.acc[u] > key[u] {
				key[u] = sc.acc[u]
				h.Push(keyEntry{key: key[u], id: u})
			}
		}
	}
	return order
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
	in := inputSets(w)
	users := readers(len(w.Data), in)
	bytes := dataBytes(w)

	// Σ_u w(v,u) = Σ_{d∈D(v)} bytes(d)·(readers(d)−1): no neighbour scan.
	deg := make([]int64, m)
	for v, s := range in {
		for _, d := range s {
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
		for _, d := range in[v] {
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
