package static

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/hypergraph"
	"github.com/memsched/memsched/workloads"
)

// hmetisOptions are hmetis+r's parameters.
type hmetisOptions struct {
	Ready, ReadyBelow, Steal bool
	UBFactor                 float64
	Runs, VCycles            int
	Partitioner, Seed        string
	Files                    string
	Stale                    bool
}

var hmetisParams, hmetisNew = schedulers.Typed(func(a *schedulers.Args, o *hmetisOptions) {
	a.Bool(&o.Ready, "ready", true, "Ready reordering at run time")
	readyAtArg(a, &o.ReadyBelow)
	a.Bool(&o.Steal, "steal", true, "work stealing when a GPU runs out of tasks")
	a.Float(&o.UBFactor, "ubfactor", 1, "hMETIS UBfactor: balance tolerance per bisection, percent")
	a.Int(&o.Runs, "runs", 20, "hMETIS Nruns: bisections computed per level, best kept").Min(0)
	a.Int(&o.VCycles, "vcycles", 2, "hMETIS Vcycle mode (1, 2, 3; -1 none)")
	a.String(&o.Partitioner, "partitioner", "auto", []string{"auto", "builtin", "bounded", "external"},
		"auto: an installed hmetis/shmetis/khmetis/KaHyPar if on PATH, else the built-in partitioner bounding its work (bounded: sampled ratings of large edges, shared coarsenings, as hMETIS and KaHyPar bound theirs; 0.9 s instead of 22 s on the 90,000-task hypergraph, same cut); builtin: the built-in one rating every pin; the record names which ran")
	a.String(&o.Seed, "partition_seed", "hypergraph", []string{"hypergraph", "run"},
		"hypergraph: the partitioner's seed derives from the hypergraph, so a hypergraph always gets the same partition, as a partition file generated beforehand (the scripts' HMETIS=3) is the same for every run reading it; the 'hMETIS+R' and 'no part. time' blocks then differ only by the partitioning time, and a sweep partitions once for both; run: the run's random source, each block and repetition its own partition (as version 3 of this scheduler, which also weighed tasks by their drawn durations)")
	a.String(&o.Files, "partition_files", "", nil,
		"a directory of partitions generated beforehand, as HFP.c's hmetis_input_already_generated (HMETIS=3) reads them: input_hMETIS_N<N>.txt, one part number per task in submission order, N from the workload's name (matmul2d-n<N>); paper/reference/hmetis-partitions/2GPU and 4GPU are the authors' (StarPU 8f5ebf395, 5 Oct 2021). A file stands for the partition hmetis computes at scheduling time (HMETIS=1): a counted planning (charge_sched_time) is charged HFP.c hmetis()'s scan, predictions and program run either way; HMETIS=3's blocks count no planning. Empty: the partitioner computes the partition")
	a.Bool(&o.Stale, "stale_partition", false,
		"the partition was made for another order or set of the same kind of tasks from the run's: StarPU's xgemm.c draws RANDOM_TASK_ORDER's shuffle and SPARSE_MATRIX's mask again at each of its iterations from one random() stream (srandom(SEED) once), while HFP.c hmetis_input_already_generated (HMETIS=3) reads one fixed file per N, one part per task in list order, so no timed iteration gets the partition of its own tasks; each task then takes the part at its position in a seeded permutation of the partition (the parts keep their sizes, not their locality); false: the partition is of the run's tasks")
}, func(o hmetisOptions) (schedulers.Scheduler, error) {
	s := &hmetisR{mode: o.Partitioner, seedRun: o.Seed == "run", files: o.Files, stale: o.Stale}
	s.Planned = schedulers.Planned{Name: "hmetis+r", Ready: o.Ready, ReadyBelow: o.ReadyBelow, Steal: o.Steal,
		Plan: func(v schedulers.View) ([][]int, error) {
			return s.partition(v, hypergraph.Options{Parts: v.Workers(), UBFactor: o.UBFactor, Runs: o.Runs, VCycles: o.VCycles})
		}}
	return s, nil
})

