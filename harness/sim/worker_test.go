package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// removeAt keeps the order of the rest whichever side it moves (a buffer
// over 64 tasks moves its front when that is the shorter side).
func TestRemoveAt(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8, 9, 64, 65, 66, 70} {
		for i := range n {
			b := &buffer{}
			for k := range n {
				b.add(k)
			}
			want := slices.Delete(slices.Clone(b.tasks), i, i+1)
			if got := b.removeAt(i); got != i || !slices.Equal(b.dense(), want) {
				t.Fatalf("removeAt(0..%d, %d) = %d, %v, want %v", n-1, i, got, b.dense(), want)
			}
		}
	}
}

// A buffer taking tasks by name keeps the order and count of a plain list,
// whatever the mix of adds, takes and dense views, and refuses a task it
// does not hold.
func TestBufferTake(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		const tasks = 64
		b := &buffer{slot: make([]int32, tasks)}
		var want []int
		next := 0
		for range 300 {
			switch op := r.IntN(10); {
			case op < 4 && next < tasks:
				b.add(next)
				want = append(want, next)
				next++
			case op < 8 && len(want) > 0:
				i := r.IntN(len(want))
				if trial%2 == 0 {
					i = r.IntN(min(len(want), 3)) // mostly near the front, as Ready
				}
				if !b.take(want[i]) {
					t.Fatalf("take(%d) refused a task of %v", want[i], want)
				}
				want = slices.Delete(want, i, i+1)
			case op == 8:
				if b.take(next) || (next > 0 && !slices.Contains(want, next-1) && b.take(next-1)) {
					t.Fatal("take accepted a task not in the buffer")
				}
			default:
				if !slices.Equal(b.dense(), want) {
					t.Fatalf("dense = %v, want %v", b.dense(), want)
				}
			}
			if b.len() != len(want) {
				t.Fatalf("len = %d, want %d", b.len(), len(want))
			}
			var each []int
			b.each(func(t int) bool { each = append(each, t); return true })
			if !slices.Equal(each, want) {
				t.Fatalf("each = %v, want %v", each, want)
			}
		}
	}
}
