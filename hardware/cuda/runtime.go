package cuda

import (
	"fmt"
	"math"
	"unsafe"
)

// DevPtr is a device address. Go never dereferences it.
type DevPtr uintptr

// Add offsets a device pointer by bytes.
func (p DevPtr) Add(bytes uint64) DevPtr { return p + DevPtr(bytes) }

// HostPtr is page-locked host memory from MallocHost. Async copies need it:
// the GPU reads it after the call returns, which Go memory cannot allow.
type HostPtr struct {
	p unsafe.Pointer
	n uint64
}

// Len is the buffer size in bytes.
func (h HostPtr) Len() uint64 { return h.n }

// Bytes views the buffer; the slice is invalid after FreeHost.
func (h HostPtr) Bytes() []byte {
	if h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.n)
}

// Float32s views the buffer as float32s (pinned memory is page-aligned);
// the slice is invalid after FreeHost.
func (h HostPtr) Float32s() []float32 {
	if h.p == nil {
		return nil
	}
	return unsafe.Slice((*float32)(h.p), h.n/4)
}

// Slice is the n bytes at off, for copying part of a buffer.
func (h HostPtr) Slice(off, n uint64) HostPtr {
	if off > h.n || n > h.n-off {
		panic(fmt.Sprintf("cuda: HostPtr.Slice(%d, %d) out of range for %d bytes", off, n, h.n))
	}
	return HostPtr{unsafe.Add(h.p, off), n}
}

// Stream is a cudaStream_t; the zero Stream is the legacy default stream.
type Stream uintptr

// Event is a cudaEvent_t.
type Event uintptr

// Blas is a cublasHandle_t.
type Blas uintptr

// DeviceInfo describes one GPU.
type DeviceInfo struct {
	Index             int
	Name              string
	TotalMem, FreeMem uint64 // bytes, from cudaMemGetInfo
	Major, Minor      int    // compute capability; 0 if unknown
	SMs               int    // multiprocessors; 0 if unknown
}

func (d DeviceInfo) String() string {
	s := fmt.Sprintf("[%d] %s", d.Index, d.Name)
	if d.Major > 0 {
		s += fmt.Sprintf(", sm_%d%d", d.Major, d.Minor)
	}
	if d.SMs > 0 {
		s += fmt.Sprintf(", %d SMs", d.SMs)
	}
	return s + fmt.Sprintf(", %.1f GiB", float64(d.TotalMem)/(1<<30))
}

// Device attributes (cudaDeviceAttr) that Attribute accepts, among others.
const (
	AttrMultiProcessorCount    = 16
	AttrComputeCapabilityMajor = 75
	AttrComputeCapabilityMinor = 76
)

func (r *Runtime) check(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	e := &Error{Func: fn, Code: int(rc)}
	if r.f.getErrorString != nil {
		e.Msg = r.f.getErrorString(rc)
	}
	return e
}

func blasCheck(fn string, rc int32) error {
	if rc == 0 {
		return nil
	}
	return &Error{Func: fn, Code: int(rc), Blas: true}
}

func unsupported(fn string) error { return fmt.Errorf("%s: %w", fn, ErrUnsupported) }

// RuntimeVersion is the libcudart version, e.g. 12080 for 12.8.
func (r *Runtime) RuntimeVersion() (int, error) {
	var v int32
	err := r.check("cudaRuntimeGetVersion", r.f.runtimeGetVersion(&v))
	return int(v), err
}

// DriverVersion is the newest CUDA version the driver supports.
func (r *Runtime) DriverVersion() (int, error) {
	var v int32
	err := r.check("cudaDriverGetVersion", r.f.driverGetVersion(&v))
	return int(v), err
}

// BlasVersion is "major.minor.patch" of libcublas, or "" if unknown.
func (r *Runtime) BlasVersion() string {
	if r.f.blasGetProperty == nil {
		return ""
	}
	var v [3]int32
	for i := range v {
		if r.f.blasGetProperty(int32(i), &v[i]) != 0 {
			return ""
		}
	}
	return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
}

// DeviceCount is the number of visible devices.
func (r *Runtime) DeviceCount() (int, error) {
	var n int32
	err := r.check("cudaGetDeviceCount", r.f.getDeviceCount(&n))
	return int(n), err
}

// SetDevice makes dev current for the calling OS thread; see Runtime.
func (r *Runtime) SetDevice(dev int) error {
	return r.check("cudaSetDevice", r.f.setDevice(int32(dev)))
}

// GetDevice is the calling OS thread's current device.
func (r *Runtime) GetDevice() (int, error) {
	var d int32
	err := r.check("cudaGetDevice", r.f.getDevice(&d))
	return int(d), err
}

