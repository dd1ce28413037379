package cudaexec

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/hardware/cuda"
)

// CalibrateOptions say what Calibrate measures; zero fields take defaults.
type CalibrateOptions struct {
	GPUs      int     // GPUs to measure, devices 0..GPUs-1 (0: all visible)
	Tile, Z   int     // task shapes: 2D tile×tile×z, 3D tile³ (960, 3840)
	CopySizes []int64 // host-to-device copy sizes in bytes, ascending (4, 16, 64, 256 MiB)
	CopyBytes int64   // bytes copied per size and GPU, at least (1 GiB)
	Warmup    int     // untimed SGEMMs per shape (3)
	Reps      int     // timed SGEMMs per shape, median kept (20)
	Name      string  // preset name (from the GPU model, e.g. h100-80gb-hbm3-x1)
	MemoryMiB float64 // memory_mib of the preset (500, the papers' cap)
	Date      time.Time
}

func (o CalibrateOptions) withDefaults() CalibrateOptions {
	if o.Tile <= 0 {
		o.Tile = 960
	}
	if o.Z <= 0 {
		o.Z = 3840
	}
	if len(o.CopySizes) == 0 {
		o.CopySizes = []int64{4 << 20, 16 << 20, 64 << 20, 256 << 20}
	}
	if o.CopyBytes <= 0 {
		o.CopyBytes = 1 << 30
	}
	if o.Warmup <= 0 {
		o.Warmup = 3
	}
	if o.Reps <= 0 {
		o.Reps = 20
	}
	if o.MemoryMiB <= 0 {
		o.MemoryMiB = 500
	}
	if o.Date.IsZero() {
		o.Date = time.Now()
	}
	return o
}

// BandwidthPoint is one copy size's measured host-to-device bandwidth.
type BandwidthPoint struct {
	Bytes int64
	Reps  int
	GBps  float64 // 1e9 bytes/s; all GPUs together for Calibration.Together
}

// KernelTiming is one SGEMM shape's measurement.
type KernelTiming struct {
	Kernels  []string // the task kernels it stands for
	M, N, K  int
	Seconds  float64 // median
	Min, Max float64
	GFlops   float64 // 2mnk / median
}

// Calibration is what Calibrate measured.
type Calibration struct {
	Opt      CalibrateOptions // resolved
	Info     cuda.Info        // Devices: the measured GPUs
	Host     string
	Alone    [][]BandwidthPoint // per GPU, copying alone
	Together []BandwidthPoint   // all GPUs copying at once, in total
	// Plateaus: the mean over the two largest sizes; Alone is the median
	// over GPUs.
	AloneGBps, TogetherGBps float64
	Gemm2D, Gemm3D          KernelTiming
	Emulated                []KernelTiming // SGEMMs that stand for potrf, trsm, syrk, getrf
	TotalMiB, FreeMiB       float64        // smallest over the measured GPUs
}

