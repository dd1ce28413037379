package workloads

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Generate builds the workload described by s (after WithDefaults). The
// result is deterministic for a Spec (seed included) and passes Validate.
//
// Data layouts (data ids) and submission orders:
//
//   - matmul2d: data 0..N-1 are the block-rows A_i, N..2N-1 the
//     block-columns B_j, each Tile×Z fp32. Task T(i,j) reads [A_i, B_j],
//     coords [i,j], submitted row by row (i outer, j inner), so consecutive
//     tasks share A_i (thesis §5 "row by row"). C is not modelled: the papers
//     count only inputs toward transfers. The B_j are strided (see
//     Data.Strided), as the block xgemm.c cycles through in its inner loop;
//     the tiles of matmul3d, cholesky and lu are all strided.
//   - sparse2d: matmul2d where each task is kept with probability Keep
//     (independent Bernoulli draws in submission order); all 2N data stay
//     declared because the papers plot the nominal working set. If no task
//     survives, one uniformly drawn task is kept so the set is never empty.
//   - randompairs: N² tasks, each reading a uniform A_i and an independent
//     uniform B_j (with replacement, so a pair may repeat and some data may
//     go unread); coords [i,j]; submitted in generation order.
//   - matmul3d: Tile×Tile tiles, all A(i,k) (id i·NZ+k), then all B(k,j)
//     (id N·NZ+k·N+j), then all C(i,j) (id 2·N·NZ+i·N+j). T(i,j,k) reads
//     [A_ik, B_kj, C_ij] and updates C_ij; coords [i,j,k]. Order: i, j outer
//     and k innermost, as StarPU's xgemm -3d and the thesis' Fig 2.8
//     description ("the first four processed tasks are ... (0,0) on each
//     layer K"); thesis L1506's "one layer of C at a time" is the other
//     reading (§5 lists it as ambiguous).
//   - cholesky: lower-triangle tiles A[m][n], m ≥ n, id m(m+1)/2+n. Tasks,
//     inputs, priorities and submission order are those of thesis Fig 2.4.
//     Coords are [k,m,n] where A[m][n] is the tile the task writes:
//     POTRF [k,k,k], TRSM [k,m,k], SYRK [k,n,n], GEMM [k,m,n].
//   - lu: tiled LU without pivoting, tiles A[m][n] with id m·N+n, in the
//     order of the thesis' code (examples/lu/xlu_implicit.c on branch
//     papers/ICPP2023 of starpu-runtime/starpu, which the chapter's
//     lu.sh runs). Per k: GETRF(k) on A[k][k]; for each i > k, TRSM(k,i) on
//     the row tile A[k][i] then TRSM(k,i) on the column tile A[i][k]; then
//     GEMM(k,m,n) on A[m][n], m outer, n inner. Coords [k,m,n] name the
//     written tile A[m][n] as for cholesky. Priorities are that code's
//     ("prio BL", the unit-weight bottom level as Fig. 2.4's):
//     GETRF 3N-3k, TRSM 3N-(2k+i), GEMM 3N-(k+m+n).
//
// With Deps, the tile a task updates (the C tile of matmul3d, the tile
// named by the coords of cholesky and lu) is accessed in mode RW, as
// StarPU's codelets do, and each task depends on the previous writer of
// every tile it accesses and, for the tile it writes, on the readers since
// that writer (StarPU's sequential consistency: RAW, WAW and WAR). Without
// Deps every access is R: the papers' independent task sets only read.
//
// WriteC (2D kinds) gives each task T(i,j) a third data, its C tile
// (Tile×Tile fp32, ids after the 2N inputs, i·N+j), written in mode W and
// scratch: the sgemm codelet of the IPDPS 2022 random-order runs (StarPU
// examples/mult/xgemm.c at commit 0445b697, cl_gemm0) took C in mode W and
// invalidated it after each task, so each task allocates one more tile and
// nothing is written back.
//
// Order "random" draws a seeded uniform permutation of the tasks and
// renumbers them densely (coords keep the tile identity). With Deps it
// draws uniformly among the ready tasks at each step instead, so that
// dependencies still point to earlier tasks, as in any real submission.
func Generate(s Spec) (*Workload, error) {
	s = s.WithDefaults()
	if err := s.check(); err != nil {
		return nil, err
	}
	b := &builder{w: &Workload{}}
	switch s.Kind {
	case KindMatmul2D:
		genMatmul2D(b, s)
	case KindSparse2D:
		genSparse2D(b, s)
	case KindRandomPairs:
		genRandomPairs(b, s)
	case KindMatmul3D:
		genMatmul3D(b, s)
	case KindCholesky:
		genCholesky(b, s)
	case KindLU:
		genLU(b, s)
	default:
		genApp(b, s)
	}
	if s.Deps || isApp(s.Kind) {
		b.setUpdateModes()
		b.addSeqDeps()
	}
	w := b.w
	if s.Order == OrderRandom {
		w = randomOrder(w, s.rng(streamOrder))
	}
	w.Name = s.Name()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("workloads: internal error generating %s: %w", w.Name, err)
	}
	return w, nil
}