// Device describes device i. It switches the calling thread to i and back.
func (r *Runtime) Device(i int) (DeviceInfo, error) {
	d := DeviceInfo{Index: i}
	buf := make([]byte, propBufLen)
	if err := r.check("cudaGetDeviceProperties", r.f.getDeviceProperties(&buf[0], int32(i))); err != nil {
		return d, err
	}
	name := buf[:propNameLen]
	for j, c := range name {
		if c == 0 {
			name = name[:j]
			break
		}
	}
	d.Name = string(name)
	if r.f.deviceGetAttribute != nil {
		// Attributes are extras; a driver that lacks one is not an error.
		d.Major, _ = r.Attribute(AttrComputeCapabilityMajor, i)
		d.Minor, _ = r.Attribute(AttrComputeCapabilityMinor, i)
		d.SMs, _ = r.Attribute(AttrMultiProcessorCount, i)
	}
	err := r.OnDevice(i, func() error {
		free, total, err := r.MemGetInfo()
		d.FreeMem, d.TotalMem = free, total
		return err
	})
	return d, err
}

// Attribute reads a cudaDeviceAttr of dev.
func (r *Runtime) Attribute(attr, dev int) (int, error) {
	if r.f.deviceGetAttribute == nil {
		return 0, unsupported("cudaDeviceGetAttribute")
	}
	var v int32
	err := r.check("cudaDeviceGetAttribute", r.f.deviceGetAttribute(&v, int32(attr), int32(dev)))
	return int(v), err
}

// MemGetInfo is free and total memory of the current device, in bytes.
func (r *Runtime) MemGetInfo() (free, total uint64, err error) {
	var f, t uintptr
	err = r.check("cudaMemGetInfo", r.f.memGetInfo(&f, &t))
	return uint64(f), uint64(t), err
}

// Malloc allocates bytes on the current device. Use IsOutOfMemory on the
// error to tell exhaustion from failure.
func (r *Runtime) Malloc(bytes uint64) (DevPtr, error) {
	var p uintptr
	err := r.check("cudaMalloc", r.f.malloc(&p, uintptr(bytes)))
	return DevPtr(p), err
}

// Free releases device memory; it synchronizes the device.
func (r *Runtime) Free(p DevPtr) error {
	return r.check("cudaFree", r.f.free(uintptr(p)))
}

// MallocHost allocates page-locked host memory for async copies.
func (r *Runtime) MallocHost(bytes uint64) (HostPtr, error) {
	var p unsafe.Pointer
	if err := r.check("cudaMallocHost", r.f.mallocHost(&p, uintptr(bytes))); err != nil {
		return HostPtr{}, err
	}
	return HostPtr{p, bytes}, nil
}

// FreeHost releases MallocHost memory; views of it become invalid.
func (r *Runtime) FreeHost(h HostPtr) error {
	return r.check("cudaFreeHost", r.f.freeHost(h.p))
}

func hostRange(fn string, h HostPtr, bytes uint64) error {
	if bytes > h.n {
		return fmt.Errorf("%s: %d bytes exceed the %d-byte host buffer", fn, bytes, h.n)
	}
	return nil
}

// MemcpyH2DAsync queues a copy of bytes from pinned src to dst on s.
func (r *Runtime) MemcpyH2DAsync(dst DevPtr, src HostPtr, bytes uint64, s Stream) error {
	if err := hostRange("MemcpyH2DAsync", src, bytes); err != nil {
		return err
	}
	return r.check("cudaMemcpyAsync", r.f.memcpyAsync(uintptr(dst), uintptr(src.p), uintptr(bytes), memcpyHostToDevice, uintptr(s)))
}

// MemcpyD2HAsync queues a copy of bytes from src to pinned dst on s.
func (r *Runtime) MemcpyD2HAsync(dst HostPtr, src DevPtr, bytes uint64, s Stream) error {
	if err := hostRange("MemcpyD2HAsync", dst, bytes); err != nil {
		return err
	}
	return r.check("cudaMemcpyAsync", r.f.memcpyAsync(uintptr(dst.p), uintptr(src), uintptr(bytes), memcpyDeviceToHost, uintptr(s)))
}

// MemcpyD2DAsync queues a device-to-device copy on s.
func (r *Runtime) MemcpyD2DAsync(dst, src DevPtr, bytes uint64, s Stream) error {
	return r.check("cudaMemcpyAsync", r.f.memcpyAsync(uintptr(dst), uintptr(src), uintptr(bytes), memcpyDeviceToDevice, uintptr(s)))
}