// Calibrate measures the GPUs present: pinned host-to-device bandwidth,
// SGEMM times of the task shapes, memory. See Calibration.TOML for how the
// numbers become a platform preset.
func Calibrate(opt CalibrateOptions) (*Calibration, error) {
	opt = opt.withDefaults()
	rt, err := cuda.Open()
	if err != nil {
		return nil, fmt.Errorf("no CUDA GPU found: %w; calibrate measures real GPUs (the simulator needs none: use a preset such as v100-gemini)", err)
	}
	info, err := rt.Info()
	if err != nil {
		return nil, fmt.Errorf("querying the CUDA devices: %w", err)
	}
	if opt.GPUs <= 0 {
		opt.GPUs = len(info.Devices)
	}
	if opt.GPUs > len(info.Devices) {
		return nil, fmt.Errorf("--gpus %d: CUDA sees %d (%s)", opt.GPUs, len(info.Devices), info)
	}
	info.Devices = info.Devices[:opt.GPUs]
	c := &Calibration{Opt: opt, Info: info}
	c.Host, _ = os.Hostname()
	c.TotalMiB, c.FreeMiB = math.Inf(1), math.Inf(1)
	for _, d := range info.Devices {
		c.TotalMiB = min(c.TotalMiB, float64(d.TotalMem)/hardware.MiB)
		c.FreeMiB = min(c.FreeMiB, float64(d.FreeMem)/hardware.MiB)
	}
	if c.Opt.Name == "" {
		c.Opt.Name = presetName(info.Devices[0].Name, opt.GPUs)
	}

	bufs := make([]*copyBufs, opt.GPUs)
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.close(rt)
			}
		}
	}()
	for g := range bufs {
		b, err := newCopyBufs(rt, g, opt.CopySizes[len(opt.CopySizes)-1])
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", g, err)
		}
		bufs[g] = b
	}
	for g := range bufs {
		pts, err := bandwidth(rt, bufs[g:g+1], opt)
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", g, err)
		}
		c.Alone = append(c.Alone, pts)
	}
	plateaus := make([]float64, opt.GPUs)
	for g, pts := range c.Alone {
		plateaus[g] = plateau(pts)
	}
	c.AloneGBps = median(plateaus)
	if opt.GPUs > 1 {
		if c.Together, err = bandwidth(rt, bufs, opt); err != nil {
			return nil, err
		}
		c.TogetherGBps = plateau(c.Together)
	} else {
		c.Together, c.TogetherGBps = c.Alone[0], c.AloneGBps
	}

	t := opt.Tile
	shapes := []KernelTiming{{Kernels: []string{"gemm 2D"}, M: t, N: t, K: opt.Z}, {Kernels: []string{"gemm 3D"}, M: t, N: t, K: t}}
	for _, k := range []string{"potrf", "trsm", "syrk", "getrf"} {
		s := emulatedSide(kernelFlops(k, t))
		i := slices.IndexFunc(shapes[2:], func(x KernelTiming) bool { return x.M == s })
		if i < 0 {
			shapes = append(shapes, KernelTiming{Kernels: []string{k}, M: s, N: s, K: s})
		} else {
			shapes[2+i].Kernels = append(shapes[2+i].Kernels, k)
		}
	}
	w := bufs[0].w
	for i := range shapes {
		if err := w.Do(func() error { return timeSgemm(rt, &shapes[i], opt) }); err != nil {
			return nil, fmt.Errorf("GPU 0: SGEMM %dx%dx%d: %w", shapes[i].M, shapes[i].N, shapes[i].K, err)
		}
	}
	c.Gemm2D, c.Gemm3D, c.Emulated = shapes[0], shapes[1], shapes[2:]
	return c, nil
}

// copyBufs are one GPU's worker, pinned source and device destination.
type copyBufs struct {
	w    *cuda.Worker
	host cuda.HostPtr
	dev  cuda.DevPtr
	s    cuda.Stream
	e0   cuda.Event
	e1   cuda.Event
}

func newCopyBufs(rt *cuda.Runtime, g int, size int64) (*copyBufs, error) {
	w, err := rt.NewWorker(g)
	if err != nil {
		return nil, err
	}
	b := &copyBufs{w: w}
	err = w.Do(func() error {
		var err error
		if b.host, err = rt.MallocHost(uint64(size)); err != nil {
			return err
		}
		clear(b.host.Bytes()) // touch every page once, outside the timing
		if b.dev, err = rt.Malloc(uint64(size)); err != nil {
			return err
		}
		if b.s, err = rt.NewStream(); err != nil {
			return err
		}
		if b.e0, err = rt.NewEvent(); err != nil {
			return err
		}
		b.e1, err = rt.NewEvent()
		return err
	})
	if err != nil {
		b.close(rt)
		return nil, err
	}
	return b, nil
}

func (b *copyBufs) close(rt *cuda.Runtime) {
	b.w.Do(func() error {
		rt.DeviceSynchronize()
		for _, e := range []cuda.Event{b.e0, b.e1} {
			if e != 0 {
				rt.DestroyEvent(e)
			}
		}
		if b.s != 0 {
			rt.DestroyStream(b.s)
		}
		if b.dev != 0 {
			rt.Free(b.dev)
		}
		if b.host.Len() > 0 {
			rt.FreeHost(b.host)
		}
		return nil
	})
	b.w.Close()
}

