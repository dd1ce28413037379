package order

import (
	"slices"

	"github.com/memsched/memsched/workloads"
)

// inputSets returns each task's distinct inputs in increasing data id.
// Dedup matters: a task reading a data twice still loads it once.
func inputSets(w *workloads.Workload) [][]int32 {
	sets := make([][]int32, len(w.Tasks))
	total := 0
	for _, t := range w.Tasks {
		total += len(t.Inputs)
	}
	backing := make([]int32, total) // one array for all: a million tasks, one allocation
	for i, t := range w.Tasks {
		sets[i], backing = inputSet(backing, t.Inputs)
	}
	return sets
}

// inputSet writes the sorted, deduplicated inputs at the start of backing
// and returns them (their capacity their length) and the rest of backing.
func inputSet(backing []int32, inputs []int) (set, rest []int32) {
	s := backing[:len(inputs):len(inputs)]
	for k, d := range inputs {
		s[k] = int32(d)
	}
	if len(s) == 2 { // most tasks (the 2D product's): no sort called
		if s[0] > s[1] {
			s[0], s[1] = s[1], s[0]
		} else if s[0] == s[1] {
			s = s[:1]
		}
		return s, backing[2:]
	}
	slices.Sort(s)
	return slices.Compact(s), backing[len(inputs):]
}

// taskInputs returns a function giving task t's distinct inputs (as
// inputSet), computed on demand in one scratch buffer that the next call
// overwrites: passes that visit one task at a time then need no slice per
// task (24 bytes of header each, 24 MB at a million tasks).
func taskInputs(w *workloads.Workload) func(t int) []int32 {
	var buf []int32
	return func(t int) []int32 {
		in := w.Tasks[t].Inputs
		if len(in) > len(buf) {
			buf = make([]int32, len(in))
		}
		set, _ := inputSet(buf, in)
		return set
	}
}

// setsAt serves input sets already computed the way taskInputs does.
func setsAt(in [][]int32) func(p int) []int32 { return func(p int) []int32 { return in[p] } }

// readersOf returns, for each data, the indices p < n whose set at(p)
// holds it, in increasing p.
func readersOf(nData, n int, at func(p int) []int32) [][]int32 {
	count := make([]int32, nData)
	for p := range n {
		for _, d := range at(p) {
			count[d]++
		}
	}
	// One backing array keeps the lists contiguous (cache friendly).
	backing := make([]int32, 0, sumInt32(count))
	users := make([][]int32, nData)
	for d := range users {
		users[d] = backing[len(backing) : len(backing) : len(backing)+int(count[d])]
		backing = backing[:len(backing)+int(count[d])]
	}
	for p := range n {
		for _, d := range at(p) {
			users[d] = append(users[d], int32(p))
		}
	}
	return users
}

func sumInt32(xs []int32) int {
	n := 0
	for _, x := range xs {
		n += int(x)
	}
	return n
}

func dataBytes(w *workloads.Workload) []int64 {
	b := make([]int64, len(w.Data))
	for i, d := range w.Data {
		b[i] = d.Bytes
	}
	return b
}

// neighbourScan accumulates, for one task, the bytes it shares with every
// other task, walking the readers of its data (O(Σ readers), no matrix).
type neighbourScan struct {
	acc     []int64
	stamp   []uint32
	cur     uint32
	touched []int32
}

func newNeighbourScan(m int) *neighbourScan {
	return &neighbourScan{acc: make([]int64, m), stamp: make([]uint32, m)}
}

// scan fills acc for the neighbours of v, whose inputs are vin (v
// excluded), and lists them in touched, in discovery order.
func (s *neighbourScan) scan(v int, vin []int32, users [][]int32, bytes []int64) {
	s.cur++
	s.touched = s.touched[:0]
	for _, d := range vin {
		b := bytes[d]
		for _, u := range users[d] {
			if int(u) == v {
				continue
			}
			if s.stamp[u] != s.cur {
				s.stamp[u] = s.cur
				s.acc[u] = 0
				s.touched = append(s.touched, u)
			}
			s.acc[u] += b
		}
	}
}

// csr holds rows of int32 in one array.
type csr struct {
	off  []int32 // row r is flat[off[r]:off[r+1]]
	flat []int32
}

// newCSR makes an empty csr for rows rows of at most total entries.
func newCSR(rows, total int) csr {
	return csr{off: make([]int32, 1, rows+1), flat: make([]int32, total)}
}

// addSet appends a row, the input set of inputs (as inputSet), and returns it.
func (c *csr) addSet(inputs []int) []int32 {
	n := int(c.off[len(c.off)-1])
	set, _ := inputSet(c.flat[n:], inputs)
	c.off = append(c.off, int32(n+len(set)))
	return set
}

// inputCSR holds every task's input set in one array, with no slice per
// task.
func inputCSR(w *workloads.Workload) csr {
	total := 0
	for _, t := range w.Tasks {
		total += len(t.Inputs)
	}
	c := newCSR(len(w.Tasks), total)
	for _, t := range w.Tasks {
		c.addSet(t.Inputs)
	}
	c.flat = c.flat[:c.off[len(c.off)-1]]
	return c
}

// row r, its capacity its length (appending never reaches the next row).
func (c csr) row(r int) []int32 { return c.flat[c.off[r]:c.off[r+1]:c.off[r+1]] }
