package batch

import "slices"

// fileOrder lists the nodes holding the placed job's file (FileNodes) by
// increasing lower bound of t_k (plan.fileBound), so a scheduler scores
// them from the earliest and stops at the first bound past its best score
// instead of scoring them all. The jobs of a user's burst share a file and
// a core count and follow one another in the queue: the list is kept while
// they do, and each planning moves only the node it changed.
type fileOrder struct {
	sortedNodes
	file, c int
	valid   bool
	n       int     // the file's nodes listed: a prefix of fileNodes[file]
	member  []bool  // per node: listed
	dirty   []int32 // listed nodes changed since they were placed
	cur     listCursor
}

// maxDirty bounds the changes kept for a list not read meanwhile.
const maxDirty = 64

func newFileOrder(nodes int) fileOrder {
	return fileOrder{sortedNodes: sortedNodes{at: make([]int64, nodes)}, member: make([]bool, nodes)}
}

// note records that node k's bound may have changed.
func (fo *fileOrder) note(k int) {
	if !fo.valid || !fo.member[k] {
		return
	}
	if len(fo.dirty) == maxDirty {
		fo.valid = false
		return
	}
	fo.dirty = append(fo.dirty, int32(k))
}

// ascend brings the list up to date for file (its nodes) and c cores, and
// walks it.
func (fo *fileOrder) ascend(file, c int, nodes []int32, bound func(k int) int64) *listCursor {
	if !fo.valid || fo.file != file || fo.c != c {
		for _, e := range fo.ord {
			fo.member[e.k()] = false
		}
		fo.ord = fo.ord[:0]
		for _, k := range nodes {
			fo.member[k] = true
			fo.at[k] = bound(int(k))
			fo.ord = append(fo.ord, pack(fo.at[k], int(k)))
		}
		slices.Sort(fo.ord)
		fo.file, fo.c, fo.valid = file, c, true
	} else {
		for _, k := range fo.dirty {
			fo.move(int(k), bound(int(k)))
		}
		for _, k := range nodes[fo.n:] {
			fo.member[k] = true
			fo.insert(int(k), bound(int(k)))
		}
	}
	fo.n = len(nodes)
	fo.dirty = fo.dirty[:0]
	fo.cur = listCursor{ord: fo.ord}
	return &fo.cur
}

// listCursor walks a list of nodes by increasing time.
type listCursor struct {
	ord  []entry
	i    int
	last int64
}

func (c *listCursor) Next() (int, int64, bool) {
	if c.i >= len(c.ord) {
		return 0, 0, false
	}
	e := c.ord[c.i]
	c.i++
	c.last = e.t()
	return e.k(), c.last, true
}

func (c *listCursor) SkipGroup() {
	for c.i < len(c.ord) && c.ord[c.i].t() == c.last {
		c.i++
	}
}

func (c *listCursor) Close() {}