// bandwidth copies each size repeatedly on every GPU of bufs at once: all
// copies are queued on every GPU before any is waited for, so they overlap.
// Each GPU times its own copies with events; the total is the bytes of all
// GPUs over the longest GPU's time.
func bandwidth(rt *cuda.Runtime, bufs []*copyBufs, opt CalibrateOptions) ([]BandwidthPoint, error) {
	warm := opt.CopySizes[len(opt.CopySizes)-1]
	for _, b := range bufs {
		if err := b.w.Do(func() error {
			if err := rt.MemcpyH2DAsync(b.dev, b.host, uint64(warm), b.s); err != nil {
				return err
			}
			return rt.StreamSynchronize(b.s)
		}); err != nil {
			return nil, err
		}
	}
	var pts []BandwidthPoint
	for _, size := range opt.CopySizes {
		reps := int(max(2, (opt.CopyBytes+size-1)/size))
		for _, b := range bufs {
			err := b.w.Do(func() error {
				if err := rt.Record(b.e0, b.s); err != nil {
					return err
				}
				for range reps {
					if err := rt.MemcpyH2DAsync(b.dev, b.host, uint64(size), b.s); err != nil {
						return err
					}
				}
				return rt.Record(b.e1, b.s)
			})
			if err != nil {
				return nil, err
			}
		}
		longest := 0.0
		for _, b := range bufs {
			var ms float32
			err := b.w.Do(func() error {
				if err := rt.Synchronize(b.e1); err != nil {
					return err
				}
				var err error
				ms, err = rt.ElapsedMs(b.e0, b.e1)
				return err
			})
			if err != nil {
				return nil, err
			}
			longest = max(longest, float64(ms)/1e3)
		}
		if longest <= 0 {
			return nil, fmt.Errorf("copies of %d bytes took no measurable time", size)
		}
		total := float64(size) * float64(reps) * float64(len(bufs))
		pts = append(pts, BandwidthPoint{Bytes: size, Reps: reps, GBps: total / longest / 1e9})
	}
	return pts, nil
}