// builder appends data and tasks with dense ids and remembers, per task,
// the data it writes (for Deps).
type builder struct {
	w         *Workload
	written   []int32 // written[t] = data id task t updates, or -1 (4 bytes: a million tasks)
	c0        int     // first C tile of the 2D kinds with WriteC
	arena     []int   // the current chunk of ints (inputs, coordinates, dependencies)
	modeArena []Mode  // the current chunk of access modes
}

// arenaChunk is the size of the chunks the tasks' small slices (inputs,
// coordinates, modes, dependencies) are cut from: a million tasks' slices
// become a few hundred allocations instead of millions.
const arenaChunk = 1 << 14

// carve cuts n elements from the arena's current chunk, starting a new
// chunk when it is full. Their capacity is n, so an append to them
// reallocates and never overwrites the next task's slice.
func carve[T any](arena *[]T, n int) []T {
	a := *arena
	if len(a)+n > cap(a) {
		a = make([]T, 0, max(arenaChunk, n))
	}
	s := a[len(a) : len(a)+n : len(a)+n]
	*arena = a[:len(a)+n]
	return s
}

// ints copies xs into the arena (nil stays nil).
func (b *builder) ints(xs []int) []int {
	if xs == nil {
		return nil
	}
	s := carve(&b.arena, len(xs))
	copy(s, xs)
	return s
}

// reserve makes room for n more tasks, when a generator knows how many it
// adds (appending a million tasks one by one copies them twenty times).
func (b *builder) reserve(n, coords int) {
	b.w.Tasks = slices.Grow(b.w.Tasks, n)
	b.w.Coords.Grow(n, n*coords)
	b.written = slices.Grow(b.written, n)
}

// addData declares n data of the given size and returns the first id.
func (b *builder) addData(n int, bytes int64) int {
	first := len(b.w.Data)
	for range n {
		b.w.Data = append(b.w.Data, Data{ID: len(b.w.Data), Bytes: bytes})
	}
	return first
}

// strided marks data ids [from, to) as strided sub-blocks of a host matrix.
func (b *builder) strided(from, to int) {
	for d := from; d < to; d++ {
		b.w.Data[d].Strided = true
	}
}

func (b *builder) addTask(kernel string, flops float64, prio, written int, coords []int, inputs ...int) {
	t := len(b.w.Tasks)
	b.w.Tasks = append(b.w.Tasks, Task{ID: t, Kernel: kernel, Flops: flops, Inputs: b.ints(inputs)})
	b.w.Coords.addInts(coords)
	b.w.Priority = setColumn(b.w.Priority, t, prio, prio != 0)
	b.written = append(b.written, int32(written))
}

// data2D declares the 2N block-rows/columns of the 2D kinds, and the N²
// C tiles with WriteC.
func data2D(b *builder, s Spec) (a0, b0 int, flops float64) {
	bytes := int64(s.Tile) * int64(s.Z) * floatBytes
	a0 = b.addData(s.N, bytes)
	b0 = b.addData(s.N, bytes)
	// xgemm.c partition_mult_data registers its A as ydim×zdim with leading
	// dimension ydim and cuts it along y (starpu_matrix_filter_block): each
	// block is zdim rows of tile floats, strided in main memory. Its B
	// blocks, cut along x (vertical_block), are contiguous. xgemm submits x
	// outer and y inner, so the strided block is the one consecutive tasks
	// cycle through: our B_j (j inner).
	b.strided(b0, b0+s.N)
	if !s.WriteC && !s.NoScratch {
		// xgemm.c (not -3d): Cscratch[i] = starpu_malloc_on_node(node,
		// (xdim / nslicesx) * (ydim / nslicesy) * sizeof(TYPE)) per CUDA
		// worker, the tile its kernels write C into and nobody reads.
		b.w.DeviceBytes = int64(s.Tile) * int64(s.Tile) * floatBytes
	}
	if s.WriteC {
		b.c0 = b.addData(s.N*s.N, int64(s.Tile)*int64(s.Tile)*floatBytes)
		for c := b.c0; c < len(b.w.Data); c++ {
			b.w.Data[c].Scratch = true
		}
	}
	return a0, b0, 2 * float64(s.Tile) * float64(s.Tile) * float64(s.Z)
}

