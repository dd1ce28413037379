// Package order holds the static task orderings of the papers and the
// abstract single-PU memory model they are judged in:
//
//   - MST: maximum spanning tree order (thesis §3.2.2, Algorithm 4);
//   - CuthillMcKee: CM / reverse CM (thesis §3.2.1, Algorithm 3);
//   - HFP: Hierarchical Fair Packing (thesis §3.3, Algorithm 5) with package
//     flipping, fast start and heterogeneous sizes, stopped at K packages for
//     mHFP (thesis §4, Algorithm 8);
//   - Balance: mHFP load balancing;
//   - Loads / OptimalLoads: the thesis §2.2 model (one PU, thrifty eviction,
//     Belady's MIN or LRU) and its exact optimum on tiny task sets.
//
// Everything is a pure, deterministic function of a *workloads.Workload.
// Tasks are identified by their index (Tasks[i].ID == i). A task's inputs
// are read as a set: repeated data ids in Inputs count once.
//
// # Graph of tasks
//
// MST and CuthillMcKee work on G^T: tasks are vertices, two tasks are
// adjacent when they read a common data, and the weight of the edge is the
// total size in bytes of the data they share (the thesis's heterogeneous
// variant; with unit sizes it is the number of shared data). Neighbours are
// always found through the readers of each data, never through an m×m
// matrix.
//
// # Decisions on ambiguities (research notes thesis_ch2_4.md §3.3–§3.7)
//
// MST: Key(task 0) starts at 1 so task 0 comes first; the next task is the
// unvisited one with the largest key, ties to the lowest id; when no
// unvisited task has a positive key (a new component) the lowest-id
// unvisited task is taken.
//
// CuthillMcKee: weighted degree = Σ over neighbours of the edge weight. The
// start is the task of minimum weighted degree (ties: lowest id); neighbours
// are appended by non-decreasing weighted degree, ties by id (stable sort in
// submission order); when the queue is exhausted before every task is
// ordered, it restarts from the unvisited task of minimum weighted degree
// (ties: lowest id). Two tasks that only share zero-byte data are adjacent
// with weight 0.
//
// HFP: see HFP's documentation for the full rule set.
//
// Balance: see Balance's documentation for the rounding rule.
package order
