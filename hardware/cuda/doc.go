// Package cuda binds the CUDA runtime (libcudart) and cuBLAS without cgo,
// through github.com/ebitengine/purego, so memsched builds with
// CGO_ENABLED=0 and finds CUDA at run time. On platforms other than
// linux/amd64 and linux/arm64, Open returns an error wrapping ErrNoLibrary.
//
// Open probes libcudart.so.13, .12 and the unversioned name (likewise
// libcublas), or loads the full paths in MEMSCHED_LIBCUDART and
// MEMSCHED_LIBCUBLAS. The C signatures live in one table in bindings.go;
// nothing checks them against the headers, which is why the fake below
// exists.
//
// # Threads
//
// CUDA's current device is per OS thread. Make device calls from a Worker,
// inside OnDevice, or from a goroutine that called runtime.LockOSThread and
// SetDevice. Async copies take only pinned HostPtr buffers from MallocHost:
// the GPU reads them after the call returns, and C may not keep Go pointers.
//
// # The fake
//
// testdata/fakecuda.c implements every bound symbol on the CPU; BuildFake
// compiles it with gcc into libfakecudart.so and libfakecublas.so for tests
// here and in other packages (point EnvCudart and EnvCublas at them).
// cudaMalloc and cudaMallocHost are malloc, copies are memcpy done at once,
// cublasSgemm_v2 is a real column-major SGEMM, and the current device is
// thread-local as in CUDA. It is stricter than CUDA where that catches bugs:
// copies and SGEMM operands must lie inside live allocations, and the host
// side of a copy must be MallocHost memory. Environment variables, read at
// each call:
//
//	FAKE_CUDA_DEVICES          device count (default 1; 0 gives cudaErrorNoDevice)
//	FAKE_CUDA_INIT_ERROR       cudaError_t that cudaGetDeviceCount returns (e.g. 35)
//	FAKE_CUDA_MEM_MIB          memory per device (default 16384); beyond it
//	                           cudaMalloc fails with cudaErrorMemoryAllocation
//	FAKE_CUDA_NAME             device name (default "Fake GPU")
//	FAKE_CUDA_SMS              multiprocessor count (default 132; compute capability is 9.0)
//	FAKE_CUDA_RUNTIME_VERSION  default 12080
//	FAKE_CUDA_DRIVER_VERSION   default 13000
//
// Timing: by default events record the monotonic clock. Setting any of
// these switches to a deterministic virtual clock:
//
//	FAKE_CUDA_GFLOPS    SGEMM rate: 2mnk/GFLOPS ns
//	FAKE_CUDA_GBPS      host<->device copy rate: bytes/GBPS ns
//	FAKE_CUDA_D2D_GBPS  device-to-device copy rate (unset: free)
//	FAKE_CUDA_LAUNCH_US fixed cost added to every operation
//	FAKE_CUDA_LOAD_US   added to the first SGEMM on each device, as CUDA's
//	                    lazy loading of cuBLAS's kernels costs (until ResetFake)
//	FAKE_CUDA_VIRTUAL=1 virtual clock with free operations
//
// In virtual time each stream, each device's H2D and D2H copy engines and
// its compute engine are timelines; an operation starts when its stream,
// its engine and the host are ready, so copies in one direction serialize,
// copies overlap compute, and StreamWaitEvent orders streams. The default
// stream waits for every stream of its device. The host is "ready" at the
// latest time it observed through a synchronize or event query, so work
// issued after waiting starts no earlier. ElapsedMs then returns exact
// model times. Runtime.ResetFake zeroes the clocks and unloads the kernels.
package cuda
