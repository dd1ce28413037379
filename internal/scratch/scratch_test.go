package scratch

import (
	"slices"
	"testing"
)

func TestResizeKeepsZeroedClears(t *testing.T) {
	s := []int{1, 2, 3, 4}
	if got := Resize(s, 2); !slices.Equal(got, []int{1, 2}) || &got[0] != &s[0] {
		t.Errorf("Resize within capacity: %v, want [1 2] on the same array", got)
	}
	if got := Resize(s[:1], 4); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("Resize back up within capacity: %v, want the elements it held", got)
	}
	if got := Resize(s, 6); !slices.Equal(got, make([]int, 6)) {
		t.Errorf("Resize past capacity: %v, want 6 zeros", got)
	}
	if got := Zeroed(s, 3); !slices.Equal(got, []int{0, 0, 0}) || &got[0] != &s[0] {
		t.Errorf("Zeroed: %v, want [0 0 0] on the same array", got)
	}
}

// Append appends like append, and a full slice at least doubles: a
// million appends grow the array about twenty times, not about sixty.
func TestAppendDoubles(t *testing.T) {
	var s []int32
	grows := 0
	for i := range int32(1 << 20) {
		before := cap(s)
		s = Append(s, i)
		if cap(s) != before {
			grows++
			if before > 0 && cap(s) < 2*before {
				t.Fatalf("at length %d the capacity grew from %d to %d, less than double", i, before, cap(s))
			}
		}
	}
	for i, x := range s {
		if x != int32(i) {
			t.Fatalf("s[%d] = %d", i, x)
		}
	}
	if grows > 20 {
		t.Errorf("%d growths for 2^20 appends", grows)
	}
}
