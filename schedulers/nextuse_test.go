package schedulers

import (
	"testing"

	"github.com/memsched/memsched/workloads"
)

// HFP.c's next uses: positions count every input of the planned list, a
// task's end pops the front of each input's queue whichever use it was, a
// candidate with no use left is taken at once, else the largest front.
func TestNextUsesAsHFP(t *testing.T) {
	w := &workloads.Workload{Data: make([]workloads.Data, 4)}
	for i := range w.Data {
		w.Data[i] = workloads.Data{ID: i, Bytes: 1}
	}
	w.Tasks = []workloads.Task{{ID: 0, Inputs: []int{0, 1}}, {ID: 1, Inputs: []int{0, 2}}, {ID: 2, Inputs: []int{3, 1}}, {ID: 3, Inputs: []int{0, 3}}}
	// plan 0 1 2 3: data 0 at 1, 3, 7; data 1 at 2, 6; data 2 at 4; data 3 at 5, 8
	u := newNextUses(w, [][]int32{{0, 1, 2, 3}})
	if v, _ := u.victim(0, []int{0, 1, 2, 3}); v != 3 {
		t.Fatalf("victim %d, want 3 (front 5)", v)
	}
	u.ended(0, 2) // run out of order: pops data 3's 5 and data 1's 2
	if v, _ := u.victim(0, []int{0, 1, 2, 3}); v != 3 {
		t.Fatalf("victim %d, want 3 (front 8)", v)
	}
	if v, _ := u.victim(0, []int{0, 1, 2}); v != 1 {
		t.Fatalf("victim %d, want 1 (front 6, though task 0 still reads it at 2)", v)
	}
	u.ended(0, 1) // data 0 pops 1, data 2 has none left
	if v, ops := u.victim(0, []int{0, 1, 2, 3}); v != 2 || ops != 3 {
		t.Fatalf("victim %d after %d, want 2 (no use left) after 3", v, ops)
	}
}
