package cuda

import "unsafe"

// This file is the only place that states C signatures. Nothing checks them
// against the CUDA headers, and a wrong one corrupts memory silently, so each
// field carries its C prototype and the fake in testdata/fakecuda.c
// exercises every one of them.
//
// Type mapping (linux amd64/arm64, LP64): C int and enums -> int32,
// size_t and opaque handles (cudaStream_t, cudaEvent_t, cublasHandle_t,
// device pointers) -> uintptr, out-parameters -> pointers to those.
// Pinned host memory is held as unsafe.Pointer so Go code can index it.
// Out-parameters point at Go memory only for the duration of the call.

// funcs holds the bound C functions; optional ones are nil when absent.
type funcs struct {
	// libcudart
	runtimeGetVersion   func(v *int32) int32                                   // cudaError_t cudaRuntimeGetVersion(int*)
	driverGetVersion    func(v *int32) int32                                   // cudaError_t cudaDriverGetVersion(int*)
	getDeviceCount      func(n *int32) int32                                   // cudaError_t cudaGetDeviceCount(int*)
	setDevice           func(dev int32) int32                                  // cudaError_t cudaSetDevice(int)
	getDevice           func(dev *int32) int32                                 // cudaError_t cudaGetDevice(int*)
	getDeviceProperties func(prop *byte, dev int32) int32                      // cudaError_t cudaGetDeviceProperties[_v2](cudaDeviceProp*, int)
	memGetInfo          func(free, total *uintptr) int32                       // cudaError_t cudaMemGetInfo(size_t*, size_t*)
	deviceGetAttribute  func(v *int32, attr int32, dev int32) int32            // cudaError_t cudaDeviceGetAttribute(int*, cudaDeviceAttr, int)
	malloc              func(p *uintptr, size uintptr) int32                   // cudaError_t cudaMalloc(void**, size_t)
	free                func(p uintptr) int32                                  // cudaError_t cudaFree(void*)
	mallocHost          func(p *unsafe.Pointer, size uintptr) int32            // cudaError_t cudaMallocHost(void**, size_t)
	freeHost            func(p unsafe.Pointer) int32                           // cudaError_t cudaFreeHost(void*)
	memcpyAsync         func(dst, src, n uintptr, kind int32, s uintptr) int32 // cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t)
	memsetAsync         func(dst uintptr, value int32, n, s uintptr) int32     // cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t)
	streamCreate        func(s *uintptr) int32                                 // cudaError_t cudaStreamCreate(cudaStream_t*)
	streamDestroy       func(s uintptr) int32                                  // cudaError_t cudaStreamDestroy(cudaStream_t)
	streamSynchronize   func(s uintptr) int32                                  // cudaError_t cudaStreamSynchronize(cudaStream_t)
	streamWaitEvent     func(s, ev uintptr, flags uint32) int32                // cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned)
	eventCreate         func(ev *uintptr) int32                                // cudaError_t cudaEventCreate(cudaEvent_t*)
	eventRecord         func(ev, s uintptr) int32                              // cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t)
	eventSynchronize    func(ev uintptr) int32                                 // cudaError_t cudaEventSynchronize(cudaEvent_t)
	eventQuery          func(ev uintptr) int32                                 // cudaError_t cudaEventQuery(cudaEvent_t)
	eventElapsedTime    func(ms *float32, start, end uintptr) int32            // cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t)
	eventDestroy        func(ev uintptr) int32                                 // cudaError_t cudaEventDestroy(cudaEvent_t)
	deviceSynchronize   func() int32                                           // cudaError_t cudaDeviceSynchronize(void)
	getErrorString      func(e int32) string                                   // const char* cudaGetErrorString(cudaError_t)

	// libcublas
	blasCreate      func(h *uintptr) int32          // cublasStatus_t cublasCreate_v2(cublasHandle_t*)
	blasDestroy     func(h uintptr) int32           // cublasStatus_t cublasDestroy_v2(cublasHandle_t)
	blasSetStream   func(h, s uintptr) int32        // cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t)
	blasGetProperty func(typ int32, v *int32) int32 // cublasStatus_t cublasGetProperty(libraryPropertyType, int*)
	// cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb,
	//     int m, int n, int k, const float* alpha, const float* A, int lda,
	//     const float* B, int ldb, const float* beta, float* C, int ldc)
	sgemm func(h uintptr, ta, tb, m, n, k int32, alpha *float32, a uintptr, lda int32,
		b uintptr, ldb int32, beta *float32, c uintptr, ldc int32) int32
}

