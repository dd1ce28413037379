// Package hardware describes platforms: GPUs with a memory of limited
// capacity, the links that carry data to them, and a kernel performance
// model. Presets are TOML files whose every number cites its source.
package hardware

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/memsched/memsched/internal/suggest"
)

//go:embed presets/*.toml
var presetFS embed.FS

// MiB is the papers' "MB".
const MiB = 1 << 20

// Platform is one run's machine: how many GPUs are used, their memory cap,
// the links from host memory to each GPU, and kernel speeds.
type Platform struct {
	Name        string  `toml:"name" json:"name"`
	Description string  `toml:"description" json:"-"`
	MaxGPUs     int     `toml:"max_gpus" json:"-"`
	PhysicalMiB float64 `toml:"physical_memory_mib" json:"-"`
	MemoryMiB   float64 `toml:"memory_mib" json:"memory_mib"`

	GPUs        int   `toml:"-" json:"gpus"`
	MemoryBytes int64 `toml:"-" json:"memory_bytes"` // per GPU; derived from MemoryMiB unless set directly

	Topology Topology          `toml:"-" json:"topology"`
	Kernels  map[string]Kernel `toml:"-" json:"kernels"`
	Runtime  Runtime           `toml:"-" json:"runtime"`
}

// Topology is a tree of PCIe links from host RAM (NUMA node 0) to the GPUs,
// plus optional NVLink between GPUs.
type Topology struct {
	GPULinkGBps    float64 `toml:"gpu_link_gbps" json:"gpu_link_gbps"`
	GPUsPerSwitch  int     `toml:"gpus_per_switch" json:"gpus_per_switch"`
	SwitchLinkGBps float64 `toml:"switch_link_gbps" json:"switch_link_gbps"`
	GPUsPerNUMA    int     `toml:"gpus_per_numa" json:"gpus_per_numa"`
	NUMALinkGBps   float64 `toml:"numa_link_gbps" json:"numa_link_gbps"`
	InterNUMAGBps  float64 `toml:"inter_numa_gbps" json:"inter_numa_gbps"`
	NVLink         bool    `toml:"nvlink" json:"nvlink"`
	NVLinkGBps     float64 `toml:"nvlink_gbps" json:"nvlink_gbps"`
}

// Kernel is the speed of one kernel on one GPU: a throughput, or a fixed
// duration when Seconds > 0 (calibrated presets measure durations).
type Kernel struct {
	GFlops  float64 `toml:"gflops" json:"gflops,omitempty"`
	Seconds float64 `toml:"seconds" json:"seconds,omitempty"`
}

// Runtime holds the StarPU settings that shape the pipeline and the memory
// manager. The zero value of every memory setting is StarPU's behaviour
// except ReclaimFactor (0 or 1: free exactly what a load needs); the
// preset cites the StarPU code behind each value.
type Runtime struct {
	Buffer   int `toml:"buffer" json:"buffer"`     // tasks a worker holds (and prefetches for)
	Pipeline int `toml:"pipeline" json:"pipeline"` // popped tasks in flight per GPU

	// PopWhileFetching lets a worker pop its next task while an earlier
	// popped task still waits for its inputs (false: StarPU's driver pops
	// only when no popped task is transferring).
	PopWhileFetching bool `toml:"pop_while_fetching" json:"pop_while_fetching,omitempty"`
	// Reprefetch requests a prefetch again for data evicted while a buffered
	// task still reads it (false: StarPU prefetches a task's inputs once,
	// when the task is pushed to the worker; the task fetches them later).
	Reprefetch bool `toml:"reprefetch" json:"reprefetch,omitempty"`
	// TouchAtStart refreshes data in LRU order when a task starts (false:
	// StarPU refreshes them when a fetch or prefetch request finds them
	// already on the GPU, i.e. when a task is popped or buffered).
	TouchAtStart bool `toml:"touch_at_start" json:"touch_at_start,omitempty"`
	// ReclaimFactor: a load that finds memory full evicts, in LRU order,
	// ReclaimFactor times its own size (StarPU: 2); 0 or 1 evicts only what
	// it needs.
	ReclaimFactor float64 `toml:"reclaim_factor" json:"reclaim_factor,omitempty"`
	// ReuseSameSize: a load that finds memory full first takes over the
	// allocation of one evictable datum of the same size, evicting only it
	// and allocating nothing (StarPU's try_to_reuse_potentially_in_use_mc).
	ReuseSameSize bool `toml:"reuse_same_size" json:"reuse_same_size,omitempty"`
	// AllocSync: which loads wait for the kernels already launched on their
	// GPU before their copy starts (device memory allocation and release
	// synchronise the device): "" or "none", "evict" (loads that free
	// memory), "all" (every load that allocates).
	AllocSync string `toml:"alloc_sync" json:"alloc_sync,omitempty"`
	// JustInTime chooses and allocates a load only when the GPU's copy
	// engine is idle (false: StarPU allocates each request as soon as it
	// handles it and queues its copy on the GPU's host-to-GPU stream).
	JustInTime bool `toml:"just_in_time" json:"just_in_time,omitempty"`
}

