package batch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNodeIndexAgreesWithSort checks the index's walks against the nodes
// sorted by (time, node), on random keys, touches, resets to the running
// jobs' times, clocks, ranges and skipped groups.
func TestNodeIndexAgreesWithSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for inst := 0; inst < 200; inst++ {
		n, cores := 1+r.IntN(150), 1+r.IntN(4)
		keys := make([]int64, n*cores) // node k, c cores: keys[k*cores+c-1]
		span := int64(1 + r.IntN(40))  // small spans give ties
		now := int64(0)
		x := newNodeIndex(n, cores, func(c, k int) int64 { return keys[k*cores+c-1] })
		running := slices.Clone(keys) // the times of the running jobs alone
		for step := 0; step < 60; step++ {
			if r.IntN(4) == 0 { // jobs start or end, and the plan is reset
				for i := r.IntN(n/2 + 1); i > 0; i-- {
					k := r.IntN(n)
					for c := 1; c <= cores; c++ {
						running[k*cores+c-1] = now + r.Int64N(span) - span/4
					}
					x.runChanged(k)
				}
				now += r.Int64N(span/2 + 1)
				copy(keys, running)
				x.resetTo(now)
			}
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
				return cmp64(a.t, b.t)*2 + cmp64(int64(a.k), int64(b.k))
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

// TestFreeAtAgreesWithProfile checks the backfilling-now times of random
// profiles against their definitions: c cores are free for good from the
// first step after which no step uses more than C − c, and the hole of c
// cores from now ends at the first step using more.
func TestFreeAtAgreesWithProfile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for inst := 0; inst < 300; inst++ {
		n, C := 1+r.IntN(5), 1+r.IntN(8)
		p := newPlan(Cluster{Nodes: n, CoresPerNode: C, BandwidthGBs: 1}, true, true, false, func() int { return 0 })
		p.now = int64(r.IntN(20))
		for k := 0; k < n; k++ {
			tt := int64(r.IntN(20))
			var pr []step
			for i := r.IntN(6); i >= 0; i-- {
				pr = append(pr, step{tt, r.IntN(C + 1)})
				tt += 1 + int64(r.IntN(10))
			}
			p.prof[k] = append(pr, step{tt, 0})
			p.changed(k)
		}
		for k := 0; k < n; k++ {
			pr := p.prof[k]
			for c := 1; c <= C; c++ {
				free, hole := pr[0].t, never
				for i, s := range pr {
					if s.used > C-c {
						free = pr[i+1].t
						if hole == never {
							hole = max(s.t, p.now) - p.now
						}
					}
				}
				if got := p.freeAt(k, c); got != max(free, p.now) {
					t.Fatalf("instance %d node %d c=%d: free at %d, want %d (profile %v, now %d)", inst, k, c, got, max(free, p.now), pr, p.now)
				}
				if got := p.holeNow(k, c); got != hole {
					t.Fatalf("instance %d node %d c=%d: hole %d, want %d (profile %v, now %d)", inst, k, c, got, hole, pr, p.now)
				}
			}
		}
	}
}

// TestFileOrderAgreesWithSort checks the file list's walks against the
// file's nodes sorted by their current bounds, across changed nodes, added
// nodes, other files and core counts, and dropped lists.
func TestFileOrderAgreesWithSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for inst := 0; inst < 200; inst++ {
		n := 1 + r.IntN(60)
		fo := newFileOrder(n)
		bounds := make([]int64, n)
		for k := range bounds {
			bounds[k] = r.Int64N(30)
		}
		nodes := map[int][]int32{}
		file, c := 1, 1
		for step := 0; step < 80; step++ {
			switch r.IntN(6) {
			case 0: // another job's file or core count
				file, c = 1+r.IntN(3), 1+r.IntN(2)
			case 1: // a new pass
				fo.valid = false
				nodes = map[int][]int32{}
			}
			changes := r.IntN(3)
			if r.IntN(10) == 0 {
				changes = maxDirty + r.IntN(20) // more than the list keeps: it is rebuilt
			}
			for i := changes; i > 0; i-- { // plannings change nodes; a job's end lowers a bound
				k := r.IntN(n)
				bounds[k] = max(0, bounds[k]+r.Int64N(10)-3)
				fo.note(k)
			}
			if r.IntN(2) == 0 { // the file gets a node
				k := int32(r.IntN(n))
				if !slices.Contains(nodes[file], k) {
					nodes[file] = append(nodes[file], k)
				}
			}
			want := slices.Clone(nodes[file])
			slices.SortFunc(want, func(a, b int32) int { return cmp64(bounds[a], bounds[b])*2 + cmp64(int64(a), int64(b)) })
			cu := fo.ascend(file, c, nodes[file], func(k int) int64 { return bounds[k] })
			for i := 0; ; i++ {
				k, b, ok := cu.Next()
				if i == len(want) {
					if ok {
						t.Fatalf("instance %d step %d: extra node %d", inst, step, k)
					}
					break
				}
				if !ok || k != int(want[i]) || b != bounds[k] {
					t.Fatalf("instance %d step %d: got %d at %d (%v), want %d at %d", inst, step, k, b, ok, want[i], bounds[want[i]])
				}
			}
		}
	}
}
