package order

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memsched/memsched/workloads"
)

// refPkg is a package of the reference HFP; data is kept sorted, as the
// thesis's complexity analysis assumes.
type refPkg struct {
	slot  int
	tasks []int
	split int
	data  []int
}

// refHFP is thesis Algorithm 5 written the straightforward way: every
// iteration computes SharedData for all (P_i ∈ 𝕊, P_j ∈ 𝒫) by sorted-list
// intersection, then runs the Q loop with a plain argmax. It shares no code
// with HFP, so that the property test below checks the fast bookkeeping.
func refHFP(w *workloads.Workload, opts HFPOptions) [][]int {
	M := opts.Memory
	K := max(opts.Packages, 1)
	bytes := func(d int) int64 { return w.Data[d].Bytes }
	weight := func(set []int) int64 {
		var s int64
		for _, d := range set {
			s += bytes(d)
		}
		return s
	}
	// inter returns the number and weight of common data of sorted sets.
	inter := func(a, b []int) (n int, wsum int64) {
		for x, y := 0, 0; x < len(a) && y < len(b); {
			switch {
			case a[x] == b[y]:
				n++
				wsum += bytes(a[x])
				x++
				y++
			case a[x] < b[y]:
				x++
			default:
				y++
			}
		}
		return
	}
	union := func(a, b []int) []int {
		u := slices.Concat(a, b)
		slices.Sort(u)
		return slices.Compact(u)
	}
	taskSet := func(ts []int) []int {
		var s []int
		for _, t := range ts {
			s = append(s, w.Tasks[t].Inputs...)
		}
		slices.Sort(s)
		return slices.Compact(s)
	}
	var P []*refPkg
	for i := range w.Tasks {
		P = append(P, &refPkg{slot: i, tasks: []int{i}, data: taskSet([]int{i})})
	}
	removePkg := func(p *refPkg) {
		P = slices.DeleteFunc(P, func(q *refPkg) bool { return q == p })
	}
	// prefix is the input set of the longest prefix within M (first task
	// always in, stop at the first task that does not fit).
	prefix := func(ts []int) []int {
		var set []int
		for k, t := range ts {
			next := union(set, taskSet([]int{t}))
			if k > 0 && weight(next) > M {
				break
			}
			set = next
		}
		return set
	}
	rev := func(ts []int) []int { r := slices.Clone(ts); slices.Reverse(r); return r }
	cnt := func(x, y []int) int { n, _ := inter(x, y); return n }
	flip := func(a, b *refPkg) {
		if len(a.tasks) < 2 || len(b.tasks) < 2 {
			return
		}
		wa, wb := weight(a.data), weight(b.data)
		if wa > M && wb <= M {
			if cnt(prefix(a.tasks), b.data) > cnt(prefix(rev(a.tasks)), b.data) {
				a.tasks = rev(a.tasks)
			}
			return
		}
		if wa <= M && wb > M {
			if cnt(a.data, prefix(rev(b.tasks))) > cnt(a.data, prefix(b.tasks)) {
				b.tasks = rev(b.tasks)
			}
			return
		}
		var sa, ea, sb, eb []int
		if wa > M {
			sa, ea = prefix(a.tasks), prefix(rev(a.tasks))
			sb, eb = prefix(b.tasks), prefix(rev(b.tasks))
		} else {
			sa, ea = taskSet(a.tasks[:a.split]), taskSet(a.tasks[a.split:])
			sb, eb = taskSet(b.tasks[:b.split]), taskSet(b.tasks[b.split:])
		}
		ss, se, es, ee := cnt(sa, sb), cnt(sa, eb), cnt(ea, sb), cnt(ea, eb)
		mx := max(ss, se, es, ee)
		switch {
		case mx == se:
			a.tasks, b.tasks = rev(a.tasks), rev(b.tasks)
		case mx == ee:
			b.tasks = rev(b.tasks)
		case mx == ss:
			a.tasks = rev(a.tasks)
		}
	}
	merge := func(a, b *refPkg, doFlip bool) {
		if doFlip {
			flip(a, b)
		}
		a.split = len(a.tasks)
		a.tasks = append(slices.Clone(a.tasks), b.tasks...)
		a.data = union(a.data, b.data)
		removePkg(b)
	}
	fits := func(a, b *refPkg) bool { return weight(union(a.data, b.data)) <= M }

	var nc []int
	sizeLimit := true
	for iter := 1; len(P) > K; iter++ {
		minSize := len(w.Tasks) + 1
		for _, p := range P {
			minSize = min(minSize, len(p.tasks))
		}
		var S []*refPkg
		for _, p := range P {
			if len(p.tasks) == minSize {
				S = append(S, p)
			}
		}
		if iter == 1 && opts.FastStart {
			for _, p := range S {
				if len(p.tasks) != 1 || !slices.Contains(P, p) {
					continue
				}
				for _, q := range P {
					if q != p && len(q.tasks) == 1 && cnt(p.data, q.data) > 0 {
						merge(p, q, false)
						break
					}
				}
				if len(P) == K {
					break
				}
			}
			continue
		}
		type pair struct{ a, b *refPkg }
		shared := map[pair]int64{}
		for _, a := range S {
			for _, b := range P {
				if a != b {
					_, shared[pair{a, b}] = inter(a.data, b.data)
				}
			}
		}
		var maxShared int64
		if sizeLimit {
			for k, v := range shared {
				if v > maxShared && fits(k.a, k.b) {
					maxShared = v
				}
			}
			if maxShared == 0 {
				sizeLimit = false
			}
		}
		if !sizeLimit {
			for _, v := range shared {
				maxShared = max(maxShared, v)
			}
			if maxShared == 0 {
				for _, p := range S {
					nc = append(nc, p.tasks...)
					removePkg(p)
				}
				continue
			}
		}
		Q := map[*refPkg]bool{}
		for _, a := range S {
			if Q[a] {
				continue
			}
			var best *refPkg
			bestV := int64(-1)
			for _, b := range P {
				if b == a || Q[b] || (sizeLimit && opts.MergeFit && !fits(a, b)) {
					continue
				}
				v := shared[pair{a, b}]
				if !opts.MergeFit && v == maxShared {
					// StarPU: the first package sharing the maximum, fitting or not
					best, bestV = b, v
					break
				}
				if v > bestV {
					best, bestV = b, v
				}
			}
			if best != nil && bestV == maxShared {
				Q[a], Q[best] = true, true
				merge(a, best, opts.Flip)
				if len(P) == K {
					break
				}
			}
		}
	}
	var out [][]int
	for _, p := range P {
		out = append(out, p.tasks)
	}
	if len(nc) > 0 {
		if len(out) == 0 {
			out = [][]int{nc}
		} else {
			out[0] = append(out[0], nc...)
		}
	}
	for len(out) < min(K, len(w.Tasks)) {
		out = append(out, []int{})
	}
	return out
}

