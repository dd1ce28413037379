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
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/memsched/memsched/internal/suggest"
)

//go:embed presets/*.toml presets/fitted/*.toml
var presetFS embed.FS

// MiB is the papers' "MB".
const MiB = 1 << 20

// Platform is one run's machine: its workers (GPUs, CPU cores), the memory
// nodes they compute from (each GPU's memory, main RAM, possibly capped),
// the home node where data live at the start (main RAM, or a disk for the
// out-of-core runs of thesis §5.7), the links between them, and kernel
// speeds per worker kind. Nodes() and Workers() give the layout.
type Platform struct {
	Name        string  `toml:"name" json:"name"`
	Description string  `toml:"description" json:"-"`
	MaxGPUs     int     `toml:"max_gpus" json:"max_gpus"`
	MaxCPUs     int     `toml:"max_cpus" json:"max_cpus,omitempty"`
	PhysicalMiB float64 `toml:"physical_memory_mib" json:"-"`
	MemoryMiB   float64 `toml:"memory_mib" json:"memory_mib"`
	// Home is where data live at the start and are written back to: "ram"
	// (the default: main memory, uncapped) or "disk" (out of core: data
	// come from disk into a RAM capped at MemoryMiB, thesis §5.7).
	Home string `toml:"home" json:"home,omitempty"`

	// GPUs and CPUs are the run's workers; a preset's values are defaults.
	GPUs        int   `toml:"gpus" json:"gpus"`
	CPUs        int   `toml:"cpus" json:"cpus,omitempty"`
	MemoryBytes int64 `toml:"-" json:"memory_bytes"` // per capped node; derived from MemoryMiB unless set directly

	Topology Topology `toml:"-" json:"topology"`
	// NVLinkPairs is the [topology] key nvlink_pairs: the NVLink
	// connections as [gpu a, gpu b, links] triples (the gemini node pairs
	// some GPUs with two links, thesis Fig. 4.1). Empty with nvlink on:
	// every pair has one link. A pair not listed has no NVLink; its peer
	// copies cross PCIe (PeerPath). Kept outside Topology so that the hash
	// of platforms without a table is unchanged.
	NVLinkPairs [][]int           `toml:"-" json:"nvlink_pairs,omitempty"`
	Kernels     map[string]Kernel `toml:"-" json:"kernels"`
	Runtime     Runtime           `toml:"-" json:"runtime"`
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
	// StridedGBps caps a copy of a strided datum (workloads.Data.Strided:
	// a sub-block of a larger host matrix, copied row by row) between main
	// memory and a GPU; 0 = no cap (the links alone).
	StridedGBps float64 `toml:"strided_gbps" json:"strided_gbps,omitempty"`
	// DiskGBps is the disk's bandwidth, shared by reads and writes, when
	// Home is "disk".
	DiskGBps float64 `toml:"disk_gbps" json:"disk_gbps,omitempty"`
	// NoTransfers makes every copy instantaneous and memory unlimited:
	// the communication-free simulation of MulTreePrio (COMPAS 2022 §4:
	// "does not take into account data communication").
	NoTransfers bool `toml:"no_transfers" json:"no_transfers,omitempty"`
	// GPULinkGBpsEach, when set, gives each GPU's own PCIe link bandwidth
	// (GPU g's is its g-th value, one per GPU of the machine) in place of
	// GPULinkGBps, as a calibration measures each (StarPU's
	// bus/HOST.bandwidth; SimGrid's platform gives each GPU its link).
	GPULinkGBpsEach []float64 `toml:"gpu_link_gbps_each" json:"gpu_link_gbps_each,omitempty"`
	// CopyLatencyUs, when set, is the latency in µs of a copy between two
	// memory nodes, row the source, column the destination, over StarPU's
	// memory node numbers: 0 main memory, 1+g GPU g (1+max_gpus rows of
	// 1+max_gpus values). A copy takes no bandwidth until its latency has
	// passed, then shares its links with the copies under way in inverse
	// proportion to its latency: SimGrid's CM02 network model, which
	// StarPU's SimGrid mode uses (a flow joins the max-min sharing once its
	// route's latency, the sum of its links', has passed, with that latency
	// as its sharing penalty when network/weight-S is 0:
	// NetworkCm02Model::communicate). Empty: no latency, equal shares.
	CopyLatencyUs [][]float64 `toml:"copy_latency_us" json:"copy_latency_us,omitempty"`
	// SerialPeerCopies makes a copy between GPUs sequential with the copies
	// into its source GPU too (every copy into a GPU is sequential with the
	// others into it): it waits for those issued before it, and those
	// issued after it wait for it. StarPU's SimGrid mode orders copies so
	// (simgrid.c transfers_are_sequential: "GPU-GPU transfers are
	// sequential with any RAM->GPU transfer", a constraint "observed with
	// CUDA"). False: a peer copy holds its destination's copy engine only.
	SerialPeerCopies bool `toml:"serial_peer_copies" json:"serial_peer_copies,omitempty"`
	// NVLinkOverPCIe makes a copy between two NVLink-connected GPUs cross,
	// besides its NVLink connection, the PCIe links between the two GPUs:
	// each GPU's port (GPUPortGBps) and, for GPUs under different
	// switches, the source's switch link up and the destination's down
	// (PeerPath). StarPU's SimGrid platform routes them so: the bus
	// calibration writes the route CUDAi->CUDAj as the link CUDAi-CUDAj
	// followed by the PCI path from i to j through the hwloc tree
	// (src/core/perfmodel/perfmodel_bus.c write_bus_platform_file,
	// emit_platform_path_up; its TODO: "use libnvml to get NVLink links,
	// otherwise numbers will be bogusly propagated through PCI topology"),
	// so peer copies out of one GPU share its port, and a peer copy into
	// a GPU under another switch shares that switch's link with the
	// copies from RAM to its GPUs. False: an NVLink copy crosses its
	// NVLink only (real NVLink traffic does not cross PCIe).
	NVLinkOverPCIe bool `toml:"nvlink_over_pcie" json:"nvlink_over_pcie,omitempty"`
	// GPUPortGBps, when > 0, gives each GPU a PCIe port link of its own
	// per direction, below its switch, crossed by every copy into it
	// (down) and out of it (up), peer copies included; SimGrid's platform
	// of a StarPU host has one (the link "PCI:<bus id> up/down" of the
	// GPU's PCI device, on every route from and to its CUDA host). 0: no
	// such link (the GPU link, gpu_link_gbps, is the GPU's).
	GPUPortGBps float64 `toml:"gpu_port_gbps" json:"gpu_port_gbps,omitempty"`
	// BusMBps and BusLatencyUs, when set, are StarPU's bus matrices (MB/s
	// and µs, row the source, column the destination, over StarPU's memory
	// node numbers as CopyLatencyUs), with which a copy's source is chosen:
	// among the valid copies, the one of least predicted time latency +
	// size / bandwidth × 2 × GPUs, main memory first on a tie, then GPUs
	// by number (datawizard/coherency.c _starpu_select_src_node, with
	// perfmodel_bus.c starpu_transfer_predict over the bus calibration's
	// bandwidth_matrix and latency_matrix: the measured values of each
	// direction, not those of the links). Empty: the source is the copy
	// of fastest uncontended route (PeerGBps, HomeGBps).
	BusMBps      [][]float64 `toml:"bus_mbps" json:"bus_mbps,omitempty"`
	BusLatencyUs [][]float64 `toml:"bus_latency_us" json:"bus_latency_us,omitempty"`
}

// BusPredict is StarPU's predicted time (µs) of a copy of size bytes from
// memory node src to dst (Nodes' numbering, main memory the home node
// home) over the bus matrices (BusMBps, BusLatencyUs), and whether the
// platform gives them for that pair: perfmodel_bus.c
// starpu_transfer_predict, latency + size / bandwidth × 2 × ngpus.
func (t *Topology) BusPredict(src, dst, home, gpus int, size float64) (float64, bool) {
	idx := func(n int) int {
		if n == home {
			return 0
		}
		return n + 1
	}
	i, j := idx(src), idx(dst)
	if i >= len(t.BusMBps) || j >= len(t.BusMBps[i]) || !(t.BusMBps[i][j] > 0) {
		return 0, false
	}
	lat := 0.0
	if i < len(t.BusLatencyUs) && j < len(t.BusLatencyUs[i]) {
		lat = t.BusLatencyUs[i][j]
	}
	return lat + size/t.BusMBps[i][j]*2*float64(gpus), true
}

