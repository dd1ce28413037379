package cuda

import (
	"errors"
	"fmt"
)

var (
	// ErrNoLibrary: no libcudart or libcublas could be loaded.
	ErrNoLibrary = errors.New("CUDA library not found")
	// ErrNoDevice: libcudart loaded but reports no usable GPU.
	ErrNoDevice = errors.New("no usable CUDA device")
	// ErrUnsupported: an optional function is missing from the library.
	ErrUnsupported = errors.New("not supported by the loaded CUDA library")
)

// Error is a failed cudaError_t or cublasStatus_t.
type Error struct {
	Func string // C function that failed
	Code int    // cudaError_t or cublasStatus_t value
	Blas bool   // Code is a cublasStatus_t
	Msg  string // cudaGetErrorString text, if any
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s (%d)", e.Func, e.Name(), e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Name is the C enum name, e.g. cudaErrorNoDevice.
func (e *Error) Name() string {
	if e.Blas {
		return BlasStatusName(e.Code)
	}
	return ErrorName(e.Code)
}

// Codes the rest of memsched reacts to.
const (
	ErrCodeMemoryAllocation   = 2   // cudaErrorMemoryAllocation
	ErrCodeInsufficientDriver = 35  // cudaErrorInsufficientDriver
	ErrCodeNoDevice           = 100 // cudaErrorNoDevice
	ErrCodeNotReady           = 600 // cudaErrorNotReady
	blasStatusAllocFailed     = 3   // CUBLAS_STATUS_ALLOC_FAILED
)

// IsOutOfMemory reports whether err is a device allocation failure, which a
// memory-aware executor treats as a scheduling outcome, not a crash.
func IsOutOfMemory(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Blas {
		return e.Code == blasStatusAllocFailed
	}
	return e.Code == ErrCodeMemoryAllocation
}

// The common cudaError_t values (driver_types.h); CUDA keeps them stable.
var cudaErrorNames = map[int]string{
	0:   "cudaSuccess",
	1:   "cudaErrorInvalidValue",
	2:   "cudaErrorMemoryAllocation",
	3:   "cudaErrorInitializationError",
	4:   "cudaErrorCudartUnloading",
	9:   "cudaErrorInvalidConfiguration",
	13:  "cudaErrorInvalidSymbol",
	16:  "cudaErrorInvalidHostPointer",
	17:  "cudaErrorInvalidDevicePointer",
	21:  "cudaErrorInvalidMemcpyDirection",
	34:  "cudaErrorStubLibrary",
	35:  "cudaErrorInsufficientDriver",
	36:  "cudaErrorCallRequiresNewerDriver",
	46:  "cudaErrorDevicesUnavailable",
	98:  "cudaErrorInvalidDeviceFunction",
	100: "cudaErrorNoDevice",
	101: "cudaErrorInvalidDevice",
	127: "cudaErrorStartupFailure",
	200: "cudaErrorInvalidKernelImage",
	201: "cudaErrorDeviceUninitialized",
	209: "cudaErrorNoKernelImageForDevice",
	222: "cudaErrorUnsupportedPtxVersion",
	304: "cudaErrorOperatingSystem",
	400: "cudaErrorInvalidResourceHandle",
	401: "cudaErrorIllegalState",
	500: "cudaErrorSymbolNotFound",
	600: "cudaErrorNotReady",
	700: "cudaErrorIllegalAddress",
	701: "cudaErrorLaunchOutOfResources",
	702: "cudaErrorLaunchTimeout",
	719: "cudaErrorLaunchFailure",
	800: "cudaErrorNotPermitted",
	801: "cudaErrorNotSupported",
	802: "cudaErrorSystemNotReady",
	803: "cudaErrorSystemDriverMismatch",
	804: "cudaErrorCompatNotSupportedOnDevice",
	999: "cudaErrorUnknown",
}

var blasStatusNames = map[int]string{
	0:  "CUBLAS_STATUS_SUCCESS",
	1:  "CUBLAS_STATUS_NOT_INITIALIZED",
	3:  "CUBLAS_STATUS_ALLOC_FAILED",
	7:  "CUBLAS_STATUS_INVALID_VALUE",
	8:  "CUBLAS_STATUS_ARCH_MISMATCH",
	11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR",
	15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// ErrorName translates a cudaError_t to its enum name.
func ErrorName(code int) string {
	if n, ok := cudaErrorNames[code]; ok {
		return n
	}
	return fmt.Sprintf("cudaError(%d)", code)
}

// BlasStatusName translates a cublasStatus_t to its enum name.
func BlasStatusName(code int) string {
	if n, ok := blasStatusNames[code]; ok {
		return n
	}
	return fmt.Sprintf("cublasStatus(%d)", code)
}