func samePackages(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestHFPMatchesReference: the fast HFP makes the printed algorithm's merge
// choices, on many small random instances and every option combination.
func TestHFPMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for inst := 0; inst < 500; inst++ {
		hetero := inst%2 == 1
		w := randomInstance(r, hetero)
		unit := int64(1)
		if hetero {
			unit = 3
		}
		mems := []int64{0, 2 * unit, 3 * unit, 4 * unit, 6 * unit, 9 * unit, 1 << 40}
		// 10 random option sets per instance (every combination is hit
		// many times over the 500 instances) keep the test fast.
		for range 10 {
			opts := HFPOptions{
				Memory:    mems[r.IntN(len(mems))],
				Flip:      r.IntN(2) == 0,
				FastStart: r.IntN(2) == 0,
				MergeFit:  r.IntN(2) == 0,
				Packages:  1 + r.IntN(4),
			}
			cases += checkHFP(t, fmt.Sprintf("instance %d", inst), w, opts)
		}
	}
	t.Logf("%d cases", cases)
}

// pairMins makes HFP evaluate every package of 𝕊 from the class counts
// (when it has at most two classes), by default, or by scanning.
var pairMins = []int{-1, defaultPairMin, math.MaxInt}

// checkHFP compares HFP with the reference under every pairMin and returns
// the number of comparisons.
func checkHFP(t *testing.T, name string, w *workloads.Workload, opts HFPOptions) int {
	t.Helper()
	want := refHFP(w, opts)
	for _, pm := range pairMins {
		got := hfpRun(w, opts, pm)
		if !samePackages(got, want) {
			t.Fatalf("%s (%d tasks, %d data) opts %+v pairMin %d:\n got %v\nwant %v\ninputs %v",
				name, len(w.Tasks), len(w.Data), opts, pm, got, want, inputsOf(w))
		}
		if !isPermutation(flatten(got), len(w.Tasks)) {
			t.Fatalf("%s opts %+v: packages %v are not a partition", name, opts, got)
		}
	}
	// Counting either code's operations changes no decision.
	for _, code := range []HFPCode{HFPCodeNov2021, HFPCodeOct2021} {
		o := opts
		o.Code = code
		ops := 0
		o.Count = func(n int) {
			if n < 0 {
				t.Fatalf("%s opts %+v: negative count %d", name, o, n)
			}
			ops += n
		}
		if got := hfpRun(w, o, defaultPairMin); !samePackages(got, want) {
			t.Fatalf("%s (%d tasks, %d data) opts %+v counted (code %d):\n got %v\nwant %v", name, len(w.Tasks), len(w.Data), opts, code, got, want)
		}
	}
	return len(pairMins) + 2
}

