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

// MSTStarPU returns the order StarPU's mst scheduler runs at the papers'
// tag (papers/ICPP2023, src/sched_policies/mst_policy.c), which differs
// from Algorithm 4 (MST) in three ways:
//
//   - mst_push_task puts each submitted task at the front of its list
//     (starpu_task_list_push_front), so mst() numbers the tasks in reverse
//     submission order: index 0 is the last task submitted, and Prim
//     starts there (key[0] = 1);
//   - mst() fills the adjacency matrix for i < j only (matrice_adjacence
//     [i][j], never [j][i]) and Prim raises key[v] from u only where
//     matrice_adjacence[u][v] > 0: a task added to the tree raises the
//     keys of the tasks submitted before it, never after;
//   - an edge's weight is the number of pairs of equal handles the two
//     tasks access (a count, with repeats: not bytes).
//
// The next task is the one not in the tree with the largest key, ties to
// the lowest index (the latest submitted), and with every key 0 the
// latest-submitted task not in the tree. On a 2D product this is the
// reverse of the submission order.
//
// Like MST it builds no m×m matrix. A task's key is raised to 1 by the
// readers of its data; once the readers of a data submitted before task u
// were raised, a later task reading it raises only those between: each
// data's readers are walked once in all, unless a task shares two data
// with another or reads one twice (then its neighbours are walked, as
// MST does).
func MSTStarPU(w *workloads.Workload) []int {
	m := len(w.Tasks)
	if m == 0 {
		return nil
	}
	var buf []int32
	raw := func(t int) []int32 { // the handles as the task lists them, repeats kept
		buf = buf[:0]
		for _, d := range w.Tasks[t].Inputs {
			buf = append(buf, int32(d))
		}
		return buf
	}
	dup := false
	sets := taskInputs(w)
	for t := range w.Tasks {
		if len(sets(t)) != len(w.Tasks[t].Inputs) {
			dup = true
			break
		}
	}
	users := readersOf(len(w.Data), m, raw) // a task reading a data twice is listed twice
	var pairs []bool
	if !dup {
		pairs = sharesPair(m, sets)
	}
	raisedTo := make([]int32, len(w.Data)) // users[d][:raisedTo[d]] have key >= 1 or are in the tree

	key := make([]int64, m)
	visited := make([]bool, m)
	h := make(minheap.Heap[starpuKey], 0, m)
	var acc []int64 // the weights of the task just added to its neighbours, when walked
	var touched []int32
	order := make([]int, 0, m)
	next := m - 1 // highest id that may still be unvisited: the lowest StarPU index
	raise := func(u int32, k int64) {
		if !visited[u] && k > key[u] {
			key[u] = k
			h.Push(starpuKey{key: k, id: u})
		}
	}
	for len(order) < m {
		v := -1
		for len(h) > 0 {
			e := h.Pop()
			if !visited[e.id] && e.key == key[e.id] {
				v = int(e.id)
				break
			}
		}
		if v < 0 {
			for visited[next] {
				next--
			}
			v = next
		}
		visited[v] = true
		order = append(order, v)
		before := func(d int32) int { // readers of d submitted before v
			i, _ := slices.BinarySearch(users[d], int32(v))
			return i
		}
		if dup || pairs[v] {
			if acc == nil {
				acc = make([]int64, m)
			}
			touched = touched[:0]
			for _, d := range raw(v) {
				for _, u := range users[d][:before(d)] {
					if !visited[u] {
						if acc[u] == 0 {
							touched = append(touched, u)
						}
						acc[u]++
					}
				}
			}
			for _, u := range touched {
				raise(u, acc[u])
				acc[u] = 0
			}
			for _, d := range raw(v) {
				raisedTo[d] = max(raisedTo[d], int32(before(d)))
			}
			continue
		}
		// v shares one data at most with any task, once: its weight to a
		// reader of d submitted before it is 1.
		for _, d := range raw(v) {
			r := users[d]
			for i := raisedTo[d]; int(i) < len(r) && int(r[i]) < v; i++ {
				raise(r[i], 1)
				raisedTo[d] = i + 1
			}
		}
	}
	return order
}

// starpuKey orders by larger key first, then higher id (StarPU's lower
// index in its reversed list).
type starpuKey struct {
	key int64
	id  int32
}

func (a starpuKey) Before(b starpuKey) bool {
	if a.key != b.key {
		return a.key > b.key
	}
	return a.id > b.id
}