// GPULink is the bandwidth of GPU g's PCIe link: its own when the
// platform gives each GPU's (GPULinkGBpsEach), else GPULinkGBps.
func (t *Topology) GPULink(g int) float64 {
	if g < len(t.GPULinkGBpsEach) {
		return t.GPULinkGBpsEach[g]
	}
	return t.GPULinkGBps
}

// CopyLatency is the latency of a copy from memory node src to dst in
// seconds (Nodes' numbering: GPU g is node g, main memory the home node
// home), 0 when the platform gives none.
func (t *Topology) CopyLatency(src, dst, home int) float64 {
	idx := func(n int) int {
		if n == home {
			return 0
		}
		return n + 1
	}
	i, j := idx(src), idx(dst)
	if i >= len(t.CopyLatencyUs) || j >= len(t.CopyLatencyUs[i]) {
		return 0
	}
	return t.CopyLatencyUs[i][j] * 1e-6
}

// Rate is a kernel's speed on one kind of worker: a throughput, or a fixed
// duration when Seconds > 0 (calibrated presets measure durations).
type Rate struct {
	GFlops  float64 `toml:"gflops" json:"gflops,omitempty"`
	Seconds float64 `toml:"seconds" json:"seconds,omitempty"`
}

func (r Rate) ok() bool { return r.GFlops > 0 || r.Seconds > 0 }

// Kernel is the speed of one kernel: its Rate on a GPU (the GPU is this
// tool's first worker kind, so the rate of [kernel.gemm] is the GPU's),
// and on a CPU core when CPU is set. A kernel with no rate for a kind
// cannot run on that kind's workers.
type Kernel struct {
	Rate
	CPU *Rate `toml:"cpu" json:"cpu,omitempty"`
	// History is StarPU's per-device history of the kernel, for presets
	// imported from a StarPU calibration: SimGrid gives a task the mean
	// its device's model holds for the task's footprint
	// (src/core/simgrid.c _starpu_simgrid_submit_job; one model per CUDA
	// device, perfmodel_history.c ignore_devid = 0), so GPUs of one host
	// run one shape at different speeds and shapes do not scale with their
	// flops. A GPU task whose flops match a shape (±1 %) takes that GPU's
	// duration; a task of no listed shape, or a GPU without an entry,
	// takes the Rate.
	History []Shape `toml:"history" json:"history,omitempty"`
}

// Shape is one task shape of a kernel's history: its flops and the mean
// duration of its tasks on each GPU, in µs (0: no entry for that GPU).
type Shape struct {
	Flops float64   `toml:"flops" json:"flops"`
	GPUUs []float64 `toml:"gpu_us" json:"gpu_us"`
}

// shapeTolerance is how far (relative) a task's flops may be from a
// shape's and still match it: StarPU's footprint is a hash of the sizes,
// memsched's tasks carry flops, and the two count the same task to well
// within 1 % (e.g. potrf: t³/3 against t³/3 + t²/2 + t/6).
const shapeTolerance = 0.01

// OnGPU is the duration of a GPU task of the given flops on GPU g: its
// shape's entry for g in the history, else the GPU rate's (ok false: the
// kernel does not run on a GPU).
func (k Kernel) OnGPU(g int, flops float64) (secs float64, ok bool) {
	for _, s := range k.History {
		if math.Abs(flops-s.Flops) <= shapeTolerance*s.Flops && g < len(s.GPUUs) && s.GPUUs[g] > 0 {
			return s.GPUUs[g] * 1e-6, true
		}
	}
	if !k.Rate.ok() {
		return 0, false
	}
	return k.Rate.Duration(flops), true
}

// Worker kinds.
const (
	GPU = "gpu"
	CPU = "cpu"
)

// On returns the kernel's rate on a worker kind, false when it cannot run
// there.
func (k Kernel) On(kind string) (Rate, bool) {
	if kind == CPU {
		if k.CPU == nil || !k.CPU.ok() {
			return Rate{}, false
		}
		return *k.CPU, true
	}
	return k.Rate, k.Rate.ok()
}

