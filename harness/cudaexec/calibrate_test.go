//go:build linux && (amd64 || arm64)

package cudaexec

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memsched/memsched/hardware"
)

// TestCalibrateFake: on the fake's virtual clock with known rates, the
// measured bandwidths and SGEMM speeds are those rates (within 1%), and
// the preset written loads with hardware.Load and carries them.
func TestCalibrateFake(t *testing.T) {
	const gbps, gflops = 8.0, 50.0 // ops of hundreds of ns: the fake rounds each to the ns
	fake(t, map[string]string{"VIRTUAL": "1", "GBPS": "8", "GFLOPS": "50", "NAME": "Fake GPU 80GB", "MEM_MIB": "4096"})
	c, err := Calibrate(CalibrateOptions{Tile: 32, Z: 128, CopySizes: []int64{64 << 10, 256 << 10, 1 << 20},
		CopyBytes: 2 << 20, Reps: 5, Date: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + c.Summary())
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got/want-1) > 0.01 {
			t.Errorf("%s = %g, want %g within 1%%", what, got, want)
		}
	}
	near("one GPU alone", c.AloneGBps, gbps)
	near("two GPUs at once", c.TogetherGBps, 2*gbps)
	near("SGEMM 2D", c.Gemm2D.GFlops, gflops)
	near("SGEMM 3D", c.Gemm3D.GFlops, gflops)
	if c.Gemm2D.M != 32 || c.Gemm2D.K != 128 || c.Gemm3D.K != 32 {
		t.Errorf("shapes %+v %+v", c.Gemm2D, c.Gemm3D)
	}
	for _, e := range c.Emulated {
		near("SGEMM for "+strings.Join(e.Kernels, ","), e.GFlops, gflops)
	}
	if c.TotalMiB != 4096 || c.Opt.Name != "fake-gpu-80gb-x2" {
		t.Errorf("memory %g MiB, name %q", c.TotalMiB, c.Opt.Name)
	}

	path := filepath.Join(t.TempDir(), c.Opt.Name+".toml")
	if err := os.WriteFile(path, c.TOML(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := hardware.Load(path)
	if err != nil {
		t.Fatalf("the written preset does not load: %v\n%s", err, c.TOML())
	}
	near("gpu_link_gbps", p.Topology.GPULinkGBps, gbps)
	near("numa_link_gbps", p.Topology.NUMALinkGBps, 2*gbps)
	near("kernel gemm", p.Kernels["gemm"].GFlops, gflops)
	for _, k := range []string{"potrf", "trsm", "syrk", "getrf"} {
		near("kernel "+k, p.Kernels[k].GFlops, gflops)
	}
	if p.Name != "fake-gpu-80gb-x2" || p.MaxGPUs != 2 || p.PhysicalMiB != 4096 || p.MemoryMiB != 500 || p.Runtime.Pipeline != 5 {
		t.Errorf("preset header: %+v", p)
	}
	// The model reproduces both measurements: one GPU alone and all at once.
	p.GPUs = 2
	links, paths, _ := p.Links()
	shared := links[paths[0][len(paths[0])-1]]
	near("one GPU in the model", p.HomeGBps(0), gbps)
	near("both GPUs in the model", math.Min(2*p.HomeGBps(0), shared.GBps), 2*gbps)
	if !strings.Contains(string(c.TOML()), "2025-01-02") || !strings.Contains(string(c.TOML()), "CUDA runtime 12.8") {
		t.Errorf("provenance missing from the preset:\n%s", c.TOML())
	}

	if _, err := Calibrate(CalibrateOptions{GPUs: 3}); err == nil || !strings.Contains(err.Error(), "CUDA sees 2") {
		t.Errorf("--gpus 3 of 2: %v", err)
	}
}

func TestPresetName(t *testing.T) {
	for model, want := range map[string]string{
		"NVIDIA H100 80GB HBM3":   "h100-80gb-hbm3-x1",
		"NVIDIA A100-SXM4-40GB":   "a100-sxm4-40gb-x1",
		"Tesla V100-SXM2-32GB ":   "tesla-v100-sxm2-32gb-x1",
		"***":                     "gpu-x1",
		"NVIDIA GeForce RTX 4090": "geforce-rtx-4090-x1",
	} {
		if got := presetName(model, 1); got != want {
			t.Errorf("presetName(%q) = %q, want %q", model, got, want)
		}
	}
}
