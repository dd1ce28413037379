//go:build linux && (amd64 || arm64)

package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Paths of the fakes built once for the package; empty if gcc is missing.
var (
	fakeRT, fakeBlas     string // CUDA 12-like: every symbol
	fake13RT, fake13Blas string // CUDA 13-like: no _v2 props, no optional symbols
	fakeErr              error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "memsched-fakecuda-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeRT, fakeBlas, fakeErr = BuildFake(dir)
	if fakeErr == nil {
		fake13RT, fake13Blas, fakeErr = buildFake(dir, "13", []string{"-DFAKE_CUDA13"})
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// useFake points Open at the fake (or the CUDA 13-like one) and clears the
// fake's knobs so tests start from the defaults.
func useFake(t *testing.T, cuda13 bool) {
	t.Helper()
	if fakeErr != nil {
		t.Skipf("no CUDA fake: %v", fakeErr)
	}
	rt, blas := fakeRT, fakeBlas
	if cuda13 {
		rt, blas = fake13RT, fake13Blas
	}
	t.Setenv(EnvCudart, rt)
	t.Setenv(EnvCublas, blas)
	for _, k := range []string{"DEVICES", "INIT_ERROR", "MEM_MIB", "NAME", "SMS", "RUNTIME_VERSION",
		"DRIVER_VERSION", "GFLOPS", "GBPS", "D2D_GBPS", "LAUNCH_US", "VIRTUAL"} {
		t.Setenv("FAKE_CUDA_"+k, "")
	}
}

func openFake(t *testing.T) *Runtime {
	t.Helper()
	useFake(t, false)
	r, err := Open()
	if err != nil {
		t.Fatalf("Open on the fake: %v", err)
	}
	return r
}

// onDevice runs fn with device 0 current, failing the test on error.
func onDevice(t *testing.T, r *Runtime, fn func() error) {
	t.Helper()
	if err := r.OnDevice(0, fn); err != nil {
		t.Fatal(err)
	}
}

// must is for calls whose failure is not under test; the panic's stack
// points at the call.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestEveryBindingResolves(t *testing.T) {
	r := openFake(t)
	for _, b := range r.f.table() {
		if reflect.ValueOf(b.fptr).Elem().IsNil() {
			t.Errorf("%v not bound against the full fake", b.names)
		}
	}
	rt, blas := r.Paths()
	wantRT, _ := filepath.EvalSymlinks(fakeRT)
	wantBlas, _ := filepath.EvalSymlinks(fakeBlas)
	if rt != wantRT || blas != wantBlas {
		t.Errorf("Paths() = %q, %q; want %q, %q", rt, blas, wantRT, wantBlas)
	}
}

func TestVersionsAndDevices(t *testing.T) {
	useFake(t, false)
	t.Setenv("FAKE_CUDA_RUNTIME_VERSION", "12345")
	t.Setenv("FAKE_CUDA_DRIVER_VERSION", "13020")
	t.Setenv("FAKE_CUDA_DEVICES", "2")
	t.Setenv("FAKE_CUDA_NAME", "Fake GPU H")
	t.Setenv("FAKE_CUDA_MEM_MIB", "1024")
	t.Setenv("FAKE_CUDA_SMS", "114")
	r := must(Open())
	if v := must(r.RuntimeVersion()); v != 12345 {
		t.Errorf("RuntimeVersion = %d", v)
	}
	if v := must(r.DriverVersion()); v != 13020 {
		t.Errorf("DriverVersion = %d", v)
	}
	if v := r.BlasVersion(); v != "12.8.4" {
		t.Errorf("BlasVersion = %q", v)
	}
	if n := must(r.DeviceCount()); n != 2 {
		t.Errorf("DeviceCount = %d", n)
	}
	d := must(r.Device(1))
	want := DeviceInfo{Index: 1, Name: "Fake GPU H", TotalMem: 1 << 30, FreeMem: 1 << 30, Major: 9, Minor: 0, SMs: 114}
	if d != want {
		t.Errorf("Device(1) = %+v, want %+v", d, want)
	}
	if _, err := r.Device(2); !strings.Contains(fmt.Sprint(err), "cudaErrorInvalidDevice (101)") {
		t.Errorf("Device(2) error = %v", err)
	}
	if _, err := r.Attribute(9999, 0); err == nil {
		t.Error("Attribute(9999) succeeded")
	}

	rtPath, blasPath := r.Paths()
	desc := Describe()
	for _, s := range []string{"CUDA runtime 12.34 (" + rtPath + "), driver CUDA 13.2", "cuBLAS 12.8.4 (" + blasPath + ")",
		"; 2 GPUs: [0] Fake GPU H", ", [1] Fake GPU H, sm_90, 114 SMs, 1.0 GiB"} {
		if !strings.Contains(desc, s) {
			t.Errorf("Describe() = %q, missing %q", desc, s)
		}
	}
}

func TestMemoryCopiesAndErrors(t *testing.T) {
	r := openFake(t)
	const n = 1 << 18 // floats: 1 MiB
	onDevice(t, r, func() error {
		free0, total := must2(r.MemGetInfo())
		if total != 16<<30 {
			t.Errorf("total = %d", total)
		}
		a := must(r.Malloc(4 * n))
		b := must(r.Malloc(4 * n))
		if free1, total1 := must2(r.MemGetInfo()); free0-free1 != 8*n || total1 != total {
			t.Errorf("free dropped by %d, want %d; total %d -> %d", free0-free1, 8*n, total, total1)
		}
		h := must(r.MallocHost(4 * n))
		if h.Len() != 4*n || len(h.Float32s()) != n || len(h.Bytes()) != 4*n {
			t.Fatalf("host views: Len %d, %d floats, %d bytes", h.Len(), len(h.Float32s()), len(h.Bytes()))
		}
		for i := range h.Float32s() {
			h.Float32s()[i] = float32(i)
		}
		s := must(r.NewStream())
		check(t, r.MemcpyH2DAsync(a, h, 4*n, s))
		check(t, r.MemcpyD2DAsync(b, a, 4*n, s))
		check(t, r.MemsetAsync(a, 0, 4*n, s))
		out := must(r.MallocHost(8 * n))
		check(t, r.MemcpyD2HAsync(out, b, 4*n, s))
		check(t, r.MemcpyD2HAsync(out.Slice(4*n, 4*n), a, 4*n, s))
		check(t, r.StreamSynchronize(s))
		got := out.Float32s()
		for i := 0; i < n; i++ {
			if got[i] != float32(i) || got[n+i] != 0 {
				t.Fatalf("round trip [%d] = %v, memset [%d] = %v", i, got[i], i, got[n+i])
			}
		}
		// Offsets reach the middle of an allocation.
		check(t, r.MemcpyD2HAsync(out.Slice(0, 4), b.Add(4*100), 4, s))
		check(t, r.StreamSynchronize(s))
		if got[0] != 100 {
			t.Errorf("copy from b+400 = %v, want 100", got[0])
		}

		// Error translation, with the library's own message.
		err := r.Free(DevPtr(0x1234))
		var ce *Error
		if !errors.As(err, &ce) || ce.Code != 1 || err.Error() != "cudaFree: cudaErrorInvalidValue (1): invalid argument" {
			t.Errorf("Free(bogus) = %v", err)
		}
		if _, err := r.Malloc(64 << 30); !IsOutOfMemory(err) || !strings.Contains(err.Error(), "cudaMalloc: cudaErrorMemoryAllocation (2): out of memory") {
			t.Errorf("Malloc(64 GiB) = %v", err)
		}
		if err := r.MemcpyH2DAsync(a, h, 4*n+1, s); err == nil {
			t.Error("copy past the host buffer accepted")
		}
		// The fake rejects device pointers outside allocations, catching
		// swapped arguments.
		if err := r.MemcpyH2DAsync(a.Add(4), h, 4*n, s); err == nil {
			t.Error("copy past the device buffer accepted")
		}
		if err := r.SetDevice(7); !strings.Contains(fmt.Sprint(err), "cudaErrorInvalidDevice") {
			t.Errorf("SetDevice(7) = %v", err)
		}
		if err := r.StreamSynchronize(Stream(0x99)); !strings.Contains(fmt.Sprint(err), "cudaErrorInvalidResourceHandle (400)") {
			t.Errorf("StreamSynchronize(bogus) = %v", err)
		}

		check(t, r.DestroyStream(s))
		check(t, r.Free(a))
		check(t, r.Free(b))
		check(t, r.FreeHost(h))
		check(t, r.FreeHost(out))
		if free2, _ := must2(r.MemGetInfo()); free2 != free0 {
			t.Errorf("free after Free = %d, want %d", free2, free0)
		}
		return nil
	})
}

func TestSgemmMatchesReference(t *testing.T) {
	r := openFake(t)
	// Leading dimensions larger than the matrices, and alpha/beta other
	// than 1/0, so every one of the 14 arguments matters.
	const m, n, k, lda, ldb, ldc = 5, 3, 4, 7, 6, 8
	const alpha, beta = 1.5, -0.5
	rng := rand.New(rand.NewPCG(1, 2))
	A := randSlice(rng, lda*k)
	B := randSlice(rng, ldb*n)
	C := randSlice(rng, ldc*n)
	want := append([]float32(nil), C...)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			var acc float32
			for l := 0; l < k; l++ {
				acc += A[i+l*lda] * B[l+j*ldb]
			}
			want[i+j*ldc] = alpha*acc + beta*C[i+j*ldc]
		}
	}
	onDevice(t, r, func() error {
		h := must(r.NewBlas())
		s := must(r.NewStream())
		check(t, r.SetStream(h, s))
		dA, dB, dC := upload(t, r, s, A), upload(t, r, s, B), upload(t, r, s, C)
		check(t, r.Sgemm(h, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc))
		got := download(t, r, s, dC, len(C))
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+math.Abs(float64(want[i]))) {
				t.Errorf("C[%d] = %v, want %v", i, got[i], want[i])
			}
		}
		// lda < m is invalid in cuBLAS.
		err := r.Sgemm(h, m, n, k, alpha, dA, m-1, dB, ldb, beta, dC, ldc)
		if !strings.Contains(fmt.Sprint(err), "cublasSgemm_v2: CUBLAS_STATUS_INVALID_VALUE (7)") {
			t.Errorf("Sgemm with lda < m = %v", err)
		}
		check(t, r.DestroyBlas(h))
		if err := r.DestroyBlas(h); err == nil {
			t.Error("double DestroyBlas succeeded")
		}
		return nil
	})
}

