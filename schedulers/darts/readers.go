package darts

import (
	"slices"

	"github.com/memsched/memsched/internal/bitset"
)

// The reader sets: per data x, readers[x] holds the pool tasks reading x,
// in no particular order (every use of them sums or sorts), and possibly
// tasks that left the pool since the last walk over x, which that walk
// drops. A load or an eviction walks the set of its data, so the set is an
// array of compact entries read in order: each carries what the walk needs
// of its task, its other input, and the walk reads no task record, only
// the task's bit in inPool (a bit per task: 125 KB at 1 M tasks, which
// stays in cache). On the 2D product at 1 M tasks the readers of a column
// are N tasks apart, and reading their records was most of DARTS's time.
// A task leaving the pool clears its bit and nothing else; one entering
// it appends an entry to each set where it has none (seated).

// reader is task t's entry in the reader set of one of its inputs.
type reader struct {
	t int32
	o int32 // t's other input when it has two; alone for one input, many for more (read its record)
}

const (
	alone int32 = -1
	many  int32 = -2
)

// initReaders sizes the sets (nr[x] readers of data x, in one array) and
// the bitsets.
func (d *DARTS) initReaders(nr []int) {
	total := 0
	for _, n := range nr {
		total += n
	}
	all := make([]reader, total)
	d.readers = make([][]reader, len(nr))
	for x, n := range nr {
		d.readers[x], all = all[:0:n], all[n:]
	}
	d.inPool = bitset.New(len(d.tasks))
	d.seated = bitset.New(2*len(d.tasks) + len(d.flat))
}

// seat is the index in d.seated of entry r of x's set. With two inputs the
// entry names both, and the smaller one's bit comes first: a walk dropping
// an entry finds its bit without reading its task's record.
func (d *DARTS) seat(r reader, x int32) int {
	switch {
	case r.o >= 0 && x > r.o:
		return 2*int(r.t) + 1
	case r.o != many:
		return 2 * int(r.t)
	}
	return 2*len(d.tasks) + int(d.tasks[r.t].in[0]) + slices.Index(d.inputs(r.t), x)
}

// entryOf is task t's entry in the set of its input x.
func entryOf(t, x int32, in []int32) reader {
	switch {
	case len(in) == 1:
		return reader{t, alone}
	case len(in) > 2:
		return reader{t, many}
	case in[0] == x:
		return reader{t, in[1]}
	}
	return reader{t, in[0]}
}

// join marks t in the pool and adds it to the sets of its inputs where it
// has no entry left.
func (d *DARTS) join(t int32) {
	d.inPool.Add(int(t))
	in := d.inputs(t)
	for _, x := range in {
		r := entryOf(t, x, in)
		if s := d.seat(r, x); !d.seated.Has(s) {
			d.seated.Add(s)
			d.readers[x] = append(d.readers[x], r)
		}
	}
}

// leave marks t out of the pool: walks drop its entries.
func (d *DARTS) leave(t int32) { d.inPool.Del(int(t)) }

// prune drops from x's set the entries of tasks out of the pool.
func (d *DARTS) prune(x int32) []reader {
	rs := d.readers[x]
	j := 0
	for _, r := range rs {
		if !d.inPool.Has(int(r.t)) {
			d.seated.Del(d.seat(r, x))
			continue
		}
		rs[j] = r
		j++
	}
	d.readers[x] = rs[:j]
	return rs[:j]
}
