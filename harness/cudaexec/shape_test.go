package cudaexec

import (
	"strings"
	"testing"

	"github.com/memsched/memsched/workloads"
)

func TestTaskShape(t *testing.T) {
	cases := []struct {
		spec workloads.Spec
		task int
		want string
	}{
		{workloads.Spec{Kind: "matmul2d", N: 2, Tile: 960, Z: 3840}, 0, "960x960x3840"},
		{workloads.Spec{Kind: "matmul3d", N: 2, Tile: 960}, 0, "960x960x960"},
		{workloads.Spec{Kind: "cholesky", N: 3, Tile: 960}, 0, "528x528x528 (emulated)"}, // potrf: 960³/3 flops, side 960/∛6
		{workloads.Spec{Kind: "cholesky", N: 3, Tile: 960}, 1, "762x762x762 (emulated)"}, // trsm: 960³
		{workloads.Spec{Kind: "lu", N: 2, Tile: 960}, 0, "666x666x666 (emulated)"},       // getrf: 2·960³/3, side 960/∛3
	}
	for _, c := range cases {
		w := mustGen(t, c.spec)
		s, err := taskShape(w, w.Tasks[c.task])
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != c.want {
			t.Errorf("%s task %d (%s): %v, want %s", c.spec.Kind, c.task, w.Tasks[c.task].Kernel, s, c.want)
		}
	}
	// Cholesky's gemm reads three tiles: the 3D shape over the first two.
	w := mustGen(t, workloads.Spec{Kind: "cholesky", N: 3, Tile: 64})
	for _, task := range w.Tasks {
		if task.Kernel == "gemm" {
			if s, _ := taskShape(w, task); s.String() != "64x64x64" || s.a != 0 || s.b != 1 {
				t.Errorf("cholesky gemm: %v", s)
			}
		}
	}
	// A task too heavy for its inputs cannot be emulated.
	bad := &workloads.Workload{Data: []workloads.Data{{ID: 0, Bytes: 64}},
		Tasks: []workloads.Task{{ID: 0, Kernel: "potrf", Flops: 1e9, Inputs: []int{0}}}}
	if _, err := taskShape(bad, bad.Tasks[0]); err == nil || !strings.Contains(err.Error(), "cannot be emulated") {
		t.Errorf("oversized emulation: %v", err)
	}
}
