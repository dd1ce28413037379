package dartsdag

import "slices"

// dataList is dataNotInMem_k: data in order, appended at the end or
// inserted at a drawn position. Removal is lazy (a dead entry stays until
// the next compaction), and every live entry carries an order key that
// increases along the list, so that a decision that looks at a few data
// only can still break ties by list position (the first listed wins).
// Keys increase along the whole array, dead entries included (an append
// takes a key past the last, an insertion compacts first), so an entry is
// live when its key is its data's.
type dataList struct {
	entries []listed
	keyOf   []uint64 // per data, the order key of its live entry; 0 when absent
	dead    int
}

type listed struct {
	data int32
	key  uint64
}

// Order keys are spaced keyGap apart when (re)labelled or appended; an
// insertion takes the middle of its neighbours' gap and relabels the whole
// list when there is none left, which takes about 32 insertions into one gap.
const (
	keyGap = 1 << 32
	keyMax = 1 << 62
)

func newDataList(nd int) dataList {
	return dataList{keyOf: make([]uint64, nd)}
}

func (l *dataList) has(x int32) bool { return l.keyOf[x] != 0 }

func (l *dataList) live(e listed) bool { return l.keyOf[e.data] == e.key }

// before reports whether x is listed before y (both listed).
func (l *dataList) before(x, y int32) bool { return l.keyOf[x] < l.keyOf[y] }

// push appends x (absent) at the end.
func (l *dataList) push(x int32) {
	key := uint64(keyGap)
	if len(l.entries) > 0 {
		key = l.entries[len(l.entries)-1].key + keyGap
	}
	if key > keyMax {
		l.relabel()
		key = uint64(len(l.entries)+1) * keyGap
	}
	l.entries = append(l.entries, l.entry(x, key))
}

// insert puts x (absent) before the live entry of index r, counted
// without the dead entries (len(): at the end).
func (l *dataList) insert(r int, x int32) {
	l.compact()
	if r == len(l.entries) {
		l.push(x)
		return
	}
	lo := func() uint64 {
		if r == 0 {
			return 0
		}
		return l.entries[r-1].key
	}
	if l.entries[r].key-lo() < 2 {
		l.relabel()
	}
	key := lo() + (l.entries[r].key-lo())/2
	l.entries = slices.Insert(l.entries, r, l.entry(x, key))
}

func (l *dataList) entry(x int32, key uint64) listed {
	l.keyOf[x] = key
	return listed{x, key}
}

// relabel spaces the keys of the (compacted) list keyGap apart again.
func (l *dataList) relabel() {
	l.compact()
	for i := range l.entries {
		k := uint64(i+1) * keyGap
		l.entries[i].key = k
		l.keyOf[l.entries[i].data] = k
	}
}

// drop takes x out of the list if it is there. The list compacts itself
// once most of its entries are dead (decisions no longer walk it).
func (l *dataList) drop(x int32) {
	if l.keyOf[x] != 0 {
		l.keyOf[x] = 0
		if l.dead++; l.dead > 64 && 2*l.dead > len(l.entries) {
			l.compact()
		}
	}
}

// len is the number of live entries.
func (l *dataList) len() int { return len(l.entries) - l.dead }

// compact removes the dead entries.
func (l *dataList) compact() {
	if l.dead == 0 {
		return
	}
	j := 0
	for _, e := range l.entries {
		if l.live(e) {
			l.entries[j] = e
			j++
		}
	}
	l.entries = l.entries[:j]
	l.dead = 0
}

// counts holds a count per data and the set of data whose count is
// positive, in no order, so that a decision visits only those.
type counts struct {
	n       []int32 // per data
	members []int32 // the data with n > 0
	at      []int32 // per data, 1 + its index in members; 0 when absent
}

func newCounts(nd int) counts {
	return counts{n: make([]int32, nd), at: make([]int32, nd)}
}

// add moves x's count by delta.
func (c *counts) add(x, delta int32) {
	was := c.n[x] > 0
	c.n[x] += delta
	switch now := c.n[x] > 0; {
	case now && !was:
		c.members = append(c.members, x)
		c.at[x] = int32(len(c.members))
	case was && !now:
		i := c.at[x] - 1
		last := c.members[len(c.members)-1]
		c.members[i], c.at[last] = last, i+1
		c.members = c.members[:len(c.members)-1]
		c.at[x] = 0
	}
}
