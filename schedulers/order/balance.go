package order

// Balance is mHFP's load balancing (thesis §3.7, Algorithm 8). With avg the
// mean package load, while some package is loaded more than avg it moves
// tasks from the tail of the most loaded package P_max to the end of the
// least loaded P_min, keeping their order ("more slack for communication
// near the end"), as much as A = min(load(P_max) − avg, avg − load(P_min))
// allows.
//
// Whole tasks (the rounding rule): tail tasks of cost c are taken one by one
// while moved + c/2 <= A, i.e. A is rounded to the nearest whole task,
// halves up; if that takes none, the last task alone is taken (otherwise an
// overload smaller than half a task could never be reduced). The move is
// made only if its cost x satisfies 0 < x < (load(P_max) − avg) + (avg −
// load(P_min)), i.e. only if it strictly lowers Σ (load − avg)²; otherwise
// balancing stops. That potential guarantees termination. With unit costs
// the result has loads within one task of each other. Ties: P_max is the
// lowest-index package among the most loaded, P_min the lowest-index among
// the least loaded.
//
// The input is not modified. Costs must be non-negative.
func Balance(pkgs [][]int, cost func(task int) float64) [][]int {
	k := len(pkgs)
	out := make([][]int, k)
	load := make([]float64, k)
	var total float64
	for i, p := range pkgs {
		out[i] = append([]int(nil), p...)
		for _, t := range p {
			load[i] += cost(t)
		}
		total += load[i]
	}
	if k < 2 {
		return out
	}
	avg := total / float64(k)
	for {
		pmax, pmin := 0, 0
		for i := 1; i < k; i++ {
			if load[i] > load[pmax] {
				pmax = i
			}
			if load[i] < load[pmin] {
				pmin = i
			}
		}
		if load[pmax] <= avg || pmax == pmin {
			return out
		}
		a := min(load[pmax]-avg, avg-load[pmin])
		src := out[pmax]
		n := 0 // tail tasks to move
		var moved float64
		for n < len(src) {
			c := cost(src[len(src)-1-n])
			if moved+c/2 > a {
				break
			}
			moved += c
			n++
		}
		if n == 0 && len(src) > 0 {
			n, moved = 1, cost(src[len(src)-1])
		}
		// over+under == load(P_max) − load(P_min), taken directly so that
		// integer loads compare exactly; the relative margin keeps float
		// noise from turning a zero Φ gain into a cycle.
		if !(moved > 0 && moved < (load[pmax]-load[pmin])*(1-1e-12)) {
			return out
		}
		out[pmin] = append(out[pmin], src[len(src)-n:]...)
		out[pmax] = src[:len(src)-n]
		load[pmax] -= moved
		load[pmin] += moved
	}
}
