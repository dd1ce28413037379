package dartsdag

import "slices"

// readers holds per data the ready tasks that read it, in no order: a data
// arriving on or leaving a node moves the counters of these tasks only,
// not of every future reader. Each task records its index in the list of
// each of its inputs, so that it leaves them in O(inputs).
type readers struct {
	of     [][]int32 // per data
	pos    []int32   // per input slot: the task's index in of[input]
	inputs taskInputs
}

// newReaders carves every data's list out of one array, at the size of
// its readers (a list never holds more), so that no list grows by copies.
func newReaders(nd int, inputs taskInputs) readers {
	end := make([]int32, nd+1)
	for _, x := range inputs.all {
		end[x+1]++
	}
	for x := range nd {
		end[x+1] += end[x]
	}
	all := make([]int32, len(inputs.all))
	of := make([][]int32, nd)
	for x := range of {
		of[x] = all[end[x]:end[x]:end[x+1]]
	}
	return readers{of: of, pos: make([]int32, len(inputs.all)), inputs: inputs}
}

// taskInputs holds every task's distinct inputs in one array (a slice
// per task would cost 24 bytes more each).
type taskInputs struct {
	first []int32 // per task and one more: the slot of its first input in all
	all   []int32
}

// of returns task t's inputs (shared: do not modify).
func (in taskInputs) of(t int32) []int32 {
	return in.all[in.first[t]:in.first[t+1]:in.first[t+1]]
}

// add lists task t under each of its inputs.
func (r *readers) add(t int32) {
	for j, x := range r.inputs.of(t) {
		r.pos[r.inputs.first[t]+int32(j)] = int32(len(r.of[x]))
		r.of[x] = append(r.of[x], t)
	}
}

// remove takes task t (listed) out of the lists of its inputs, moving each
// list's last task into its place.
func (r *readers) remove(t int32) {
	for j, x := range r.inputs.of(t) {
		i := r.pos[r.inputs.first[t]+int32(j)]
		list := r.of[x]
		last := list[len(list)-1]
		list[i] = last
		r.pos[r.inputs.first[last]+int32(slices.Index(r.inputs.of(last), x))] = i
		r.of[x] = list[:len(list)-1]
	}
}
