package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct{ key, seq int }

func (a item) Before(b item) bool { return a.key < b.key || (a.key == b.key && a.seq < b.seq) }

// Interleaved pushes and pops lose nothing, and a full drain comes out in
// order, for random keys with many ties.
func TestPopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var h Heap[item]
	var out, all []item
	for i := 0; i < 5000; i++ {
		x := item{r.IntN(50), i}
		h.Push(x)
		all = append(all, x)
		if r.IntN(3) == 0 {
			out = append(out, h.Pop())
		}
	}
	for len(h) > 0 {
		out = append(out, h.Pop())
	}
	if len(out) != len(all) {
		t.Fatalf("%d popped of %d pushed", len(out), len(all))
	}
	var drain Heap[item]
	for _, x := range all {
		drain.Push(x)
	}
	var sorted []item
	for len(drain) > 0 {
		sorted = append(sorted, drain.Pop())
	}
	want := slices.Clone(all)
	slices.SortFunc(want, func(a, b item) int {
		if a.Before(b) {
			return -1
		}
		return 1
	})
	if !slices.Equal(sorted, want) {
		t.Fatal("a full drain is not sorted")
	}
}

// Init makes a heap of any arrangement: the drain comes out sorted.
func TestInit(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for n := range 200 {
		h := make(Heap[item], n)
		for i := range h {
			h[i] = item{r.IntN(20), i}
		}
		want := slices.Clone(h)
		slices.SortFunc(want, func(a, b item) int {
			if a.Before(b) {
				return -1
			}
			return 1
		})
		h.Init()
		var got []item
		for len(h) > 0 {
			got = append(got, h.Pop())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: the drain after Init is not sorted", n)
		}
	}
}

// Grow makes room ahead: the pushes it made room for reallocate nothing,
// and the heap still drains in order.
func TestGrow(t *testing.T) {
	var h Heap[item]
	h.Push(item{5, 0})
	h.Grow(1000)
	base := &h[:1][0]
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 1000 {
		h.Push(item{r.IntN(50), i + 1})
	}
	if &h[0] != base {
		t.Fatal("a push within the room Grow made reallocated the heap")
	}
	for prev := h.Pop(); len(h) > 0; {
		next := h.Pop()
		if next.Before(prev) {
			t.Fatalf("%v popped after %v", next, prev)
		}
		prev = next
	}
}
