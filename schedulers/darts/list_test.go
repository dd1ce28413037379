package darts

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// check verifies the list's invariants and returns what is wrong, or "":
// entries before end, holes after; the chains of each data's entries in
// slot order; the counts of the tree; and, while the tree follows the
// counters, the key of every leaf not queued and of every node with no
// queued leaf below.
func (l *dataList) check() string {
	n := 0
	chains := map[int32][]int32{}
	for p, x := range l.slots {
		if x == l.hole {
			continue
		}
		if p >= l.end {
			return fmt.Sprintf("entry %d at slot %d past end %d", x, p, l.end)
		}
		n++
		chains[x] = append(chains[x], int32(p))
	}
	if n != l.n || (l.end > 0 && l.slots[l.end-1] == l.hole) {
		return fmt.Sprintf("%d entries, counted %d; end %d", n, l.n, l.end)
	}
	for x := range l.at {
		var got []int32
		for p := l.at[x]; p >= 0 && len(got) <= n; p = l.next[p] {
			got = append(got, p)
		}
		if !slices.Equal(got, chains[int32(x)]) {
			return fmt.Sprintf("data %d: entries at %v, chained %v", x, chains[int32(x)], got)
		}
	}
	for i := 2*l.blocks - 1; i > 0; i-- {
		want := int32(0)
		if i >= l.blocks {
			for _, x := range l.slots[(i-l.blocks)<<l.shift:][:1<<l.shift] {
				if x != l.hole {
					want++
				}
			}
		} else {
			want = l.cnt[2*i] + l.cnt[2*i+1]
		}
		if l.cnt[i] != want {
			return fmt.Sprintf("node %d counts %d, want %d", i, l.cnt[i], want)
		}
	}
	if l.stale {
		if len(l.dirty) > 0 {
			return "stale with leaves queued"
		}
		return ""
	}
	queued := make([]bool, 2*l.blocks) // a queued leaf below
	for _, j := range l.dirty {
		queued[j] = true
	}
	for j := 2*l.blocks - 1; j > 0; j-- {
		if j < l.blocks {
			queued[j] = queued[2*j] || queued[2*j+1]
		}
		if leaf := j >= l.blocks; l.mark[j] != (leaf && queued[j]) {
			return fmt.Sprintf("node %d marked %v, a queued leaf below: %v", j, l.mark[j], queued[j])
		}
		if queued[j] {
			continue
		}
		var want node
		if j < l.blocks {
			want = join(l.nodes[2*j], l.nodes[2*j+1])
		} else {
			want = l.leaf(j - l.blocks)
		}
		if l.nodes[j] != want {
			return fmt.Sprintf("node %d: %v, want %v", j, l.nodes[j], want)
		}
	}
	return ""
}

// TestDataListMatchesScan: under random insertions (bunched at a few
// places, so that shifts and respreads happen), erasures of a data's first
// or every entry, and counter changes, the list keeps its entries in the
// order a plain slice does, ranks them as it does, and chooses what a scan
// of the slice chooses, whether the tree follows every change (exact) or
// gives up and scans.
func TestDataListMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for inst := range 200 {
		nd := 1 + r.IntN(60)
		three := r.IntN(2) == 0
		counts := [2][]int32{make([]int32, nd+1)}
		if three {
			counts[1] = make([]int32, nd+1)
		}
		taskLeft := make([]int32, nd+1)
		var l dataList
		l.init(nd, counts, taskLeft, uint(r.IntN(blockShift+1)))
		l.exact = inst%2 == 0
		var ref []int32
		fail := func(op string, format string, a ...any) {
			t.Helper()
			t.Fatalf("instance %d, after %s: %s (list %v)", inst, op, fmt.Sprintf(format, a...), ref)
		}
		if r.IntN(2) == 0 {
			for range r.IntN(3 * nd) {
				ref = append(ref, int32(r.IntN(nd)))
			}
			l.build(slices.Clone(ref))
		}
		for step := range 400 {
			var op string
			switch c := r.IntN(10); {
			case c < 3: // insert, bunched at the head, the tail or one place
				i := []int{0, len(ref), min(len(ref), 7), r.IntN(len(ref) + 1)}[r.IntN(4)]
				x := int32(r.IntN(nd))
				op = fmt.Sprintf("insert(%d, %d)", i, x)
				l.insert(i, x)
				ref = slices.Insert(ref, i, x)
			case c < 5 && len(ref) > 0: // erase the first entry
				x := ref[r.IntN(len(ref))]
				op = fmt.Sprintf("remove first %d", x)
				i, p := slices.Index(ref, x), l.at[x]
				if got := l.rank(p); got != i {
					fail(op, "rank %d, want %d", got, i)
				}
				if got := l.find(i); got != int(p) {
					fail(op, "find(%d) = %d, want %d", i, got, p)
				}
				l.remove(p)
				ref = slices.Delete(ref, i, i+1)
			case c < 6 && len(ref) > 0: // erase every entry
				x := ref[r.IntN(len(ref))]
				op = fmt.Sprintf("remove every %d", x)
				for l.at[x] >= 0 {
					l.remove(l.at[x])
				}
				ref = slices.DeleteFunc(ref, func(y int32) bool { return y == x })
			case c < 9: // counters move
				op = "counters"
				for range 1 + r.IntN(2*nd) {
					x := int32(r.IntN(nd))
					for _, c := range counts {
						if c != nil {
							c[x] = int32(r.IntN(4))
						}
					}
					taskLeft[x] = counts[0][x] + int32(r.IntN(3))
					l.touch(x)
				}
			default:
				op = "choose"
				got := l.choose()
				want := [2]best{scanFirst(counts[0], taskLeft, ref)}
				if three && want[0].s == 0 {
					want[1] = scanFirst(counts[1], taskLeft, ref)
				}
				if got != want {
					fail(op, "chose %+v, scan %+v", got, want)
				}
			}
			if got := l.entries(nil); !slices.Equal(got, ref) && !(len(got) == 0 && len(ref) == 0) {
				fail(op, "entries %v", got)
			}
			if err := l.check(); err != "" {
				fail(op, "step %d: %s", step, err)
			}
		}
	}
}
