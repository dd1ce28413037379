package schedulers

import (
	"math/rand/v2"
	"testing"
)

// The tournament tree finds what a scan of the keys finds: the first
// arrival with the least key, under random pushes, changes and removals,
// with ties of counts and priorities.
func TestReadyTreeMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 40; it++ {
		var tree readyTree
		var keys []readyKey
		key := func() readyKey {
			return readyKey{missing: int64(r.IntN(4)), prio: float64(r.IntN(3) * (it % 2))}
		}
		for step := 0; step < 3000; step++ {
			switch op := r.IntN(10); {
			case op < 3 || len(keys) == 0:
				k := key()
				tree.push(k)
				keys = append(keys, k)
			case op < 5:
				i := r.IntN(len(keys))
				tree.set(i, readyGone)
				keys[i] = readyGone
			default:
				i, k := r.IntN(len(keys)), key()
				tree.set(i, k)
				keys[i] = k
			}
			want := -1
			for i, k := range keys {
				if k != readyGone && (want < 0 || k.less(keys[want])) {
					want = i
				}
			}
			if got := tree.first(); got != want {
				t.Fatalf("run %d step %d: first = %d, want %d (keys %v)", it, step, got, want, keys)
			}
		}
	}
}