func TestEventsRealClock(t *testing.T) {
	r := openFake(t)
	onDevice(t, r, func() error {
		s := must(r.NewStream())
		e0, e1 := must(r.NewEvent()), must(r.NewEvent())
		if _, err := r.ElapsedMs(e0, e1); err == nil {
			t.Error("ElapsedMs on unrecorded events succeeded")
		}
		check(t, r.Record(e0, s))
		d := must(r.Malloc(1 << 20))
		h := must(r.MallocHost(1 << 20))
		check(t, r.MemcpyH2DAsync(d, h, 1<<20, s))
		check(t, r.Record(e1, s))
		check(t, r.Synchronize(e1))
		if done := must(r.Query(e1)); !done {
			t.Error("Query after Synchronize = false")
		}
		if ms := must(r.ElapsedMs(e0, e1)); ms < 0 || ms > 10_000 {
			t.Errorf("ElapsedMs = %v", ms)
		}
		check(t, r.DeviceSynchronize())
		check(t, r.DestroyEvent(e0))
		check(t, r.DestroyEvent(e1))
		check(t, r.Free(d))
		check(t, r.FreeHost(h))
		return nil
	})
}

// TestVirtualTiming is the pattern an executor test uses: rates in the
// environment, exact times out of events.
func TestVirtualTiming(t *testing.T) {
	r := openFake(t)
	t.Setenv("FAKE_CUDA_GBPS", "1")   // 1 byte/ns
	t.Setenv("FAKE_CUDA_GFLOPS", "2") // 2 flop/ns
	const mib = 1 << 20
	onDevice(t, r, func() error {
		check(t, r.ResetFake())
		copyS, compS := must(r.NewStream()), must(r.NewStream())
		ev := make([]Event, 6)
		for i := range ev {
			ev[i] = must(r.NewEvent())
		}
		h := must(r.MallocHost(2 * mib))
		d := must(r.Malloc(2 * mib))
		blas := must(r.NewBlas())
		check(t, r.SetStream(blas, compS))

		check(t, r.Record(ev[0], copyS))
		check(t, r.MemcpyH2DAsync(d, h, mib, copyS)) // 0 .. 1048576 ns
		check(t, r.Record(ev[1], copyS))
		// Compute waits for the copy, then 2*64^3/2 = 262144 ns.
		check(t, r.StreamWaitEvent(compS, ev[1]))
		check(t, r.Sgemm(blas, 64, 64, 64, 1, d, 64, d, 64, 0, d.Add(mib), 64))
		check(t, r.Record(ev[2], compS))
		// A second H2D on an independent stream shares the copy engine: it
		// queues behind the first and ends at 2 MiB of transfer.
		otherS := must(r.NewStream())
		check(t, r.MemcpyH2DAsync(d.Add(mib), h, mib, otherS))
		check(t, r.Record(ev[3], otherS))
		check(t, r.Synchronize(ev[3]))

		near(t, "copy", must(r.ElapsedMs(ev[0], ev[1])), 1.048576)
		near(t, "sgemm after copy", must(r.ElapsedMs(ev[1], ev[2])), 0.262144)
		near(t, "second copy end", must(r.ElapsedMs(ev[0], ev[3])), 2*1.048576)

		// Work issued after the host waited starts no earlier than what it saw.
		t.Setenv("FAKE_CUDA_LAUNCH_US", "10")
		check(t, r.Record(ev[4], copyS))
		check(t, r.MemcpyD2HAsync(h, d, mib, copyS)) // D2H engine is idle
		check(t, r.Record(ev[5], copyS))
		check(t, r.StreamSynchronize(copyS))
		near(t, "issued after sync", must(r.ElapsedMs(ev[3], ev[4])), 0)
		near(t, "D2H + launch", must(r.ElapsedMs(ev[4], ev[5])), 1.048576+0.010)
		return nil
	})
}