type presetFile struct {
	Platform Platform          `toml:"platform"`
	Topology Topology          `toml:"topology"`
	Kernel   map[string]Kernel `toml:"kernel"`
	Runtime  Runtime           `toml:"runtime"`
}

// Presets lists the embedded preset names.
func Presets() []string {
	ents, _ := presetFS.ReadDir("presets")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

// Load returns a preset by name, or reads a TOML file when name is a path.
func Load(name string) (*Platform, error) {
	var data []byte
	var err error
	if strings.HasSuffix(name, ".toml") || strings.ContainsRune(name, filepath.Separator) {
		data, err = os.ReadFile(name)
	} else {
		data, err = presetFS.ReadFile("presets/" + name + ".toml")
		if err != nil {
			return nil, fmt.Errorf("unknown platform %q%s; presets: %s (or give a path to a .toml file)", name, suggest.Closest(name, Presets()), strings.Join(Presets(), ", "))
		}
	}
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// required are the keys a platform file must set (table.key); a missing
// one would silently be 0.
var required = []struct{ key, what string }{
	{"platform.name", "the platform's name"},
	{"platform.max_gpus", "how many GPUs the machine has"},
	{"platform.memory_mib", "the default memory cap per GPU in MiB (the papers' 500)"},
	{"topology.gpu_link_gbps", "the bandwidth of each GPU's PCIe link in GB/s"},
	{"topology.gpus_per_switch", "how many GPUs share a PCIe switch"},
	{"topology.switch_link_gbps", "the bandwidth of a switch's uplink in GB/s"},
	{"topology.gpus_per_numa", "how many GPUs share a NUMA node's link"},
	{"topology.numa_link_gbps", "the bandwidth of a NUMA node's link in GB/s"},
	{"topology.inter_numa_gbps", "the bandwidth between NUMA nodes in GB/s"},
	{"runtime.buffer", "the task buffer depth per GPU (StarPU's NTASKS_THRESHOLD, 10)"},
	{"runtime.pipeline", "the popped tasks per GPU (StarPU's CUDA_PIPELINE, 5)"},
}

// Parse decodes a platform file, rejecting unknown keys (with the closest
// known one) and missing required keys, then checks it.
func Parse(name string, data []byte) (*Platform, error) {
	var f presetFile
	md, err := toml.Decode(string(data), &f)
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("platform %s: line %d: %s; fix the TOML syntax", name, pe.Position.Line, pe.Message)
	}
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("platform %s: unknown key %q%s", name, und[0].String(), closestKey(und[0]))
	}
	for _, r := range required {
		table, key, _ := strings.Cut(r.key, ".")
		if !md.IsDefined(table, key) {
			return nil, fmt.Errorf("platform %s: %s is missing; set it to %s", name, r.key, r.what)
		}
	}
	if len(f.Kernel) == 0 {
		return nil, fmt.Errorf("platform %s: no [kernel.NAME] table; give each kernel's speed, e.g. [kernel.gemm] gflops = 13253", name)
	}
	p := f.Platform
	p.Topology = f.Topology
	p.Kernels = f.Kernel
	p.Runtime = f.Runtime
	p.GPUs = 1
	p.MemoryBytes = int64(p.MemoryMiB * MiB)
	return &p, p.Check()
}

