package run

import (
	"os"

	"github.com/memsched/memsched/hardware"
	"runtime"
	"runtime/debug"
)

// Version is the tool's version; it enters every result key, so a new
// version never reuses results computed by an older one.
const Version = "0.2.0"

// Record is one run's result: one JSON object, the unit of every results
// file. Field names are stable; add fields, never rename them. Identity is
// embedded, so its fields sit at the top level of the JSON object.
type Record struct {
	Identity

	MakespanS  float64 `json:"makespan_s"`
	GFlops     float64 `json:"gflops"`
	BytesH2D   int64   `json:"bytes_h2d"`
	BytesD2D   int64   `json:"bytes_d2d"`
	BytesD2H   int64   `json:"bytes_d2h"`
	Loads      int     `json:"loads"`
	Prefetches int     `json:"prefetches"`
	Fetches    int     `json:"fetches"`
	Evictions  int     `json:"evictions"`
	WriteBacks int     `json:"writebacks"`
	Invalid    int     `json:"invalidations"`
	Tasks      int     `json:"tasks"`
	PerWorker  []int   `json:"tasks_per_worker"`
	SchedWallS float64 `json:"sched_wall_s"`
	SimWallS   float64 `json:"sim_wall_s"`
	Partition  string  `json:"partitioner,omitempty"`
	// SchedStats are counters a scheduler reports about its own decisions
	// (LAHeteroprio's BMD and stolen tasks), by name.
	SchedStats map[string]float64 `json:"sched_stats,omitempty"`
	Error      string             `json:"error,omitempty"`
}

// Identity says which run a record is, whether it succeeded or not: an
// error row carries it alone.
type Identity struct {
	Key         string            `json:"key,omitempty"`
	Suite       string            `json:"suite,omitempty"`
	Label       string            `json:"label,omitempty"` // display name in a suite, e.g. "DARTS+LUF"
	Point       map[string]any    `json:"point,omitempty"` // the sweep coordinates of this run
	Rep         int               `json:"rep"`
	Scheduler   string            `json:"scheduler"`
	Params      map[string]string `json:"params"`
	Workload    string            `json:"workload"`
	WorkingSet  float64           `json:"working_set_mib"`
	Platform    string            `json:"platform"`
	PlatformSHA string            `json:"platform_hash"`
	GPUs        int               `json:"gpus"`
	MemoryBytes int64             `json:"memory_bytes"`
	Seed        uint64            `json:"seed"`
	Executor    string            `json:"executor"`
	ChargeSched bool              `json:"charge_sched_time"`

	Provenance Provenance `json:"provenance"`
}

// NewIdentity describes a run before it runs. The scheduler name and
// parameters are as given; Run replaces them by the resolved ones.
func NewIdentity(workload string, workingSetMiB float64, p *hardware.Platform, scheduler string, params map[string]string, seed uint64, executor string, charge bool) Identity {
	if executor == "" {
		executor = "sim"
	}
	return Identity{Scheduler: scheduler, Params: params, Workload: workload, WorkingSet: workingSetMiB,
		Platform: p.Name, PlatformSHA: p.Hash(), GPUs: p.GPUs, MemoryBytes: p.MemoryBytes, Seed: seed,
		Executor: executor, ChargeSched: charge, Provenance: CurrentProvenance()}
}

// Provenance says what produced a record.
type Provenance struct {
	Version   string `json:"version"`
	GitSHA    string `json:"git_sha,omitempty"`
	GoVersion string `json:"go_version"`
	Host      string `json:"host,omitempty"`
	Device    string `json:"device,omitempty"` // GPU model, driver and CUDA versions for real runs
}

// CurrentProvenance describes this binary and host.
func CurrentProvenance() Provenance {
	p := Provenance{Version: Version, GoVersion: runtime.Version()}
	p.Host, _ = os.Hostname()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				p.GitSHA = s.Value
			}
		}
	}
	return p
}
