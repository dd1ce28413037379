package cudaexec

import (
	"errors"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware/cuda"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// Without a CUDA library the executor fails with one clear message that
// names the way out; this holds on every platform.
func TestNoLibrary(t *testing.T) {
	t.Setenv(cuda.EnvCudart, "/nonexistent/libcudart.so.12")
	t.Setenv(cuda.EnvCublas, "/nonexistent/libcublas.so.12")
	w := mustGen(t, workloads.Spec{Kind: "matmul2d", N: 2, Tile: 8, Z: 16})
	p := privateLinks(t, 1, 1<<20)
	s, buf := build(t, "eager", p)
	_, _, err := Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: buf, Pipeline: 1})
	if err == nil {
		t.Fatal("ran without a CUDA library")
	}
	if !errors.Is(err, cuda.ErrNoLibrary) {
		t.Errorf("error does not wrap cuda.ErrNoLibrary: %v", err)
	}
	for _, want := range []string{"no CUDA GPU found", "--executor sim"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := Calibrate(CalibrateOptions{}); err == nil || !strings.Contains(err.Error(), "no CUDA GPU found") {
		t.Errorf("calibrate without CUDA: %v", err)
	}
}
