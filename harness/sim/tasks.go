package sim

import (
	"fmt"

	"github.com/memsched/memsched/workloads"
)

// taskRec is the engine's per-task state together with what its hot paths
// read of the task: its duration on the first worker kind, its inputs (up
// to inlineInputs of them, else where they start in Engine.spill) and their
// modes. At a million tasks the task records of the workload (136 bytes
// each, their inputs elsewhere) and the engine's per-task arrays no longer
// fit in cache, and a task given to a worker missed in each of them; a
// record is 32 bytes, half a cache line, and holds all of it.
type taskRec struct {
	dur     float64 // seconds on worker kind 0 (NaN: cannot run); other kinds in Engine.compute
	waiting int32   // unmet dependencies; -1 once given to a worker
	popSeq  int32   // order in which tasks were popped
	in      [inlineInputs]int32
	n       uint16 // inputs
	modes   uint8  // 2 bits per inline input (workloads.Mode); 0: every input is read
	written bool   // some input has a mode (workloads.Task.Modes is not empty)
}

// inlineInputs is how many inputs a record holds itself: the 2D and 3D
// products' tasks read 2 or 3 data, Cholesky's and LU's at most 3.
const inlineInputs = 3

// maxInputs bounds a task's inputs (taskRec.n).
const maxInputs = 1<<16 - 1

// setTask fills a task's record from the workload: inputs and modes. (New
// fills the records in its one pass over the tasks: at a million tasks,
// each pass over the workload's task records reads 56 MB.)
func (e *Engine) setTask(i int, t *workloads.Task) error {
	if len(t.Inputs) > maxInputs {
		return fmt.Errorf("task %d has %d inputs, more than the simulator's %d", i, len(t.Inputs), maxInputs)
	}
	r := &e.tasks[i]
	r.n = uint16(len(t.Inputs))
	r.written = len(e.w.ModesOf(i)) > 0
	in := r.in[:]
	if len(t.Inputs) > inlineInputs {
		r.in[0] = int32(len(e.spill))
		e.spill = append(e.spill, make([]int32, len(t.Inputs))...)
		in = e.spill[r.in[0]:]
	}
	for k, d := range t.Inputs {
		in[k] = int32(d)
	}
	if r.written && len(t.Inputs) <= inlineInputs {
		for k := range t.Inputs {
			r.modes |= uint8(e.w.Mode(i, k)) << (2 * k)
		}
	}
	return nil
}

// TaskInputs are the data a task accesses, in the workload's order
// (View.TaskInputs).
func (e *Engine) TaskInputs(task int) []int32 { return e.inputs(task) }

// inputs are the data a task accesses, in the workload's order.
func (e *Engine) inputs(task int) []int32 {
	r := &e.tasks[task]
	if r.n <= inlineInputs {
		return r.in[:r.n]
	}
	return e.spill[r.in[0] : r.in[0]+int32(r.n)]
}

// mode is the access mode of a task's k-th input.
func (e *Engine) mode(task, k int) workloads.Mode {
	r := &e.tasks[task]
	switch {
	case !r.written:
		return workloads.R
	case r.n <= inlineInputs:
		return workloads.Mode(r.modes >> (2 * k) & 3)
	}
	return e.w.Mode(task, k)
}

// reads reports whether a task accesses data d.
func (e *Engine) reads(task, d int) bool {
	for _, in := range e.inputs(task) {
		if int(in) == d {
			return true
		}
	}
	return false
}

// duration is a task's compute time on a worker (NaN: cannot run).
func (e *Engine) duration(w, task int) float64 {
	wk := e.workers[w]
	switch {
	case wk.kind != 0:
		return e.compute[wk.kind][task]
	case e.gpuDur != nil:
		return e.gpuDur[wk.node][task]
	}
	return e.tasks[task].dur
}