// TestHFPCountByCode: the operations each version of StarPU's packing
// performs on T0 {0,1}, T1 {1,2}, T2 {2,3} (unit data, no bound), counted
// by hand from HFP.c (HFPCode's comments).
//
// November 2021, no fast start. Iteration 1: P = 3, 𝕊 = all, d = 2 each,
// D = 6. Clear + minimum 9 + 3; rows: P_0 (0,1) 2+2-1, (0,2) 2+2 = 7,
// P_1 3 + 3 = 6, P_2 7; merge loop 3 + 3·3; merge (0,1) 4·3 + 2·(2+2):
// 12 + 20 + 12 + 20 = 64. Iteration 2: P = 2, P_0 {0,1,2}, 𝕊 = {P_2}:
// 4 + 2, row (2,0) 2+3-1 = 4, merge loop 2 + 1·2, merge (2,0) 4·2 +
// 2·(2+3): 10 + 4 + 18 = 32. Total 96.
//
// November 2021, fast start. Iteration 1: clear and delete_link 9 + 3; a
// size test per link (3); P_0 walks links 0, 1 (2) and compares {0,1}
// with {1,2} to the first equal pair (0-1, 0-2, 1-1: 3), merges 2·(2+2);
// P_2 walks the 3 links and finds no other single-task package: 12 + 3 +
// 5 + 8 + 3 = 31. Iteration 2 as above: 32. Total 63.
//
// October 2021. Iteration 1: matrix Σ_{i<j} d_i·d_j = 3·4, one merge,
// search 2·Σ_{i∈𝕊} d_i·(P + D) = 3·2·2·(3+6) = 108: 120. Iteration 2:
// matrix 3·2, search 2·2·(2+5) = 28: 34. Total 154; with fast start the
// first iteration is its matrix, 12: 46.
func TestHFPCountByCode(t *testing.T) {
	w := build([]int64{1, 1, 1, 1}, [][]int{{0, 1}, {1, 2}, {2, 3}})
	for _, c := range []struct {
		code HFPCode
		fast bool
		want int
	}{{HFPCodeNov2021, false, 96}, {HFPCodeNov2021, true, 63}, {HFPCodeOct2021, false, 154}, {HFPCodeOct2021, true, 46}} {
		ops := 0
		HFP(w, HFPOptions{Memory: 100, FastStart: c.fast, Packages: 1, Code: c.code, Count: func(n int) { ops += n }})
		if ops != c.want {
			t.Errorf("code %d fast %v: %d operations, want %d", c.code, c.fast, ops, c.want)
		}
	}
}

// TestHFPCountRestart: T0 {0,1}, T1 {1,2} with M = 2: no pair fits, so
// November's code fills the rows again without the bound (goto
// beggining_while_packaging_impossible). P = 2, d = 2, D = 4: each pass
// 4 + 2 + 2·(1·2 + 4 - 2 - 1) = 12, twice; merge loop 2 + 2·2; merge
// 4·2 + 2·(2+2): 24 + 6 + 16 = 46. October: matrix 4, search
// 2·2·2·(2+4) = 48: 52.
func TestHFPCountRestart(t *testing.T) {
	w := build([]int64{1, 1, 1}, [][]int{{0, 1}, {1, 2}})
	for code, want := range map[HFPCode]int{HFPCodeNov2021: 46, HFPCodeOct2021: 52} {
		ops := 0
		HFP(w, HFPOptions{Memory: 2, Packages: 1, Code: code, Count: func(n int) { ops += n }})
		if ops != want {
			t.Errorf("code %d: %d operations, want %d", code, ops, want)
		}
	}
}