// Runtime holds the StarPU settings that shape the pipeline and the memory
// manager. The zero value of every memory setting is the behaviour of
// StarPU at the papers' tag (papers/ICPP2023 of starpu-runtime/starpu)
// except ReclaimFactor (0 or 1: free exactly what a load needs) and
// ReuseSameSize (false: no reuse), which the presets set; each preset cites
// the StarPU code behind each value.
type Runtime struct {
	Buffer   int `toml:"buffer" json:"buffer"`     // tasks a worker holds (and prefetches for)
	Pipeline int `toml:"pipeline" json:"pipeline"` // popped tasks in flight per GPU

	// PopWhileFetching lets a worker pop its next task while an earlier
	// popped task still waits for its inputs (false: StarPU's driver pops
	// only when no popped task is transferring).
	PopWhileFetching bool `toml:"pop_while_fetching" json:"pop_while_fetching,omitempty"`
	// PopBeforeProgress has a GPU's driver pop before it handles its node's
	// data requests when an event wakes it (the former model). False:
	// StarPU's CUDA driver handles the requests first (driver_cuda.c
	// _starpu_cuda_driver_run_once calls __starpu_datawizard_progress
	// before _starpu_get_multi_worker_task), so a load's allocation and
	// its evictions precede the LRU refresh of the task popped then and of
	// the task the pop lets the scheduler push (prefetch at push).
	PopBeforeProgress bool `toml:"pop_before_progress" json:"pop_before_progress,omitempty"`
	// PopAtOnce has a GPU's driver pop, at one wake, every task its
	// pipeline takes before the scheduler refills the buffer and before the
	// node's data requests are handled again (the former model). False:
	// StarPU's CUDA driver pops one task per iteration
	// (driver_cuda.c _starpu_cuda_driver_run_once calls
	// __starpu_datawizard_progress, then _starpu_get_multi_worker_task,
	// which pops at most one task per worker); the FIFO below the
	// scheduler asks its parents to push into the place the pop left
	// before handing the task over (component_fifo.c fifo_pull_task:
	// starpu_sched_component_send_can_push_to_parents), so the next pop,
	// Ready's choice included, sees the buffer refilled and the prefetches
	// that refill and the pop made possible requested.
	PopAtOnce bool `toml:"pop_at_once" json:"pop_at_once,omitempty"`
	// LockFree lets a GPU's worker request a datum's copy whatever the
	// other workers are doing (the former model). False: StarPU's
	// _starpu_fetch_data_on_node (datawizard/coherency.c) takes the datum's
	// header lock, spinning with _starpu_spin_trylock and calling
	// _starpu_datawizard_progress while it fails; the worker that last
	// created a request for the datum holds that lock while it posts the
	// request (_starpu_post_data_request locks the node's request list: a
	// SimGrid simcall, where the actors woken together take their turns),
	// until its next turn. A worker pushed a task reading the datum meanwhile
	// (starpu_prefetch_task_input_for from dynamic_data_aware.c's pull)
	// handles its node's requests instead, and pulls its next task only
	// once its driver has issued them: under DARTS the GPU that asks second
	// for a datum several GPUs take at once drops out of the round.
	LockFree bool `toml:"lock_free" json:"lock_free,omitempty"`
	// Reprefetch requests a prefetch again for data evicted while a buffered
	// task still reads it (false: StarPU prefetches a task's inputs once,
	// when the task is pushed to the worker; the task fetches them later).
	Reprefetch bool `toml:"reprefetch" json:"reprefetch,omitempty"`
	// TouchAtStart refreshes data in LRU order when a task starts (false:
	// StarPU refreshes them when a fetch or prefetch request finds them
	// already on the GPU, i.e. when a task is popped or buffered).
	TouchAtStart bool `toml:"touch_at_start" json:"touch_at_start,omitempty"`
	// LRUAtLoad lists a loaded datum in LRU order when its copy ends (the
	// former model). False: StarPU's memalloc.c register_mem_chunk (called
	// by _starpu_allocate_memory_on_node when a request is handled) appends
	// the chunk to mc_list at allocation, before its copy; a request that
	// finds the datum still in flight does not refresh it (coherency.c
	// _starpu_create_request_to_fetch_data refreshes valid data only), and
	// a chunk in flight is never a victim.
	LRUAtLoad bool `toml:"lru_at_load" json:"lru_at_load,omitempty"`
	// ReclaimFactor: a load that finds memory full evicts, in LRU order,
	// ReclaimFactor times its own size (StarPU: 2); 0 or 1 evicts only what
	// it needs.
	ReclaimFactor float64 `toml:"reclaim_factor" json:"reclaim_factor,omitempty"`
	// ReuseSameSize: a load that finds memory full first takes over the
	// allocation of one evictable datum of the same size, the least
	// recently used, evicting only it and allocating nothing; only when
	// there is none does it reclaim ReclaimFactor times its size
	// (memalloc.c _starpu_allocate_interface calls
	// try_to_reuse_potentially_in_use_mc before _starpu_memory_reclaim_generic;
	// the chunks' footprint is their allocation size, so any two data of one
	// size interchange). False: every load that finds memory full reclaims.
	ReuseSameSize bool `toml:"reuse_same_size" json:"reuse_same_size,omitempty"`
	// AllocSync: which loads wait for the kernels already launched on their
	// GPU before their copy starts (device memory allocation and release
	// synchronise the device): "" or "none", "evict" (loads that free
	// memory), "all" (every load that allocates).
	AllocSync string `toml:"alloc_sync" json:"alloc_sync,omitempty"`
	// JustInTime chooses and allocates a load only when the GPU's copy
	// engine is idle (false: StarPU allocates each request as soon as it
	// handles it and queues its copy on the GPU's host-to-GPU stream, up to
	// FetchRequests and PrefetchRequests copies).
	JustInTime bool `toml:"just_in_time" json:"just_in_time,omitempty"`
	// FetchRequests and PrefetchRequests cap the copies into a memory node
	// that are queued or running: a fetch request is handled (allocated,
	// its copy queued) while fewer than FetchRequests are, a prefetch
	// request while fewer than PrefetchRequests are. 0: the tag's 5 and 2
	// (src/datawizard/data_request.h MAX_PENDING_REQUESTS_PER_NODE and
	// MAX_PENDING_PREFETCH_REQUESTS_PER_NODE, read against
	// data_requests_npending by data_request.c
	// __starpu_handle_node_data_requests; 20 and 10 before February 2021).
	FetchRequests    int `toml:"fetch_requests" json:"fetch_requests,omitempty"`
	PrefetchRequests int `toml:"prefetch_requests" json:"prefetch_requests,omitempty"`
	// PrefetchAtBuffer prefetches a task's inputs only when it enters a
	// worker's buffer, even under a scheduler that prefetches at push
	// (schedulers.PushPrefetcher). False: StarPU's FIFO component prefetches
	// a task's inputs when the task is pushed into it, if every worker below
	// it computes from one memory node (component_fifo.c
	// fifo_push_local_task calls starpu_sched_component_prefetch_on_node,
	// component_sched.c), so modular-eager-prefetching on one GPU prefetches
	// every task at its submission.
	PrefetchAtBuffer bool `toml:"prefetch_at_buffer" json:"prefetch_at_buffer,omitempty"`
	// EvictPrefetched lets a prefetch evict data that tasks prefetched on
	// the node (buffered, or pushed under a push-time prefetch) still read.
	// False: StarPU's starpu_data_can_evict (memalloc.c) refuses a prefetch
	// the data whose nb_tasks_prefetch is not 0 (coherency.c counts the tasks
	// that prefetched a datum until they fetch it, _starpu_fetch_task_input_tail);
	// only a fetch may evict them.
	EvictPrefetched bool `toml:"evict_prefetched" json:"evict_prefetched,omitempty"`
	// LoadingFromCopy counts a datum as allocated and loading, in what the
	// schedulers see of StarPU's data status (schedulers.Status, which
	// StarPU's Ready ranking reads), only once its copy starts (the former
	// model). False: StarPU's, from when its request is handled: allocated
	// and loading while its copy waits for the copy engine, and loading
	// (not allocated) after a request found no memory, until the datum is
	// allocated (data_request.c starpu_handle_data_request sets the
	// replicate's load_request before _starpu_driver_copy_data_1_to_1
	// allocates and leaves it set on -ENOMEM; user_interactions.c
	// starpu_data_query_status2 reports is_loading = load_request != NULL).
	// Ready then prefers a task whose missing datum heads the prefetch
	// queue, refused for lack of memory, to one whose missing data nobody
	// asked for: dmdar on one GPU streams one input across tasks that keep
	// the others.
	LoadingFromCopy bool `toml:"loading_from_copy" json:"loading_from_copy,omitempty"`
	// SchedCost is what scheduling costs the worker a call is made for:
	// "none" (the default: decisions are free, the papers' simulations),
	// "measured" (this program's own wall time: not reproducible), or
	// "model" (the elementary operations the papers' StarPU implementation
	// of the scheduler performs, as each scheduler counts them, times
	// OpSeconds: the papers' real runs, reproducibly).
	SchedCost string `toml:"sched_cost" json:"sched_cost,omitempty"`
	// The cost of one scheduler operation of each kind under SchedCost =
	// "model" (schedulers.Op; 0: free): OpSeconds a step through a linked
	// structure (View.Count), ArrayOpSeconds a comparison over a
	// contiguous array (View.CountArray), StatusOpSeconds a query of a
	// datum's state on a node (Ready's ranking), PredictOpSeconds one of
	// dmda's predictions at push (an expected end, an input's transfer
	// estimate), BeladyOpSeconds a look-up of Belady's next uses. StarPU's C code does
	// different work per step for each, so each is its own fitted value.
	OpSeconds        float64 `toml:"op_seconds" json:"op_seconds,omitempty"`
	ArrayOpSeconds   float64 `toml:"array_op_seconds" json:"array_op_seconds,omitempty"`
	StatusOpSeconds  float64 `toml:"status_op_seconds" json:"status_op_seconds,omitempty"`
	PredictOpSeconds float64 `toml:"predict_op_seconds" json:"predict_op_seconds,omitempty"`
	BeladyOpSeconds  float64 `toml:"belady_op_seconds" json:"belady_op_seconds,omitempty"`
	// StatusWrittenOpSeconds is added to StatusOpSeconds for a status
	// query of a write-only buffer (schedulers.OpStatusWritten).
	StatusWrittenOpSeconds float64 `toml:"status_written_op_seconds" json:"status_written_op_seconds,omitempty"`
	// ProgramRunSeconds is one run of an external program by a scheduler,
	// with the files it reads and writes (schedulers.OpProgramRun:
	// hMETIS+R's hmetis through system(), HFP.c hmetis).
	ProgramRunSeconds float64 `toml:"program_run_seconds" json:"program_run_seconds,omitempty"`
	// DurationCV is the coefficient of variation of task durations: each
	// task's kernel time is multiplied by a lognormal factor of mean 1 and
	// this relative spread, drawn from the run's seed and the task's id, so
	// every scheduler sees the same durations for a seed (0: every task
	// takes exactly its kernel's time).
	DurationCV float64 `toml:"duration_cv" json:"duration_cv,omitempty"`
	// SourceAtCopy picks a load's source (main memory or a GPU holding a
	// valid copy) when its copy starts. False: StarPU picks it when the
	// request is created (coherency.c _starpu_create_request_to_fetch_data
	// calls _starpu_select_src_node), among the copies valid then (a copy
	// still being loaded is invalid: no request waits on another node's
	// request), and the request holds the source's copy until its transfer
	// ends (data_request.c _starpu_create_data_request: src_replicate->refcnt).
	SourceAtCopy bool `toml:"source_at_copy" json:"source_at_copy,omitempty"`
	// RequestsPerNode counts FetchRequests and PrefetchRequests over every
	// copy into a node. False: StarPU counts them per pair of nodes
	// (data_request.c data_requests_npending[handling_node][peer_node]),
	// and handles the pairs' lists in node order, main memory first
	// (datawizard.c ____starpu_datawizard_progress): a GPU may have 5
	// fetches from main memory and 5 from each other GPU pending.
	RequestsPerNode bool `toml:"requests_per_node" json:"requests_per_node,omitempty"`
	// NodeAfterNode has the workers woken at the same instant progress one
	// memory node after the other, each pulling until it can pull no more.
	// False: StarPU's order. Each CUDA worker is its own SimGrid actor
	// (driver_cuda.c _starpu_cuda_worker), every mutex or condition of the
	// scheduler's pull is a simcall that hands the turn to the next actor
	// ready at that time, and one pull makes a FIFO below take one task
	// (component_fifo.c fifo_pull_task then send_can_push_to_parents;
	// component_eager.c eager_can_push: "make pump above push only one
	// task"; component_worker.c simple_worker_pull_task's retry): workers
	// woken together pull one task each in turn, in worker order (traced at
	// papers/ICPP2023, EAGER on 2 GPUs: GPU 0 gets tasks 0 and 2, GPU 1
	// tasks 1 and 3, where the former order gave GPU 0 tasks 0 and 1).
	NodeAfterNode bool `toml:"node_after_node" json:"node_after_node,omitempty"`
	// CopyIssueUs, TaskIssueUs and FetchInputUs are host time, in µs, that
	// a GPU's driver thread spends, and nothing else it does (handling
	// requests, launching kernels) meanwhile: CopyIssueUs before each copy
	// it issues enters the copy stream, TaskIssueUs before each kernel it
	// launches enters the GPU's queue, FetchInputUs per input of each task
	// it pops. StarPU in SimGrid sleeps 10 µs "for the GPU transfer
	// queueing" (simgrid.c _starpu_simgrid_transfer) and 10 µs "for the GPU
	// task queueing" (_starpu_simgrid_submit_job), both unless
	// STARPU_SIMGRID_QUEUE_MALLOC_COST=0, and 1 µs per input fetched
	// (coherency.c _starpu_fetch_task_input, STARPU_SIMGRID_FETCHING_INPUT_COST);
	// on a real GPU they are the driver's measured reaction times. 0: free.
	// PopDuringDriverTime lets a GPU's driver pop its next task (and so
	// pull the next one from the scheduler) at once, while its thread still
	// spends the host time of what it did before (CopyIssueUs, TaskIssueUs,
	// FetchInputUs): the former model, where a driver whose inputs arrived
	// popped several tasks at one instant. False: StarPU's. In SimGrid each
	// CUDA worker is an actor whose thread sleeps those costs
	// (coherency.c _starpu_fetch_task_input: STARPU_SIMGRID_FETCHING_INPUT_COST;
	// simgrid.c _starpu_simgrid_submit_job: "for the GPU task queueing";
	// _starpu_simgrid_transfer), and driver_cuda.c _starpu_cuda_driver_run_once
	// pops (_starpu_get_multi_worker_task) only in its next iteration, once
	// awake: two GPUs whose copies end together then pop in turn (traced at
	// papers/ICPP2023, EAGER on 2 GPUs, N = 30: pops of one driver 14 µs
	// apart, alternating with the other's).
	// SpinFree lets the GPU drivers whose copies of one datum end at the
	// same instant handle those ends at once (the former model). False:
	// StarPU in SimGrid. data_request.c _handle_pending_node_data_requests
	// takes the handle's header lock with _starpu_spin_lock in SimGrid
	// mode, whose spin sleeps 1 µs each time it finds the lock taken
	// (common/thread.h _starpu_pthread_spin_lock: starpu_sleep(0.000001)),
	// and starpu_handle_data_request_completion holds the lock across
	// simcalls: the k-th driver to handle such an end does so k µs late,
	// and pops and launches only after (traced at papers/ICPP2023, EAGER
	// on 4 GPUs, N = 10: copies into GPUs 1 and 2 ending at one instant,
	// GPU 2 pops 1 µs after GPU 1, and after GPU 3, whose copy ended
	// 0.6 µs later). A real machine's spin lock spins a few cycles.
	SpinFree            bool    `toml:"spin_free" json:"spin_free,omitempty"`
	PopDuringDriverTime bool    `toml:"pop_during_driver_time" json:"pop_during_driver_time,omitempty"`
	CopyIssueUs         float64 `toml:"copy_issue_us" json:"copy_issue_us,omitempty"`
	TaskIssueUs         float64 `toml:"task_issue_us" json:"task_issue_us,omitempty"`
	FetchInputUs        float64 `toml:"fetch_input_us" json:"fetch_input_us,omitempty"`
	// ProgressUs is host time, in µs, that a GPU's driver spends per
	// memory node it drives each time it handles data requests before a
	// pop: StarPU in SimGrid sleeps 1 µs in each
	// ___starpu_datawizard_progress call ("XXX", datawizard.c), which
	// __starpu_datawizard_progress makes for every node the worker drives,
	// and a CUDA worker drives its GPU and every NUMA node (topology.c
	// _starpu_init_workers_binding: "This worker can manage transfers on
	// NUMA nodes"): 2 µs per driver iteration with one NUMA node (traced at
	// papers/ICPP2023, EAGER on 2 and 4 GPUs: pops of tasks whose data are
	// there 14 µs apart, 10 µs task queueing + 2 × 1 µs input + 2 µs). It is
	// charged, with 1 + NUMA nodes (Topology.GPUsPerNUMA) driven, once per
	// driver iteration, and above 0 the simulator runs a GPU driver's
	// iteration in StarPU's order (driver_cuda.c
	// _starpu_cuda_driver_run_once; sim's iterate): launch the popped task
	// whose inputs arrived, then handle requests (the sleeps, then the
	// copies that ended, then new copies), then pop, and only once the last
	// popped task is launched (task_transferring reset); a copy's end is
	// handled in that request handling, so the next copies are issued
	// before the task the copy made ready is launched. 0: free, and the
	// former order (launch, issue, pop), which gives the same times when
	// the driver's host costs are 0, as in the real-machine presets.
	ProgressUs float64 `toml:"progress_us" json:"progress_us,omitempty"`
	// FlushInMakespan counts the final write-back of modified data in the
	// makespan (false: the timed region ends with the last task, as the
	// papers' benchmarks stop their clock at starpu_task_wait_for_all and
	// unregister the data afterwards).
	FlushInMakespan bool `toml:"flush_in_makespan" json:"flush_in_makespan,omitempty"`
}

