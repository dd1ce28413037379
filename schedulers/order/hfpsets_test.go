package order

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The arena's sets equal sets kept one slice each, through unions and
// drops, whichever way the arena made room: in place or in a new array,
// both of which the test sees happen, also when drops empty most of the
// borrowed array first; so do the half tags of each union's data. The
// tasks' inputs are never written.
func TestPackageSetsMatchSlices(t *testing.T) {
	inPlace, moved := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		halves := seed%2 == 0
		r := rand.New(rand.NewPCG(seed, 3))
		m, nd := 40+r.IntN(200), 5+r.IntN(60)
		in := newCSR(m, 4*m)
		want := make([][]int32, m)
		for i := range m {
			var xs []int
			for range r.IntN(5) { // some tasks read nothing
				xs = append(xs, r.IntN(nd))
			}
			want[i] = slices.Clone(in.addSet(xs))
		}
		in.flat = in.flat[:in.off[m]]
		inputs := slices.Clone(in.flat)
		s := newPackageSets(in, halves)
		wantHalf := make([][]uint8, m) // per slot made by a union
		alive := make([]int32, m)
		for i := range alive {
			alive[i] = int32(i)
		}
		dropFirst := seed%4 == 0
		for len(alive) > 1 {
			x, y := r.IntN(len(alive)), r.IntN(len(alive)-1)
			if y >= x {
				y++
			}
			i, j := alive[x], alive[y]
			if dropFirst && len(alive) < m/4 {
				dropFirst = false
			}
			if dropFirst || r.IntN(8) == 0 {
				s.drop(i)
				want[i], wantHalf[i] = nil, nil
				alive = slices.Delete(alive, x, x+1)
			} else {
				full := len(s.arena)+int(s.size(i)+s.size(j)) > cap(s.arena) && cap(s.arena) > 0
				var before *int32
				if full {
					before = &s.arena[:1][0]
				}
				s.union(i, j)
				if full {
					if &s.arena[:1][0] == before {
						inPlace++
					} else {
						moved++
					}
				}
				u := append(slices.Clone(want[i]), want[j]...)
				slices.Sort(u)
				u = slices.Compact(u)
				tags := make([]uint8, len(u))
				for k, d := range u {
					if slices.Contains(want[i], d) {
						tags[k] |= inFirst
					}
					if slices.Contains(want[j], d) {
						tags[k] |= inSecond
					}
				}
				want[i], want[j] = u, nil
				wantHalf[i], wantHalf[j] = tags, nil
				alive = slices.Delete(alive, y, y+1)
			}
			used := 0
			for k := range int32(m) {
				if got := s.of(k); !slices.Equal(got, want[k]) && len(got)+len(want[k]) > 0 {
					t.Fatalf("seed %d: slot %d holds %v, want %v", seed, k, got, want[k])
				}
				if halves && wantHalf[k] != nil && !slices.Equal(s.halfOf(k), wantHalf[k]) {
					t.Fatalf("seed %d: slot %d's halves %v, want %v", seed, k, s.halfOf(k), wantHalf[k])
				}
				used += len(want[k])
			}
			if used != s.used {
				t.Fatalf("seed %d: %d entries counted used, %d live", seed, s.used, used)
			}
		}
		if !slices.Equal(in.flat, inputs) {
			t.Fatalf("seed %d: the tasks' inputs changed under the arena", seed)
		}
	}
	if inPlace == 0 || moved == 0 {
		t.Errorf("%d in-place compactions and %d moves: the test misses a way", inPlace, moved)
	}
}

// Sliding in place goes in arena order: slot 0's set lies after slot 1's,
// and moving slot 0 first would overwrite slot 1.
func TestPackageSetsSlideInArenaOrder(t *testing.T) {
	arena := make([]int32, 12)
	copy(arena, []int32{10, 11})
	copy(arena[8:], []int32{20, 21, 30, 31})
	half := make([]uint8, 12)
	copy(half, []uint8{1, 2})
	copy(half[8:], []uint8{3, 1})
	s := packageSets{arena: arena, halves: true, half: half, sp: []span{{8, 2}, {0, 2}, {10, 1}, {11, 1}}, used: 6}
	base := &s.arena[0]
	s.union(2, 3)
	if &s.arena[0] != base {
		t.Fatal("the arena moved; this test is about sliding in place")
	}
	for slot, want := range [][]int32{{20, 21}, {10, 11}, {30, 31}, nil} {
		if got := s.of(int32(slot)); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("slot %d holds %v, want %v", slot, got, want)
		}
	}
	for slot, want := range [][]uint8{{3, 1}, {1, 2}, {inFirst, inSecond}} {
		if got := s.halfOf(int32(slot)); !slices.Equal(got, want) {
			t.Errorf("slot %d's halves %v, want %v", slot, got, want)
		}
	}
}
