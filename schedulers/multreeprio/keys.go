package multreeprio

// taskKeys holds each ready task's key in each tree, flat: a score per
// (task, tree), negative where the task is not in that tree (scores are
// in [0, 1]), and the task's push sequence. A slice of keys per task took
// 120 bytes a task with four trees, this 36 (84 MB less at a million
// tasks).
type taskKeys struct {
	trees int
	score []float64
	seq   []int32
}

func newTaskKeys(tasks, trees int) taskKeys {
	return taskKeys{trees: trees, score: make([]float64, tasks*trees), seq: make([]int32, tasks)}
}

// put records k as the key of task k.task in tree g; a negative score
// says it is not in that tree.
func (ks *taskKeys) put(g int, k key) {
	ks.seq[k.task] = k.seq
	ks.score[int(k.task)*ks.trees+g] = k.score
}

// of is task t's key in tree g, and whether it is in that tree.
func (ks *taskKeys) of(t, g int) (key, bool) {
	s := ks.score[t*ks.trees+g]
	return key{score: s, seq: ks.seq[t], task: int32(t)}, s >= 0
}
