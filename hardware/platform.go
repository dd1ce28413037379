// Package hardware describes platforms: GPUs with a memory of limited
// capacity, the links that carry data to them, and a kernel performance
// model. Presets are TOML files whose every number cites its source.
package hardware

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
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
			return nil, fmt.Errorf("unknown platform %q; presets: %s (or give a path to a .toml file)", name, strings.Join(Presets(), ", "))
		}
	}
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Parse decodes a preset, rejecting unknown keys.
func Parse(name string, data []byte) (*Platform, error) {
	var f presetFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("platform %s: unknown key %q", name, und[0].String())
	}
	p := f.Platform
	p.Topology = f.Topology
	p.Kernels = f.Kernel
	p.Runtime = f.Runtime
	p.GPUs = 1
	p.MemoryBytes = int64(p.MemoryMiB * MiB)
	return &p, p.Check()
}

// Check reports the first inconsistency of a platform.
func (p *Platform) Check() error {
	t := p.Topology
	switch {
	case p.Name == "":
		return fmt.Errorf("platform has no name")
	case p.GPUs < 1:
		return fmt.Errorf("platform %s: %d GPUs; need at least 1", p.Name, p.GPUs)
	case p.MaxGPUs > 0 && p.GPUs > p.MaxGPUs:
		return fmt.Errorf("platform %s has %d GPUs; %d asked", p.Name, p.MaxGPUs, p.GPUs)
	case p.MemoryBytes <= 0:
		return fmt.Errorf("platform %s: memory per GPU must be positive", p.Name)
	case t.GPULinkGBps <= 0 || t.SwitchLinkGBps <= 0 || t.NUMALinkGBps <= 0 || t.InterNUMAGBps <= 0:
		return fmt.Errorf("platform %s: every link bandwidth must be positive", p.Name)
	case t.GPUsPerSwitch < 1 || t.GPUsPerNUMA < t.GPUsPerSwitch:
		return fmt.Errorf("platform %s: gpus_per_switch must be >= 1 and <= gpus_per_numa", p.Name)
	case t.NVLink && t.NVLinkGBps <= 0:
		return fmt.Errorf("platform %s: nvlink on needs nvlink_gbps > 0", p.Name)
	case p.Runtime.Buffer < 1 || p.Runtime.Pipeline < 1:
		return fmt.Errorf("platform %s: runtime buffer and pipeline must be >= 1", p.Name)
	case p.Runtime.ReclaimFactor < 0:
		return fmt.Errorf("platform %s: runtime reclaim_factor must be >= 0", p.Name)
	case p.Runtime.AllocSync != "" && p.Runtime.AllocSync != "none" && p.Runtime.AllocSync != "evict" && p.Runtime.AllocSync != "all":
		return fmt.Errorf("platform %s: runtime alloc_sync is %q; use none, evict or all", p.Name, p.Runtime.AllocSync)
	}
	for k, v := range p.Kernels {
		if v.GFlops <= 0 && v.Seconds <= 0 {
			return fmt.Errorf("platform %s: kernel %s needs gflops or seconds", p.Name, k)
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
// and result keys.
func (p *Platform) Hash() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s|%d|%d|%+v|%+v", p.Name, p.GPUs, p.MemoryBytes, p.Topology, p.Runtime)
	keys := make([]string, 0, len(p.Kernels))
	for k := range p.Kernels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%+v", k, p.Kernels[k])
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:8])
}