func TestWorkerKeepsDevice(t *testing.T) {
	r := openFake(t)
	t.Setenv("FAKE_CUDA_DEVICES", "4")
	var wg sync.WaitGroup
	for dev := 1; dev < 4; dev++ {
		w := must(r.NewWorker(dev))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Close()
			for i := 0; i < 200; i++ {
				err := w.Do(func() error {
					runtime.Gosched()
					got, err := r.GetDevice()
					if err == nil && got != w.Device() {
						err = fmt.Errorf("worker %d runs on device %d", w.Device(), got)
					}
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				if i%50 == 0 {
					runtime.GC()
				}
			}
		}()
	}
	wg.Wait()

	w := must(r.NewWorker(0))
	if err := w.Do(func() error { panic("boom") }); !strings.Contains(fmt.Sprint(err), "boom") {
		t.Errorf("panic in Do = %v", err)
	}
	if err := w.Do(func() error { return nil }); err != nil {
		t.Errorf("worker dead after a panic: %v", err)
	}
	w.Close()
	if err := w.Do(func() error { return nil }); !errors.Is(err, ErrWorkerClosed) {
		t.Errorf("Do after Close = %v", err)
	}
	if _, err := r.NewWorker(9); !strings.Contains(fmt.Sprint(err), "cudaErrorInvalidDevice") {
		t.Errorf("NewWorker(9) = %v", err)
	}

	// OnDevice restores the thread's previous device.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The fake's device count is per test; CUDA's never changes in a process,
	// so leave this pooled thread on a device every test has.
	defer r.SetDevice(0)
	check(t, r.SetDevice(2))
	check(t, r.OnDevice(3, func() error {
		if d := must(r.GetDevice()); d != 3 {
			t.Errorf("inside OnDevice(3): device %d", d)
		}
		return nil
	}))
	if d := must(r.GetDevice()); d != 2 {
		t.Errorf("after OnDevice: device %d, want 2", d)
	}
}

// TestThreadSwitchesDevice: a Thread's calls act on the device they name,
// across switches and Go's scheduling, from the one locked goroutine; an
// unknown device is an error, not a silent stay on the previous one.
func TestThreadSwitchesDevice(t *testing.T) {
	r := openFake(t)
	t.Setenv("FAKE_CUDA_DEVICES", "3")
	th := r.LockThread()
	defer th.Unlock()
	defer r.SetDevice(0) // a device every test has, for the pooled thread
	for i, dev := range []int{2, 2, 0, 1, 1, 2, 0} {
		err := th.Do(dev, func() error {
			runtime.Gosched()
			if got := must(r.GetDevice()); got != dev {
				return fmt.Errorf("call %d for device %d ran on device %d", i, dev, got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := th.Do(7, func() error { t.Error("ran on an unknown device"); return nil }); !strings.Contains(fmt.Sprint(err), "cudaErrorInvalidDevice") {
		t.Errorf("Do(7) = %v", err)
	}
}

func TestNoDevice(t *testing.T) {
	useFake(t, false)
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	t.Setenv("FAKE_CUDA_DEVICES", "0")
	_, err := Open()
	if !errors.Is(err, ErrNoDevice) || errors.Is(err, ErrNoLibrary) {
		t.Fatalf("Open with 0 devices = %v", err)
	}
	for _, s := range []string{"loaded but found no usable GPU", "cudaGetDeviceCount: cudaErrorNoDevice (100): no CUDA-capable device is detected"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	t.Setenv("FAKE_CUDA_DEVICES", "1")
	t.Setenv("FAKE_CUDA_INIT_ERROR", "35")
	_, err = Open()
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(fmt.Sprint(err), "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient") {
		t.Errorf("Open with an old driver = %v", err)
	}
	if d := Describe(); !strings.HasPrefix(d, "CUDA unavailable: ") {
		t.Errorf("Describe() = %q", d)
	}
}

func TestMissingLibrary(t *testing.T) {
	useFake(t, false)
	t.Setenv(EnvCudart, "/nonexistent/libcudart.so.13")
	_, err := Open()
	want := "no CUDA runtime library found (tried: /nonexistent/libcudart.so.13); install the CUDA runtime or set MEMSCHED_LIBCUDART"
	if !errors.Is(err, ErrNoLibrary) || fmt.Sprint(err) != want {
		t.Errorf("Open = %v\nwant %s", err, want)
	}

	t.Setenv(EnvCudart, fakeRT)
	t.Setenv(EnvCublas, "/nonexistent/libcublas.so")
	if _, err := Open(); !errors.Is(err, ErrNoLibrary) || !strings.Contains(fmt.Sprint(err), "no cuBLAS library found (tried: /nonexistent/libcublas.so); install the cuBLAS or set MEMSCHED_LIBCUBLAS") {
		t.Errorf("Open without cuBLAS = %v", err)
	}

	// A file that exists but is no library: the loader's reason is kept.
	junk := filepath.Join(t.TempDir(), "libcudart.so.13")
	if err := os.WriteFile(junk, []byte("not ELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvCudart, junk)
	if _, err := Open(); !errors.Is(err, ErrNoLibrary) || !strings.Contains(fmt.Sprint(err), "[") {
		t.Errorf("Open on a junk file = %v", err)
	}

	// A real library that is not CUDA fails at binding, by name.
	t.Setenv(EnvCudart, "libm.so.6")
	t.Setenv(EnvCublas, fakeBlas)
	if _, err := Open(); !errors.Is(err, ErrNoLibrary) || !strings.Contains(fmt.Sprint(err), "does not export cudaRuntimeGetVersion") {
		t.Errorf("Open on libm = %v", err)
	}
}

func TestProbeOrder(t *testing.T) {
	useFake(t, false)
	_, path, err := probe([]string{"/nonexistent/libcudart.so.13", fakeRT, fake13RT}, "CUDA runtime", EnvCudart)
	want, _ := filepath.EvalSymlinks(fakeRT)
	if err != nil || path != want {
		t.Errorf("probe picked %q (%v), want %q", path, err, want)
	}
	// With no override the real sonames are probed; without CUDA here the
	// error lists them all.
	t.Setenv(EnvCudart, "")
	t.Setenv(EnvCublas, "")
	if _, err := Open(); err != nil && errors.Is(err, ErrNoLibrary) && strings.Contains(err.Error(), "CUDA runtime") {
		if !strings.Contains(err.Error(), "(tried: libcudart.so.13, libcudart.so.12, libcudart.so)") {
			t.Errorf("default probe error = %v", err)
		}
	}
}

func TestCUDA13Fallbacks(t *testing.T) {
	useFake(t, true)
	r := must(Open())
	if d := must(r.Device(0)); d.Name != "Fake GPU" || d.SMs != 0 || d.Major != 0 {
		t.Errorf("Device(0) via cudaGetDeviceProperties = %+v", d)
	}
	if r.f.memsetAsync != nil || r.f.deviceGetAttribute != nil || r.f.blasGetProperty != nil {
		t.Error("optional symbols bound though absent")
	}
	if err := r.MemsetAsync(0, 0, 0, 0); !errors.Is(err, ErrUnsupported) {
		t.Errorf("MemsetAsync = %v", err)
	}
	if _, err := r.Attribute(AttrMultiProcessorCount, 0); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Attribute = %v", err)
	}
	if v := r.BlasVersion(); v != "" {
		t.Errorf("BlasVersion = %q", v)
	}
	onDevice(t, r, func() error {
		s := must(r.NewStream())
		e0, e1 := must(r.NewEvent()), must(r.NewEvent())
		check(t, r.Record(e0, s))
		check(t, r.Record(e1, s))
		check(t, r.Synchronize(e1))
		_, err := r.ElapsedMs(e0, e1)
		return err
	})
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func must2(a, b uint64, err error) (uint64, uint64) {
	if err != nil {
		panic(err)
	}
	return a, b
}

func near(t *testing.T, what string, got float32, want float64) {
	t.Helper()
	if math.Abs(float64(got)-want) > 1e-6 {
		t.Errorf("%s: %v ms, want %v ms", what, got, want)
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = rng.Float32()*2 - 1
	}
	return s
}

func upload(t *testing.T, r *Runtime, s Stream, v []float32) DevPtr {
	t.Helper()
	bytes := uint64(4 * len(v))
	h := must(r.MallocHost(bytes))
	defer r.FreeHost(h)
	copy(h.Float32s(), v)
	d := must(r.Malloc(bytes))
	check(t, r.MemcpyH2DAsync(d, h, bytes, s))
	check(t, r.StreamSynchronize(s)) // before FreeHost
	return d
}

func download(t *testing.T, r *Runtime, s Stream, d DevPtr, n int) []float32 {
	t.Helper()
	h := must(r.MallocHost(uint64(4 * n)))
	defer r.FreeHost(h)
	check(t, r.MemcpyD2HAsync(h, d, uint64(4*n), s))
	check(t, r.StreamSynchronize(s))
	return append([]float32(nil), h.Float32s()...)
}
