package sim

import (
	"slices"
	"testing"
)

// removeAt keeps the order of the rest whichever side it moves.
func TestRemoveAt(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for i := range n {
			b := make([]int, n, n+2)
			for k := range b {
				b[k] = k
			}
			want := slices.Delete(slices.Clone(b), i, i+1)
			if got := removeAt(b, i); !slices.Equal(got, want) {
				t.Fatalf("removeAt(0..%d, %d) = %v, want %v", n-1, i, got, want)
			}
		}
	}
}