// MemsetAsync queues filling bytes at dst with value on s.
func (r *Runtime) MemsetAsync(dst DevPtr, value byte, bytes uint64, s Stream) error {
	if r.f.memsetAsync == nil {
		return unsupported("cudaMemsetAsync")
	}
	return r.check("cudaMemsetAsync", r.f.memsetAsync(uintptr(dst), int32(value), uintptr(bytes), uintptr(s)))
}

// NewStream creates a stream on the current device.
func (r *Runtime) NewStream() (Stream, error) {
	var s uintptr
	err := r.check("cudaStreamCreate", r.f.streamCreate(&s))
	return Stream(s), err
}

// DestroyStream releases s once its queued work completes.
func (r *Runtime) DestroyStream(s Stream) error {
	return r.check("cudaStreamDestroy", r.f.streamDestroy(uintptr(s)))
}

// StreamSynchronize blocks until work queued on s completes.
func (r *Runtime) StreamSynchronize(s Stream) error {
	return r.check("cudaStreamSynchronize", r.f.streamSynchronize(uintptr(s)))
}

// StreamWaitEvent makes work queued on s after this call wait for ev.
func (r *Runtime) StreamWaitEvent(s Stream, ev Event) error {
	return r.check("cudaStreamWaitEvent", r.f.streamWaitEvent(uintptr(s), uintptr(ev), 0))
}

// NewEvent creates a timing event on the current device.
func (r *Runtime) NewEvent() (Event, error) {
	var e uintptr
	err := r.check("cudaEventCreate", r.f.eventCreate(&e))
	return Event(e), err
}

// Record captures the work queued on s so far into ev.
func (r *Runtime) Record(ev Event, s Stream) error {
	return r.check("cudaEventRecord", r.f.eventRecord(uintptr(ev), uintptr(s)))
}

// Synchronize blocks until ev completes.
func (r *Runtime) Synchronize(ev Event) error {
	return r.check("cudaEventSynchronize", r.f.eventSynchronize(uintptr(ev)))
}

// Query reports whether ev has completed, without blocking.
func (r *Runtime) Query(ev Event) (bool, error) {
	rc := r.f.eventQuery(uintptr(ev))
	if rc == ErrCodeNotReady {
		return false, nil
	}
	return rc == 0, r.check("cudaEventQuery", rc)
}

// ElapsedMs is the time from start to end, both completed, in milliseconds.
func (r *Runtime) ElapsedMs(start, end Event) (float32, error) {
	var ms float32
	err := r.check("cudaEventElapsedTime", r.f.eventElapsedTime(&ms, uintptr(start), uintptr(end)))
	return ms, err
}

// DestroyEvent releases ev.
func (r *Runtime) DestroyEvent(ev Event) error {
	return r.check("cudaEventDestroy", r.f.eventDestroy(uintptr(ev)))
}

// DeviceSynchronize blocks until all work on the current device completes.
func (r *Runtime) DeviceSynchronize() error {
	return r.check("cudaDeviceSynchronize", r.f.deviceSynchronize())
}

// NewBlas creates a cuBLAS handle bound to the current device.
func (r *Runtime) NewBlas() (Blas, error) {
	var h uintptr
	err := blasCheck("cublasCreate_v2", r.f.blasCreate(&h))
	return Blas(h), err
}

// DestroyBlas releases h.
func (r *Runtime) DestroyBlas(h Blas) error {
	return blasCheck("cublasDestroy_v2", r.f.blasDestroy(uintptr(h)))
}

// SetStream makes h queue its work on s.
func (r *Runtime) SetStream(h Blas, s Stream) error {
	return blasCheck("cublasSetStream_v2", r.f.blasSetStream(uintptr(h), uintptr(s)))
}

// Sgemm queues C = alpha*A*B + beta*C on h's stream, with column-major
// A (m×k, leading dimension lda), B (k×n) and C (m×n) in device memory.
func (r *Runtime) Sgemm(h Blas, m, n, k int, alpha float32, a DevPtr, lda int, b DevPtr, ldb int, beta float32, c DevPtr, ldc int) error {
	for _, v := range [...]int{m, n, k, lda, ldb, ldc} {
		if v < 0 || v > math.MaxInt32 {
			return fmt.Errorf("cublasSgemm_v2: dimension %d does not fit a C int", v)
		}
	}
	// cuBLAS reads the host-side scalars before returning (the default
	// CUBLAS_POINTER_MODE_HOST), so pointing at Go memory is safe.
	rc := r.f.sgemm(uintptr(h), cublasOpN, cublasOpN, int32(m), int32(n), int32(k),
		&alpha, uintptr(a), int32(lda), uintptr(b), int32(ldb), &beta, uintptr(c), int32(ldc))
	return blasCheck("cublasSgemm_v2", rc)
}