// closestKey suggests the known key nearest to an unknown one, from the
// toml tags of the table's struct.
func closestKey(k toml.Key) string {
	var typ reflect.Type
	switch {
	case len(k) == 1:
		return suggest.Closest(k[0], tomlKeys(reflect.TypeOf(presetFile{})))
	case k[0] == "platform":
		typ = reflect.TypeOf(Platform{})
	case k[0] == "topology":
		typ = reflect.TypeOf(Topology{})
	case k[0] == "runtime":
		typ = reflect.TypeOf(Runtime{})
	case k[0] == "kernel":
		typ = reflect.TypeOf(Kernel{})
	default:
		return ""
	}
	return suggest.Closest(k[len(k)-1], tomlKeys(typ))
}

func tomlKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// positive says whether v is a usable positive number (not NaN or infinite).
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// Check reports the first inconsistency of a platform, naming the key.
func (p *Platform) Check() error {
	t := p.Topology
	if p.Name == "" {
		return fmt.Errorf("platform has no name; set [platform] name")
	}
	if p.MaxGPUs < 1 {
		return fmt.Errorf("platform %s: max_gpus = %d; give the number of GPUs of the machine (at least 1)", p.Name, p.MaxGPUs)
	}
	if p.GPUs < 1 || p.GPUs > p.MaxGPUs {
		return fmt.Errorf("platform %s has %d GPUs; %d asked: use 1 to %d", p.Name, p.MaxGPUs, p.GPUs, p.MaxGPUs)
	}
	if !(p.PhysicalMiB >= 0) || math.IsInf(p.PhysicalMiB, 1) {
		return fmt.Errorf("platform %s: physical_memory_mib = %g; give the GPU's memory in MiB (or leave it out when unknown)", p.Name, p.PhysicalMiB)
	}
	if !positive(p.MemoryMiB) || p.MemoryBytes <= 0 {
		return fmt.Errorf("platform %s: memory per GPU is %g MiB (%d bytes); it must be positive", p.Name, p.MemoryMiB, p.MemoryBytes)
	}
	if p.PhysicalMiB > 0 && p.MemoryBytes > int64(p.PhysicalMiB*MiB) {
		return fmt.Errorf("platform %s: memory per GPU %g MiB exceeds the GPU's physical %g MiB; use at most %g (0 on the command line or in a suite means the whole memory)", p.Name, p.MemoryMiB, p.PhysicalMiB, p.PhysicalMiB)
	}
	for _, l := range []struct {
		key string
		v   float64
	}{{"gpu_link_gbps", t.GPULinkGBps}, {"switch_link_gbps", t.SwitchLinkGBps}, {"numa_link_gbps", t.NUMALinkGBps}, {"inter_numa_gbps", t.InterNUMAGBps}} {
		if !positive(l.v) {
			return fmt.Errorf("platform %s: %s = %g; a bandwidth must be a positive number of GB/s", p.Name, l.key, l.v)
		}
	}
	switch {
	case t.GPUsPerSwitch < 1 || t.GPUsPerNUMA < t.GPUsPerSwitch:
		return fmt.Errorf("platform %s: gpus_per_switch = %d, gpus_per_numa = %d; need 1 <= gpus_per_switch <= gpus_per_numa", p.Name, t.GPUsPerSwitch, t.GPUsPerNUMA)
	case t.NVLink && !positive(t.NVLinkGBps):
		return fmt.Errorf("platform %s: nvlink is on but nvlink_gbps = %g; give a positive bandwidth in GB/s", p.Name, t.NVLinkGBps)
	case t.NVLinkGBps < 0 || math.IsNaN(t.NVLinkGBps) || math.IsInf(t.NVLinkGBps, 1):
		return fmt.Errorf("platform %s: nvlink_gbps = %g; give a positive bandwidth in GB/s", p.Name, t.NVLinkGBps)
	case p.Runtime.Buffer < 1:
		return fmt.Errorf("platform %s: runtime buffer = %d; use at least 1 (StarPU's NTASKS_THRESHOLD, 10)", p.Name, p.Runtime.Buffer)
	case p.Runtime.Pipeline < 1:
		return fmt.Errorf("platform %s: runtime pipeline = %d; use at least 1 (StarPU's CUDA_PIPELINE, 5)", p.Name, p.Runtime.Pipeline)
	case !(p.Runtime.ReclaimFactor >= 0) || math.IsInf(p.Runtime.ReclaimFactor, 1):
		return fmt.Errorf("platform %s: runtime reclaim_factor = %g; use a number >= 0 (StarPU: 2)", p.Name, p.Runtime.ReclaimFactor)
	case p.Runtime.AllocSync != "" && p.Runtime.AllocSync != "none" && p.Runtime.AllocSync != "evict" && p.Runtime.AllocSync != "all":
		return fmt.Errorf("platform %s: runtime alloc_sync is %q; use none, evict or all%s", p.Name, p.Runtime.AllocSync, suggest.Closest(p.Runtime.AllocSync, []string{"none", "evict", "all"}))
	}
	names := make([]string, 0, len(p.Kernels))
	for k := range p.Kernels {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := p.Kernels[k]
		if math.IsNaN(v.GFlops) || math.IsNaN(v.Seconds) || v.GFlops < 0 || v.Seconds < 0 || math.IsInf(v.GFlops, 0) || math.IsInf(v.Seconds, 0) || v.GFlops == 0 && v.Seconds == 0 {
			return fmt.Errorf("platform %s: kernel %s has gflops = %g, seconds = %g; give gflops > 0 or seconds > 0 (finite)", p.Name, k, v.GFlops, v.Seconds)
		}
	}
	return nil
}