type presetFile struct {
	// Fitted names a file of fitted values (relative to the preset) that
	// override the preset's: [topology], [runtime] and [kernel.NAME] keys
	// written by `memsched fit` (issue 11), so that a refit never edits the
	// preset's cited numbers.
	Fitted   string            `toml:"fitted"`
	Platform Platform          `toml:"platform"`
	Topology topologyFile      `toml:"topology"`
	Kernel   map[string]Kernel `toml:"kernel"`
	Runtime  Runtime           `toml:"runtime"`
}

// topologyFile is the [topology] table: the Topology numbers and the
// NVLink table.
type topologyFile struct {
	Topology
	NVLinkPairs [][]int `toml:"nvlink_pairs"`
}

// Presets lists the embedded preset names.
func Presets() []string {
	ents, _ := presetFS.ReadDir("presets")
	var names []string
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
		}
	}
	sort.Strings(names)
	return names
}

// Load returns a preset by name, or reads a TOML file when name is a path.
func Load(name string) (*Platform, error) {
	var data []byte
	var err error
	var read func(rel string) ([]byte, error)
	if strings.HasSuffix(name, ".toml") || strings.ContainsRune(name, filepath.Separator) {
		data, err = os.ReadFile(name)
		read = func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(filepath.Dir(name), rel)) }
	} else {
		data, err = presetFS.ReadFile("presets/" + name + ".toml")
		if err != nil {
			return nil, fmt.Errorf("unknown platform %q%s; presets: %s (or give a path to a .toml file)", name, suggest.Closest(name, Presets()), strings.Join(Presets(), ", "))
		}
		read = func(rel string) ([]byte, error) { return presetFS.ReadFile(path.Join("presets", rel)) }
	}
	if err != nil {
		return nil, err
	}
	return parse(name, data, read)
}

// required are the keys a platform file must set (table.key) when its
// condition holds; a missing one would silently be 0.
var required = []struct {
	key, what string
	when      func(f *presetFile) bool
}{
	{"platform.name", "the platform's name", always},
	{"platform.max_gpus", "how many GPUs the machine has (or give max_cpus for a machine computing on CPUs only)", func(f *presetFile) bool { return f.Platform.MaxCPUs == 0 }},
	{"platform.memory_mib", "the default memory cap per GPU in MiB (the papers' 500), or of the RAM out of core", always},
	{"topology.gpu_link_gbps", "the bandwidth of each GPU's PCIe link in GB/s", hasGPUs},
	{"topology.gpus_per_switch", "how many GPUs share a PCIe switch", hasGPUs},
	{"topology.switch_link_gbps", "the bandwidth of a switch's uplink in GB/s", hasGPUs},
	{"topology.gpus_per_numa", "how many GPUs share a NUMA node's link", hasGPUs},
	{"topology.numa_link_gbps", "the bandwidth of a NUMA node's link in GB/s", hasGPUs},
	{"topology.inter_numa_gbps", "the bandwidth between NUMA nodes in GB/s", hasGPUs},
	{"topology.disk_gbps", "the disk's bandwidth in GB/s (home = disk)", func(f *presetFile) bool { return f.Platform.Home == HomeDisk }},
	{"runtime.buffer", "the task buffer depth per worker (StarPU's NTASKS_THRESHOLD, 10)", always},
	{"runtime.pipeline", "the popped tasks per GPU (StarPU's CUDA_PIPELINE, 5)", always},
}

func always(*presetFile) bool    { return true }
func hasGPUs(f *presetFile) bool { return f.Platform.MaxGPUs > 0 && !f.Topology.NoTransfers }