// add2D adds the 2D task T(i,j): it reads B_j and A_i and, with WriteC,
// writes C_ij. The inputs are in xgemm.c's handle order: handles[0] is the
// block of the inner loop (its A_y: our B_j), handles[1] the outer one's
// (its B_x: our A_i), and StarPU requests a task's data in that order
// (coherency.c _starpu_fetch_task_input over the sorted handles keeps it
// for distinct handles of equal modes).
func (b *builder) add2D(s Spec, a0, b0 int, flops float64, i, j int) {
	if !s.WriteC {
		b.addTask("gemm", flops, 0, -1, []int{i, j}, b0+j, a0+i)
		return
	}
	b.addTask("gemm", flops, 0, -1, []int{i, j}, b0+j, a0+i, b.c0+i*s.N+j)
	modes := carve(&b.modeArena, 3)
	modes[0], modes[1], modes[2] = R, R, W
	b.w.Modes = setColumn(b.w.Modes, len(b.w.Tasks)-1, modes, true)
}

func genMatmul2D(b *builder, s Spec) {
	a0, b0, flops := data2D(b, s)
	b.reserve(s.N*s.N, 2)
	for i := range s.N {
		for j := range s.N {
			b.add2D(s, a0, b0, flops, i, j)
		}
	}
}

func genSparse2D(b *builder, s Spec) {
	a0, b0, flops := data2D(b, s)
	r := s.rng(streamSparse)
	for i := range s.N {
		for j := range s.N {
			if r.Float64() < s.Keep {
				b.add2D(s, a0, b0, flops, i, j)
			}
		}
	}
	if len(b.w.Tasks) == 0 { // an empty task set is useless to every caller
		t := r.IntN(s.N * s.N)
		i, j := t/s.N, t%s.N
		b.add2D(s, a0, b0, flops, i, j)
	}
}

func genRandomPairs(b *builder, s Spec) {
	a0, b0, flops := data2D(b, s)
	b.reserve(s.N*s.N, 2)
	r := s.rng(streamPairs)
	for range s.N * s.N {
		i, j := r.IntN(s.N), r.IntN(s.N)
		b.add2D(s, a0, b0, flops, i, j)
	}
}

func genMatmul3D(b *builder, s Spec) {
	n, nz := s.N, s.NZ
	tb := int64(s.Tile) * int64(s.Tile) * floatBytes
	a0 := b.addData(n*nz, tb)
	b0 := b.addData(nz*n, tb)
	c0 := b.addData(n*n, tb)
	// xgemm.c -3d tiles A, B and C in both dimensions (map_filters): every
	// tile is a strided sub-block of its matrix.
	b.strided(a0, len(b.w.Data))
	b.reserve(n*n*nz, 3)
	t := float64(s.Tile)
	for i := range n {
		for j := range n {
			c := c0 + i*n + j
			for k := range nz {
				// xgemm.c -3d submits x outer, y, then z inner (our i, j,
				// k) with handles[0] = A(z, y), handles[1] = B(x, z),
				// handles[2] = C(x, y): our B_kj first, then A_ik, as StarPU
				// requests them (task_prefetch_data_on_node, then
				// _starpu_fetch_task_input).
				b.addTask("gemm", 2*t*t*t, 0, c, []int{i, j, k}, b0+k*n+j, a0+i*nz+k, c)
			}
		}
	}
}

func genCholesky(b *builder, s Spec) {
	n := s.N
	b.addData(n*(n+1)/2, int64(s.Tile)*int64(s.Tile)*floatBytes)
	// cholesky_implicit registers one size×size matrix and tiles it in both
	// dimensions (starpu_data_map_filters): every tile is strided.
	b.strided(0, len(b.w.Data))
	a := func(m, k int) int { return m*(m+1)/2 + k } // lower triangle, row-major
	t := float64(s.Tile)
	t3 := t * t * t
	tasks := 0
	for k := range n { // per step: potrf, the trsms, the syrks and gemms
		r := n - k - 1
		tasks += 1 + 2*r + r*(r-1)/2
	}
	b.reserve(tasks, 3)
	// Loop nesting and priorities verbatim from thesis Fig 2.4.
	for k := range n {
		b.addTask("potrf", t3/3, 3*n-3*k, a(k, k), []int{k, k, k}, a(k, k))
		for m := k + 1; m < n; m++ {
			b.addTask("trsm", t3, 3*n-(2*k+m), a(m, k), []int{k, m, k}, a(k, k), a(m, k))
		}
		for nn := k + 1; nn < n; nn++ {
			b.addTask("syrk", t3, 3*n-(k+2*nn), a(nn, nn), []int{k, nn, nn}, a(nn, k), a(nn, nn))
			for m := nn + 1; m < n; m++ {
				b.addTask("gemm", 2*t3, 3*n-(k+nn+m), a(m, nn), []int{k, m, nn}, a(m, k), a(nn, k), a(m, nn))
			}
		}
	}
}

