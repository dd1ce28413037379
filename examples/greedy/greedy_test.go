package greedy_test

import (
	"slices"
	"testing"

	"github.com/memsched/memsched/examples/greedy"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/conformance"
	"github.com/memsched/memsched/workloads"
)

// The scheduler keeps memsched's contract, checked as memsched checks its own.
func TestConformance(t *testing.T) { conformance.Run(t, greedy.Spec) }

// view is the part of a run the scheduler reads, set by hand; the other
// methods of schedulers.View are not expected (nil: they panic).
type view struct {
	schedulers.View
	w       *workloads.Workload
	present map[int]bool
}

func (v *view) Workload() *workloads.Workload { return v.w }
func (v *view) Present(_, d int) bool         { return v.present[d] }
func (v *view) CanRun(_, _ int) bool          { return true }
func (v *view) Count(int)                     {}

// By hand, four data of one byte: T0 reads {0,1}, T1 {2,3}, T2 {0,2}, T3
// {1,3}. With nothing present all miss 2 bytes: the earliest, T0. With 0
// and 1 present, T2 and T3 miss one byte and T1 two: T2. With 2 present
// too, T1 and T3 miss one byte each: T1, the earlier; then T3. EAGER would
// hand them out in submission order; window = 1 does too.
func TestPullsTheTaskMissingTheFewestBytes(t *testing.T) {
	w := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 1}, {ID: 1, Bytes: 1}, {ID: 2, Bytes: 1}, {ID: 3, Bytes: 1}},
		Tasks: []workloads.Task{{ID: 0, Inputs: []int{0, 1}}, {ID: 1, Inputs: []int{2, 3}}, {ID: 2, Inputs: []int{0, 2}}, {ID: 3, Inputs: []int{1, 3}}}}
	for _, c := range []struct {
		window string
		want   []int
	}{{"0", []int{0, 2, 1, 3}}, {"1", []int{0, 1, 2, 3}}} {
		s, err := greedy.Spec.New(schedulers.Params{"window": c.window, "ready": "true"})
		if err != nil {
			t.Fatal(err)
		}
		v := &view{w: w, present: map[int]bool{}}
		s.Init(v)
		for i := range w.Tasks {
			s.Push(i)
		}
		var got []int
		for {
			task, ok := s.Pull(0)
			if !ok {
				break
			}
			got = append(got, task)
			for _, d := range w.Tasks[task].Inputs {
				v.present[d] = true // its prefetches are requested
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("window %s: handed out %v; want %v", c.window, got, c.want)
		}
	}
}
