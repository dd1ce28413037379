package order

import (
	"math/rand/v2"

	"github.com/memsched/memsched/workloads"
)

// build makes a workload from data sizes and task inputs (ids dense).
func build(sizes []int64, inputs [][]int) *workloads.Workload {
	w := &workloads.Workload{}
	for i, b := range sizes {
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: b})
	}
	for i, in := range inputs {
		w.Tasks = append(w.Tasks, workloads.Task{ID: i, Kernel: "t", Flops: 1, Inputs: in})
	}
	return w
}

// grid2D is the 2D outer-product task set: N×N tasks, task (i,j) = i·N+j
// reads row data i and column data N+j, every data of the given size.
func grid2D(n int, bytes int64) *workloads.Workload {
	sizes := make([]int64, 2*n)
	for i := range sizes {
		sizes[i] = bytes
	}
	var inputs [][]int
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			inputs = append(inputs, []int{i, n + j})
		}
	}
	return build(sizes, inputs)
}

// randomSizes gives unit sizes or random ones in [1,5].
func randomSizes(r *rand.Rand, n int, hetero bool) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = 1
		if hetero {
			s[i] = 1 + r.Int64N(5)
		}
	}
	return s
}

// random2DSubset keeps each task of an N×N grid with probability keep.
func random2DSubset(r *rand.Rand, n int, keep float64, hetero bool) *workloads.Workload {
	var inputs [][]int
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if r.Float64() < keep {
				inputs = append(inputs, []int{i, n + j})
			}
		}
	}
	return build(randomSizes(r, 2*n, hetero), inputs)
}

// randomPairs: m tasks each reading two distinct random data among n.
func randomPairs(r *rand.Rand, n, m int, hetero bool) *workloads.Workload {
	inputs := make([][]int, m)
	for t := range inputs {
		a := r.IntN(n)
		b := r.IntN(n - 1)
		if b >= a {
			b++
		}
		inputs[t] = []int{a, b}
	}
	return build(randomSizes(r, n, hetero), inputs)
}

// randomTasks: m tasks each reading 1..maxIn random data among n (repeats
// allowed, to exercise dedup).
func randomTasks(r *rand.Rand, n, m, maxIn int, hetero bool) *workloads.Workload {
	inputs := make([][]int, m)
	for t := range inputs {
		k := 1 + r.IntN(maxIn)
		for range k {
			inputs[t] = append(inputs[t], r.IntN(n))
		}
	}
	return build(randomSizes(r, n, hetero), inputs)
}

// randomInstance picks one of the generators above.
func randomInstance(r *rand.Rand, hetero bool) *workloads.Workload {
	switch r.IntN(3) {
	case 0:
		return random2DSubset(r, 2+r.IntN(6), 0.3+0.7*r.Float64(), hetero)
	case 1:
		n := 3 + r.IntN(12)
		return randomPairs(r, n, 1+r.IntN(30), hetero)
	default:
		return randomTasks(r, 2+r.IntN(12), 1+r.IntN(25), 3, hetero)
	}
}

func isPermutation(order []int, m int) bool {
	if len(order) != m {
		return false
	}
	seen := make([]bool, m)
	for _, t := range order {
		if t < 0 || t >= m || seen[t] {
			return false
		}
		seen[t] = true
	}
	return true
}

func flatten(pkgs [][]int) []int {
	var out []int
	for _, p := range pkgs {
		out = append(out, p...)
	}
	return out
}