// Parse decodes a platform file, rejecting unknown keys (with the closest
// known one) and missing required keys, then checks it. A file naming a
// fitted file must be loaded with Load, which finds it.
func Parse(name string, data []byte) (*Platform, error) { return parse(name, data, nil) }

func decodePreset(name string, data []byte, f *presetFile) (toml.MetaData, error) {
	md, err := toml.Decode(string(data), f)
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return md, fmt.Errorf("platform %s: line %d: %s; fix the TOML syntax", name, pe.Position.Line, pe.Message)
	}
	if err != nil {
		return md, fmt.Errorf("platform %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return md, fmt.Errorf("platform %s: unknown key %q%s", name, und[0].String(), closestKey(und[0]))
	}
	return md, nil
}

func parse(name string, data []byte, read func(rel string) ([]byte, error)) (*Platform, error) {
	var f presetFile
	md, err := decodePreset(name, data, &f)
	if err != nil {
		return nil, err
	}
	if f.Fitted != "" {
		if read == nil {
			return nil, fmt.Errorf("platform %s: fitted = %q names a file; load the platform from its file", name, f.Fitted)
		}
		fd, err := read(f.Fitted)
		if err != nil {
			return nil, fmt.Errorf("platform %s: fitted values %s: %v", name, f.Fitted, err)
		}
		// The fitted values decode over the preset's, through the same
		// struct; they may only set [topology], [runtime] and [kernel.*].
		var top map[string]any
		_, err = toml.Decode(string(fd), &top)
		for _, k := range slices.Sorted(maps.Keys(top)) {
			if err == nil && k != "topology" && k != "runtime" && k != "kernel" {
				err = fmt.Errorf("unknown table %q; a fitted file sets [topology], [runtime] and [kernel.NAME] keys", k)
			}
		}
		if err == nil {
			_, err = decodePreset(f.Fitted, fd, &f)
		}
		if err != nil {
			return nil, fmt.Errorf("platform %s: fitted values %s: %v", name, f.Fitted, err)
		}
	}
	for _, r := range required {
		table, key, _ := strings.Cut(r.key, ".")
		if r.when(&f) && !md.IsDefined(table, key) {
			return nil, fmt.Errorf("platform %s: %s is missing; set it to %s", name, r.key, r.what)
		}
	}
	if len(f.Kernel) == 0 {
		return nil, fmt.Errorf("platform %s: no [kernel.NAME] table; give each kernel's speed, e.g. [kernel.gemm] gflops = 13253", name)
	}
	p := f.Platform
	p.Topology = f.Topology.Topology
	p.NVLinkPairs = f.Topology.NVLinkPairs
	p.Kernels = f.Kernel
	p.Runtime = f.Runtime
	if p.GPUs == 0 && p.CPUs == 0 {
		// A preset that names no default: one GPU, else every CPU core.
		if p.MaxGPUs > 0 {
			p.GPUs = 1
		} else {
			p.CPUs = p.MaxCPUs
		}
	}
	p.MemoryBytes = int64(p.MemoryMiB * MiB)
	return &p, p.Check()
}

// Home values.
const (
	HomeRAM  = "ram"
	HomeDisk = "disk"
)

// OutOfCore reports whether data live on disk and workers compute from a
// capped RAM (thesis §5.7).
func (p *Platform) OutOfCore() bool { return p.Home == HomeDisk }

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
		return suggest.Closest(k[len(k)-1], append(tomlKeys(reflect.TypeOf(Rate{})), "cpu", "history", "flops", "gpu_us"))
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

// MaxGPUs and MaxCPUs bound a platform's workers (max_gpus, max_cpus, and
// a trace header's counts): each GPU is a memory node with a state per
// datum, so the bound keeps a mistyped count from exhausting memory. The
// papers' machines have at most 50 GPUs and 48 cores.
const (
	MaxGPUs = 1024
	MaxCPUs = 1 << 16
)