func genLU(b *builder, s Spec) {
	n := s.N
	b.addData(n*n, int64(s.Tile)*int64(s.Tile)*floatBytes)
	b.strided(0, len(b.w.Data)) // tiles of one matrix, as for cholesky
	a := func(m, k int) int { return m*n + k }
	t := float64(s.Tile)
	t3 := t * t * t
	tasks := 0
	for k := range n { // per step: getrf, two trsms per row, the gemms
		r := n - k - 1
		tasks += 1 + 2*r + r*r
	}
	b.reserve(tasks, 3)
	for k := range n {
		b.addTask("getrf", 2*t3/3, 3*n-3*k, a(k, k), []int{k, k, k}, a(k, k))
		for i := k + 1; i < n; i++ {
			b.addTask("trsm", t3, 3*n-(2*k+i), a(k, i), []int{k, k, i}, a(k, k), a(k, i))
			b.addTask("trsm", t3, 3*n-(2*k+i), a(i, k), []int{k, i, k}, a(k, k), a(i, k))
		}
		for m := k + 1; m < n; m++ {
			for j := k + 1; j < n; j++ {
				b.addTask("gemm", 2*t3, 3*n-(k+m+j), a(m, j), []int{k, m, j}, a(m, k), a(k, j), a(m, j))
			}
		}
	}
}

// setUpdateModes marks the tile each task updates as RW, the others R.
func (b *builder) setUpdateModes() {
	for t := range b.w.Tasks {
		wd := int(b.written[t])
		if wd < 0 {
			continue
		}
		inputs := b.w.Tasks[t].Inputs
		modes := carve(&b.modeArena, len(inputs))
		for k, d := range inputs {
			modes[k] = R
			if d == wd {
				modes[k] = RW
			}
		}
		b.w.Modes = setColumn(b.w.Modes, t, modes, true)
	}
}

// addSeqDeps infers StarPU's implicit dependencies from the access modes in
// submission order: RAW and WAW on the last writer, WAR on the readers
// since that writer.
func (b *builder) addSeqDeps() {
	w := b.w
	lastWriter := make([]int, len(w.Data))
	for i := range lastWriter {
		lastWriter[i] = -1
	}
	readers := make([][]int, len(w.Data))
	var deps []int // scratch: the kept copy is cut from the arena
	for t := range w.Tasks {
		deps = deps[:0]
		for k, d := range w.Tasks[t].Inputs {
			if lw := lastWriter[d]; lw >= 0 {
				deps = append(deps, lw)
			}
			if w.Mode(t, k).Writes() {
				deps = append(deps, readers[d]...)
			}
		}
		slices.Sort(deps)
		if deps = slices.Compact(deps); len(deps) > 0 {
			w.Deps = setColumn(w.Deps, t, b.ints(deps), true)
		}
		for k, d := range w.Tasks[t].Inputs {
			if w.Mode(t, k).Writes() {
				lastWriter[d] = t
				readers[d] = readers[d][:0]
			} else {
				readers[d] = append(readers[d], t)
			}
		}
	}
}

// randomOrder renumbers the tasks in a seeded random order: uniform over
// permutations without dependencies, a random topological order with them.
func randomOrder(w *Workload, r *rand.Rand) *Workload {
	n := len(w.Tasks)
	indeg := make([]int, n)
	succ := w.Successors()
	ready := make([]int, 0, n)
	for t := range n {
		if indeg[t] = len(w.DepsOf(t)); indeg[t] == 0 {
			ready = append(ready, t)
		}
	}
	newID := make([]int, n)
	order := make([]int, 0, n) // order[i]: the old id of the new task i
	for len(ready) > 0 {
		k := r.IntN(len(ready))
		t := ready[k]
		ready[k] = ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		newID[t] = len(order)
		order = append(order, t)
		for _, s := range succ.Of(t) {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	out := &Workload{Name: w.Name, Data: w.Data, Tasks: make([]Task, n), DeviceBytes: w.DeviceBytes}
	for i, old := range order {
		out.Tasks[i] = w.Tasks[old]
		out.Tasks[i].ID = i
		out.Coords.Add(w.Coords.Of(old)...)
		out.Modes = setColumn(out.Modes, i, w.ModesOf(old), w.ModesOf(old) != nil)
		out.Priority = setColumn(out.Priority, i, w.PriorityOf(old), w.PriorityOf(old) != 0)
		if old := w.DepsOf(old); len(old) > 0 {
			deps := make([]int, len(old))
			for j, d := range old {
				deps[j] = newID[d]
			}
			slices.Sort(deps)
			out.Deps = setColumn(out.Deps, i, deps, true)
		}
	}
	return out
}
