package hypergraph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memsched/memsched/internal/scratch"
)

// swapHeap is the textbook addressable heap that gainHeap replaced (keys
// read from a shared array, sifting by swaps): gainHeap must leave its
// entries in exactly the same places, since FM breaks gain ties by heap
// position and the partitions must not change.
type swapHeap struct {
	items []int32
	pos   []int32
	gain  []int64
}

func (h *swapHeap) less(i, j int) bool { return h.gain[h.items[i]] > h.gain[h.items[j]] }

func (h *swapHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]] = int32(i)
	h.pos[h.items[j]] = int32(j)
}

func (h *swapHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *swapHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		best := l
		if r := l + 1; r < n && h.less(r, l) {
			best = r
		}
		if !h.less(best, i) {
			return
		}
		h.swap(i, best)
		i = best
	}
}

func (h *swapHeap) push(v int32) {
	h.items = append(h.items, v)
	h.pos[v] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

func (h *swapHeap) remove(v int32) {
	i := int(h.pos[v])
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items = h.items[:last]
	h.pos[v] = -1
	if i != last {
		h.down(i)
		h.up(i)
	}
}

func (h *swapHeap) fix(v int32) {
	i := int(h.pos[v])
	h.down(i)
	h.up(i)
}

// TestGainHeapMatchesSwapHeap runs random pushes, removals (of the top
// mostly, as FM does) and key changes with many ties on both heaps and
// compares their arrays after every operation.
func TestGainHeapMatchesSwapHeap(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		n := 1 + r.IntN(200)
		keys := int64(1 + r.IntN(20)) // few distinct keys: many ties
		gain := make([]int64, n)
		ref := &swapHeap{pos: make([]int32, n), gain: gain}
		h := &gainHeap{vs: make([]vertexState, n)}
		for v := range n {
			ref.pos[v], h.vs[v].pos = -1, -1
		}
		for op := 0; op < 20*n; op++ {
			v := int32(r.IntN(n))
			switch in := ref.pos[v] >= 0; {
			case !in:
				gain[v] = r.Int64N(keys) - keys/2
				ref.push(v)
				h.push(v, gain[v])
			case r.IntN(3) == 0:
				if r.IntN(2) == 0 {
					v = ref.items[0]
				}
				ref.remove(v)
				h.remove(v)
			default:
				if d := r.Int64N(keys) - keys/2; d != 0 {
					gain[v] += d
					ref.fix(v)
					h.fix(v, gain[v])
				}
			}
			if len(h.items) != len(ref.items) {
				t.Fatalf("seed %d op %d: %d entries, want %d", seed, op, len(h.items), len(ref.items))
			}
			for i, it := range h.items {
				if it.v != ref.items[i] || it.gain != gain[it.v] || h.vs[it.v].pos != int32(i) {
					t.Fatalf("seed %d op %d: entry %d is %+v (pos %d), want vertex %d of gain %d",
						seed, op, i, it, h.vs[it.v].pos, ref.items[i], gain[ref.items[i]])
				}
			}
			for v, st := range h.vs {
				if st.pos != ref.pos[v] {
					t.Fatalf("seed %d op %d: position of %d is %d, want %d", seed, op, v, st.pos, ref.pos[v])
				}
			}
		}
	}
}

// randomBisection is a random hypergraph split at random, and a refiner
// bound to it under loose bounds.
func randomBisection(seed, stream uint64) (*hg, []int8, *fm) {
	r := rand.New(rand.NewPCG(seed, stream))
	g := fromHypergraph(randomHypergraph(10+r.IntN(100), 5+r.IntN(100), 2+r.IntN(8), seed))
	part := make([]int8, g.n())
	for v := range part {
		part[v] = int8(r.IntN(2))
	}
	f := &fm{}
	f.reset(g, part, [2]int64{g.totalW, g.totalW}, [2]int64{g.totalW, g.totalW})
	return g, part, f
}

// TestStartPassGains checks the gains and the boundary sets that
// startPass derives from per-edge terms against their definitions: the
// cut decrease of moving v alone, and having a pin of some edge of v on
// the other side.
func TestStartPassGains(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		g, part, f := randomBisection(seed, 6)
		for _, all := range []int8{-1, 0, 1} {
			f.startPass(all)
			cut := g.cut(part)
			for v := range part {
				part[v] ^= 1
				want := cut - g.cut(part)
				part[v] ^= 1
				if f.vs[v].gain != want {
					t.Fatalf("seed %d: gain of %d is %d, want %d", seed, v, f.vs[v].gain, want)
				}
				boundary := false
				for _, e := range g.vertexEdges(int32(v)) {
					for _, p := range g.edgePins(e) {
						boundary = boundary || part[p] != part[v]
					}
				}
				inHeap := f.vs[v].pos >= 0 && f.heaps[part[v]].items[f.vs[v].pos].v == int32(v)
				if inHeap != (boundary || part[v] == all) {
					t.Fatalf("seed %d all %d: vertex %d in heap %v, boundary %v", seed, all, v, inHeap, boundary)
				}
			}
		}
	}
}

// TestCompletionGain checks completionGain against its definition: the cut
// decrease of moving every pin of a cut edge on one side across.
func TestCompletionGain(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		g, part, f := randomBisection(seed, 7)
		f.kcnt = scratch.Resize(f.kcnt, g.m())
		cut := g.cut(part)
		for e := int32(0); int(e) < g.m(); e++ {
			for s := int32(0); s < 2; s++ {
				if f.cnt[e][0] == 0 || f.cnt[e][1] == 0 {
					continue // completeEdges asks about cut edges only
				}
				moved := slices.Clone(part)
				for _, p := range g.edgePins(e) {
					if int32(part[p]) == s {
						moved[p] = 1 - int8(s)
					}
				}
				if got, want := f.completionGain(e, s), cut-g.cut(moved); got != want {
					t.Fatalf("seed %d edge %d side %d: gain %d, want %d", seed, e, s, got, want)
				}
			}
		}
	}
}
