package fenwick

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstSlice checks prefix sums against a plain slice under random
// appends and updates.
func TestAgainstSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var f Tree
	var want []int64
	for step := 0; step < 5000; step++ {
		if len(want) == 0 || r.IntN(3) == 0 {
			v := r.Int64N(100)
			f.Append(v)
			want = append(want, v)
		} else {
			p, v := r.IntN(len(want)), r.Int64N(21)-10
			f.Add(p, v)
			want[p] += v
		}
		n := r.IntN(len(want) + 1)
		var s int64
		for _, x := range want[:n] {
			s += x
		}
		if got := f.Prefix(n); got != s {
			t.Fatalf("step %d: Prefix(%d) = %d, want %d", step, n, got, s)
		}
		if p := r.IntN(len(want)); f.Value(p) != want[p] {
			t.Fatalf("step %d: Value(%d) = %d, want %d", step, p, f.Value(p), want[p])
		}
	}
	if f.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", f.Len(), len(want))
	}
}
