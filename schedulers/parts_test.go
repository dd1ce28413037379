package schedulers

import "testing"

// LUF's first two rules on hand-checked candidates (least recently used
// first): skip the buffered ones, take the first unplanned, else the first
// with the fewest planned readers.
func TestLeastUsedVictim(t *testing.T) {
	buffered := map[int]bool{1: true, 4: true}
	planned := map[int]int32{2: 3, 3: 1, 5: 1, 6: 0}
	isBuf := func(c int) bool { return buffered[c] }
	np := func(c int) int32 { return planned[c] }
	for _, c := range []struct {
		cands []int
		want  int
	}{
		{[]int{1, 2, 3, 5}, 3},    // fewest planned, the first of the ties
		{[]int{2, 6, 3}, 6},       // no planned reader: taken at once
		{[]int{1, 4}, -1},         // every candidate buffered
		{[]int{4, 2}, 2},          // the only unbuffered one
		{[]int{7}, 7},             // unknown data: no reader at all
		{[]int{2, 3, 1, 6, 5}, 6}, // an unplanned one beats fewer planned
	} {
		if got := LeastUsedVictim(c.cands, isBuf, np); got != c.want {
			t.Errorf("LeastUsedVictim(%v) = %d, want %d", c.cands, got, c.want)
		}
	}
}
