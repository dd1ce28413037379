package ordtree

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A few keys in many operations (deleted nodes reused), and many keys
// (nodes in several chunks).
func TestAgainstSortedSlice(t *testing.T) {
	for _, keys := range []int{3000, 30000} {
		testAgainstSortedSlice(t, keys)
	}
}

func testAgainstSortedSlice(t *testing.T, keys int) {
	tr := New(func(a, b int) bool { return a < b })
	var ref []int
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		k := r.IntN(keys)
		pos, found := slices.BinarySearch(ref, k)
		if r.IntN(3) > 0 {
			if got := tr.Insert(k); got == found {
				t.Fatalf("Insert(%d) = %v with found = %v", k, got, found)
			}
			if !found {
				ref = slices.Insert(ref, pos, k)
			}
		} else {
			if got := tr.Delete(k); got != found {
				t.Fatalf("Delete(%d) = %v with found = %v", k, got, found)
			}
			if found {
				ref = slices.Delete(ref, pos, pos+1)
			}
		}
		if tr.Len() != len(ref) {
			t.Fatalf("Len %d, want %d", tr.Len(), len(ref))
		}
	}
	var got []int
	tr.Ascend(func(k int) bool { got = append(got, k); return true })
	if !slices.Equal(got, ref) {
		t.Fatalf("in-order walk differs from the sorted reference")
	}
	if m, _ := tr.Min(); len(ref) > 0 && m != ref[0] {
		t.Fatalf("Min %d, want %d", m, ref[0])
	}
	// A treap of n keys is O(log n) deep with high probability; the fixed
	// seed makes this deterministic.
	if h := tr.Height(); h > 50 {
		t.Fatalf("height %d for %d keys: not balanced", h, tr.Len())
	}
}

func TestAscendStops(t *testing.T) {
	tr := New(func(a, b int) bool { return a < b })
	for _, k := range []int{5, 1, 4, 2, 3} {
		tr.Insert(k)
	}
	var got []int
	tr.Ascend(func(k int) bool { got = append(got, k); return k < 3 })
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
}

// Deleting and inserting as many keys again reuses the deleted nodes.
func TestDeletedNodesReused(t *testing.T) {
	tr := New(func(a, b int) bool { return a < b })
	for k := range 10000 {
		tr.Insert(k)
	}
	used := tr.used
	for k := range 5000 {
		tr.Delete(2 * k)
	}
	for k := range 5000 {
		tr.Insert(-k - 1)
	}
	if tr.used != used || tr.Len() != 10000 {
		t.Fatalf("%d nodes handed out after reinserting, %d before; %d keys", tr.used, used, tr.Len())
	}
	if m, _ := tr.Min(); m != -5000 {
		t.Fatalf("Min %d, want -5000", m)
	}
}

// Keys inserted in order get nodes in order, and so priorities hashed from
// increasing indices: the tree stays balanced (a treap of n keys is about
// 2.5·ln n deep; 100,000 keys, about 29).
func TestSortedInsertsBalanced(t *testing.T) {
	tr := New(func(a, b int) bool { return a < b })
	for k := range 100000 {
		tr.Insert(k)
	}
	if h := tr.Height(); h > 60 {
		t.Fatalf("height %d for 100,000 keys inserted in order", h)
	}
}

// An insertion past the greatest key appends along the right spine; the
// tree it builds is the one the descent and its rotations build, node for
// node, through runs of appends broken by deletions, insertions in the
// middle and an emptied tree. The reference inserts by descent only.
func TestAppendBuildsTheDescentsTree(t *testing.T) {
	less := func(a, b int) bool { return a < b }
	tr, ref := New(less), New(less)
	r := rand.New(rand.NewPCG(4, 4))
	next := 0
	for step := range 30000 {
		switch op := r.IntN(20); {
		case step == 20000: // empty both: appends start again
			for tr.Len() > 0 {
				m, _ := tr.Min()
				tr.Delete(m)
				ref.Delete(m)
			}
		case op == 0 && tr.Len() > 0:
			k := r.IntN(next)
			tr.Delete(k)
			ref.Delete(k)
		case op == 1 && next > 0:
			k := r.IntN(next)
			if tr.Insert(k) != ref.descend(k) {
				t.Fatalf("step %d: Insert(%d) disagrees with the descent", step, k)
			}
		default:
			next += 1 + r.IntN(3)
			tr.Insert(next)
			ref.descend(next)
		}
		if step%997 == 0 || step == 20000 {
			if !sameShape(tr, ref, tr.root, ref.root) || tr.Len() != ref.Len() {
				t.Fatalf("step %d: the trees differ", step)
			}
		}
	}
	if !sameShape(tr, ref, tr.root, ref.root) {
		t.Fatal("the trees differ at the end")
	}
}

func sameShape(a, b *Tree[int], x, y int32) bool {
	if x == 0 || y == 0 {
		return x == y
	}
	na, nb := a.at(x), b.at(y)
	return x == y && na.key == nb.key && sameShape(a, b, na.left, nb.left) && sameShape(a, b, na.right, nb.right)
}
