package hardware

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestV100Preset(t *testing.T) {
	p, err := Load("v100-gemini")
	if err != nil {
		t.Fatal(err)
	}
	if p.MemoryBytes != 500<<20 {
		t.Errorf("memory %d, want 500 MiB", p.MemoryBytes)
	}
	s, _, _ := p.KernelSeconds("gemm", GPU, 2*960*960*3840)
	if want := 2 * 960 * 960 * 3840 / 13253e9; s != want {
		t.Errorf("2D gemm takes %g s, want %g", s, want)
	}
	p.GPUs = 8
	links, paths, up := p.Links()
	// 8 GPU links, 4 switches, 2 NUMA links, the inter-NUMA link; as many
	// in the device-to-host direction.
	if len(links) != 30 || len(paths[0]) != 3 || len(paths[7]) != 4 || paths[0][1] != paths[1][1] || paths[1][1] == paths[2][1] {
		t.Errorf("unexpected topology: %d links, paths %v", len(links), paths)
	}
	if len(up[3]) != 3 || up[3][0] == paths[3][0] || paths[8] != nil {
		t.Errorf("unexpected up paths %v (down %v)", up, paths)
	}
	if p.HomeGBps(0) != 12 {
		t.Errorf("host bandwidth %g, want 12", p.HomeGBps(0))
	}
}

