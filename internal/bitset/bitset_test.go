package bitset

import (
	"math/rand/v2"
	"testing"
)

// A Set against a map, over random additions and removals.
func TestSetAgainstAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 63, 64, 65, 200} {
		s, want := New(n), map[int]bool{}
		for range 20 * n {
			i := rng.IntN(n)
			switch rng.IntN(3) {
			case 0:
				s.Add(i)
				want[i] = true
			case 1:
				s.Del(i)
				delete(want, i)
			default:
				in := rng.IntN(2) == 0
				s.Put(i, in)
				if in {
					want[i] = true
				} else {
					delete(want, i)
				}
			}
			if s.Has(i) != want[i] {
				t.Fatalf("n=%d: Has(%d) = %v", n, i, s.Has(i))
			}
		}
		for i := range n {
			if s.Has(i) != want[i] {
				t.Errorf("n=%d: Has(%d) = %v, want %v", n, i, s.Has(i), want[i])
			}
		}
		if s.Count() != len(want) {
			t.Errorf("n=%d: Count = %d, want %d", n, s.Count(), len(want))
		}
	}
}

// Next and Fill against a brute-force scan of a map, over random sets.
func TestNextAndFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 20, 48, 63, 64, 65, 130, 200} {
		for range 50 {
			s, want := New(n), map[int]bool{}
			if f := rng.IntN(n + 1); rng.IntN(4) == 0 {
				s.Fill(f)
				for i := range f {
					want[i] = true
				}
			}
			for range rng.IntN(n + 1) {
				i := rng.IntN(n)
				if rng.IntN(3) == 0 {
					s.Del(i)
					delete(want, i)
				} else {
					s.Add(i)
					want[i] = true
				}
			}
			for i := 0; i <= n+64; i++ {
				next := -1
				for j := i; j < n; j++ {
					if want[j] {
						next = j
						break
					}
				}
				if got := s.Next(i); got != next {
					t.Fatalf("n=%d: Next(%d) = %d, want %d", n, i, got, next)
				}
			}
			if s.Count() != len(want) {
				t.Fatalf("n=%d: Count = %d, want %d", n, s.Count(), len(want))
			}
		}
	}
}