// plateau is the large-size bandwidth: the mean of the two largest sizes,
// past the per-copy overhead that small copies pay.
func plateau(pts []BandwidthPoint) float64 {
	if len(pts) == 1 {
		return pts[0].GBps
	}
	n := len(pts)
	return (pts[n-1].GBps + pts[n-2].GBps) / 2
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// timeSgemm times k.M×k.N×k.K SGEMMs on the calling worker's device, each
// between its own pair of events, after warm-up; operands hold the
// executor's fill values (SGEMM speed does not depend on them).
func timeSgemm(rt *cuda.Runtime, k *KernelTiming, opt CalibrateOptions) (err error) {
	m, n, kk := k.M, k.N, k.K
	sizes := []int64{4 * int64(m) * int64(kk), 4 * int64(kk) * int64(n), 4 * int64(m) * int64(n)}
	var ptrs []cuda.DevPtr
	var evs []cuda.Event
	var s cuda.Stream
	var h cuda.Blas
	var host cuda.HostPtr
	defer func() {
		rt.DeviceSynchronize()
		for _, e := range evs {
			rt.DestroyEvent(e)
		}
		for _, p := range ptrs {
			rt.Free(p)
		}
		if h != 0 {
			rt.DestroyBlas(h)
		}
		if s != 0 {
			rt.DestroyStream(s)
		}
		if host.Len() > 0 {
			rt.FreeHost(host)
		}
	}()
	if s, err = rt.NewStream(); err != nil {
		return err
	}
	if h, err = rt.NewBlas(); err != nil {
		return err
	}
	if err = rt.SetStream(h, s); err != nil {
		return err
	}
	if host, err = rt.MallocHost(uint64(max(sizes[0], sizes[1]))); err != nil {
		return err
	}
	for i, sz := range sizes {
		p, err := rt.Malloc(uint64(sz))
		if err != nil {
			return err
		}
		ptrs = append(ptrs, p)
		if i < 2 {
			v := host.Float32s()[:sz/4]
			for j := range v {
				v[j] = fillValue(i, j)
			}
			if err := rt.MemcpyH2DAsync(p, host, uint64(sz), s); err != nil {
				return err
			}
			if err := rt.StreamSynchronize(s); err != nil {
				return err
			}
		}
	}
	gemm := func() error { return rt.Sgemm(h, m, n, kk, 1, ptrs[0], m, ptrs[1], kk, 0, ptrs[2], m) }
	for range opt.Warmup {
		if err := gemm(); err != nil {
			return err
		}
	}
	for range 2 * opt.Reps {
		e, err := rt.NewEvent()
		if err != nil {
			return err
		}
		evs = append(evs, e)
	}
	for r := range opt.Reps {
		if err := rt.Record(evs[2*r], s); err != nil {
			return err
		}
		if err := gemm(); err != nil {
			return err
		}
		if err := rt.Record(evs[2*r+1], s); err != nil {
			return err
		}
	}
	if err := rt.StreamSynchronize(s); err != nil {
		return err
	}
	ts := make([]float64, opt.Reps)
	for r := range ts {
		ms, err := rt.ElapsedMs(evs[2*r], evs[2*r+1])
		if err != nil {
			return err
		}
		ts[r] = float64(ms) / 1e3
	}
	k.Seconds, k.Min, k.Max = median(ts), slices.Min(ts), slices.Max(ts)
	if k.Seconds <= 0 {
		return fmt.Errorf("no measurable time")
	}
	k.GFlops = 2 * float64(m) * float64(n) * float64(kk) / k.Seconds / 1e9
	return nil
}

// presetName makes "h100-80gb-hbm3-x1" of "NVIDIA H100 80GB HBM3" and 1 GPU.
func presetName(model string, gpus int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(model) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimSuffix(strings.TrimPrefix(b.String(), "nvidia-"), "-")
	if s == "" {
		s = "gpu"
	}
	return fmt.Sprintf("%s-x%d", s, gpus)
}

func sizeList(pts []BandwidthPoint) string {
	var parts []string
	for _, p := range pts {
		parts = append(parts, fmt.Sprintf("%g MiB %.2f", float64(p.Bytes)/hardware.MiB, p.GBps))
	}
	return strings.Join(parts, ", ")
}

// TOML renders the calibration as a platform preset in the format of
// hardware/presets/v100-gemini.toml, each number with its provenance.
//
// Topology mapping: the simulator shares links max-min fairly along a tree
// GPU link -> switch link -> NUMA link. gpu_link_gbps is the one-GPU
// plateau B1, so one GPU alone loads at B1. All GPUs share one NUMA link
// of the all-at-once plateau BK (switches of one GPU at B1, never
// binding), so K GPUs loading at once get BK in total (BK/K each) and j < K
// GPUs get min(j·B1, BK): the two measured points are reproduced exactly
// and the curve between them is the simplest one through both.
func (c *Calibration) TOML() []byte {
	o := c.Opt
	k := len(c.Info.Devices)
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	date := o.Date.UTC().Format("2006-01-02 15:04 UTC")
	model := c.Info.Devices[0].Name
	p("# %s: %d× %s, measured by `memsched calibrate` on %s", o.Name, k, model, date)
	if c.Host != "" {
		p(" on host %s", c.Host)
	}
	p(".\n# %s\n", c.Info)
	p("# Units: GB/s are 1e9 bytes per second; memory is in MiB (the papers' \"MB\").\n")
	p("# Copies: cudaMemcpyAsync host->device from cudaMallocHost (pinned) memory, timed with\n")
	p("# CUDA events, sizes %s, at least %d MiB per size; plateau = mean of the two largest sizes.\n",
		strings.Join(mibs(o.CopySizes), ", "), o.CopyBytes>>20)
	p("# SGEMM: cublasSgemm_v2 (fp32, column-major, beta 0) on GPU 0, %d warm-up runs, median of %d timed runs.\n\n", o.Warmup, o.Reps)

	p("[platform]\n")
	p("name        = %s\n", strconv.Quote(o.Name))
	p("description = %s\n", strconv.Quote(fmt.Sprintf("%d× %s, calibrated %s (memsched calibrate)", k, model, o.Date.UTC().Format("2006-01-02"))))
	p("max_gpus    = %d  # source: GPUs measured (CUDA devices 0..%d)\n", k, k-1)
	p("physical_memory_mib = %.0f  # source: measured, cudaMemGetInfo total (%.0f MiB free at calibration)\n", c.TotalMiB, c.FreeMiB)
	why := "the papers' STARPU_LIMIT_CUDA_MEM=500, calibrate's default"
	if o.MemoryMiB != 500 {
		why = "calibrate --memory-mb"
	}
	p("memory_mib  = %g  # source: %s; runs override it with --memory-mb\n\n", o.MemoryMiB, why)

	p("# PCIe model fitted to two measurements: one GPU alone (gpu link) and all %d GPUs at once\n", k)
	p("# (one shared host link), so the simulator's max-min sharing reproduces both.\n")
	p("[topology]\n")
	alone := make([]string, k)
	for g, pts := range c.Alone {
		alone[g] = fmt.Sprintf("GPU %d: %s", g, sizeList(pts))
	}
	p("gpu_link_gbps     = %.3f  # source: measured, one GPU copying alone, plateau (median over GPUs); GB/s by size: %s\n", c.AloneGBps, strings.Join(alone, "; "))
	p("gpus_per_switch   = 1  # fitted: no switch level; contention is on the shared host link below\n")
	p("switch_link_gbps  = %.3f  # fitted: = gpu_link_gbps, never binding\n", c.AloneGBps)
	p("gpus_per_numa     = %d  # fitted: all GPUs share one host link\n", k)
	together := "measured, all GPUs copying at once, total plateau; GB/s by size: " + sizeList(c.Together)
	if k == 1 {
		together = "one GPU: = gpu_link_gbps"
	}
	numa := max(c.TogetherGBps, c.AloneGBps)
	if c.TogetherGBps < c.AloneGBps {
		together += fmt.Sprintf(" (below one GPU's %.3f; raised to it so one GPU alone keeps its measured speed)", c.AloneGBps)
	}
	p("numa_link_gbps    = %.3f  # source: %s\n", numa, together)
	p("inter_numa_gbps   = %.3f  # fitted: unused, every GPU is on NUMA node 0 in this model\n", numa)
	p("nvlink            = false  # not measured: the cuda executor copies from host RAM only\n\n")

	p("# Kernel model: a constant throughput per kernel on one GPU.\n")
	g2, g3 := c.Gemm2D, c.Gemm3D
	p("[kernel.gemm]\n")
	p("gflops = %.1f  # source: measured, SGEMM %dx%dx%d (2D task, tile %d, z %d): median %.4g ms (min %.4g, max %.4g); 3D task %dx%dx%d: %.1f GFlop/s (median %.4g ms)\n",
		g2.GFlops, g2.M, g2.N, g2.K, o.Tile, o.Z, g2.Seconds*1e3, g2.Min*1e3, g2.Max*1e3, g3.M, g3.N, g3.K, g3.GFlops, g3.Seconds*1e3)
	for _, name := range []string{"potrf", "trsm", "syrk", "getrf"} {
		for _, e := range c.Emulated {
			if slices.Contains(e.Kernels, name) {
				p("[kernel.%s]\n", name)
				p("gflops = %.1f  # source: measured, SGEMM %dx%dx%d (median %.4g ms): the cuda executor runs %s on a %d tile as a cube SGEMM of equal flops, not the real kernel\n",
					e.GFlops, e.M, e.N, e.K, e.Seconds*1e3, name, o.Tile)
			}
		}
	}
	p("\n# StarPU runtime settings of the papers' runs (as v100-gemini).\n")
	p("[runtime]\n")
	p("buffer   = 10  # source: STARPU_NTASKS_THRESHOLD=10 (reference/README.md)\n")
	p("pipeline = 5   # source: STARPU_CUDA_PIPELINE=5 (reference/README.md)\n")
	p("lock_free = true  # assumption: a real driver holds a datum's header lock only while it posts a request (the stall behind it is StarPU's SimGrid mode: hardware.Runtime.LockFree)\n")
	return b.Bytes()
}

func mibs(sizes []int64) []string {
	var s []string
	for _, x := range sizes {
		s = append(s, fmt.Sprintf("%g MiB", float64(x)/hardware.MiB))
	}
	return s
}

// Summary is a few human lines for the terminal.
func (c *Calibration) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", c.Info)
	fmt.Fprintf(&b, "host->device, one GPU alone: %.2f GB/s (%s)\n", c.AloneGBps, sizeList(c.Alone[0]))
	fmt.Fprintf(&b, "host->device, %d GPUs at once: %.2f GB/s in total (%s)\n", len(c.Info.Devices), c.TogetherGBps, sizeList(c.Together))
	for _, k := range append([]KernelTiming{c.Gemm2D, c.Gemm3D}, c.Emulated...) {
		fmt.Fprintf(&b, "SGEMM %dx%dx%d (%s): %.4g ms, %.1f GFlop/s\n", k.M, k.N, k.K, strings.Join(k.Kernels, ", "), k.Seconds*1e3, k.GFlops)
	}
	fmt.Fprintf(&b, "memory: %.0f MiB total, %.0f MiB free\n", c.TotalMiB, c.FreeMiB)
	return b.String()
}
