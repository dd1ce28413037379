package schedulers

import (
	"math/rand/v2"
	"testing"
)

// TestQueuesAgainstSlices pushes and pops at random against one slice per
// worker; a popped task may be queued again, on any worker.
func TestQueuesAgainstSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for inst := 0; inst < 200; inst++ {
		workers, tasks := 1+r.IntN(4), 1+r.IntN(30)
		q := NewQueues(workers, tasks)
		ref := make([][]int, workers)
		var free []int // tasks in no queue
		for task := range tasks {
			free = append(free, task)
		}
		for step := 0; step < 200; step++ {
			w := r.IntN(workers)
			if len(free) > 0 && r.IntN(2) == 0 {
				i := r.IntN(len(free))
				task := free[i]
				free = append(free[:i], free[i+1:]...)
				q.Push(w, task)
				ref[w] = append(ref[w], task)
				continue
			}
			if q.Len(w) != len(ref[w]) {
				t.Fatalf("instance %d step %d: Len(%d) = %d, want %d", inst, step, w, q.Len(w), len(ref[w]))
			}
			if q.Idle(w) != (len(ref[w]) == 0) {
				t.Fatalf("instance %d step %d: Idle(%d) = %v with %d queued", inst, step, w, q.Idle(w), len(ref[w]))
			}
			got, ok := q.Pop(w)
			if ok != (len(ref[w]) > 0) {
				t.Fatalf("instance %d step %d: Pop(%d) ok = %v with %d queued", inst, step, w, ok, len(ref[w]))
			}
			if !ok {
				continue
			}
			if got != ref[w][0] {
				t.Fatalf("instance %d step %d: Pop(%d) = %d, want %d", inst, step, w, got, ref[w][0])
			}
			ref[w] = ref[w][1:]
			free = append(free, got)
		}
	}
}
