package dartsdag

import "slices"

// readers holds per data the ready tasks that read it, in no order: a data
// arriving on or leaving a node moves the counters of these tasks only,
// not of every future reader. Each task records its index in the list of
// each of its inputs, so that it leaves them in O(inputs).
type readers struct {
	of     [][]int32 // per data
	pos    []int32   // per input slot: the task's index in of[input]
	inputs [][]int32 // per task, its (distinct) inputs, slices of one array
	first  []int32   // per task, the slot of its first input in pos
}

func newReaders(nd int, inputs [][]int32, first []int32) readers {
	n := 0
	if len(first) > 0 {
		n = int(first[len(first)-1]) + len(inputs[len(inputs)-1])
	}
	return readers{of: make([][]int32, nd), pos: make([]int32, n), inputs: inputs, first: first}
}

// add lists task t under each of its inputs.
func (r *readers) add(t int32) {
	for j, x := range r.inputs[t] {
		r.pos[r.first[t]+int32(j)] = int32(len(r.of[x]))
		r.of[x] = append(r.of[x], t)
	}
}

// remove takes task t (listed) out of the lists of its inputs, moving each
// list's last task into its place.
func (r *readers) remove(t int32) {
	for j, x := range r.inputs[t] {
		i := r.pos[r.first[t]+int32(j)]
		list := r.of[x]
		last := list[len(list)-1]
		list[i] = last
		r.pos[r.first[last]+int32(slices.Index(r.inputs[last], x))] = i
		r.of[x] = list[:len(list)-1]
	}
}
