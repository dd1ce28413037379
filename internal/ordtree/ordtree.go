// Package ordtree is a balanced binary search tree (a treap) of distinct
// keys: insert, delete and in-order iteration in O(log n). MulTreePrio keeps
// one per memory node ("binary balanced trees", COMPAS 2022 §3.1); no
// ordered-set library is among the project's dependencies, and the standard
// library has none.
//
// Node priorities come from a fixed-seed generator, so the shape of a tree,
// and the cost of every operation, is the same on every run.
package ordtree

// Tree holds keys ordered by Less; equal keys (neither less) are one key.
type Tree[K any] struct {
	root  *node[K]
	n     int
	less  func(a, b K) bool
	state uint64 // xorshift state for node priorities
	spare *node[K]
}

type node[K any] struct {
	key         K
	prio        uint64
	left, right *node[K]
}

// New returns an empty tree ordered by less.
func New[K any](less func(a, b K) bool) *Tree[K] {
	return &Tree[K]{less: less, state: 0x9e3779b97f4a7c15}
}

// Len is the number of keys.
func (t *Tree[K]) Len() int { return t.n }

func (t *Tree[K]) nextPrio() uint64 {
	x := t.state
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	t.state = x
	return x
}

// Insert adds k; it reports false when an equal key is already there.
func (t *Tree[K]) Insert(k K) bool {
	nd := t.spare
	if nd != nil {
		t.spare = nd.right
		*nd = node[K]{}
	} else {
		nd = &node[K]{}
	}
	nd.key, nd.prio = k, t.nextPrio()
	var ok bool
	t.root, ok = t.insert(t.root, nd)
	if ok {
		t.n++
	}
	return ok
}

func (t *Tree[K]) insert(r, nd *node[K]) (*node[K], bool) {
	if r == nil {
		return nd, true
	}
	var ok bool
	switch {
	case t.less(nd.key, r.key):
		r.left, ok = t.insert(r.left, nd)
		if ok && r.left.prio > r.prio {
			r = rotateRight(r)
		}
	case t.less(r.key, nd.key):
		r.right, ok = t.insert(r.right, nd)
		if ok && r.right.prio > r.prio {
			r = rotateLeft(r)
		}
	}
	return r, ok
}

func rotateRight[K any](r *node[K]) *node[K] {
	l := r.left
	r.left, l.right = l.right, r
	return l
}

func rotateLeft[K any](r *node[K]) *node[K] {
	l := r.right
	r.right, l.left = l.left, r
	return l
}

// Delete removes k; it reports whether it was there.
func (t *Tree[K]) Delete(k K) bool {
	var gone *node[K]
	t.root, gone = t.delete(t.root, k)
	if gone == nil {
		return false
	}
	t.n--
	gone.left, gone.right = nil, t.spare
	t.spare = gone
	return true
}

func (t *Tree[K]) delete(r *node[K], k K) (*node[K], *node[K]) {
	if r == nil {
		return nil, nil
	}
	var gone *node[K]
	switch {
	case t.less(k, r.key):
		r.left, gone = t.delete(r.left, k)
		return r, gone
	case t.less(r.key, k):
		r.right, gone = t.delete(r.right, k)
		return r, gone
	}
	return merge(r.left, r.right), r
}

// merge joins two treaps whose keys are all ordered (a's before b's).
func merge[K any](a, b *node[K]) *node[K] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		return a
	}
	b.left = merge(a, b.left)
	return b
}

// Min returns the smallest key.
func (t *Tree[K]) Min() (k K, ok bool) {
	r := t.root
	if r == nil {
		return k, false
	}
	for r.left != nil {
		r = r.left
	}
	return r.key, true
}

// Ascend calls f on the keys in increasing order until f returns false.
// The tree must not change during the walk.
func (t *Tree[K]) Ascend(f func(K) bool) {
	var stack []*node[K]
	r := t.root
	for r != nil || len(stack) > 0 {
		for r != nil {
			stack = append(stack, r)
			r = r.left
		}
		r = stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !f(r.key) {
			return
		}
		r = r.right
	}
}

// Height is the depth of the deepest key (0 for an empty tree), for tests.
func (t *Tree[K]) Height() int { return height(t.root) }

func height[K any](r *node[K]) int {
	if r == nil {
		return 0
	}
	return 1 + max(height(r.left), height(r.right))
}
