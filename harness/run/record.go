package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/internal/buildinfo"
	"github.com/memsched/memsched/schedulers"
)

// Schema is the version of the record and trace formats; records and trace
// headers carry it. Bump it when a field is added or its meaning changes.
// Schema 1 is the records written before it existed (no schema field).
const Schema = 2

// ModelVersion is the simulator's model version (sim.ModelVersion), which
// records and trace headers carry: readers of results (trace, report) take
// it from here rather than import the engine.
const ModelVersion = sim.ModelVersion

// Key identifies a run's result: its configuration (a hash of everything
// the run depends on: workload, platform, scheduler and parameters, seed,
// repetition, executor) and the versions of the code that decides its
// outcome: the record schema, the simulator model (sim.ModelVersion) and
// the scheduler (schedulers.Spec.Version). A sweep never reuses a record
// made under other versions. The git commit is not part of it: a commit
// that changes no decision reruns nothing (the golden corpus,
// harness/golden, fails when decisions change without a version bump).
func Key(config string, schedulerVersion int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|schema=%d|model=%d|scheduler=%d", config, Schema, sim.ModelVersion, schedulerVersion))
	return hex.EncodeToString(sum[:12])
}

// StarPU names the executor that hands a run to StarPU itself
// (harness/starpuexec): a peer runtime, whose outcome memsched's code
// does not decide.
const StarPU = "starpu"

// peers are the executors that hand runs to another runtime, each with
// what that runtime is told for a run (RegisterPeer).
var peers = map[string]func(Job, *hardware.Platform) (string, error){}

// RegisterPeer makes an executor a peer runtime: told gives everything the
// runtime is told for a run (StarPU: its environment and arguments), which
// alone keys the run's record (PeerConfig, KeyFor).
func RegisterPeer(name string, told func(Job, *hardware.Platform) (string, error)) {
	peers[name] = told
}

// PeerConfig is what a peer executor is told for a run, false for the
// other executors or when the peer cannot be told the run (it then fails
// with the reason, under its ordinary key). A peer's results depend on
// that alone: a new memsched parameter, a refitted preset or a changed
// rule of the simulator reruns nothing on the peer.
func PeerConfig(executor string, job Job, p *hardware.Platform) (string, bool) {
	told := peers[executor]
	if told == nil {
		return "", false
	}
	s, err := told(job, p)
	return s, err == nil
}

// KeyFor is Key for a run on an executor. A peer runtime's records depend
// on its own code, not on memsched's model or scheduler versions.
func KeyFor(executor, config string, schedulerVersion int) string {
	if peers[executor] == nil {
		return Key(config, schedulerVersion)
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|schema=%d|peer=%s", config, Schema, executor))
	return hex.EncodeToString(sum[:12])
}

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
	// PopMissing: inputs not on the GPU (in-flight prefetches included) when
	// their task is popped; the papers' fetch count (StarPU HFP.c
	// get_data_to_load).
	PopMissing int `json:"pop_missing"`
	// ModelLoads: the loads of the scheduler's plan in the abstract model of
	// thesis §2.2 (order.Loads per worker, no prefetch, no pipeline), for
	// schedulers with a static plan; 0 otherwise.
	ModelLoads    int     `json:"model_loads,omitempty"`
	Tasks         int     `json:"tasks"`
	PerWorker     []int   `json:"tasks_per_worker"`
	SchedWallS    float64 `json:"sched_wall_s"`
	SchedOps      int64   `json:"sched_ops,omitempty"`       // operations counted for sched_cost = "model" (both saturate at 2⁶³−1)
	SchedArrayOps int64   `json:"sched_array_ops,omitempty"` // array comparisons counted for sched_cost = "model"
	// Data status queries, dmda predictions and Belady look-ups counted
	// (schedulers.OpStatus, OpPredict, OpBelady), each priced apart under
	// sched_cost = "model".
	SchedStatusOps  int64 `json:"sched_status_ops,omitempty"`
	SchedPredictOps int64 `json:"sched_predict_ops,omitempty"`
	SchedBeladyOps  int64 `json:"sched_belady_ops,omitempty"`
	// Of the status queries, those of write-only buffers
	// (schedulers.OpStatusWritten).
	SchedStatusWrittenOps int64 `json:"sched_status_written_ops,omitempty"`
	// External programs run (schedulers.OpProgramRun: hMETIS+R's hmetis).
	SchedProgramRuns int64   `json:"sched_program_runs,omitempty"`
	SimWallS         float64 `json:"sim_wall_s"`
	Partition        string  `json:"partitioner,omitempty"`
	// SchedStats are counters a scheduler reports about its own decisions
	// (LAHeteroprio's BMD and stolen tasks), by name.
	SchedStats map[string]float64 `json:"sched_stats,omitempty"`
	Error      string             `json:"error,omitempty"`
	// Batch is a batch run's report (thesis chapter 6), whose metrics
	// replace the GPU ones above.
	Batch *batch.Report `json:"batch,omitempty"`
}