// positive says whether v is a usable positive number (not NaN or infinite).
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// Check reports the first inconsistency of a platform, naming the key.
func (p *Platform) Check() error {
	t := p.Topology
	if p.Name == "" {
		return fmt.Errorf("platform has no name; set [platform] name")
	}
	if p.MaxGPUs < 0 || p.MaxCPUs < 0 || p.MaxGPUs == 0 && p.MaxCPUs == 0 {
		return fmt.Errorf("platform %s: max_gpus = %d, max_cpus = %d; give the number of GPUs of the machine (at least 1), or of CPU cores for a machine computing on CPUs only", p.Name, p.MaxGPUs, p.MaxCPUs)
	}
	if p.MaxGPUs > MaxGPUs || p.MaxCPUs > MaxCPUs {
		return fmt.Errorf("platform %s: max_gpus = %d, max_cpus = %d; memsched simulates at most %d GPUs and %d CPU cores (each worker has its own state)", p.Name, p.MaxGPUs, p.MaxCPUs, MaxGPUs, MaxCPUs)
	}
	if p.GPUs < 0 || p.GPUs > p.MaxGPUs {
		return fmt.Errorf("platform %s has %d GPUs; %d asked: use 0 to %d", p.Name, p.MaxGPUs, p.GPUs, p.MaxGPUs)
	}
	if p.CPUs < 0 || p.CPUs > p.MaxCPUs {
		return fmt.Errorf("platform %s has %d CPU cores for workers; %d asked: use 0 to %d", p.Name, p.MaxCPUs, p.CPUs, p.MaxCPUs)
	}
	if p.GPUs+p.CPUs < 1 {
		return fmt.Errorf("platform %s: no worker; ask for at least one GPU or CPU core", p.Name)
	}
	switch {
	case p.Home != "" && p.Home != HomeRAM && p.Home != HomeDisk:
		return fmt.Errorf("platform %s: home = %q; use %q (data in main memory) or %q (out of core)%s", p.Name, p.Home, HomeRAM, HomeDisk, suggest.Closest(p.Home, []string{HomeRAM, HomeDisk}))
	case p.OutOfCore() && p.GPUs > 0:
		return fmt.Errorf("platform %s: an out-of-core platform (home = disk) has CPU workers only; %d GPUs asked", p.Name, p.GPUs)
	case p.OutOfCore() && !t.NoTransfers && !positive(t.DiskGBps):
		return fmt.Errorf("platform %s: home = disk needs disk_gbps, a positive number of GB/s; it is %g", p.Name, t.DiskGBps)
	}
	if !(p.PhysicalMiB >= 0) || math.IsInf(p.PhysicalMiB, 1) {
		return fmt.Errorf("platform %s: physical_memory_mib = %g; give the memory of a GPU (or of the RAM out of core) in MiB (or leave it out when unknown)", p.Name, p.PhysicalMiB)
	}
	if capped := p.GPUs > 0 || p.OutOfCore(); capped && !t.NoTransfers {
		if p.MemoryMiB > 1<<42 {
			return fmt.Errorf("platform %s: memory per GPU is %g MiB; give at most 2^42 MiB (4 EiB, beyond a byte count)", p.Name, p.MemoryMiB)
		}
		if !positive(p.MemoryMiB) || p.MemoryBytes <= 0 {
			return fmt.Errorf("platform %s: memory per GPU is %g MiB (%d bytes); it must be positive", p.Name, p.MemoryMiB, p.MemoryBytes)
		}
		if p.PhysicalMiB > 0 && p.MemoryBytes > int64(p.PhysicalMiB*MiB) {
			return fmt.Errorf("platform %s: memory per GPU %g MiB exceeds the GPU's physical %g MiB; use at most %g (0 on the command line or in a suite means the whole memory)", p.Name, p.MemoryMiB, p.PhysicalMiB, p.PhysicalMiB)
		}
	}
	if p.GPUs > 0 && !t.NoTransfers {
		for _, l := range []struct {
			key string
			v   float64
		}{{"gpu_link_gbps", t.GPULinkGBps}, {"switch_link_gbps", t.SwitchLinkGBps}, {"numa_link_gbps", t.NUMALinkGBps}, {"inter_numa_gbps", t.InterNUMAGBps}} {
			if !positive(l.v) {
				return fmt.Errorf("platform %s: %s = %g; a bandwidth must be a positive number of GB/s", p.Name, l.key, l.v)
			}
		}
	}
	switch {
	case p.GPUs > 0 && (t.GPUsPerSwitch < 1 || t.GPUsPerNUMA < t.GPUsPerSwitch):
		return fmt.Errorf("platform %s: gpus_per_switch = %d, gpus_per_numa = %d; need 1 <= gpus_per_switch <= gpus_per_numa", p.Name, t.GPUsPerSwitch, t.GPUsPerNUMA)
	case t.NVLink && !positive(t.NVLinkGBps):
		return fmt.Errorf("platform %s: nvlink is on but nvlink_gbps = %g; give a positive bandwidth in GB/s", p.Name, t.NVLinkGBps)
	case t.NVLink && p.nvlinkTableError() != "":
		return fmt.Errorf("platform %s: nvlink_pairs: %s", p.Name, p.nvlinkTableError())
	case t.NVLinkGBps < 0 || math.IsNaN(t.NVLinkGBps) || math.IsInf(t.NVLinkGBps, 1):
		return fmt.Errorf("platform %s: nvlink_gbps = %g; give a positive bandwidth in GB/s", p.Name, t.NVLinkGBps)
	case len(t.GPULinkGBpsEach) > 0 && len(t.GPULinkGBpsEach) != p.MaxGPUs:
		return fmt.Errorf("platform %s: gpu_link_gbps_each has %d values; give one per GPU of the machine (%d), or leave it out to use gpu_link_gbps", p.Name, len(t.GPULinkGBpsEach), p.MaxGPUs)
	case slices.ContainsFunc(t.GPULinkGBpsEach, func(v float64) bool { return !positive(v) }):
		return fmt.Errorf("platform %s: gpu_link_gbps_each = %v; every bandwidth must be a positive number of GB/s", p.Name, t.GPULinkGBpsEach)
	case p.latencyError() != "":
		return fmt.Errorf("platform %s: copy_latency_us: %s", p.Name, p.latencyError())
	case !(t.GPUPortGBps >= 0) || math.IsInf(t.GPUPortGBps, 1):
		return fmt.Errorf("platform %s: gpu_port_gbps = %g; give the GB/s of a GPU's PCIe port (0: none)", p.Name, t.GPUPortGBps)
	case !(t.StridedGBps >= 0) || math.IsInf(t.StridedGBps, 1):
		return fmt.Errorf("platform %s: strided_gbps = %g; give the GB/s of a strided copy (0: no cap)", p.Name, t.StridedGBps)
	case p.Runtime.Buffer < 1:
		return fmt.Errorf("platform %s: runtime buffer = %d; use at least 1 (StarPU's NTASKS_THRESHOLD, 10)", p.Name, p.Runtime.Buffer)
	case p.Runtime.Pipeline < 1:
		return fmt.Errorf("platform %s: runtime pipeline = %d; use at least 1 (StarPU's CUDA_PIPELINE, 5)", p.Name, p.Runtime.Pipeline)
	case !(p.Runtime.ReclaimFactor >= 0) || math.IsInf(p.Runtime.ReclaimFactor, 1):
		return fmt.Errorf("platform %s: runtime reclaim_factor = %g; use a number >= 0 (StarPU: 2)", p.Name, p.Runtime.ReclaimFactor)
	case p.Runtime.FetchRequests < 0 || p.Runtime.PrefetchRequests < 0:
		return fmt.Errorf("platform %s: runtime fetch_requests = %d, prefetch_requests = %d; use numbers >= 1, or 0 for StarPU's 5 and 2", p.Name, p.Runtime.FetchRequests, p.Runtime.PrefetchRequests)
	case p.Runtime.AllocSync != "" && p.Runtime.AllocSync != "none" && p.Runtime.AllocSync != "evict" && p.Runtime.AllocSync != "all":
		return fmt.Errorf("platform %s: runtime alloc_sync is %q; use none, evict or all%s", p.Name, p.Runtime.AllocSync, suggest.Closest(p.Runtime.AllocSync, []string{"none", "evict", "all"}))
	case p.Runtime.SchedCost != "" && p.Runtime.SchedCost != "none" && p.Runtime.SchedCost != "measured" && p.Runtime.SchedCost != "model":
		return fmt.Errorf("platform %s: runtime sched_cost is %q; use none, measured or model%s", p.Name, p.Runtime.SchedCost, suggest.Closest(p.Runtime.SchedCost, []string{"none", "measured", "model"}))
	case !(p.Runtime.OpSeconds >= 0 && p.Runtime.OpSeconds < 1):
		return fmt.Errorf("platform %s: runtime op_seconds = %v; use the seconds one scheduler operation costs, in [0, 1)", p.Name, p.Runtime.OpSeconds)
	case !(p.Runtime.ArrayOpSeconds >= 0 && p.Runtime.ArrayOpSeconds < 1):
		return fmt.Errorf("platform %s: runtime array_op_seconds = %v; use the seconds one array comparison costs, in [0, 1)", p.Name, p.Runtime.ArrayOpSeconds)
	case !(p.Runtime.StatusOpSeconds >= 0 && p.Runtime.StatusOpSeconds < 1) || !(p.Runtime.PredictOpSeconds >= 0 && p.Runtime.PredictOpSeconds < 1) || !(p.Runtime.BeladyOpSeconds >= 0 && p.Runtime.BeladyOpSeconds < 1) || !(p.Runtime.StatusWrittenOpSeconds >= 0 && p.Runtime.StatusWrittenOpSeconds < 1) || !(p.Runtime.ProgramRunSeconds >= 0 && p.Runtime.ProgramRunSeconds < 1):
		return fmt.Errorf("platform %s: runtime status_op_seconds = %v, predict_op_seconds = %v, belady_op_seconds = %v, status_written_op_seconds = %v, program_run_seconds = %v; use the seconds one operation costs, in [0, 1)", p.Name, p.Runtime.StatusOpSeconds, p.Runtime.PredictOpSeconds, p.Runtime.BeladyOpSeconds, p.Runtime.StatusWrittenOpSeconds, p.Runtime.ProgramRunSeconds)
	case !(p.Runtime.ProgressUs >= 0 && p.Runtime.ProgressUs <= 1e6):
		return fmt.Errorf("platform %s: runtime progress_us = %v; give a host time in µs, in [0, 1e6]", p.Name, p.Runtime.ProgressUs)
	case !(p.Runtime.CopyIssueUs >= 0 && p.Runtime.CopyIssueUs <= 1e6) || !(p.Runtime.TaskIssueUs >= 0 && p.Runtime.TaskIssueUs <= 1e6) || !(p.Runtime.FetchInputUs >= 0 && p.Runtime.FetchInputUs <= 1e6):
		return fmt.Errorf("platform %s: runtime copy_issue_us = %v, task_issue_us = %v, fetch_input_us = %v; give host times in µs, in [0, 1e6]", p.Name, p.Runtime.CopyIssueUs, p.Runtime.TaskIssueUs, p.Runtime.FetchInputUs)
	case !(p.Runtime.DurationCV >= 0 && p.Runtime.DurationCV <= 10):
		return fmt.Errorf("platform %s: runtime duration_cv = %v; use a relative spread in [0, 10] (0: deterministic durations)", p.Name, p.Runtime.DurationCV)
	}
	for _, k := range p.kernelNames() {
		v := p.Kernels[k]
		bad := func(r Rate) bool {
			return math.IsNaN(r.GFlops) || math.IsNaN(r.Seconds) || r.GFlops < 0 || r.Seconds < 0 || math.IsInf(r.GFlops, 0) || math.IsInf(r.Seconds, 0)
		}
		switch {
		case bad(v.Rate) || !v.Rate.ok() && (v.CPU == nil || !v.CPU.ok()):
			return fmt.Errorf("platform %s: kernel %s has gflops = %g, seconds = %g; give gflops > 0 or seconds > 0 (finite), on a GPU or as cpu = {...}", p.Name, k, v.GFlops, v.Seconds)
		case v.CPU != nil && (bad(*v.CPU) || !v.CPU.ok()):
			return fmt.Errorf("platform %s: kernel %s has cpu = {gflops = %g, seconds = %g}; give gflops > 0 or seconds > 0 (finite)", p.Name, k, v.CPU.GFlops, v.CPU.Seconds)
		}
		if err := checkHistory(v, p.MaxGPUs); err != nil {
			return fmt.Errorf("platform %s: kernel %s: %v", p.Name, k, err)
		}
	}
	return nil
}

// Bounds of a kernel's history: shapes per kernel, and GPUs per shape (the
// most GPUs a platform may have).
const (
	maxShapes    = 64
	maxShapeGPUs = 1024
)