// TestHFPMatchesReferenceStructured: larger instances whose packages form
// blocks with twin data (full and thinned 2D grids, with leftovers when N
// is not a power of two), many equal SharedData (ties), and duplicated
// tasks (packages holding both classes of another).
func TestHFPMatchesReferenceStructured(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := 0
	for inst := range 150 {
		hetero := inst%3 == 2
		var w *workloads.Workload
		switch inst % 5 {
		case 0:
			w = grid2D(3+r.IntN(10), 1)
		case 1:
			w = random2DSubset(r, 4+r.IntN(8), 0.6+0.4*r.Float64(), hetero)
		case 2:
			w = randomPairs(r, 4+r.IntN(6), 20+r.IntN(60), hetero) // many ties and duplicates
		case 3:
			w = randomTasks(r, 3+r.IntN(6), 20+r.IntN(50), 2, hetero)
		default:
			// a grid whose tasks are repeated: duplicates share both data
			g := random2DSubset(r, 3+r.IntN(6), 0.8, hetero)
			var in [][]int
			for _, tk := range g.Tasks {
				for range 1 + r.IntN(3) {
					in = append(in, tk.Inputs)
				}
			}
			sizes := make([]int64, len(g.Data))
			for d := range sizes {
				sizes[d] = g.Data[d].Bytes
			}
			w = build(sizes, in)
		}
		unit := int64(1)
		if hetero {
			unit = 3
		}
		for range 4 {
			opts := HFPOptions{
				Memory:    unit * int64(r.IntN(16)),
				Flip:      r.IntN(2) == 0,
				FastStart: r.IntN(3) == 0,
				MergeFit:  r.IntN(2) == 0,
				Packages:  1 + r.IntN(5),
			}
			cases += checkHFP(t, fmt.Sprintf("structured %d", inst), w, opts)
		}
	}
	t.Logf("%d cases", cases)
}

func inputsOf(w *workloads.Workload) string {
	s := ""
	for _, t := range w.Tasks {
		s += fmt.Sprint(t.Inputs)
	}
	return s
}

// TestHFPFig34 reconstructs thesis Fig. 3.4 (the figure itself is lost in
// the text conversion): 2D matrix multiplication with N = 4 (16 tasks, 4
// rows + 4 columns of unit size) and M = 4 data. Phase 1 builds the four
// 2×2 blocks; phase 2 merges them. Without flip the blocks run A(r01,c01),
// B(r01,c23), C(r23,c01), D(r23,c23): B→C shares nothing, so 4 + 2 + 4 + 2
// = 12 loads. With flip, pairs are already U-shaped inside each block, B
// is reversed when A and B merge, D when C and D merge, and then CD when
// AB and CD merge, giving A, B, D, C: each step between blocks shares two
// rows or columns, 4 + 2 + 2 + 2 = 10 loads. These are the thesis's "12"
// and "10" (the figure's colours and task numbering may differ by the
// row/column symmetry of the grid).
func TestHFPFig34(t *testing.T) {
	w := grid2D(4, 1)
	noFlip := HFP(w, HFPOptions{Memory: 4, Packages: 1})
	withFlip := HFP(w, HFPOptions{Memory: 4, Flip: true, Packages: 1})
	wantNo := []int{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}
	wantFlip := []int{0, 1, 5, 4, 6, 7, 3, 2, 10, 11, 15, 14, 12, 13, 9, 8}
	if len(noFlip) != 1 || !slices.Equal(noFlip[0], wantNo) {
		t.Fatalf("HFP without flip = %v, want %v", noFlip, wantNo)
	}
	if len(withFlip) != 1 || !slices.Equal(withFlip[0], wantFlip) {
		t.Fatalf("HFP with flip = %v, want %v", withFlip, wantFlip)
	}
	for _, c := range []struct {
		order []int
		want  int
	}{{noFlip[0], 12}, {withFlip[0], 10}} {
		l, _, err := Loads(w, c.order, 4, PolicyBelady)
		if err != nil || l != c.want {
			t.Errorf("Belady loads of %v = %d (%v), want %d", c.order, l, err, c.want)
		}
	}
}

