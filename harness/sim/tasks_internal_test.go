package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memsched/memsched/workloads"
)

// TestTaskRecords holds the records' inputs, modes and reads to the
// workload's tasks, on random tasks of 0 to 7 inputs, with and without
// modes (inline and spilled inputs alike).
func TestTaskRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	modes := []workloads.Mode{workloads.R, workloads.W, workloads.RW}
	for trial := range 200 {
		w := &workloads.Workload{}
		data := 1 + r.IntN(50)
		for i := range 1 + r.IntN(40) {
			task := workloads.Task{ID: i, Inputs: r.Perm(data)[:min(data, r.IntN(8))]}
			var taskModes []workloads.Mode
			if r.IntN(2) == 0 {
				for range task.Inputs {
					taskModes = append(taskModes, modes[r.IntN(len(modes))])
				}
			}
			w.Tasks = append(w.Tasks, task)
			w.Modes = append(w.Modes, taskModes)
		}
		e := &Engine{w: w, tasks: make([]taskRec, len(w.Tasks))}
		for i := range w.Tasks {
			if err := e.setTask(i, &w.Tasks[i]); err != nil {
				t.Fatal(err)
			}
		}
		for i := range w.Tasks {
			task := &w.Tasks[i]
			var got []int
			for _, d := range e.inputs(i) {
				got = append(got, int(d))
			}
			if !slices.Equal(got, task.Inputs) {
				t.Fatalf("trial %d task %d: inputs %v, want %v", trial, i, got, task.Inputs)
			}
			for k := range task.Inputs {
				if m := e.mode(i, k); m != w.Mode(i, k) {
					t.Fatalf("trial %d task %d input %d: mode %v, want %v", trial, i, k, m, w.Mode(i, k))
				}
			}
			if e.tasks[i].written != (len(w.ModesOf(i)) > 0) {
				t.Fatalf("trial %d task %d: written %v with modes %v", trial, i, e.tasks[i].written, w.ModesOf(i))
			}
			for d := range data {
				if e.reads(i, d) != task.Reads(d) {
					t.Fatalf("trial %d task %d: reads(%d) = %v", trial, i, d, e.reads(i, d))
				}
			}
		}
	}
}
