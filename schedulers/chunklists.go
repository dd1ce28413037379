package schedulers

// chunkLists are many lists of int32 that grow by appends and empty at
// once, kept in fixed chunks of one shared pool: an emptied list's chunks
// go back to the pool for the next appends, and the pool grows by whole
// slabs, never copied. Slices would leave behind, as they grow, copies as
// large as what they hold: the Ready index's lists of tasks waiting for a
// data peak together when dmda queues every task at once (two million
// entries at a million tasks).
type chunkLists struct {
	first, last []int32 // per list: its first and last chunk, -1 when empty
	slabs       [][]listChunk
	free        int32 // first chunk of the pool, -1 when it is empty
}

const (
	chunkItems = 14 // a chunk is 64 bytes
	slabShift  = 10 // chunks per slab: 1 << slabShift
)

type listChunk struct {
	items [chunkItems]int32
	n     int32 // items used
	next  int32 // next chunk of the list or of the pool, -1 at the end
}

func newChunkLists(lists int) *chunkLists {
	c := &chunkLists{first: make([]int32, lists), last: make([]int32, lists), free: -1}
	for l := range c.first {
		c.first[l], c.last[l] = -1, -1
	}
	return c
}

func (c *chunkLists) chunk(i int32) *listChunk { return &c.slabs[i>>slabShift][i&(1<<slabShift-1)] }

// add appends x to a list.
func (c *chunkLists) add(list int, x int32) {
	if l := c.last[list]; l >= 0 {
		if ch := c.chunk(l); ch.n < chunkItems {
			ch.items[ch.n] = x
			ch.n++
			return
		}
	}
	i := c.take()
	ch := c.chunk(i)
	ch.items[0], ch.n, ch.next = x, 1, -1
	if l := c.last[list]; l >= 0 {
		c.chunk(l).next = i
	} else {
		c.first[list] = i
	}
	c.last[list] = i
}

// take returns a chunk from the pool, adding a slab when it is empty.
func (c *chunkLists) take() int32 {
	if c.free < 0 {
		base := int32(len(c.slabs)) << slabShift
		slab := make([]listChunk, 1<<slabShift)
		for j := range slab {
			slab[j].next = base + int32(j) + 1
		}
		slab[len(slab)-1].next = -1
		c.slabs = append(c.slabs, slab)
		c.free = base
	}
	i := c.free
	c.free = c.chunk(i).next
	return i
}

// clear empties a list, giving its chunks back to the pool.
func (c *chunkLists) clear(list int) {
	if f := c.first[list]; f >= 0 {
		c.chunk(c.last[list]).next = c.free
		c.free = f
		c.first[list], c.last[list] = -1, -1
	}
}

// each calls visit on a list's items in the order they were added.
func (c *chunkLists) each(list int, visit func(x int32)) {
	for i := c.first[list]; i >= 0; {
		ch := c.chunk(i)
		for _, x := range ch.items[:ch.n] {
			visit(x)
		}
		i = ch.next
	}
}