// Clone returns a deep copy, for per-run overrides.
func (p *Platform) Clone() *Platform {
	q := *p
	q.Kernels = make(map[string]Kernel, len(p.Kernels))
	for k, v := range p.Kernels {
		q.Kernels[k] = v
	}
	return &q
}

// SetMemoryCap caps every GPU's memory at mib MiB. It is the one meaning of
// a memory setting everywhere (--memory-mb, a suite's memory_mb, claims):
// 0 is no cap, the GPU's whole physical memory; negative, NaN, infinite or
// above the physical memory is an error saying what is allowed.
func (p *Platform) SetMemoryCap(mib float64) error {
	switch {
	case math.IsNaN(mib) || math.IsInf(mib, 0) || mib < 0:
		return fmt.Errorf("%g is not a memory size; give MiB per GPU > 0, or 0 for the GPU's whole memory", mib)
	case mib == 0 && p.PhysicalMiB <= 0:
		return fmt.Errorf("0 means the GPU's whole memory, which platform %s does not declare (physical_memory_mib); give a size in MiB", p.Name)
	case mib == 0:
		mib = p.PhysicalMiB
	case p.PhysicalMiB > 0 && mib > p.PhysicalMiB:
		return fmt.Errorf("%g MiB exceeds the %g MiB of a %s GPU; use at most %g, or 0 for the whole memory", mib, p.PhysicalMiB, p.Name, p.PhysicalMiB)
	case int64(mib*MiB) < 1:
		return fmt.Errorf("%g MiB is less than one byte; give MiB per GPU > 0 (or memory in bytes for toy instances)", mib)
	}
	p.SetMemoryMiB(mib)
	return nil
}

// SetMemoryCapBytes caps every GPU's memory at exactly b bytes (toy
// instances); b must be positive and within the physical memory.
func (p *Platform) SetMemoryCapBytes(b int64) error {
	switch {
	case b <= 0:
		return fmt.Errorf("%d bytes: give a positive number of bytes per GPU", b)
	case p.PhysicalMiB > 0 && float64(b) > p.PhysicalMiB*MiB:
		return fmt.Errorf("%d bytes exceeds the %g MiB of a %s GPU", b, p.PhysicalMiB, p.Name)
	}
	p.SetMemoryBytes(b)
	return nil
}