// Version 7: the planning counts HFP.c hmetis()'s scan, predictions and
// run of the hmetis program (countHMETIS), which a counted planning
// (charge_sched_time) charges.
// Version 8: stale_partition (a partition file of another order or set of
// the tasks, as the random-order and sparse campaigns' HMETIS=3 runs read
// one); its default changes no decision, the records list it.
func init() {
	schedulers.Register(schedulers.Spec{Name: "hmetis+r", Version: 8,
		Doc:    "hMETIS+R (thesis Alg. 7): partition the task hypergraph (one hyperedge per data, weighted by bytes; vertices weighted by expected duration) into K balanced parts, part k on GPU k in submission order, Ready, stealing half of the most loaded GPU's remaining tasks from its tail",
		Params: hmetisParams, New: hmetisNew})
}

// hmetisR is Planned with a plan from the hypergraph partitioner; it
// reports which partitioner ran, for the result record.
type hmetisR struct {
	schedulers.Planned
	mode    string // auto, builtin, bounded or external
	seedRun bool   // partition_seed = run
	files   string // partition_files
	stale   bool   // stale_partition
	tool    string
}

func (s *hmetisR) Partitioner() string { return s.tool }

func (s *hmetisR) partition(v schedulers.View, opt hypergraph.Options) ([][]int, error) {
	w := v.Workload()
	k := v.Workers()
	if k == 1 {
		s.tool = "none (1 GPU)"
		return s.plans(v, make([]int, len(w.Tasks)), k), nil // every task on GPU 0
	}
	countHMETIS(v, w)
	if s.files != "" {
		parts, tool, err := readPartitionFile(s.files, w.Name, len(w.Tasks), k)
		if err != nil {
			return nil, err
		}
		s.tool = tool
		return s.plans(v, parts, k), nil
	}
	// A task weighs its expected duration on worker 0 in nanoseconds (at
	// least 1, so every task weighs): the performance model's, as HFP.c's
	// hMETIS input file (starpu_task_expected_length on CUDA worker 0),
	// not the run's drawn duration, so the hypergraph is the workload's.
	weights := make([]int64, len(w.Tasks))
	expected := schedulers.NewKernelTimes(v.Platform(), v.WorkerKind(0))
	for i := range w.Tasks {
		secs, _, err := expected.Seconds(&w.Tasks[i])
		if err != nil {
			return nil, err
		}
		weights[i] = max(1, int64(secs*1e9))
	}
	users := w.Users()
	var edges [][]int
	var ew []int64
	for d, u := range users {
		if len(u) > 1 {
			edges = append(edges, u)
			ew = append(ew, w.Data[d].Bytes)
		}
	}
	compute := func() (partition, error) {
		h, err := hypergraph.New(weights, edges, ew)
		if err != nil {
			return partition{}, err
		}
		parts, tool, err := s.run(h, opt)
		return partition{parts, tool}, err
	}
	var r partition
	var err error
	if s.seedRun {
		opt.Seed = v.Rand().Uint64()
		r, err = compute()
	} else {
		// The seed and the sharing key both name the hypergraph and
		// the options.
		sum := hypergraph.Sum(weights, edges, ew)
		opt.Seed = binary.LittleEndian.Uint64(sum[:8])
		r, err = schedulers.Shared(v, fmt.Sprintf("hmetis+r %x %s %+v", sum, s.mode, opt), compute)
	}
	if err != nil {
		return nil, err
	}
	s.tool = r.tool
	return s.plans(v, r.parts, k), nil
}

// plans puts each task on its part's GPU in submission order; a stale
// partition (stale_partition) is first permuted with the run's random
// source, as a fixed file meets tasks drawn in another order.
func (s *hmetisR) plans(v schedulers.View, parts []int, k int) [][]int {
	if s.stale && k > 1 { // one part: nothing to move
		parts = slices.Clone(parts)
		v.Rand().Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	}
	plans := make([][]int, k)
	for t, part := range parts {
		plans[part] = append(plans[part], t)
	}
	return plans
}

// countHMETIS counts what HFP.c hmetis() (HMETIS=1, StarPU c80ea6665,
// the IPDPS 2022 campaign; unchanged at papers/ICPP2023) does around the
// partitioner, which the planning charge prices (sched_cost = "model"):
//   - its hypergraph scan: for each buffer of each task, a walk of the
//     earlier tasks comparing handles until one holds it, and, if none
//     does, a walk of every later task comparing all their handles (the
//     hyperedge's pins): O(T²·B) handle comparisons and list steps in a
//     loop without calls, counted as array operations;
//   - starpu_task_expected_length twice per task (the vertex weights it
//     writes, the package times when it reads the partition back), as
//     dmda's predictions;
//   - one run of the hmetis program through system(), with the files it
//     reads and writes (OpProgramRun).
//
// A partition read from partition_files stands for the one hmetis
// computes there; HMETIS=3's blocks ("no part. time") do not charge the
// planning (charge_sched_time = false), so none of this is priced there.
func countHMETIS(v schedulers.View, w *workloads.Workload) {
	v.CountOps(schedulers.OpArray, int(min(hmetisScanOps(w), math.MaxInt)))
	v.CountOps(schedulers.OpPredict, 2*len(w.Tasks))
	v.CountOps(schedulers.OpProgramRun, 1)
}

