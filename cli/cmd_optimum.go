package cli

import (
	"fmt"
	"io"

	"github.com/memsched/memsched/schedulers/order"
)

func init() {
	register("optimum", "gap of each ordering heuristic to the optimal number of loads (tiny instances, thesis Ch. 2 model)", cmdOptimum)
}

// cmdOptimum compares the orders of the single-GPU heuristics with the
// exact optimum in the model of thesis Ch. 2 (one PU, no prefetching,
// loads counted with Belady's and LRU's evictions), where Belady is
// optimal for a fixed order (Theorem 1) so the optimum is the best order.
func cmdOptimum(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("optimum", "[flags]", stderr)
	var wf workloadFlags
	wf.register(fs, true)
	memData := fs.Int("memory-data", 0, "memory in number of data (the workload's first data size); or use --memory-bytes")
	memBytes := fs.Int64("memory-bytes", 0, "memory in bytes")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	w, err := wf.build(fs, *seed)
	if err != nil {
		return err
	}
	if set := given(fs); set["memory-data"] && set["memory-bytes"] {
		return fmt.Errorf("--memory-data and --memory-bytes both given; keep one")
	}
	capacity := *memBytes
	if *memData > 0 {
		capacity = int64(*memData) * w.Data[0].Bytes
	}
	if capacity <= 0 {
		return fmt.Errorf("give the memory: --memory-data N or --memory-bytes B")
	}
	best, _, err := order.OptimalLoads(w, capacity)
	if err != nil {
		return err
	}
	submission := make([]int, len(w.Tasks))
	for i := range submission {
		submission[i] = i
	}
	hfp := func(flip bool) []int {
		return order.HFP(w, order.HFPOptions{Memory: capacity, Flip: flip, Packages: 1})[0]
	}
	fmt.Fprintf(stdout, "%s, memory %d bytes: optimal %d loads\n\n| order | loads (Belady) | gap | loads (LRU) |\n|:--|--:|--:|--:|\n", w.Name, capacity, best)
	for _, o := range []struct {
		name  string
		order []int
	}{
		{"submission (EAGER)", submission}, {"MST", order.MST(w)}, {"RCM", order.CuthillMcKee(w, true)},
		{"CM", order.CuthillMcKee(w, false)}, {"HFP", hfp(false)}, {"HFP+flip", hfp(true)},
	} {
		b, _, err := order.Loads(w, o.order, capacity, order.PolicyBelady)
		if err != nil {
			return err
		}
		l, _, _ := order.Loads(w, o.order, capacity, order.PolicyLRU)
		fmt.Fprintf(stdout, "| %s | %d | %+.1f%% | %d |\n", o.name, b, 100*float64(b-best)/float64(best), l)
	}
	return nil
}