func checkHistory(k Kernel, gpus int) error {
	if len(k.History) == 0 {
		return nil
	}
	if !k.Rate.ok() {
		return errors.New("history needs the GPU rate (gflops or seconds) that shapes and GPUs without an entry take")
	}
	if len(k.History) > maxShapes {
		return fmt.Errorf("history has %d shapes; at most %d", len(k.History), maxShapes)
	}
	for i, s := range k.History {
		if !(s.Flops > 0 && s.Flops < 1e21) {
			return fmt.Errorf("history shape %d has flops = %g; give the task's flops, > 0 and < 1e21", i+1, s.Flops)
		}
		if n := min(gpus, maxShapeGPUs); len(s.GPUUs) == 0 || len(s.GPUUs) > n {
			return fmt.Errorf("history shape %d (flops %g) has %d gpu_us; give one duration per GPU of the platform (1 to %d, 0 for none)", i+1, s.Flops, len(s.GPUUs), n)
		}
		some := false
		for g, us := range s.GPUUs {
			if !(us >= 0 && us <= 1e9) {
				return fmt.Errorf("history shape %d (flops %g) has gpu_us[%d] = %g; give µs in [0, 1e9] (0: no entry)", i+1, s.Flops, g, us)
			}
			some = some || us > 0
		}
		if !some {
			return fmt.Errorf("history shape %d (flops %g) has no GPU with a duration: remove it", i+1, s.Flops)
		}
		for j, o := range k.History[:i] {
			if math.Abs(s.Flops-o.Flops) <= shapeTolerance*max(s.Flops, o.Flops) {
				return fmt.Errorf("history shapes %d and %d (flops %g and %g) are within %g %% of each other: a task would match both", j+1, i+1, o.Flops, s.Flops, shapeTolerance*100)
			}
		}
	}
	return nil
}

