package cuda

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorNames(t *testing.T) {
	for code, want := range map[int]string{
		0:     "cudaSuccess",
		2:     "cudaErrorMemoryAllocation",
		35:    "cudaErrorInsufficientDriver",
		100:   "cudaErrorNoDevice",
		101:   "cudaErrorInvalidDevice",
		600:   "cudaErrorNotReady",
		12345: "cudaError(12345)",
	} {
		if got := ErrorName(code); got != want {
			t.Errorf("ErrorName(%d) = %q, want %q", code, got, want)
		}
	}
	if got := BlasStatusName(7); got != "CUBLAS_STATUS_INVALID_VALUE" {
		t.Errorf("BlasStatusName(7) = %q", got)
	}
	if got := BlasStatusName(99); got != "cublasStatus(99)" {
		t.Errorf("BlasStatusName(99) = %q", got)
	}
}

func TestErrorFormatAndOOM(t *testing.T) {
	e := &Error{Func: "cudaMalloc", Code: 2, Msg: "out of memory"}
	if got, want := e.Error(), "cudaMalloc: cudaErrorMemoryAllocation (2): out of memory"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("task 7: %w", e)
	if !IsOutOfMemory(wrapped) {
		t.Error("IsOutOfMemory(wrapped cudaErrorMemoryAllocation) = false")
	}
	if IsOutOfMemory(&Error{Func: "cudaFree", Code: 1}) || IsOutOfMemory(errors.New("x")) {
		t.Error("IsOutOfMemory true for a non-OOM error")
	}
	b := &Error{Func: "cublasSgemm_v2", Code: 3, Blas: true}
	if !IsOutOfMemory(b) || b.Error() != "cublasSgemm_v2: CUBLAS_STATUS_ALLOC_FAILED (3)" {
		t.Errorf("cuBLAS alloc failure: %v, IsOutOfMemory=%v", b, IsOutOfMemory(b))
	}
}

func TestVersionString(t *testing.T) {
	for v, want := range map[int]string{12080: "12.8", 13000: "13.0", 12040: "12.4", 11080: "11.8"} {
		if got := VersionString(v); got != want {
			t.Errorf("VersionString(%d) = %q, want %q", v, got, want)
		}
	}
}

func TestCandidates(t *testing.T) {
	t.Setenv(EnvCudart, "")
	if got := candidates(EnvCudart, cudartNames); len(got) != 3 || got[0] != "libcudart.so.13" || got[1] != "libcudart.so.12" || got[2] != "libcudart.so" {
		t.Errorf("default probe order = %v", got)
	}
	t.Setenv(EnvCudart, "/opt/cuda/lib64/libcudart.so.13")
	if got := candidates(EnvCudart, cudartNames); len(got) != 1 || got[0] != "/opt/cuda/lib64/libcudart.so.13" {
		t.Errorf("override = %v, want only the override", got)
	}
}
