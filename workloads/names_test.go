package workloads

import (
	"fmt"
	"testing"
)

// Each name is the role of the data in the tasks Generate builds: a task's
// coords name the tiles it reads.
func TestDataNamesFollowTheLayouts(t *testing.T) {
	for _, s := range []Spec{
		{Kind: KindMatmul2D, N: 4, WriteC: true},
		{Kind: KindRandomPairs, N: 3},
		{Kind: KindMatmul3D, N: 3, NZ: 2},
		{Kind: KindCholesky, N: 4},
		{Kind: KindLU, N: 3},
	} {
		w, err := Generate(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range w.Tasks {
			c := w.Coords.Of(task.ID)
			var want []string
			switch s.Kind {
			case KindMatmul2D, KindRandomPairs:
				want = []string{fmt.Sprintf("B col %d", c[1]), fmt.Sprintf("A row %d", c[0])}
				if s.WriteC {
					want = append(want, fmt.Sprintf("C(%d,%d)", c[0], c[1]))
				}
			case KindMatmul3D:
				want = []string{fmt.Sprintf("B(%d,%d)", c[2], c[1]), fmt.Sprintf("A(%d,%d)", c[0], c[2]), fmt.Sprintf("C(%d,%d)", c[0], c[1])} // xgemm.c -3d's handle order
			case KindCholesky, KindLU: // the tile written is A[m][n], its last input
				want = []string{fmt.Sprintf("A(%d,%d)", c[1], c[2])}
			}
			inputs := task.Inputs[len(task.Inputs)-len(want):]
			for k, d := range inputs {
				if got := s.DataName(d); got != want[k] {
					t.Errorf("%s task %d %v: data %d is %q; want %q", s.Kind, task.ID, c, d, got, want[k])
				}
			}
		}
		if got := s.DataName(len(w.Data)); got != "" {
			t.Errorf("%s: data %d (outside) is %q", s.Kind, len(w.Data), got)
		}
	}
}