func (p *Platform) kernelNames() []string {
	names := make([]string, 0, len(p.Kernels))
	for k := range p.Kernels {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Clone returns a deep copy, for per-run overrides.
func (p *Platform) Clone() *Platform {
	q := *p
	q.Topology.GPULinkGBpsEach = slices.Clone(p.Topology.GPULinkGBpsEach)
	q.Topology.CopyLatencyUs = slices.Clone(p.Topology.CopyLatencyUs)
	for i, row := range q.Topology.CopyLatencyUs {
		q.Topology.CopyLatencyUs[i] = slices.Clone(row)
	}
	q.NVLinkPairs = make([][]int, len(p.NVLinkPairs))
	for i, pr := range p.NVLinkPairs {
		q.NVLinkPairs[i] = append([]int(nil), pr...)
	}
	q.Kernels = make(map[string]Kernel, len(p.Kernels))
	for k, v := range p.Kernels {
		if v.CPU != nil {
			c := *v.CPU
			v.CPU = &c
		}
		v.History = slices.Clone(v.History)
		for i := range v.History {
			v.History[i].GPUUs = slices.Clone(v.History[i].GPUUs)
		}
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
	case mib == 0 && p.Topology.NoTransfers:
		return nil // memory is unlimited without transfers
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

// SetMemoryMiB caps every capped node's memory (the papers'
// STARPU_LIMIT_CUDA_MEM, or STARPU_LIMIT_CPU_MEM out of core).
func (p *Platform) SetMemoryMiB(mib float64) {
	p.MemoryMiB = mib
	p.MemoryBytes = int64(mib * MiB)
}

// SetMemoryBytes caps memory exactly, for toy instances with unit-size data.
func (p *Platform) SetMemoryBytes(b int64) {
	p.MemoryBytes = b
	p.MemoryMiB = float64(b) / MiB
}

// KernelSeconds is the duration of a kernel of the given flops on one
// worker of a kind; ok is false when the kernel cannot run on that kind.
func (p *Platform) KernelSeconds(kernel, kind string, flops float64) (secs float64, ok bool, err error) {
	k, known := p.Kernels[kernel]
	if !known {
		return 0, false, fmt.Errorf("platform %s has no performance model for kernel %q", p.Name, kernel)
	}
	r, ok := k.On(kind)
	if !ok {
		return 0, false, nil
	}
	return r.Duration(flops), true, nil
}

// Duration is the time a kernel of the given flops takes at this rate.
func (r Rate) Duration(flops float64) float64 {
	if r.Seconds > 0 {
		return r.Seconds
	}
	return flops / (r.GFlops * 1e9)
}

// Node is one memory node: a GPU's memory, main RAM or a disk.
type Node struct {
	Name     string // gpu0, gpu1, ..., ram, disk
	Capacity int64  // bytes; < 0 unlimited
	Home     bool   // data live here at the start; it is never evicted from
	GPU      bool   // a GPU's memory (device allocation rules apply)
}

// WorkerSpec is one worker: its kind and the memory node it computes from.
type WorkerSpec struct {
	Kind string // GPU or CPU
	Node int
}

// Nodes lists the memory nodes, the home node last. Main memory is home
// unless the platform is out of core; GPU g's memory is node g:
//
//	GPUs (+CPUs):   gpu0 .. gpu{G-1}, ram (home)
//	out of core:    ram (capped), disk (home)
func (p *Platform) Nodes() []Node {
	capacity := p.MemoryBytes
	if p.Topology.NoTransfers {
		capacity = -1
	}
	if p.OutOfCore() {
		return []Node{{Name: "ram", Capacity: capacity}, {Name: "disk", Capacity: -1, Home: true}}
	}
	nodes := make([]Node, 0, p.GPUs+1)
	for g := 0; g < p.GPUs; g++ {
		nodes = append(nodes, Node{Name: fmt.Sprintf("gpu%d", g), Capacity: capacity, GPU: true})
	}
	return append(nodes, Node{Name: "ram", Capacity: -1, Home: true})
}

// HomeNode is the index of the home node (the last one).
func (p *Platform) HomeNode() int {
	if p.OutOfCore() {
		return 1
	}
	return p.GPUs
}

// Workers lists the workers: GPUs first (GPU g computes from node g), then
// the CPU cores, which compute from main memory.
func (p *Platform) Workers() []WorkerSpec {
	ws := make([]WorkerSpec, 0, p.GPUs+p.CPUs)
	for g := 0; g < p.GPUs; g++ {
		ws = append(ws, WorkerSpec{Kind: GPU, Node: g})
	}
	ram := p.GPUs // main memory: home, or node 0 out of core
	if p.OutOfCore() {
		ram = 0
	}
	for c := 0; c < p.CPUs; c++ {
		ws = append(ws, WorkerSpec{Kind: CPU, Node: ram})
	}
	return ws
}

// Link is one bandwidth-limited resource shared by the flows crossing it.
type Link struct {
	Name string
	GBps float64
}

// Links returns the links and, for each memory node, the indices of the
// links a copy from home to it crosses (down) and from it to home (up);
// the home node's paths are nil. PCIe carries both directions at full
// speed (the up links are separate: device-to-host copies use their own
// copy engine); a disk shares its bandwidth between reads and writes. GPUs
// use the lowest device numbers, as StarPU does (CUDA devices 0..GPUs-1),
// so two GPUs share one inner switch.
func (p *Platform) Links() (links []Link, down, up [][]int) {
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
	nodes := p.Nodes()
	down = make([][]int, len(nodes))
	up = make([][]int, len(nodes))
	if p.OutOfCore() {
		down[0] = []int{add("disk", t.DiskGBps)}
		up[0] = down[0]
		return links, down, up
	}
	path := func(g int, suffix string) []int {
		sw, numa := g/t.GPUsPerSwitch, g/t.GPUsPerNUMA
		var path []int
		if t.GPUPortGBps > 0 {
			path = append(path, add(PortName(g)+suffix, t.GPUPortGBps))
		}
		path = append(path,
			add(fmt.Sprintf("pcie-gpu%d%s", g, suffix), t.GPULink(g)),
			add(fmt.Sprintf("pcie-switch%d%s", sw, suffix), t.SwitchLinkGBps),
			add(fmt.Sprintf("pcie-numa%d%s", numa, suffix), t.NUMALinkGBps),
		)
		if numa > 0 {
			path = append(path, add("inter-numa"+suffix, t.InterNUMAGBps))
		}
		return path
	}
	for g := 0; g < p.GPUs; g++ {
		down[g] = path(g, "")
	}
	for g := 0; g < p.GPUs; g++ {
		up[g] = path(g, "-up")
	}
	return links, down, up
}

// PortName names GPU g's PCIe port link (Topology.GPUPortGBps); its up
// direction has the suffix "-up".
func PortName(g int) string { return fmt.Sprintf("pcie-port%d", g) }

// NVLinkName names the NVLink connection of two GPUs (its links count as
// one link of their summed bandwidth).
func (p *Platform) NVLinkName(a, b int) string {
	if a > b {
		a, b = b, a
	}
	return fmt.Sprintf("nvlink-%d-%d", a, b)
}

// NVLinks is the number of NVLink links between two GPUs: from the
// platform's table, else one for every pair when NVLink is on.
func (p *Platform) NVLinks(a, b int) int {
	if !p.Topology.NVLink || a == b {
		return 0
	}
	if len(p.NVLinkPairs) == 0 {
		return 1
	}
	for _, pr := range p.NVLinkPairs {
		if (pr[0] == a && pr[1] == b) || (pr[0] == b && pr[1] == a) {
			return pr[2]
		}
	}
	return 0
}

// latencyError says what is wrong with the latency matrix, "" if nothing.
func (p *Platform) latencyError() string {
	m := p.Topology.CopyLatencyUs
	if len(m) == 0 {
		return ""
	}
	if p.OutOfCore() {
		return "an out-of-core platform has no GPU copies; leave it out"
	}
	n := 1 + p.MaxGPUs
	if len(m) != n {
		return fmt.Sprintf("%d rows; give one per memory node (%d: main memory, then each GPU)", len(m), n)
	}
	for i, row := range m {
		if len(row) != n {
			return fmt.Sprintf("row %d has %d values; give one per memory node (%d)", i, len(row), n)
		}
		for _, v := range row {
			if !(v >= 0 && v <= 1e6) {
				return fmt.Sprintf("row %d holds %g; give latencies in µs, in [0, 1e6]", i, v)
			}
		}
	}
	return ""
}

func (p *Platform) nvlinkTableError() string {
	seen := map[[2]int]bool{}
	for _, pr := range p.NVLinkPairs {
		if len(pr) != 3 {
			return fmt.Sprintf("%v: want [gpu a, gpu b, links]", pr)
		}
		a, b := min(pr[0], pr[1]), max(pr[0], pr[1])
		switch {
		case a < 0 || a == b || (p.MaxGPUs > 0 && b >= p.MaxGPUs):
			return fmt.Sprintf("%v: want two different GPUs of the node", pr)
		case pr[2] < 1:
			return fmt.Sprintf("%v: a listed pair has at least one link", pr)
		case seen[[2]int{a, b}]:
			return fmt.Sprintf("%v: pair listed twice", pr)
		}
		seen[[2]int{a, b}] = true
	}
	return ""
}

// PeerPath is the route of a copy from GPU a to GPU b when peer copies are
// on (Topology.NVLink): their NVLink connection, of bandwidth links ×
// nvlink_gbps, or, for a pair without NVLink, PCIe peer to peer: up from a
// and down to b through their closest common switch (StarPU copies
// directly between GPUs whenever the driver allows peer access,
// datawizard/coherency.c link_supports_direct_transfers). names are link
// names of Links (or the NVLink's); gbps is the NVLink's bandwidth, 0 for
// a PCIe path (its links carry their own).
//
// Under Topology.NVLinkOverPCIe an NVLink copy crosses, after its NVLink,
// the PCIe path of a pair without NVLink less the two GPU links (which
// stand for SimGrid's RAM-CUDAi links, on the routes from RAM only): the
// ports (GPUPortGBps) and, under different switches, the switch links.
func (p *Platform) PeerPath(a, b int) (names []string, gbps float64) {
	if n := p.NVLinks(a, b); n > 0 {
		names, gbps = []string{p.NVLinkName(a, b)}, float64(n)*p.Topology.NVLinkGBps
		if !p.Topology.NVLinkOverPCIe {
			return names, gbps
		}
		ga, gb := fmt.Sprintf("pcie-gpu%d-up", a), fmt.Sprintf("pcie-gpu%d", b)
		for _, name := range p.pciePeerPath(a, b) {
			if name != ga && name != gb {
				names = append(names, name)
			}
		}
		return names, gbps
	}
	return p.pciePeerPath(a, b), 0
}

// pciePeerPath is the PCIe route of a copy from GPU a to GPU b: up from a
// and down to b through their closest common switch.
func (p *Platform) pciePeerPath(a, b int) (names []string) {
	links, down, up := p.Links()
	name := func(l int) string { return strings.TrimSuffix(links[l].Name, "-up") }
	for i, u := range up[a] {
		for j, d := range down[b] {
			if name(u) == name(d) { // the closest common switch
				for _, l := range up[a][:i] {
					names = append(names, links[l].Name)
				}
				for _, l := range down[b][:j] {
					names = append(names, links[l].Name)
				}
				return names
			}
		}
	}
	for _, l := range append(append([]int(nil), up[a]...), down[b]...) {
		names = append(names, links[l].Name)
	}
	return names
}

// PeerGBps is the uncontended bandwidth of a peer copy from GPU a to b:
// the bottleneck of PeerPath.
func (p *Platform) PeerGBps(a, b int) float64 {
	names, gbps := p.PeerPath(a, b)
	if gbps > 0 {
		return gbps
	}
	links, _, _ := p.Links()
	min := 0.0
	for _, l := range links {
		for _, n := range names {
			if l.Name == n && (min == 0 || l.GBps < min) {
				min = l.GBps
			}
		}
	}
	return min
}

// HomeGBps is the uncontended bandwidth from home to a memory node: the
// bottleneck of its path (0 for the home node itself).
func (p *Platform) HomeGBps(node int) float64 {
	links, down, _ := p.Links()
	min := 0.0
	for i, l := range down[node] {
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

// TopologyKeys lists the keys of a [topology] table.
func TopologyKeys() []string { return tomlKeys(reflect.TypeOf(Topology{})) }

// SetTopology overrides [topology] settings by their keys, decoded and
// checked as a preset's (see SetRuntime).
func (p *Platform) SetTopology(kv map[string]any) error {
	return p.set("topology", kv, &p.Topology, TopologyKeys())
}

// RuntimeKeys lists the keys of a [runtime] table (the toml tags of
// Runtime), in declaration order: the settings a suite may override.
func RuntimeKeys() []string { return tomlKeys(reflect.TypeOf(Runtime{})) }

// SetRuntime overrides runtime settings given by their [runtime] keys,
// decoding them through the same struct and the same checks as a preset's
// [runtime] table, so a suite can set (and sweep) every setting a preset
// has. Unknown keys get the closest known one; a value of the wrong type or
// out of range is an error naming the key.
func (p *Platform) SetRuntime(kv map[string]any) error {
	return p.set("runtime", kv, &p.Runtime, RuntimeKeys())
}

// set decodes kv as the table's keys into dst, then checks the platform.
func (p *Platform) set(table string, kv map[string]any, dst any, keys []string) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{table: kv}); err != nil {
		return fmt.Errorf("%s settings %v: %v", table, kv, err)
	}
	var md toml.MetaData
	var err error
	switch d := dst.(type) { // decoded into the live struct, so keys left out keep their values
	case *Runtime:
		md, err = toml.Decode(buf.String(), &struct {
			R *Runtime `toml:"runtime"`
		}{d})
	case *Topology:
		md, err = toml.Decode(buf.String(), &struct {
			T *Topology `toml:"topology"`
		}{d})
	}
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			err = errors.New(pe.Message)
		}
		return fmt.Errorf("%s settings: %v", table, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return fmt.Errorf("unknown %s setting %q%s; settings: %s", table, k[len(k)-1], closestKey(k), strings.Join(keys, ", "))
	}
	return p.Check()
}

// SetKernel sets a kernel's GPU rate ("gflops" or "seconds", the other
// cleared), as a [kernel.NAME] table of a preset does; the rate then times
// every GPU task of the kernel (its history, if any, is dropped: a rate
// given by hand replaces the imported model rather than only its gaps).
func (p *Platform) SetKernel(name, key string, v float64) error {
	k, ok := p.Kernels[name]
	if !ok {
		return fmt.Errorf("platform %s has no kernel %q%s", p.Name, name, suggest.Closest(name, p.kernelNames()))
	}
	switch key {
	case "gflops":
		k.Rate = Rate{GFlops: v}
	case "seconds":
		k.Rate = Rate{Seconds: v}
	default:
		return fmt.Errorf("kernel %s: key %q; use gflops or seconds", name, key)
	}
	k.History = nil
	p.Kernels[name] = k
	return p.Check()
}

// Setting returns the value of a [topology] or [runtime] key, or of a
// [kernel.NAME] gflops or seconds, false when there is no such key.
func (p *Platform) Setting(table, key string) (any, bool) {
	if name, ok := strings.CutPrefix(table, "kernel."); ok {
		k, ok := p.Kernels[name]
		switch {
		case !ok:
			return nil, false
		case key == "gflops":
			return k.GFlops, true
		case key == "seconds":
			return k.Seconds, true
		}
		return nil, false
	}
	var v reflect.Value
	switch table {
	case "topology":
		v = reflect.ValueOf(p.Topology)
	case "runtime":
		v = reflect.ValueOf(p.Runtime)
	default:
		return nil, false
	}
	t := v.Type()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag == key {
			return v.Field(i).Interface(), true
		}
	}
	return nil, false
}
