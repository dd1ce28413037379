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

// BalanceStarPU is the load balancing StarPU's HFP.c runs with MULTIGPU=4
// at papers/ICPP2023 (load_balance_expected_time, called from
// HFP_do_schedule), rule for rule:
//
//   - a package's expected time starts as what hierarchical_fair_packing
//     gives it: each task's expected length on worker 0
//     (starpu_worker_get_perf_archtype(0, 0)), summed over the merges:
//     pkgCost;
//   - the total EXPECTED_TIME, the amount to steal and the expected time
//     each moved task takes from one package and adds to the other
//     (merge_task_and_package) use starpu_worker_get_perf_archtype(
//     STARPU_CUDA_WORKER, 0), whose first argument is a worker id:
//     STARPU_CUDA_WORKER = 1, the second GPU's model: stealCost;
//   - P_min and P_max are the first packages of least and most expected
//     time; balancing stops when they are the same package;
//   - the amount is avg − t(P_min) when t(P_max) − (avg − t(P_min)) ≥ avg,
//     else t(P_max) − avg (avg = EXPECTED_TIME / K); balancing stops when
//     P_max's last task is longer than it;
//   - tasks are popped from P_max's tail while the time moved is below
//     the amount (the last one may overshoot it) and each is pushed at the
//     back of P_min: the moved tail lands reversed.
//
// On homogeneous costs it differs from Balance: 2D N=10 on 4 GPUs packs
// 16, 24, 24, 36 tasks; StarPU moves 10 (avg − 16 tasks at worker 0's time,
// counted in worker 1's) to end at 26, 24, 24, 26, where Balance ends at 25
// each. The input is not modified. A guard stops after as many moves as
// tasks times packages, where StarPU's loop would not end.
func BalanceStarPU(pkgs [][]int, pkgCost, stealCost func(task int) float64) [][]int {
	k := len(pkgs)
	out := make([][]int, k)
	et := make([]float64, k)
	var total float64
	ntasks := 0
	for i, p := range pkgs {
		out[i] = append([]int(nil), p...)
		for _, t := range p {
			et[i] += pkgCost(t)
			total += stealCost(t)
		}
		ntasks += len(p)
	}
	if k < 2 {
		return out
	}
	avg := total / float64(k)
	for guard := ntasks*k + 1; guard > 0; guard-- {
		pmin, pmax := 0, 0
		for i := 1; i < k; i++ {
			if et[pmin] > et[i] {
				pmin = i
			}
			if et[pmax] < et[i] {
				pmax = i
			}
		}
		if pmin == pmax {
			break
		}
		var steal float64
		if et[pmax]-(avg-et[pmin]) >= avg {
			steal = avg - et[pmin]
		} else {
			steal = et[pmax] - avg
		}
		src := out[pmax]
		if len(src) == 0 || stealCost(src[len(src)-1]) > steal {
			break
		}
		for moved := 0.0; moved < steal && len(src) > 0; {
			t := src[len(src)-1]
			src = src[:len(src)-1]
			c := stealCost(t)
			moved += c
			et[pmax] -= c
			et[pmin] += c
			out[pmin] = append(out[pmin], t)
		}
		out[pmax] = src
	}
	return out
}