func TestBadPresets(t *testing.T) {
	if _, err := Load("v100"); err == nil || !strings.Contains(err.Error(), "v100-gemini") {
		t.Errorf("unknown preset: %v", err)
	}
	data, _ := presetFS.ReadFile("presets/v100-gemini.toml")
	bad := strings.Replace(string(data), "gpu_link_gbps", "gpu_lnk_gbps", 1)
	if _, err := Parse("typo", []byte(bad)); err == nil || !strings.Contains(err.Error(), "gpu_lnk_gbps") {
		t.Errorf("typo in a key: %v", err)
	}
	p, _ := Load("v100-gemini")
	p.GPUs = 9
	if err := p.Check(); err == nil {
		t.Error("9 GPUs on an 8-GPU node accepted")
	}
	if p.Hash() == "" {
		t.Error("empty hash")
	}
	// Per-GPU bandwidths and the latency matrix cover every GPU and node.
	p, _ = Load("v100-gemini")
	for _, c := range []struct {
		set  func(*Topology)
		want string
	}{
		{func(t *Topology) { t.GPULinkGBpsEach = []float64{12, 12} }, "gpu_link_gbps_each has 2 values; give one per GPU of the machine (8)"},
		{func(t *Topology) { t.GPULinkGBpsEach = []float64{12, 12, 12, 12, 12, 12, 12, 0} }, "every bandwidth must be a positive"},
		{func(t *Topology) { t.CopyLatencyUs = [][]float64{{0, 10}} }, "copy_latency_us: 1 rows; give one per memory node (9"},
		{func(t *Topology) {
			t.CopyLatencyUs = make([][]float64, 9)
			for i := range t.CopyLatencyUs {
				t.CopyLatencyUs[i] = make([]float64, 9)
			}
			t.CopyLatencyUs[2][3] = -1
		}, "row 2 holds -1"},
	} {
		q := p.Clone()
		c.set(&q.Topology)
		if err := q.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	q := p.Clone()
	q.Runtime.CopyIssueUs = -1
	if err := q.Check(); err == nil || !strings.Contains(err.Error(), "copy_issue_us") {
		t.Errorf("negative copy_issue_us: %v", err)
	}
}

// platform_hash is the hash of canonical JSON: sorted keys, the numbers a
// run uses; the same cap written in MiB or bytes hashes the same.
func TestHashIsCanonicalJSON(t *testing.T) {
	p, _ := Load("v100-gemini")
	b := string(p.CanonicalJSON())
	if strings.Contains(b, "memory_mib") || !strings.HasPrefix(b, `{"gpus":1,"kernels":{"gemm":`) || !strings.Contains(b, `"runtime":{"alloc_sync":"none","array_op_seconds":`) {
		t.Errorf("not canonical: %s", b)
	}
	q := p.Clone()
	q.SetMemoryCapBytes(500 << 20)
	if p.Hash() != q.Hash() {
		t.Error("500 MiB and 524288000 bytes hash differently")
	}
	q.Runtime.ReclaimFactor = 1
	if p.Hash() == q.Hash() {
		t.Error("a runtime setting does not change the hash")
	}
}

// A preset's fitted file overrides its [topology], [runtime] and
// [kernel.NAME] keys through the same struct; it may set nothing else.
func TestFittedValues(t *testing.T) {
	dir := t.TempDir()
	main, _ := presetFS.ReadFile("presets/v100-gemini.toml")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p.toml", strings.Replace(string(main), `fitted = "fitted/v100-gemini.toml"`, `fitted = "f.toml"`, 1))
	write("f.toml", "[topology]\nstrided_gbps = 7.5\n[runtime]\nop_seconds = 2e-8\n[kernel.potrf]\nseconds = 0.02\n")
	p, err := Load(filepath.Join(dir, "p.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Topology.StridedGBps != 7.5 || p.Runtime.OpSeconds != 2e-8 || p.Runtime.Buffer != 10 {
		t.Errorf("fitted values not applied over the preset: %+v %+v", p.Topology, p.Runtime)
	}
	if s, _, _ := p.KernelSeconds("potrf", GPU, 1); s != 0.02 {
		t.Errorf("potrf %g s, want the fitted 0.02", s)
	}
	if v, ok := p.Setting("kernel.potrf", "seconds"); !ok || v != 0.02 {
		t.Errorf("Setting(kernel.potrf, seconds) = %v, %v", v, ok)
	}
	if v, ok := p.Setting("topology", "strided_gbps"); !ok || v != 7.5 {
		t.Errorf("Setting(topology, strided_gbps) = %v, %v", v, ok)
	}
	for _, bad := range []struct{ text, want string }{
		{"[platform]\nname = \"x\"\n", `unknown table "platform"`},
		{"[runtime]\nop_second = 1e-9\n", `did you mean "op_seconds"`},
		{"[runtime]\nop_seconds = -1\n", "op_seconds = -1"},
	} {
		write("f.toml", bad.text)
		if _, err := Load(filepath.Join(dir, "p.toml")); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("fitted %q: error %v, want %q", bad.text, err, bad.want)
		}
	}
	if _, err := Parse("p", main); err == nil || !strings.Contains(err.Error(), "fitted") {
		t.Errorf("Parse of a preset naming a fitted file: %v", err)
	}
}

func TestSetTopologyAndKernel(t *testing.T) {
	p, _ := Load("v100-gemini")
	if err := p.SetTopology(map[string]any{"strided_gbps": 9.0, "nvlink": false}); err != nil || p.Topology.StridedGBps != 9 || p.Topology.NVLink {
		t.Errorf("SetTopology: %v, %+v", err, p.Topology)
	}
	if err := p.SetTopology(map[string]any{"gpu_lnk_gbps": 1.0}); err == nil || !strings.Contains(err.Error(), `did you mean "gpu_link_gbps"`) {
		t.Errorf("typo: %v", err)
	}
	if err := p.SetKernel("potrf", "seconds", 0.01); err != nil {
		t.Fatal(err)
	}
	if err := p.SetKernel("potrff", "seconds", 0.01); err == nil || !strings.Contains(err.Error(), "potrf") {
		t.Errorf("unknown kernel: %v", err)
	}
}

// The gemini-1 NVLink table is the DGX-1 hybrid cube mesh measured by
// StarPU: six links per V100, pairs of one or two links, and the pairs
// without NVLink copy peer to peer over PCIe.
func TestGeminiNVLinkTable(t *testing.T) {
	p, err := Load("v100-gemini-1920")
	if err != nil {
		t.Fatal(err)
	}
	for g := 0; g < 8; g++ {
		links, peers := 0, 0
		for o := 0; o < 8; o++ {
			if n := p.NVLinks(g, o); n > 0 {
				links += n
				peers++
			}
		}
		if links != 6 || peers != 4 {
			t.Errorf("GPU %d has %d NVLinks to %d GPUs, want 6 to 4", g, links, peers)
		}
	}
	if got := p.PeerGBps(0, 3); got != 48 {
		t.Errorf("GPU0-GPU3 (two links) %g GB/s, want 48", got)
	}
	if got := p.PeerGBps(2, 6); got != 24 {
		t.Errorf("GPU2-GPU6 (one link) %g GB/s, want 24", got)
	}
	names, gbps := p.PeerPath(0, 5)
	want := []string{"pcie-gpu0-up", "pcie-switch0-up", "pcie-numa0-up", "pcie-gpu5", "pcie-switch2", "pcie-numa1", "inter-numa"}
	if gbps != 0 || strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("GPU0->GPU5 (no NVLink) path %v (%g GB/s), want PCIe %v", names, gbps, want)
	}
	if p.PeerGBps(0, 5) != 12 {
		t.Errorf("GPU0->GPU5 over PCIe %g GB/s, want 12", p.PeerGBps(0, 5))
	}
	q, _ := Load("v100-gemini")
	q.GPUs = 4
	q.Topology.NVLink = false
	if names, _ := q.PeerPath(2, 3); strings.Join(names, ",") != "pcie-gpu2-up,pcie-gpu3" {
		t.Errorf("two GPUs of one switch: path %v, want through the switch only", names)
	}
	q.Topology.NVLink = true
	if q.NVLinks(1, 2) != 1 || q.PeerGBps(1, 2) != 24 {
		t.Error("without a table every pair has one NVLink")
	}
	bad := p.Clone()
	bad.NVLinkPairs = append(bad.NVLinkPairs, []int{1, 0, 1})
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate pair: %v", err)
	}
}