type library int

const (
	libCudart library = iota
	libCublas
)

// binding names a C function; the first of names that the library exports
// is bound (newer names first).
type binding struct {
	lib      library
	names    []string
	fptr     any
	optional bool
}

func (f *funcs) table() []binding {
	rt := func(fptr any, names ...string) binding { return binding{libCudart, names, fptr, false} }
	opt := func(b binding) binding { b.optional = true; return b }
	blas := func(fptr any, names ...string) binding { return binding{libCublas, names, fptr, false} }
	return []binding{
		rt(&f.runtimeGetVersion, "cudaRuntimeGetVersion"),
		rt(&f.driverGetVersion, "cudaDriverGetVersion"),
		rt(&f.getDeviceCount, "cudaGetDeviceCount"),
		rt(&f.setDevice, "cudaSetDevice"),
		rt(&f.getDevice, "cudaGetDevice"),
		// CUDA 12 exports both (the plain one with the CUDA 11 struct); 13
		// dropped _v2. Only the leading name field is read, so either works.
		rt(&f.getDeviceProperties, "cudaGetDeviceProperties_v2", "cudaGetDeviceProperties"),
		rt(&f.memGetInfo, "cudaMemGetInfo"),
		opt(rt(&f.deviceGetAttribute, "cudaDeviceGetAttribute")),
		rt(&f.malloc, "cudaMalloc"),
		rt(&f.free, "cudaFree"),
		rt(&f.mallocHost, "cudaMallocHost"),
		rt(&f.freeHost, "cudaFreeHost"),
		rt(&f.memcpyAsync, "cudaMemcpyAsync"),
		opt(rt(&f.memsetAsync, "cudaMemsetAsync")),
		rt(&f.streamCreate, "cudaStreamCreate"),
		rt(&f.streamDestroy, "cudaStreamDestroy"),
		rt(&f.streamSynchronize, "cudaStreamSynchronize"),
		rt(&f.streamWaitEvent, "cudaStreamWaitEvent"),
		rt(&f.eventCreate, "cudaEventCreate"),
		rt(&f.eventRecord, "cudaEventRecord"),
		rt(&f.eventSynchronize, "cudaEventSynchronize"),
		rt(&f.eventQuery, "cudaEventQuery"),
		rt(&f.eventElapsedTime, "cudaEventElapsedTime"),
		rt(&f.eventDestroy, "cudaEventDestroy"),
		rt(&f.deviceSynchronize, "cudaDeviceSynchronize"),
		rt(&f.getErrorString, "cudaGetErrorString"),

		// The _v2 names are the real ones; the header macros hide the suffix.
		blas(&f.blasCreate, "cublasCreate_v2"),
		blas(&f.blasDestroy, "cublasDestroy_v2"),
		blas(&f.blasSetStream, "cublasSetStream_v2"),
		opt(blas(&f.blasGetProperty, "cublasGetProperty")),
		blas(&f.sgemm, "cublasSgemm_v2"),
	}
}

// C enum values used by the API.
const (
	memcpyHostToDevice   = 1 // cudaMemcpyHostToDevice
	memcpyDeviceToHost   = 2 // cudaMemcpyDeviceToHost
	memcpyDeviceToDevice = 3 // cudaMemcpyDeviceToDevice

	cublasOpN = 0 // CUBLAS_OP_N

	// cudaDeviceProp begins with char name[256]; the struct is about 1 KiB
	// in CUDA 12, and a generous buffer absorbs growth in later versions.
	propNameLen = 256
	propBufLen  = 8 << 10
)