// SetMemoryMiB caps every GPU's memory (the papers' STARPU_LIMIT_CUDA_MEM).
func (p *Platform) SetMemoryMiB(mib float64) {
	p.MemoryMiB = mib
	p.MemoryBytes = int64(mib * MiB)
}

// SetMemoryBytes caps memory exactly, for toy instances with unit-size data.
func (p *Platform) SetMemoryBytes(b int64) {
	p.MemoryBytes = b
	p.MemoryMiB = float64(b) / MiB
}

// KernelSeconds is the duration of a kernel of the given flops on one GPU.
func (p *Platform) KernelSeconds(kernel string, flops float64) (float64, error) {
	k, ok := p.Kernels[kernel]
	if !ok {
		return 0, fmt.Errorf("platform %s has no performance model for kernel %q", p.Name, kernel)
	}
	if k.Seconds > 0 {
		return k.Seconds, nil
	}
	return flops / (k.GFlops * 1e9), nil
}

// Link is one bandwidth-limited resource shared by the flows crossing it.
type Link struct {
	Name string
	GBps float64
}

// Links returns the links of the run's GPUs and, for each GPU, the indices of
// the links on its path from host RAM. GPUs use the lowest device numbers, as
// StarPU does (CUDA devices 0..GPUs-1), so two GPUs share one inner switch.
func (p *Platform) Links() (links []Link, paths [][]int) {
	t := p.Topology
	index := map[string]int{}
	add := func(name string, gbps float64) int {
		if i, ok := index[name]; ok {
			return i
		}
		index[name] = len(links)
		links = append(links, Link{name, gbps})
		return len(links) - 1
	}
	for g := 0; g < p.GPUs; g++ {
		sw, numa := g/t.GPUsPerSwitch, g/t.GPUsPerNUMA
		path := []int{
			add(fmt.Sprintf("pcie-gpu%d", g), t.GPULinkGBps),
			add(fmt.Sprintf("pcie-switch%d", sw), t.SwitchLinkGBps),
			add(fmt.Sprintf("pcie-numa%d", numa), t.NUMALinkGBps),
		}
		if numa > 0 {
			path = append(path, add("inter-numa", t.InterNUMAGBps))
		}
		paths = append(paths, path)
	}
	return links, paths
}

// NVLinkName names the link of a peer copy between two GPUs (one single
// NVLink per pair in this model).
func (p *Platform) NVLinkName(a, b int) string {
	if a > b {
		a, b = b, a
	}
	return fmt.Sprintf("nvlink-%d-%d", a, b)
}

// HostGBps is the uncontended bandwidth from host RAM to one GPU: the
// bottleneck of its path.
func (p *Platform) HostGBps(gpu int) float64 {
	links, paths := p.Links()
	min := 0.0
	for i, l := range paths[gpu] {
		if i == 0 || links[l].GBps < min {
			min = links[l].GBps
		}
	}
	return min
}

// Hash identifies the platform's numbers (not its comments), for provenance
// and result keys: the SHA-256 of its canonical JSON (CanonicalJSON).
func (p *Platform) Hash() string {
	sum := sha256.Sum256(p.CanonicalJSON())
	return hex.EncodeToString(sum[:8])
}

// CanonicalJSON is the platform as it enters a run, in JSON with sorted keys
// at every level and numbers as encoding/json writes them: what a trace
// header carries, less memory_mib (memory_bytes is the cap the run uses).
func (p *Platform) CanonicalJSON() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		// Only a non-finite number fails; Check refuses them, but the hash
		// must still differ from any valid platform's.
		return []byte(fmt.Sprintf("unencodable platform %q: %v", p.Name, err))
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		panic(err) // json.Marshal's output always decodes
	}
	delete(m, "memory_mib")
	out, _ := json.Marshal(m) // maps marshal with sorted keys
	return out
}