func TestEPYCPreset(t *testing.T) {
	p := mustLoad(t, "epyc7642-ooc")
	if !p.OutOfCore() || p.CPUs != 16 || p.GPUs != 0 || p.HomeGBps(0) != 0.25 {
		t.Errorf("unexpected out-of-core preset: %+v", p)
	}
	if s, ok, _ := p.KernelSeconds("gemm", CPU, 2*320*320*320); !ok || s < 1e-3 || s > 1.2e-3 {
		t.Errorf("sgemm 320 on a core takes %g s", s)
	}
	if _, ok, _ := p.KernelSeconds("gemm", GPU, 1); ok {
		t.Error("the CPU preset has GPU kernels")
	}
}

func mustLoad(t *testing.T, name string) *Platform {
	t.Helper()
	p, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A kernel's history is checked like every number of a preset: a shape a
// task could not match, or two a task would match both, are refused; a rate
// given by hand replaces it.
func TestKernelHistory(t *testing.T) {
	p, err := Load("gemini-2-ipdps")
	if err != nil {
		t.Fatal(err)
	}
	g := p.Kernels["gemm"]
	if s, ok := g.OnGPU(1, 7.077888e9); !ok || !near(s, 570.7416e-6) {
		t.Errorf("the 2D task on CUDA1 takes %g s, want 570.7416 µs (its history mean)", s)
	}
	if s, ok := g.OnGPU(5, 7.077888e9); !ok || s != g.Rate.Duration(7.077888e9) {
		t.Errorf("the 2D task on CUDA5 (no entry) takes %g s, want the rate's %g", s, g.Rate.Duration(7.077888e9))
	}
	for _, c := range []struct {
		h    []Shape
		want string
	}{
		{[]Shape{{Flops: 0, GPUUs: []float64{1}}}, "flops = 0"},
		{[]Shape{{Flops: 1e9, GPUUs: make([]float64, 9)}}, "9 gpu_us; give one duration per GPU of the platform (1 to 8"},
		{[]Shape{{Flops: 1e9, GPUUs: []float64{0, 0}}}, "no GPU with a duration"},
		{[]Shape{{Flops: 1e9, GPUUs: []float64{-1}}}, "gpu_us[0] = -1"},
		{[]Shape{{Flops: 1e9, GPUUs: []float64{1}}, {Flops: 1.005e9, GPUUs: []float64{2}}}, "shapes 1 and 2"},
	} {
		q := p.Clone()
		k := q.Kernels["gemm"]
		k.History = c.h
		q.Kernels["gemm"] = k
		if err := q.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("history %+v: got %v, want %q", c.h, err, c.want)
		}
	}
	q := p.Clone()
	k := q.Kernels["gemm"]
	k.Rate = Rate{}
	k.CPU = &Rate{GFlops: 1}
	q.Kernels["gemm"] = k
	if err := q.Check(); err == nil || !strings.Contains(err.Error(), "history needs the GPU rate") {
		t.Errorf("a history without a GPU rate: %v", err)
	}
	// Clone copies the history; SetKernel drops it.
	q = p.Clone()
	q.Kernels["gemm"].History[0].GPUUs[0] = 1
	if p.Kernels["gemm"].History[0].GPUUs[0] == 1 {
		t.Error("Clone shares the history")
	}
	if err := q.SetKernel("gemm", "gflops", 10000); err != nil || q.Kernels["gemm"].History != nil {
		t.Errorf("SetKernel: %v, history %v; want the rate alone", err, q.Kernels["gemm"].History)
	}
	bad := strings.Replace(mustRead(t, "presets/gemini-2-ipdps.toml"), "gpu_us = [563", "gpu_ms = [563", 1)
	if _, err := Parse("typo", []byte(bad)); err == nil || !strings.Contains(err.Error(), "gpu_us") {
		t.Errorf("a typo in a history key: %v", err)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := presetFS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