// hmetisScanOps is the number of handle comparisons and list steps of
// HFP.c hmetis()'s scan over the tasks in submission order, computed in
// O(T·B) from each datum's first user instead of by running the scan.
func hmetisScanOps(w *workloads.Workload) int64 {
	t := len(w.Tasks)
	before := make([]int64, t+1) // before[k]: buffers of the tasks ahead of task k
	for k := range w.Tasks {
		before[k+1] = before[k] + int64(len(w.Tasks[k].Inputs))
	}
	first := make([]int32, len(w.Data))
	for d := range first {
		first[d] = -1
	}
	ops := int64(t) // the outer walk
	for k := range w.Tasks {
		for _, d := range w.Tasks[k].Inputs {
			f := first[d]
			if f >= 0 {
				// Every task ahead of the first user, then that task's
				// buffers up to the match.
				ops += before[f] + int64(f) + int64(slices.Index(w.Tasks[f].Inputs, d)) + 1
				continue
			}
			first[d] = int32(k)
			// Every earlier task in vain, then every later one.
			ops += before[t] - (before[k+1] - before[k]) + int64(t-1)
		}
	}
	return ops
}

// A partition is what a partitioner returns, and its name.
type partition struct {
	parts []int
	tool  string
}

// run partitions h with the partitioner the mode names.
func (s *hmetisR) run(h *hypergraph.Hypergraph, opt hypergraph.Options) (parts []int, tool string, err error) {
	switch s.mode {
	case "builtin":
		parts, err = hypergraph.Partition(h, opt)
		tool = hypergraph.BuiltinName
	case "bounded":
		opt.Bounded = true
		parts, err = hypergraph.Partition(h, opt)
		tool = hypergraph.BuiltinName + "-bounded"
	case "external":
		parts, tool, err = hypergraph.External(h, opt)
	default:
		opt.Bounded = true
		parts, tool, err = hypergraph.Best(h, opt, true)
		if tool == hypergraph.BuiltinName {
			tool += "-bounded"
		}
	}
	return parts, tool, err
}

// sizeInName is the matrix size in tiles a workload's name carries
// (matmul2d-n40), HFP.c's HMETIS_N.
var sizeInName = regexp.MustCompile(`-n([0-9]+)(-|$)`)

// readPartitionFile reads the partition of an n-task workload into k
// parts from dir, as HFP.c hmetis_input_already_generated does: the file
// input_hMETIS_N<N>.txt holds one part number per task, the tasks in
// submission order.
func readPartitionFile(dir, name string, n, k int) ([]int, string, error) {
	m := sizeInName.FindStringSubmatch(name)
	if m == nil {
		return nil, "", fmt.Errorf("hmetis+r partition_files: no size -n<N> in the workload's name %q", name)
	}
	path := filepath.Join(dir, "input_hMETIS_N"+m[1]+".txt")
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("hmetis+r partition_files: %w (a relative directory is relative to where memsched runs: the suites name it from the repository's root)", err)
	}
	// A part number per task and its line break: at most 11 bytes each
	// for any k a run can have; a larger file is not a partition.
	if limit := int64(n)*11 + 64; st.Size() > limit {
		return nil, "", fmt.Errorf("hmetis+r partition_files: %s has %d bytes, more than the %d a partition of %d tasks takes", path, st.Size(), limit, n)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("hmetis+r partition_files: %w", err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != n {
		return nil, "", fmt.Errorf("hmetis+r partition_files: %s has %d parts for %d tasks", path, len(fields), n)
	}
	parts := make([]int, n)
	for t, f := range fields {
		p, err := strconv.Atoi(f)
		if err != nil || p < 0 || p >= k {
			return nil, "", fmt.Errorf("hmetis+r partition_files: %s, task %d: part %q, not one of the %d GPUs", path, t, f, k)
		}
		parts[t] = p
	}
	return parts, "file " + path, nil
}
