package cudaexec

import (
	"fmt"
	"math"

	"github.com/memsched/memsched/workloads"
)

// gemmShape is the SGEMM a task runs: C (m×n) = A (m×k) · B (k×n), all
// column-major, A and B the device copies of Inputs[a] and Inputs[b], C a
// per-GPU scratch tile that every task overwrites (the papers' sgemm
// benchmark discards C as well; the simulator models no write-back).
type gemmShape struct {
	m, n, k  int
	a, b     int  // positions in Task.Inputs
	emulated bool // an SGEMM of the task's flops standing in for another kernel
}

func (s gemmShape) String() string {
	e := ""
	if s.emulated {
		e = " (emulated)"
	}
	return fmt.Sprintf("%dx%dx%d%s", s.m, s.n, s.k, e)
}

// taskShape derives the SGEMM of a task from its kernel, flops and input
// sizes, so that workloads read from JSON need no extra fields:
//
//   - gemm reading two data of 4mk and 4km bytes with 2m²k flops is the
//     2D product of a block-row by a block-column: m = n = tile, k = z;
//   - gemm reading three t×t tiles with 2t³ flops (matmul3d, and Cholesky
//     and LU updates) multiplies the first two: m = n = k = t; the third,
//     the C tile, is loaded as StarPU would but the result goes to scratch;
//   - any other task (potrf, trsm, syrk, getrf, or a gemm of another shape)
//     runs as a cube SGEMM of equal flops, m = n = k = round(cbrt(flops/2)),
//     over its first two inputs (or its only one). Its time is then an
//     SGEMM's, not the real kernel's, which calibrate measures as such.
func taskShape(w *workloads.Workload, t workloads.Task) (gemmShape, error) {
	if len(t.Inputs) == 0 {
		return gemmShape{}, fmt.Errorf("task %d (%s) reads no data: the cuda executor has nothing to multiply", t.ID, t.Kernel)
	}
	bytes := func(i int) int64 { return w.Data[t.Inputs[i]].Bytes }
	if t.Kernel == "gemm" {
		if s, ok := gemm2D(t.Flops, bytes(0), bytesOr(t, w, 1)); ok && len(t.Inputs) == 2 {
			return s, nil
		}
		if s, ok := gemm3D(t.Flops, bytes(0), bytesOr(t, w, 1)); ok && len(t.Inputs) == 3 && bytes(2) == bytes(0) {
			return s, nil
		}
	}
	c := emulatedSide(t.Flops)
	s := gemmShape{m: c, n: c, k: c, a: 0, b: 0, emulated: true}
	if len(t.Inputs) > 1 {
		s.b = 1
	}
	need := 4 * int64(c) * int64(c)
	if bytes(s.a) < need || bytes(s.b) < need {
		return gemmShape{}, fmt.Errorf("task %d (%s, %.4g flops) cannot be emulated by a %dx%dx%d SGEMM over its inputs of %d and %d bytes",
			t.ID, t.Kernel, t.Flops, c, c, c, bytes(s.a), bytes(s.b))
	}
	return s, nil
}

func bytesOr(t workloads.Task, w *workloads.Workload, i int) int64 {
	if i < len(t.Inputs) {
		return w.Data[t.Inputs[i]].Bytes
	}
	return -1
}

// gemm2D solves 4mk = sa, 4km = sb, 2m²k = flops for integers.
func gemm2D(flops float64, sa, sb int64) (gemmShape, bool) {
	if sa <= 0 || sa != sb {
		return gemmShape{}, false
	}
	m := int(math.Round(2 * flops / float64(sa)))
	if m < 1 || sa%(4*int64(m)) != 0 {
		return gemmShape{}, false
	}
	k := int(sa / (4 * int64(m)))
	if 2*float64(m)*float64(m)*float64(k) != flops {
		return gemmShape{}, false
	}
	return gemmShape{m: m, n: m, k: k, a: 0, b: 1}, true
}

// gemm3D solves 4t² = sa = sb, 2t³ = flops.
func gemm3D(flops float64, sa, sb int64) (gemmShape, bool) {
	if sa <= 0 || sa != sb {
		return gemmShape{}, false
	}
	t := int(math.Round(math.Sqrt(float64(sa) / 4)))
	if 4*int64(t)*int64(t) != sa || 2*float64(t)*float64(t)*float64(t) != flops {
		return gemmShape{}, false
	}
	return gemmShape{m: t, n: t, k: t, a: 0, b: 1}, true
}

// emulatedSide is the side of the cube SGEMM with about the given flops.
func emulatedSide(flops float64) int {
	return max(1, int(math.Round(math.Cbrt(flops/2))))
}

// kernelFlops are the flops of one task of each kernel on t×t tiles, as
// workloads.Generate counts them (generate.go), for calibrate.
func kernelFlops(kernel string, t int) float64 {
	f := float64(t)
	switch kernel {
	case "potrf":
		return f * f * f / 3
	case "trsm", "syrk":
		return f * f * f
	case "getrf":
		return 2 * f * f * f / 3
	}
	return 2 * f * f * f
}