// Identity says which run a record is, whether it succeeded or not: an
// error row carries it alone.
type Identity struct {
	Schema      int               `json:"schema"`
	Key         string            `json:"key,omitempty"`
	Config      string            `json:"config,omitempty"` // the configuration's hash without code versions (see Key)
	Suite       string            `json:"suite,omitempty"`
	Label       string            `json:"label,omitempty"` // display name in a suite, e.g. "DARTS+LUF"
	Point       map[string]any    `json:"point,omitempty"` // the sweep coordinates of this run
	Rep         int               `json:"rep"`
	Scheduler   string            `json:"scheduler"`
	SchedVer    int               `json:"scheduler_version"` // schedulers.Spec.Version (batch runs: schedulers/batch.Spec.Version)
	ModelVer    int               `json:"model_version"`     // sim.ModelVersion (batch runs: batch.ModelVersion)
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
	// SchedulerCode identifies a scheduler from outside memsched: an
	// external program's path and hash, a Go plugin's module and version.
	SchedulerCode *schedulers.Code `json:"scheduler_code,omitempty"`

	Provenance Provenance `json:"provenance"`
}

// NewIdentity describes a run before it runs. The scheduler name and
// parameters are as given; Run replaces them by the resolved ones.
func NewIdentity(workload string, workingSetMiB float64, p *hardware.Platform, scheduler string, params map[string]string, seed uint64, executor string, charge bool) Identity {
	if executor == "" {
		executor = "sim"
	}
	id := Identity{Schema: Schema, Scheduler: scheduler, ModelVer: sim.ModelVersion, Params: params, Workload: workload, WorkingSet: workingSetMiB,
		Platform: p.Name, PlatformSHA: p.Hash(), GPUs: p.GPUs, MemoryBytes: p.MemoryBytes, Seed: seed,
		Executor: executor, ChargeSched: charge, Provenance: CurrentProvenance()}
	if spec, err := schedulers.Inspect(scheduler); err == nil { // starts no program
		id.SchedVer = spec.Version
	}
	return id
}

// Provenance says what produced a record: the code (release version, git
// commit and whether the tree was dirty) and where it ran.
type Provenance struct {
	Version   string `json:"version"`
	GitSHA    string `json:"git_sha"` // "unknown" outside a checkout without a stamp (see internal/buildinfo)
	Dirty     bool   `json:"dirty"`
	GoVersion string `json:"go_version"`
	Host      string `json:"host,omitempty"`
	Device    string `json:"device,omitempty"` // GPU model, driver and CUDA versions for real runs
}

// CurrentProvenance describes this binary and host.
func CurrentProvenance() Provenance {
	c := buildinfo.Current()
	p := Provenance{Version: buildinfo.Version, GitSHA: c.Commit, Dirty: c.Dirty, GoVersion: runtime.Version()}
	p.Host, _ = os.Hostname()
	return p
}
