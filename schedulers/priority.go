package schedulers

import (
	"fmt"
	"math"
	"slices"

	"github.com/memsched/memsched/workloads"
)

// Where the schedulers of task graphs take task priorities from.
const (
	// PriorityBottomLevel: bl(T) = w(T) + max over T's successors S of
	// bl(S), with w(T) the task's kernel time from the platform's
	// performance model on its fastest worker kind present: "the minimum
	// time needed from the start of the task to the completion of the whole
	// graph, assuming unbounded resources" (thesis §5.3). Transfers are
	// ignored.
	PriorityBottomLevel = "bottom-level"
	// PriorityStatic: the workload's own Task.Priority, Chameleon's closed
	// forms of thesis Fig. 2.4 for Cholesky (the ICPP2023 code's
	// PRIORITY_ATTRIBUTION=1, "bottom level from Christophe Alias": the
	// bottom level with unit weights, plus 2); 0 for kinds that have none.
	PriorityStatic = "static"
	// PriorityNone: every task has priority 0 (the runs without priorities).
	PriorityNone = "none"
	// PriorityParsec: DPLASMA's Cholesky priorities, which PaRSEC's AP
	// uses (thesis §5.1.2), as the ICPP2023 code copied them
	// (examples/cholesky/cholesky_implicit.c, PRIORITY_ATTRIBUTION=3):
	// POTRF (N-k)^3, TRSM (N-m)^3 + 3(m-k)(2N-k-m-1), SYRK (N-m)^3 + 3(m-k),
	// GEMM (N-m)^3 + 3(m-n)(2N-m-n-3) + 6(m-k). Cholesky only.
	PriorityParsec = "parsec"
)

// PriorityParam is the parameter of every scheduler that uses priorities.
var PriorityParam = Param{Name: "priority", Kind: "string", Default: PriorityBottomLevel,
	Choices: []string{PriorityBottomLevel, PriorityStatic, PriorityParsec, PriorityNone},
	Doc:     "task priorities: bottom-level (thesis §5.3, kernel times of the fastest worker kind), static (the workload's, thesis Fig. 2.4), parsec (DPLASMA's Cholesky priorities), none"}

// Priorities gives every task its priority (higher runs first) from the
// named source.
func Priorities(v View, source string) ([]float64, error) {
	w := v.Workload()
	var out []float64 // made by the case that fills it: 8 MB at a million tasks
	switch source {
	case PriorityNone:
		out = make([]float64, len(w.Tasks))
	case PriorityStatic:
		out = make([]float64, len(w.Tasks))
		for i := range w.Tasks {
			out[i] = float64(w.PriorityOf(i))
		}
	case PriorityParsec:
		return parsecPriorities(w)
	case PriorityBottomLevel, "":
		var kinds []*KernelTimes
		for k := 0; k < v.Workers(); k++ {
			if !slices.ContainsFunc(kinds, func(c *KernelTimes) bool { return c.kind == v.WorkerKind(k) }) {
				kinds = append(kinds, NewKernelTimes(v.Platform(), v.WorkerKind(k)))
			}
		}
		var err error
		out = BottomLevels(w, func(t *workloads.Task) float64 {
			best := math.Inf(1)
			for _, kind := range kinds {
				s, ok, e := kind.Seconds(t)
				if e != nil {
					err = e
				}
				if ok && s < best {
					best = s
				}
			}
			return best
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown priority source %q; use %s, %s, %s or %s", source, PriorityBottomLevel, PriorityStatic, PriorityParsec, PriorityNone)
	}
	return out, nil
}

// BottomLevels computes bl(T) = weight(T) + max over successors bl(S) in
// reverse topological order. A task done hands its bottom level to its
// predecessors, so no list of successors is built (24 bytes a task at a
// million tasks): until a task is done, bl holds the longest of its
// successors' bottom levels (the maximum, whatever their order).
func BottomLevels(w *workloads.Workload, weight func(t *workloads.Task) float64) []float64 {
	n := len(w.Tasks)
	waiting := make([]int32, n) // successors not yet done
	for _, deps := range w.Deps {
		for _, d := range deps {
			waiting[d]++
		}
	}
	stack := make([]int32, 0, n)
	for i := range n {
		if waiting[i] == 0 {
			stack = append(stack, int32(i))
		}
	}
	bl := make([]float64, n)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := &w.Tasks[i]
		bl[i] += weight(t)
		for _, d := range w.DepsOf(int(i)) {
			bl[d] = math.Max(bl[d], bl[i])
			if waiting[d]--; waiting[d] == 0 {
				stack = append(stack, int32(d))
			}
		}
	}
	return bl
}

// parsecPriorities computes DPLASMA's Cholesky priorities from the tasks'
// coordinates [k, m, n] (the tile A[m][n] the task writes).
func parsecPriorities(w *workloads.Workload) ([]float64, error) {
	size := 0
	for i, t := range w.Tasks {
		c := w.Coords.Of(i)
		if len(c) != 3 || (t.Kernel != "potrf" && t.Kernel != "trsm" && t.Kernel != "syrk" && t.Kernel != "gemm") {
			return nil, fmt.Errorf("priority=parsec is defined for the Cholesky task graph only; task %d is %s %v (use bottom-level)", t.ID, t.Kernel, c)
		}
		size = max(size, int(c[1])+1)
	}
	n := float64(size)
	out := make([]float64, len(w.Tasks))
	for i, t := range w.Tasks {
		xyz := w.Coords.Of(i)
		k, m, c := float64(xyz[0]), float64(xyz[1]), float64(xyz[2])
		cube := (n - m) * (n - m) * (n - m)
		switch t.Kernel {
		case "potrf":
			out[i] = (n - k) * (n - k) * (n - k)
		case "trsm":
			out[i] = cube + 3*(m-k)*(2*n-k-m-1)
		case "syrk":
			out[i] = cube + 3*(m-k)
		case "gemm":
			out[i] = cube + 3*(m-c)*(2*n-m-c-3) + 6*(m-k)
		}
	}
	return out, nil
}
