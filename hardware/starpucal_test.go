package hardware

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memsched/memsched/workloads"
)

// testdata/starpu holds synthetic StarPU calibration files written by hand
// for these tests (host synth2: 2 CUDA devices, one NVLink link between
// them, an OpenCL node that is ignored); see its README.md.
const starpuTestdata = "testdata/starpu"

func importSynth(t *testing.T, dir string, opt StarPUOptions) (*StarPUImport, *Platform, []byte) {
	t.Helper()
	c, err := ImportStarPU(dir, "synth2", opt)
	if err != nil {
		t.Fatal(err)
	}
	data := c.TOML()
	p, err := Parse("synth2", data)
	if err != nil {
		t.Fatalf("the imported preset does not load: %v\n%s", err, data)
	}
	return c, p, data
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestImportStarPU(t *testing.T) {
	c, p, data := importSynth(t, starpuTestdata, StarPUOptions{})
	tp := p.Topology
	for _, g := range []struct {
		what      string
		got, want float64
	}{
		{"max_gpus", float64(p.MaxGPUs), 2},
		{"physical_memory_mib", p.PhysicalMiB, 16384},        // memsize 17179869184 bytes
		{"memory_mib", p.MemoryMiB, 500},                     // the default
		{"gpu_link_gbps", tp.GPULinkGBps, 11},                // RAM->CUDA 10000 and 12000 MB/s: mean
		{"gpus_per_switch", float64(tp.GPUsPerSwitch), 1},    // no link shared by some GPUs but not all
		{"switch_link_gbps", tp.SwitchLinkGBps, 11},          // = gpu link
		{"gpus_per_numa", float64(tp.GPUsPerNUMA), 2},        // every GPU
		{"numa_link_gbps", tp.NUMALinkGBps, 13.5},            // link "Host", slower than "PCI:sw down" (30 GB/s)
		{"nvlink_gbps", tp.NVLinkGBps, 40.1},                 // CUDA0->CUDA1 40000, back 40200 MB/s
		{"gemm gflops", p.Kernels["gemm"].GFlops, 13878.2},   // 7.077888e9 flops / mean(500, 520 µs); 600 µs (n 10) not chosen
		{"potrf gflops", p.Kernels["potrf"].GFlops, 14.7456}, // 960³/3 flops / 20000 µs
		{"buffer", float64(p.Runtime.Buffer), 10},
		{"pipeline", float64(p.Runtime.Pipeline), 5},
		{"reclaim_factor", p.Runtime.ReclaimFactor, 2},
		{"duration_cv", p.Runtime.DurationCV, 0},
		{"strided_gbps", tp.StridedGBps, 0},
	} {
		if !near(g.got, g.want) {
			t.Errorf("%s = %v, want %v", g.what, g.got, g.want)
		}
	}
	// SimGrid times a task by its own device's entry: the history keeps
	// each GPU's mean for the codelet's shapes (the 3D task's entry is
	// CUDA0's alone), and potrf's one device.
	gemm := p.Kernels["gemm"]
	for _, c := range []struct {
		gpu   int
		flops float64
		want  float64
	}{
		{0, 2 * 960 * 960 * 3840, 500e-6}, {1, 2 * 960 * 960 * 3840, 520e-6},
		{0, 2 * 960 * 960 * 960, 140e-6},
		{1, 2 * 960 * 960 * 960, 2 * 960 * 960 * 960 / 13878.2e9}, // no entry on CUDA1: the rate
		{1, 3 * 960 * 960 * 960, 3 * 960 * 960 * 960 / 13878.2e9}, // no such shape: the rate
	} {
		if got, ok := gemm.OnGPU(c.gpu, c.flops); !ok || !near(got, c.want) {
			t.Errorf("gemm of %g flops on GPU %d takes %g s (ok %v), want %g", c.flops, c.gpu, got, ok, c.want)
		}
	}
	if h := p.Kernels["potrf"].History; len(h) != 1 || !slices.Equal(h[0].GPUUs, []float64{20000, 0}) {
		t.Errorf("potrf history %+v; want CUDA0's 20000 µs", h)
	}
	if !tp.NVLink || len(p.NVLinkPairs) != 1 || !slices.Equal(p.NVLinkPairs[0], []int{0, 1, 1}) {
		t.Errorf("nvlink %v, pairs %v; want on, [[0 1 1]]", tp.NVLink, p.NVLinkPairs)
	}
	if p.Runtime.SchedCost != "none" || p.Runtime.AllocSync != "none" {
		t.Errorf("sched_cost %q, alloc_sync %q; want none, none", p.Runtime.SchedCost, p.Runtime.AllocSync)
	}
	// What StarPU's SimGrid mode charges a copy: each GPU's own link, the
	// routes' latencies (the sum of their links': 10 and 11 µs down, 9 and
	// 10 up, 20 and 21 between the GPUs), peer copies sequential with the
	// copies into either GPU, and the drivers' sleeps.
	if !slices.Equal(tp.GPULinkGBpsEach, []float64{10, 12}) || !tp.SerialPeerCopies {
		t.Errorf("gpu_link_gbps_each %v, serial_peer_copies %v; want [10 12], true", tp.GPULinkGBpsEach, tp.SerialPeerCopies)
	}
	wantLat := [][]float64{{0, 10, 11}, {9, 0, 20}, {10, 21, 0}}
	if !slices.EqualFunc(tp.CopyLatencyUs, wantLat, slices.Equal[[]float64]) {
		t.Errorf("copy_latency_us %v, want %v", tp.CopyLatencyUs, wantLat)
	}
	if rt := p.Runtime; rt.SourceAtCopy || rt.RequestsPerNode || rt.CopyIssueUs != 10 || rt.TaskIssueUs != 10 || rt.FetchInputUs != 1 {
		t.Errorf("runtime %+v; want StarPU's request rules and the SimGrid sleeps 10, 10 and 1 µs", rt)
	}
	// No model file for trsm and syrk: not written, and said so.
	for _, k := range []string{"trsm", "syrk"} {
		if _, ok := p.Kernels[k]; ok {
			t.Errorf("kernel %s written without a model file", k)
		}
	}
	s := string(data)
	for _, want := range []string{
		"# Not written: trsm: no codelets/45/chol_model_21.synth2",
		"bus/synth2.bandwidth row 0 (RAM, line 3), columns 1-2",
		`link "Host" bandwidth 13500000000 Bps`,
		"footprint aaaa0001 (size 29491200 bytes",
		"CUDA0 footprint aaaa0002 (size 33177600) 600.00 µs (n 10",
		// The 3D entry is cited with what the one rate would imply for it.
		"# 3D task 960x960x960: codelets/45/starpu_sgemm_gemm.synth2 footprint aaaa0003 mean 140.00 µs over CUDA0 = 12639.1 GFlop/s, in history",
		"{flops = 7.077888e+09, gpu_us = [500, 520]},  # the 2D task 960x960x3840: footprint aaaa0001, line",
		"GPU->GPU over NVLink 20.50 µs",
		"bus/synth2.config ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("preset lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "90000") {
		t.Errorf("the CPU combination's entry (90000 µs) reached the preset:\n%s", s)
	}
	// Every number carries a comment citing where it comes from.
	num := regexp.MustCompile(`^\s*([a-z_]+\s*=\s*([-0-9.]|true|false|"none")|\[\d)`)
	for i, ln := range strings.Split(s, "\n") {
		if num.MatchString(ln) && !strings.Contains(ln, "#") {
			t.Errorf("line %d has no comment: %s", i+1, ln)
		}
	}
	if c.CUDA != 2 || c.CPUs != 8 || len(c.Files) != 6 {
		t.Errorf("CUDA %d, CPUs %d, %d files read; want 2, 8, 6 (config, bandwidth, latency, platform, 2 models)", c.CUDA, c.CPUs, len(c.Files))
	}

	// Options: name, memory, and a tile whose shapes have no entry.
	_, p, _ = importSynth(t, starpuTestdata, StarPUOptions{Name: "other", MemoryMiB: 1000})
	if p.Name != "other" || p.MemoryMiB != 1000 {
		t.Errorf("name %q memory %g; want other, 1000", p.Name, p.MemoryMiB)
	}
	// Through its parent directory (the one holding sampling/) too.
	parent := t.TempDir()
	copyDir(t, starpuTestdata, filepath.Join(parent, "sampling"))
	if _, err := ImportStarPU(parent, "synth2", StarPUOptions{}); err != nil {
		t.Errorf("from the directory holding sampling/: %v", err)
	}
}

// TestImportStarPUVariants edits a copy of the synthetic files.
func TestImportStarPUVariants(t *testing.T) {
	// GPU pairs at PCIe bandwidth: no NVLink.
	dir := synthCopy(t, "bus/synth2.bandwidth", "4.000000e+04", "9.000000e+03", "4.020000e+04", "9.100000e+03")
	_, p, data := importSynth(t, dir, StarPUOptions{})
	if p.Topology.NVLink || len(p.NVLinkPairs) != 0 {
		t.Errorf("nvlink %v pairs %v at PCIe bandwidth; want off", p.Topology.NVLink, p.NVLinkPairs)
	}
	if !strings.Contains(string(data), "no GPU pair above 20250.0 MB/s") {
		t.Errorf("no reason given for nvlink = false:\n%s", data)
	}

	// No memcpy_peer: StarPU copies through RAM; no NVLink in the model.
	dir = synthCopy(t, "bus/synth2.platform.xml", `<prop id="memcpy_peer" value="1"/>`, "")
	if _, p, _ = importSynth(t, dir, StarPUOptions{}); p.Topology.NVLink {
		t.Error("nvlink on without memcpy_peer")
	}

	// The SimGrid v4 file, bandwidths with units, when the v3 one is absent.
	dir = synthCopy(t, "bus/synth2.platform.xml", `" latency`, `Bps" latency`, `bandwidth="13500000000.000000Bps"`, `bandwidth="13.5GBps"`)
	if err := os.Rename(filepath.Join(dir, "bus/synth2.platform.xml"), filepath.Join(dir, "bus/synth2.platform.v4.xml")); err != nil {
		t.Fatal(err)
	}
	c, p, _ := importSynth(t, dir, StarPUOptions{})
	if c.XMLFile != "bus/synth2.platform.v4.xml" || !near(p.Topology.NUMALinkGBps, 13.5) {
		t.Errorf("v4 file: read %s, numa link %g GB/s; want the v4 file, 13.5", c.XMLFile, p.Topology.NUMALinkGBps)
	}

	// Routes missing: no sharing derived, said so, and the preset loads.
	dir = synthCopy(t, "bus/synth2.platform.xml", `<route src="RAM" dst="CUDA1"`, `<route src="RAM" dst="CUDA9"`)
	_, p, data = importSynth(t, dir, StarPUOptions{})
	if p.Topology.GPUsPerSwitch != 1 || !strings.Contains(string(data), "no route RAM -> CUDA1") {
		t.Errorf("without a RAM->CUDA1 route: gpus_per_switch %d, note missing:\n%s", p.Topology.GPUsPerSwitch, data)
	}
}

// TestStarPUTreeSharing checks the switch level derived from four GPUs'
// routes: pairs under switches, all under one host link.
func TestStarPUTreeSharing(t *testing.T) {
	c := &StarPUImport{CUDA: 4}
	links := map[string]float64{"RAM-CUDA0": 1e10, "RAM-CUDA1": 1e10, "RAM-CUDA2": 1e10, "RAM-CUDA3": 1e10,
		"swA": 3e10, "swB": 2.5e10, "Host": 1.2e10}
	routes := map[[2]string][]string{
		{"RAM", "CUDA0"}: {"RAM-CUDA0", "swA", "Host"},
		{"RAM", "CUDA1"}: {"RAM-CUDA1", "swA", "Host"},
		{"RAM", "CUDA2"}: {"RAM-CUDA2", "swB", "Host"},
		{"RAM", "CUDA3"}: {"RAM-CUDA3", "swB", "Host"},
	}
	tr := c.deriveTree(links, routes)
	if tr.note != "" || tr.switchSize != 2 || tr.switchLink != "swB" || tr.switchGBps != 2.5e10 || tr.allLink != "Host" || tr.allGBps != 1.2e10 {
		t.Errorf("tree %+v; want switches of 2 (slowest swB 2.5e10), host link Host 1.2e10", tr)
	}
	// A switch over CUDA1 and CUDA2 is not an aligned group of memsched's tree.
	routes[[2]string{"RAM", "CUDA0"}] = []string{"RAM-CUDA0", "Host"}
	routes[[2]string{"RAM", "CUDA2"}] = []string{"RAM-CUDA2", "swA", "Host"}
	routes[[2]string{"RAM", "CUDA3"}] = []string{"RAM-CUDA3", "Host"}
	if tr = c.deriveTree(links, routes); tr.switchSize != 1 || !strings.Contains(tr.note, `"swA" is shared by CUDA [1 2]`) {
		t.Errorf("misaligned switch: %+v; want no switch level and a note", tr)
	}
}

// TestImportStarPUBadInput: every bad input is an error naming the file
// (and line where there is one) and saying what is wrong.
func TestImportStarPUBadInput(t *testing.T) {
	bigMatrix := func() string {
		var b strings.Builder
		for range 65 {
			b.WriteString(strings.Repeat("1.0 ", 65) + "\n")
		}
		return b.String()
	}()
	gemm := "codelets/45/starpu_sgemm_gemm.synth2"
	truncated := func(dir string) {
		b, err := os.ReadFile(filepath.Join(dir, gemm))
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(b), "# COMB_1")
		if err := os.WriteFile(filepath.Join(dir, gemm), b[:i+50], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		edit func(dir string) // on a copy of the synthetic files
		host string
		opt  StarPUOptions
		want []string
	}{
		{"missing latency", remove("bus/synth2.latency"), "", StarPUOptions{}, []string{"bus/synth2.latency: no such file"}},
		{"missing config", remove("bus/synth2.config"), "", StarPUOptions{}, []string{"bus/synth2.config: no such file"}},
		{"missing platform", remove("bus/synth2.platform.xml"), "", StarPUOptions{}, []string{"synth2.platform.xml: no such file (nor synth2.platform.v4.xml)"}},
		{"missing gemm model", remove(gemm), "", StarPUOptions{}, []string{gemm + ": no such file; the gemm kernel's model"}},
		{"wrong host", nil, "synth3", StarPUOptions{}, []string{"bus/synth3.config: no such file"}},
		{"host with a path", nil, "../synth2", StarPUOptions{}, []string{`host "../synth2"`}},
		{"no bus directory", remove("bus"), "", StarPUOptions{}, []string{"no bus/ directory"}},
		{"nan for a GPU", replace("bus/synth2.bandwidth", "1.200000e+04", "nan"), "", StarPUOptions{},
			[]string{"bus/synth2.bandwidth:3: row 0, column 2 (RAM to CUDA1) is NaN", "finite positive number of MB/s"}},
		{"negative bandwidth", replace("bus/synth2.bandwidth", "4.020000e+04", "-4.020000e+04"), "", StarPUOptions{},
			[]string{"bus/synth2.bandwidth:5: row 2, column 1 (CUDA1 to CUDA0) is -40200"}},
		{"infinite latency", replace("bus/synth2.latency", "9.500000e+00", "inf"), "", StarPUOptions{},
			[]string{"bus/synth2.latency:5: row 2, column 0 (CUDA1 to RAM) is +Inf"}},
		{"not a number", replace("bus/synth2.latency", "2.000000e+01", "twenty"), "", StarPUOptions{},
			[]string{"bus/synth2.latency:4: row 1, column 2 (CUDA0 to CUDA1): \"twenty\" is not a number"}},
		{"short row", replace("bus/synth2.bandwidth", "1.300000e+04\t", ""), "", StarPUOptions{},
			[]string{"bus/synth2.bandwidth:4: 3 columns, the first row has 4"}},
		{"huge matrix", write("bus/synth2.bandwidth", bigMatrix), "", StarPUOptions{}, []string{"bus/synth2.bandwidth:", "65 columns; a StarPU bus matrix has at most 64 nodes"}},
		{"too many rows", write("bus/synth2.bandwidth", strings.Repeat("1.0 1.0 1.0\n", 65)), "", StarPUOptions{}, []string{"bus/synth2.bandwidth:65: more than 64 rows"}},
		{"matrix too small", write("bus/synth2.bandwidth", "0 1\n1 0\n"), "", StarPUOptions{}, []string{"2 rows of 2 columns; the config's 2 CUDA devices need at least 3"}},
		{"huge file", write("bus/synth2.config", strings.Repeat("#\n", 1<<19+1)), "", StarPUOptions{}, []string{"bus/synth2.config: larger than 1048576 bytes"}},
		{"no CUDA", replace("bus/synth2.config", "2 # Number of CUDA devices", "0 # Number of CUDA devices"), "", StarPUOptions{}, []string{"bus/synth2.config:5: Number of CUDA devices = 0"}},
		{"too many CUDA", replace("bus/synth2.config", "2 # Number of CUDA devices", "64 # Number of CUDA devices"), "", StarPUOptions{}, []string{"Number of CUDA devices = 64; at most 63"}},
		{"negative count", replace("bus/synth2.config", "8 # Number of CPUs", "-8 # Number of CPUs"), "", StarPUOptions{}, []string{"bus/synth2.config:3: Number of CPUs = \"-8\""}},
		{"no CUDA count", replace("bus/synth2.config", "2 # Number of CUDA devices", ""), "", StarPUOptions{}, []string{"no \"Number of CUDA devices\" line"}},
		{"memsize missing", replace("bus/synth2.platform.xml", `<prop id="memsize" value="17179869184"/>`, ""), "", StarPUOptions{},
			[]string{"bus/synth2.platform.xml:8: host CUDA0: memsize = \"\""}},
		{"negative memsize", replace("bus/synth2.platform.xml", `value="17179869184"`, `value="-1"`), "", StarPUOptions{}, []string{"host CUDA0: memsize = \"-1\""}},
		{"bad link bandwidth", replace("bus/synth2.platform.xml", `bandwidth="13500000000.000000"`, `bandwidth="-5"`), "", StarPUOptions{},
			[]string{"bus/synth2.platform.xml:20: link \"Host\": bandwidth \"-5\""}},
		{"undeclared link", replace("bus/synth2.platform.xml", `<link_ctn id="PCI:sw down"/>`, `<link_ctn id="PCI:nowhere"/>`), "", StarPUOptions{},
			[]string{"route RAM -> CUDA0 crosses link \"PCI:nowhere\", which no <link> declares"}},
		{"broken XML", replace("bus/synth2.platform.xml", "</AS>", ""), "", StarPUOptions{}, []string{"bus/synth2.platform.xml:", "not a SimGrid platform file"}},
		{"no CUDA host", replace("bus/synth2.platform.xml", `<host id="CUDA1"`, `<host id="GPU1"`), "", StarPUOptions{}, []string{`no <host id="CUDA1">`}},
		{"truncated model", truncated, "", StarPUOptions{}, []string{gemm + ": ends at line", "truncated"}},
		{"model version", replace(gemm, "\n45\n", "\n44\n"), "", StarPUOptions{}, []string{gemm + ":5: performance model version 44"}},
		{"negative mean", replace(gemm, "5.000000e+02", "-5.000000e+02"), "", StarPUOptions{}, []string{gemm + ":43:", "mean = -5.000000e+02; want a finite number >= 0"}},
		{"nan mean", replace(gemm, "5.000000e+02", "nan"), "", StarPUOptions{}, []string{gemm + ":43:", "mean = nan"}},
		{"huge mean", replace(gemm, "5.000000e+02", "1e300"), "", StarPUOptions{}, []string{gemm + ":43:", "want at most 1e10"}},
		{"short entry", replace(gemm, "7.077888e+09   \t6.000000e+02", ""), "", StarPUOptions{}, []string{gemm + ":42:", "has 6 fields"}},
		{"bad hash", replace(gemm, "aaaa0002", "zzzz0002"), "", StarPUOptions{}, []string{gemm + ":42:", "hash \"zzzz0002\""}},
		{"entry count", replace(gemm, "# number of entries\n3\n", "# number of entries\n-3\n"), "", StarPUOptions{}, []string{gemm + ":33: COMB_0 implementation 0: number of entries = \"-3\""}},
		{"no entry for the shape", nil, "", StarPUOptions{Tile: 1000}, []string{gemm + ": no CUDA entry", "--tile and --z"}},
		{"negative memory", nil, "", StarPUOptions{MemoryMiB: -1}, []string{"memory -1 MiB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, starpuTestdata, dir)
			if c.edit != nil {
				c.edit(dir)
			}
			host := c.host
			if host == "" {
				host = "synth2"
			}
			_, err := ImportStarPU(dir, host, c.opt)
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// synthCopy copies the synthetic files and replaces, in one of them, each
// old string by its new one (each must be there).
func synthCopy(t *testing.T, rel string, pairs ...string) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, starpuTestdata, dir)
	replace(rel, pairs...)(dir)
	return dir
}

func replace(rel string, pairs ...string) func(dir string) {
	return func(dir string) {
		path := filepath.Join(dir, rel)
		b, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		s := string(b)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				panic("replace: no " + pairs[i] + " in " + rel)
			}
			s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			panic(err)
		}
	}
}

func write(rel, text string) func(dir string) {
	return func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
}

func remove(rel string) func(dir string) {
	return func(dir string) {
		if err := os.RemoveAll(filepath.Join(dir, rel)); err != nil {
			panic(err)
		}
	}
}

// The codelets of a StarPU task graph become kernels named by their
// symbols, each footprint's model mean per CUDA device in history; a
// footprint the model lacks takes the tasks' recorded mean.
func TestImportStarPUCodelets(t *testing.T) {
	const dir = "../workloads/testdata/starpu/sampling"
	st, err := workloads.ReadStarPUTasksFile("../workloads/testdata/starpu/tasks.rec", workloads.StarPUTasksOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cds := append(st.Codelets, workloads.StarPUCodelet{Kernel: "chol_model_22", Footprint: 0x1234, Flops: 5e9, Tasks: 3, RecordedUS: 400, HasModel: true},
		workloads.StarPUCodelet{Kernel: "my.kernel", Footprint: 7, Flops: 1e9, Tasks: 1, RecordedUS: 50})
	c, err := ImportStarPU(dir, "gemini-2-ipdps", StarPUOptions{Codelets: cds})
	if err != nil {
		t.Fatal(err) // the sgemm model is absent: not needed with codelets
	}
	p, err := Parse("chol", c.TOML())
	if err != nil {
		t.Fatalf("%v\n%s", err, c.TOML())
	}
	for _, x := range []struct {
		kernel string
		flops  float64
		gpu    int
		us     float64
	}{
		{"chol_model_11", 0.295372e9, 0, 20923.04},
		{"chol_model_21", 0.885657e9, 0, 654.6811},
		{"chol_model_22", 1.769472e9, 0, 146.7919},
		{"chol_model_22", 5e9, 0, 400},             // recorded: no model entry
		{"chol_model_22", 5e9, 3, 400},             // on every device
		{"my.kernel", 1e9, 0, 50},                  // no model file at all
		{"chol_model_21", 0.885657e9, 1, 654.6811}, // CUDA1 has no entry: the rate, from the mean
	} {
		k, ok := p.Kernels[x.kernel]
		if !ok {
			t.Fatalf("no kernel %s", x.kernel)
		}
		got, _ := k.OnGPU(x.gpu, x.flops)
		if math.Abs(got*1e6-x.us) > 1e-5*x.us { // the rate is written with 6 digits
			t.Errorf("%s %g flops on GPU %d: %.4f µs; want %.4f", x.kernel, x.flops, x.gpu, got*1e6, x.us)
		}
	}
	// Errors: no model entry and no recorded time; two footprints of one
	// flops count.
	_, err = ImportStarPU(dir, "gemini-2-ipdps", StarPUOptions{Codelets: []workloads.StarPUCodelet{{Kernel: "chol_model_22", Footprint: 9, Flops: 1e9, Tasks: 2, HasModel: true}}})
	if err == nil || !strings.Contains(err.Error(), "no CUDA entry for footprint 00000009 in codelets/45/chol_model_22.gemini-2-ipdps, and the tasks record no times") {
		t.Errorf("no entry: %v", err)
	}
	_, err = ImportStarPU(dir, "gemini-2-ipdps", StarPUOptions{Codelets: append(st.Codelets[2:3:3], workloads.StarPUCodelet{Kernel: "chol_model_22", Footprint: 9, Flops: 1.769e9, Tasks: 2, RecordedUS: 5, HasModel: true})})
	if err == nil || !strings.Contains(err.Error(), "memsched tells a kernel's shapes apart by their flops") {
		t.Errorf("two footprints of one shape: %v", err)
	}
}
