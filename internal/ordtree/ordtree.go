// Package ordtree is a balanced binary search tree (a treap) of distinct
// keys: insert, delete and in-order iteration in O(log n). MulTreePrio keeps
// one per memory node ("binary balanced trees", COMPAS 2022 §3.1); no
// ordered-set library is among the project's dependencies, and the standard
// library has none.
//
// Nodes live in fixed-size chunks and link by 32-bit index: with a
// 16-byte key a node is 24 bytes, not 48 with pointers and a stored
// priority, the collector has no pointer to follow in them, and growing
// never copies a node. A million-task MulTreePrio run holds four million.
// A node's priority is a hash of its index (the treap needs priorities
// independent of the keys, which these are), so the shape of a tree, and
// the cost of every operation, is the same on every run.
package ordtree

// Tree holds keys ordered by Less; equal keys (neither less) are one key.
type Tree[K any] struct {
	chunks []*[chunkSize]node[K] // node i is chunks[i>>chunkBits][i&chunkMask]; node 0 is none
	used   int32                 // nodes handed out, node 0 included
	spare  int32                 // deleted nodes, linked by right
	root   int32
	n      int
	less   func(a, b K) bool
	stack  []int32 // Ascend's, kept: a walk per pop allocated one (200 MB at a million tasks)
	// spine is the path from the root down its right links, while every
	// change since the tree was empty was an insertion past the greatest
	// key (spineOK): such an insertion is then a Cartesian-tree append,
	// amortised O(1) instead of a descent (MulTreePrio pushes the tasks
	// of an independent task set in key order).
	spine   []int32
	spineOK bool
}

type node[K any] struct {
	key         K
	left, right int32
}

const (
	chunkBits = 12
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// New returns an empty tree ordered by less.
func New[K any](less func(a, b K) bool) *Tree[K] {
	return &Tree[K]{less: less, used: 1}
}

// Len is the number of keys.
func (t *Tree[K]) Len() int { return t.n }

func (t *Tree[K]) at(i int32) *node[K] { return &t.chunks[i>>chunkBits][i&chunkMask] }

// prio is node i's treap priority (splitmix64's finaliser).
func prio(i int32) uint64 {
	x := uint64(i) + 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// alloc returns a fresh node holding k.
func (t *Tree[K]) alloc(k K) int32 {
	i := t.spare
	if i != 0 {
		t.spare = t.at(i).right
	} else {
		if int(t.used)>>chunkBits == len(t.chunks) {
			t.chunks = append(t.chunks, new([chunkSize]node[K]))
		}
		i = t.used
		t.used++
	}
	*t.at(i) = node[K]{key: k}
	return i
}

// Insert adds k; it reports false when an equal key is already there.
func (t *Tree[K]) Insert(k K) bool {
	if t.root == 0 {
		t.spine, t.spineOK = t.spine[:0], true
	}
	if t.spineOK && (len(t.spine) == 0 || t.less(t.at(t.spine[len(t.spine)-1]).key, k)) {
		t.append(t.alloc(k))
		t.n++
		return true
	}
	t.spineOK = false
	return t.descend(k)
}

// descend inserts k from the root down, rotating it up to its place.
func (t *Tree[K]) descend(k K) bool {
	nd := t.alloc(k)
	var ok bool
	t.root, ok = t.insert(t.root, nd)
	if ok {
		t.n++
	} else {
		t.free(nd)
	}
	return ok
}

// append places node nd, whose key is past every other, where insert
// would: below the last node of the right spine that outranks it, with the
// spine nodes it outranks as its left subtree (the rotations insert makes
// on its way up).
func (t *Tree[K]) append(nd int32) {
	p, below := prio(nd), int32(0)
	for len(t.spine) > 0 && prio(t.spine[len(t.spine)-1]) < p {
		below = t.spine[len(t.spine)-1]
		t.spine = t.spine[:len(t.spine)-1]
	}
	t.at(nd).left = below
	if len(t.spine) > 0 {
		t.at(t.spine[len(t.spine)-1]).right = nd
	} else {
		t.root = nd
	}
	t.spine = append(t.spine, nd)
}

func (t *Tree[K]) insert(r, nd int32) (int32, bool) {
	if r == 0 {
		return nd, true
	}
	var ok bool
	// Only the new node can outrank its parent: a child that is not nd
	// kept its place below r, and so its lower priority. (rn stays valid
	// across the call: nodes never move.)
	rn, k := t.at(r), t.at(nd).key
	switch {
	case t.less(k, rn.key):
		rn.left, ok = t.insert(rn.left, nd)
		if rn.left == nd && prio(nd) > prio(r) {
			r = t.rotateRight(r)
		}
	case t.less(rn.key, k):
		rn.right, ok = t.insert(rn.right, nd)
		if rn.right == nd && prio(nd) > prio(r) {
			r = t.rotateLeft(r)
		}
	}
	return r, ok
}

func (t *Tree[K]) rotateRight(r int32) int32 {
	rn := t.at(r)
	l := rn.left
	ln := t.at(l)
	rn.left, ln.right = ln.right, r
	return l
}

func (t *Tree[K]) rotateLeft(r int32) int32 {
	rn := t.at(r)
	l := rn.right
	ln := t.at(l)
	rn.right, ln.left = ln.left, r
	return l
}

func (t *Tree[K]) free(i int32) {
	nd := t.at(i)
	nd.left, nd.right = 0, t.spare
	t.spare = i
}

// Delete removes k; it reports whether it was there.
func (t *Tree[K]) Delete(k K) bool {
	t.spineOK = false
	var gone int32
	t.root, gone = t.delete(t.root, k)
	if gone == 0 {
		return false
	}
	t.n--
	t.free(gone)
	return true
}

func (t *Tree[K]) delete(r int32, k K) (int32, int32) {
	if r == 0 {
		return 0, 0
	}
	var gone int32
	rn := t.at(r)
	switch {
	case t.less(k, rn.key):
		rn.left, gone = t.delete(rn.left, k)
		return r, gone
	case t.less(rn.key, k):
		rn.right, gone = t.delete(rn.right, k)
		return r, gone
	}
	return t.merge(rn.left, rn.right), r
}

// merge joins two treaps whose keys are all ordered (a's before b's).
func (t *Tree[K]) merge(a, b int32) int32 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	if prio(a) > prio(b) {
		an := t.at(a)
		an.right = t.merge(an.right, b)
		return a
	}
	bn := t.at(b)
	bn.left = t.merge(a, bn.left)
	return b
}

// Min returns the smallest key.
func (t *Tree[K]) Min() (k K, ok bool) {
	r := t.root
	if r == 0 {
		return k, false
	}
	for t.at(r).left != 0 {
		r = t.at(r).left
	}
	return t.at(r).key, true
}

// Ascend calls f on the keys in increasing order until f returns false.
// The tree must not change during the walk.
func (t *Tree[K]) Ascend(f func(K) bool) {
	stack := t.stack[:0]
	t.stack = nil // a walk f starts on this tree gets its own stack
	for r := t.root; r != 0 || len(stack) > 0; {
		for r != 0 {
			stack = append(stack, r)
			r = t.at(r).left
		}
		nd := t.at(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if !f(nd.key) {
			break
		}
		r = nd.right
	}
	t.stack = stack[:0]
}

// Height is the depth of the deepest key (0 for an empty tree), for tests.
func (t *Tree[K]) Height() int { return t.height(t.root) }

func (t *Tree[K]) height(r int32) int {
	if r == 0 {
		return 0
	}
	return 1 + max(t.height(t.at(r).left), t.height(t.at(r).right))
}
