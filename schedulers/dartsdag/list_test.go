package dartsdag

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDataListMatchesSlice applies random pushes, insertions (some at the
// front, to exhaust the gaps between keys), drops and compactions to a
// dataList and to a plain slice, and compares the live entries in order,
// their keys' order and the live count after every step.
func TestDataListMatchesSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	for round := range 50 {
		const nd = 40
		l := newDataList(nd)
		var ref []int32
		for step := range 2000 {
			x := int32(rng.IntN(nd))
			in := slices.Contains(ref, x)
			switch op := rng.IntN(10); {
			case op < 3 && !in:
				l.push(x)
				ref = append(ref, x)
			case op < 7 && !in:
				r := 0
				if len(ref) > 0 && rng.IntN(3) > 0 {
					r = rng.IntN(len(ref) + 1)
				}
				l.insert(r, x)
				ref = slices.Insert(ref, r, x)
			case op < 9:
				l.drop(x)
				if i := slices.Index(ref, x); i >= 0 {
					ref = slices.Delete(ref, i, i+1)
				}
			default:
				l.compact()
			}
			var got []int32
			for _, e := range l.entries {
				if l.live(e) {
					got = append(got, e.data)
				}
			}
			if !slices.Equal(got, ref) || l.len() != len(ref) {
				t.Fatalf("round %d step %d: list %v (len %d), want %v", round, step, got, l.len(), ref)
			}
			for i := 1; i < len(ref); i++ {
				if !l.before(ref[i-1], ref[i]) || l.before(ref[i], ref[i-1]) {
					t.Fatalf("round %d step %d: keys of %d and %d out of order", round, step, ref[i-1], ref[i])
				}
			}
			for x := range int32(nd) {
				if l.has(x) != slices.Contains(ref, x) {
					t.Fatalf("round %d step %d: has(%d) = %v", round, step, x, l.has(x))
				}
			}
		}
	}
}
