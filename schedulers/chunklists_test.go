package schedulers

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// chunkLists hold what slices appended to and emptied alike hold, in the
// same order, across many adds and clears (chunks reused from the pool,
// lists spanning many chunks and slabs).
func TestChunkListsAgainstSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for inst := 0; inst < 50; inst++ {
		lists := 1 + r.IntN(20)
		c := newChunkLists(lists)
		ref := make([][]int32, lists)
		for step := 0; step < 20000; step++ {
			l := r.IntN(lists)
			switch op := r.IntN(100); {
			case op < 2 && (inst%5 != 0 || r.IntN(100) == 0): // some instances span slabs
				c.clear(l)
				ref[l] = ref[l][:0]
			default:
				x := r.Int32()
				c.add(l, x)
				ref[l] = append(ref[l], x)
			}
			if step%97 == 0 || inst == 0 {
				var got []int32
				c.each(l, func(x int32) { got = append(got, x) })
				if !slices.Equal(got, ref[l]) {
					t.Fatalf("instance %d step %d: list %d holds %v, want %v", inst, step, l, got, ref[l])
				}
			}
		}
	}
}