// TestHFPHeterogeneousBytes: with sizes, SharedData and the bound are in
// bytes. Task 0 shares a 1-byte data with task 1 and a 5-byte data with
// task 2, so 0 merges with 2 even though 1 comes first.
func TestHFPHeterogeneousBytes(t *testing.T) {
	w := build([]int64{1, 5, 1, 1}, [][]int{{0, 1}, {0, 2}, {1, 3}})
	got := HFP(w, HFPOptions{Memory: 100, Packages: 2})
	want := [][]int{{0, 2}, {1}}
	if !samePackages(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// With M = 7 bytes {0,2} (7 bytes) still fits but adding 1 (8) does
	// not: phase 2 then merges the smallest package {1} with {0,2}, and
	// P_i ++ P_j puts the small package first.
	got = HFP(w, HFPOptions{Memory: 7, Packages: 1})
	if !samePackages(got, [][]int{{1, 0, 2}}) {
		t.Fatalf("got %v, want [[1 0 2]]", got)
	}
}

// TestHFPNonConnected: isolated tasks go to P_nc, appended at the end.
func TestHFPNonConnected(t *testing.T) {
	// Tasks 0 and 3 share data 0; 1 and 2 are isolated.
	w := build([]int64{1, 1, 1}, [][]int{{0}, {1}, {2}, {0}})
	got := HFP(w, HFPOptions{Memory: 10, Packages: 1})
	want := [][]int{{0, 3, 1, 2}}
	if !samePackages(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Everything isolated: P_nc is the schedule, in submission order.
	w = build([]int64{1, 1, 1}, [][]int{{0}, {1}, {2}})
	if got := HFP(w, HFPOptions{Memory: 10, Packages: 1}); !samePackages(got, [][]int{{0, 1, 2}}) {
		t.Fatalf("all isolated: got %v", got)
	}
	// K = 2 and one connected pair: padded with an empty package.
	w = build([]int64{1, 1, 1}, [][]int{{0}, {1}, {2}, {0}})
	if got := HFP(w, HFPOptions{Memory: 10, Packages: 2}); !samePackages(got, [][]int{{0, 3, 1, 2}, {}}) {
		t.Fatalf("K=2: got %v", got)
	}
}

// TestHFPFastStart: the first iteration pairs each single task with the
// first later single sharing a data, ignoring M.
func TestHFPFastStart(t *testing.T) {
	w := grid2D(3, 1)
	got := HFP(w, HFPOptions{Memory: 0, FastStart: true, Packages: 5})
	// Pairs (0,1) (2,5) (3,4) (6,7); 8 stays single → 5 packages.
	want := [][]int{{0, 1}, {2, 5}, {3, 4}, {6, 7}, {8}}
	if !samePackages(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestHFPMHFP: Packages = K stops at K packages that partition the tasks.
func TestHFPMHFP(t *testing.T) {
	w := grid2D(12, 14745600)
	for k := 1; k <= 6; k++ {
		p := HFP(w, HFPOptions{Memory: 524288000 / 10, Flip: true, Packages: k})
		if len(p) != k || !isPermutation(flatten(p), len(w.Tasks)) {
			t.Fatalf("K=%d: %d packages, partition %v", k, len(p), isPermutation(flatten(p), len(w.Tasks)))
		}
	}
}

// TestHFPLargeMatchesReference: one bigger 2D case per option set.
func TestHFPLargeMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("slow reference")
	}
	w := grid2D(9, 14745600)
	for _, opts := range []HFPOptions{
		{Memory: 14745600 * 8, Flip: true, Packages: 1},
		{Memory: 14745600 * 8, Flip: true, MergeFit: true, Packages: 1},
		{Memory: 14745600 * 8, Flip: true, FastStart: true, Packages: 1},
		{Memory: 14745600 * 5, Packages: 3},
	} {
		checkHFP(t, "grid 9", w, opts)
	}
}

// TestChainsMatchSlices: random reversals and concatenations of the linked
// packages give the same task orders as the same operations on slices,
// walked from either end.
func TestChainsMatchSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		m := 1 + r.IntN(30)
		var c chains
		c.init(m)
		ref := make([][]int, m)
		live := make([]int32, m)
		for i := range ref {
			ref[i] = []int{i}
			live[i] = int32(i)
		}
		for len(live) > 1 {
			a, b := r.IntN(len(live)), r.IntN(len(live)-1)
			if b >= a {
				b++
			}
			i, j := live[a], live[b]
			if r.IntN(2) == 0 {
				c.reverse(i)
				slices.Reverse(ref[i])
			}
			if r.IntN(2) == 0 {
				c.reverse(j)
				slices.Reverse(ref[j])
			}
			c.concat(i, j)
			ref[i] = append(ref[i], ref[j]...)
			live = slices.Delete(live, b, b+1)
			got := c.appendTasks(nil, i)
			var back []int
			for x := range c.walk(i, true) {
				back = append(back, int(x))
			}
			slices.Reverse(back)
			if !slices.Equal(got, ref[i]) || !slices.Equal(back, ref[i]) || int(c.size[i]) != len(ref[i]) || c.size[j] != 0 {
				t.Fatalf("chain %d = %v (backwards %v, size %d), want %v", i, got, back, c.size[i], ref[i])
			}
		}
	}
}
