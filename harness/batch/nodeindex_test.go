package batch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNodeIndexAgreesWithSort checks the index's walks against the nodes
// sorted by (time, node), on random keys, touches, clocks, ranges and
// skipped groups.
func TestNodeIndexAgreesWithSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for inst := 0; inst < 200; inst++ {
		n, cores := 1+r.IntN(150), 1+r.IntN(4)
		keys := make([]int64, n*cores) // node k, c cores: keys[k*cores+c-1]
		span := int64(1 + r.IntN(40))  // small spans give ties
		now := int64(0)
		x := newNodeIndex(n, cores, func(c, k int) int64 { return keys[k*cores+c-1] })
		for step := 0; step < 60; step++ {
			// Change a few nodes (or many), then maybe move the clock.
			changes := r.IntN(4)
			if r.IntN(8) == 0 {
				changes = n
			}
			for i := 0; i < changes; i++ {
				k := r.IntN(n)
				for c := 1; c <= cores; c++ {
					keys[k*cores+c-1] = now + r.Int64N(span) - span/4
				}
				x.touch(k)
			}
			if r.IntN(3) == 0 {
				now += r.Int64N(span/2 + 1)
			}
			x.advance(now)
			c := 1 + r.IntN(cores)
			lo := r.IntN(n + 1)
			hi := lo + r.IntN(n+2-lo)
			// The walk wanted: free nodes in node order at now, then the
			// others by (time, node); a skip passes the rest of a group.
			type kv struct {
				k int
				t int64
			}
			var want []kv
			for k := lo; k < min(hi, n); k++ {
				want = append(want, kv{k, max(keys[k*cores+c-1], now)})
			}
			slices.SortStableFunc(want, func(a, b kv) int {
				fa, fb := a.t <= now, b.t <= now
				switch {
				case fa && fb:
					return a.k - b.k
				case fa != fb:
					if fa {
						return -1
					}
					return 1
				}
				return entry{a.t, int32(a.k)}.cmp(entry{b.t, int32(b.k)})
			})
			cu := x.ascend(c, lo, hi)
			for i := 0; ; {
				k, tk, ok := cu.Next()
				if i == len(want) {
					if ok {
						t.Fatalf("instance %d step %d: extra node %d at %d", inst, step, k, tk)
					}
					break
				}
				if !ok || k != want[i].k || tk != want[i].t {
					t.Fatalf("instance %d step %d (c=%d, [%d,%d), now %d): got %d at %d (%v), want %d at %d", inst, step, c, lo, hi, now, k, tk, ok, want[i].k, want[i].t)
				}
				i++
				if r.IntN(5) == 0 {
					cu.SkipGroup()
					free := tk <= now
					for i < len(want) && (free && want[i].t <= now || !free && want[i].t == tk) {
						i++
					}
				}
			}
			cu.Close()
		}
	}
}
