package schedulers

import "github.com/memsched/memsched/workloads"

// Where Belady reads the next uses (Planned.BeladyUses).
const (
	// BeladyUsesStarPU is HFP.c's: get_ordre_utilisation_donnee numbers
	// every input of each GPU's planned list once, when the plan is made
	// (1, 2, ... over the list's tasks and their buffers), and queues the
	// numbers in each datum's next_use_tab; get_task_done_HFP (the
	// policy's post_exec_hook) pops the front of the queue of each input
	// of a task that ends, whichever of the datum's uses the task was.
	// belady_victim_selector then walks the data on the node
	// (starpu_data_get_node_data: the mc_list, least recently used
	// first), skips those starpu_data_can_evict refuses, returns the first
	// whose queue is empty, else the one whose front is the largest. Tasks
	// popped or buffered but not ended still count, and once Ready has run
	// a datum's uses out of the planned order, its front is no longer its
	// next use (HFP.c says so above get_ordre_utilisation_donnee).
	BeladyUsesStarPU = "starpu"
	// BeladyUsesRemaining is the next use in what the worker will run:
	// its pipeline, its buffer, then its remaining plan (thesis §3.5.3).
	BeladyUsesRemaining = "remaining"
)

// BeladyUsesParam declares belady_uses for the Planned schedulers.
var BeladyUsesParam = Param{Name: "belady_uses", Kind: "string", Default: BeladyUsesStarPU, Choices: []string{BeladyUsesStarPU, BeladyUsesRemaining},
	Doc: "with belady: starpu (HFP.c next_use_tab: each datum's positions in the planned list, the front popped when a task using it ends, get_task_done_HFP; the victim is the first candidate with none left, else the largest front, belady_victim_selector) or remaining (the first use in the pipeline, buffer, then the remaining plan)"}

// nextUses is HFP.c's next_use_tab: per worker and datum, the positions
// of the datum's uses in the worker's planned list, with the number
// already popped.
type nextUses struct {
	w    *workloads.Workload
	pos  [][][]int32 // per worker, per data: positions (1-based, counted over the list's inputs)
	head [][]int32   // per worker, per data: entries popped
}

func newNextUses(w *workloads.Workload, plans [][]int32) *nextUses {
	u := &nextUses{w: w, pos: make([][][]int32, len(plans)), head: make([][]int32, len(plans))}
	nd := len(w.Data)
	for wk, l := range plans {
		u.pos[wk] = make([][]int32, nd)
		u.head[wk] = make([]int32, nd)
		count := make([]int32, nd)
		for _, t := range l {
			for _, d := range w.Tasks[t].Inputs {
				count[d]++
			}
		}
		total := 0
		for _, c := range count {
			total += int(c)
		}
		backing := make([]int32, total)
		for d, c := range count {
			u.pos[wk][d], backing = backing[:0:c], backing[c:]
		}
		var compteur int32
		for _, t := range l {
			for _, d := range w.Tasks[t].Inputs { // each buffer, duplicates too
				compteur++
				u.pos[wk][d] = append(u.pos[wk][d], compteur)
			}
		}
	}
	return u
}

// ended pops, for each input of a task that ended on worker wk, the front
// of the datum's queue on that worker, if any (get_task_done_HFP: with
// stealing the queue may be empty).
func (u *nextUses) ended(wk, task int) {
	if wk < 0 || wk >= len(u.pos) {
		return
	}
	for _, d := range u.w.Tasks[task].Inputs {
		if int(u.head[wk][d]) < len(u.pos[wk][d]) {
			u.head[wk][d]++
		}
	}
}

// victim is belady_victim_selector over the candidates (LRU order): the
// first with no use left, else the largest front. ops is the candidates
// examined.
func (u *nextUses) victim(wk int, cands []int) (victim, ops int) {
	if wk < 0 || wk >= len(u.pos) {
		return cands[0], 1
	}
	latest := int32(0)
	victim = -1
	for i, c := range cands {
		h := u.head[wk][c]
		if int(h) >= len(u.pos[wk][c]) {
			return c, i + 1
		}
		if v := u.pos[wk][c][h]; v > latest {
			latest, victim = v, c
		}
	}
	return victim, len(cands)
}
