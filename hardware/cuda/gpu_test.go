//go:build linux && (amd64 || arm64)

package cuda

import (
	"math"
	"testing"
)

// TestRealGPU is the first-run smoke test from deps.md §2: it skips unless a
// real libcudart (not the fake) loads and reports a device.
func TestRealGPU(t *testing.T) {
	// Empty overrides: probe the real sonames.
	t.Setenv(EnvCudart, "")
	t.Setenv(EnvCublas, "")
	r, err := Open()
	if err != nil {
		t.Skipf("no real CUDA: %v", err)
	}
	if r.ResetFake() == nil {
		t.Skip("the probe found the fake, not a real libcudart")
	}
	in, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	t.Log(in)
	if in.RuntimeVersion < 11000 || len(in.Devices) == 0 || in.Devices[0].Name == "" || in.Devices[0].TotalMem == 0 {
		t.Fatalf("implausible info: %+v", in)
	}

	w, err := r.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Do(func() error {
		s, err := r.NewStream()
		if err != nil {
			return err
		}
		defer r.DestroyStream(s)

		// 4x4 SGEMM against the CPU, with the 2x2 case from deps.md inside.
		const n = 4
		A, B, C := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
		for i := range A {
			A[i], B[i], C[i] = float32(i%7)-3, float32(i%5)*0.5, float32(i)
		}
		const alpha, beta = 1.5, 0.5
		want := make([]float32, n*n)
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				var acc float32
				for l := 0; l < n; l++ {
					acc += A[i+l*n] * B[l+j*n]
				}
				want[i+j*n] = alpha*acc + beta*C[i+j*n]
			}
		}
		h, err := r.NewBlas()
		if err != nil {
			return err
		}
		defer r.DestroyBlas(h)
		if err := r.SetStream(h, s); err != nil {
			return err
		}
		dA, dB, dC := upload(t, r, s, A), upload(t, r, s, B), upload(t, r, s, C)
		defer r.Free(dA)
		defer r.Free(dB)
		defer r.Free(dC)
		if err := r.Sgemm(h, n, n, n, alpha, dA, n, dB, n, beta, dC, n); err != nil {
			return err
		}
		got := download(t, r, s, dC, n*n)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Errorf("C[%d] = %v, want %v", i, got[i], want[i])
			}
		}

		// 64 MiB H2D timed with events.
		const size = 64 << 20
		host, err := r.MallocHost(size)
		if err != nil {
			return err
		}
		defer r.FreeHost(host)
		dev, err := r.Malloc(size)
		if err != nil {
			return err
		}
		defer r.Free(dev)
		e0, _ := r.NewEvent()
		e1, _ := r.NewEvent()
		defer r.DestroyEvent(e0)
		defer r.DestroyEvent(e1)
		for _, step := range []func() error{
			func() error { return r.Record(e0, s) },
			func() error { return r.MemcpyH2DAsync(dev, host, size, s) },
			func() error { return r.Record(e1, s) },
			func() error { return r.Synchronize(e1) },
		} {
			if err := step(); err != nil {
				return err
			}
		}
		ms, err := r.ElapsedMs(e0, e1)
		if err != nil {
			return err
		}
		if ms <= 0 {
			t.Errorf("64 MiB H2D took %v ms", ms)
		}
		t.Logf("64 MiB H2D: %.3f ms, %.1f GB/s", ms, size/float64(ms)/1e6)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
