package schedulers

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The tournament tree finds what a scan of the keys finds: the first
// arrival with the least key, the queued arrivals before it and the inputs
// up to it, under random pushes, changes and removals, with ties of counts
// and priorities, and under StarPU's ranking of three counts.
func TestReadyTreeMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 40; it++ {
		// Each arrival is a task of its own, whose record the test sets as
		// the index does before telling the tree.
		ix := &ReadyIndex{starpu: it%4 >= 2}
		if it%2 == 1 {
			ix.Prio = []float64{}
		}
		tree := readyTree{ix: ix}
		var keys []readyKey
		var inputs []queries
		key := func() readyKey {
			k := readyKey{missing: int64(r.IntN(4)), prio: float64(r.IntN(3) * (it % 2))}
			if ix.starpu {
				k.loading, k.alloc = int64(r.IntN(min(3, int(k.missing)+1))), int64(r.IntN(3))
			}
			return k
		}
		for step := 0; step < 3000; step++ {
			if r.IntN(50) == 0 { // as Reserve does: leaves for arrivals to come
				tree.grow(len(keys) + r.IntN(100))
			}
			if r.IntN(100) == 0 { // as AddAll does: every node anew from the records
				tree.build()
			}
			switch op := r.IntN(10); {
			case op < 3 || len(keys) == 0:
				k, n := key(), r.IntN(4)
				wr := r.IntN(n + 1) // of them written only: the packed sums count both
				task := len(ix.tasks)
				ix.tasks = append(ix.tasks, readyTask{missing: k.missing, loading: k.loading, alloc: k.alloc, seq: int32(len(keys)), n: int32(n), w: int32(wr)})
				if ix.Prio != nil {
					ix.Prio = append(ix.Prio, k.prio)
				}
				tree.push(int32(task))
				keys, inputs = append(keys, k), append(inputs, queries(n)|queries(wr)<<32)
			case op < 5:
				if i := r.IntN(len(keys)); keys[i] != readyGone {
					ix.tasks[i].where = -1
					tree.remove(i, keys[i], inputs[i])
					keys[i] = readyGone
				}
			default:
				if i := r.IntN(len(keys)); keys[i] != readyGone {
					k := key()
					ix.tasks[i].missing, ix.tasks[i].loading, ix.tasks[i].alloc = k.missing, k.loading, k.alloc
					if ix.Prio != nil {
						ix.Prio[i] = k.prio
					}
					tree.update(i, keys[i])
					keys[i] = k
				}
			}
			want, before, through, all := -1, 0, queries(0), queries(0)
			for i, k := range keys {
				if k == readyGone {
					continue
				}
				all += inputs[i]
				if want < 0 || k.less(keys[want]) {
					want = i
				}
			}
			for i := 0; i <= want; i++ {
				if keys[i] != readyGone {
					through += inputs[i]
					if i < want {
						before++
					}
				}
			}
			if zero := slices.IndexFunc(keys, func(k readyKey) bool { return k.missing == 0 }); zero >= 0 {
				if got := tree.firstNoneMissing(); got != zero {
					t.Fatalf("run %d step %d: first arrival missing nothing %d, want %d", it, step, got, zero)
				}
			}
			i, b, th := tree.first()
			if i != want || (i >= 0 && (b != before || th+inputs[i] != through)) || tree.queuedInputs() != all {
				t.Fatalf("run %d step %d: first = %d, %d before, %d inputs through, %d in all; want %d, %d, %d, %d",
					it, step, i, b, th, tree.queuedInputs(), want, before, through, all)
			}
		}
	}
}
