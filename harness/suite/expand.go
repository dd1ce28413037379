package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// point is one coordinate of the sweep: a workload and a platform.
type point struct {
	gpus     int
	memMiB   float64 // as written (0 = physical), when memory is in MiB
	memBytes int64   // as written, when memory is in bytes
	spec     workloads.Spec
	coords   map[string]any
	platform *hardware.Platform
	wsMiB    float64
	maxInput int64
	fileSHA  string
	workload *workloads.Workload // only for file workloads (read once)
}

// Run is one unit of work: a point, a scheduler block and a repetition.
type Run struct {
	Key              string // run.Key: the configuration and the code versions
	ConfigID         string // the configuration alone: the same run under other code has the same
	Suite            string
	Label            string
	Scheduler        string
	SchedulerVersion int
	Params           schedulers.Params
	Point            map[string]any
	Rep              int
	Seed             uint64
	ChargeSched      bool
	Executor         string
	Spec             workloads.Spec // Kind == "" for a workload file
	Platform         *hardware.Platform
	WorkingSet       float64 // MiB
	Timeout          int64   // nanoseconds, from the suite
	Code             *schedulers.Code
	Batch            *batch.Setup // a batch run (batch suites); the GPU fields are unused

	file      *workloads.Workload
	kc        keyConfig // what Key, ConfigID and Seed derive from (WithPlatform)
	suiteSeed uint64
}

// Points is the number of sweep points.
func (s *Suite) Points() int {
	if s.Batch != nil {
		return len(s.Batch.Workloads)
	}
	return len(s.points)
}

// checkPoints builds every point and checks that each can run at all: the
// platform is consistent and one task's inputs fit in a GPU's memory.
func (s *Suite) checkPoints(p *parser) {
	ps, w := s.Platform, s.Workload
	var specs []workloads.Spec
	var fileW *workloads.Workload
	var fileSHA string
	if w.File != "" {
		data, err := os.ReadFile(s.Path(w.File))
		if err == nil {
			fileW, err = readWorkloadFile(s.Path(w.File))
		}
		if err != nil {
			p.errf("workload", "file", "%v", err)
			return
		}
		sum := sha256.Sum256(data)
		fileSHA = hex.EncodeToString(sum[:8])
		specs = []workloads.Spec{{}}
	} else {
		nzs := w.NZ
		if len(nzs) == 0 {
			nzs = []int{0}
		}
		keeps := w.Keep
		if len(keeps) == 0 {
			keeps = []float64{0}
		}
		// Bound the expansion before building it (each axis alone is
		// bounded, their product is not).
		mems := max(len(ps.MemoryMiB), len(ps.MemoryBytes))
		if n := float64(len(w.N)) * float64(len(nzs)) * float64(len(keeps)) * float64(len(ps.GPUs)) * float64(mems) * float64(len(ps.runtimePoints())) * float64(max(1, len(s.Schedulers))) * float64(s.Repetitions); n > maxRuns {
			p.errf("suite", "", "the suite expands to %.3g runs, more than %d; reduce the axes", n, maxRuns)
			return
		}
		for _, n := range w.N {
			for _, nz := range nzs {
				for _, keep := range keeps {
					specs = append(specs, workloads.Spec{Kind: w.Kind, N: n, Tile: w.Tile, Z: w.Z, NZ: nz,
						Order: w.Order, Keep: keep, Deps: w.Deps, WriteC: w.WriteC, NoScratch: w.NoScratch, Opts: w.Opts}.WithDefaults())
				}
			}
		}
	}
	type wsInfo struct {
		ws  float64
		max int64
	}
	info := make([]wsInfo, len(specs))
	before := len(p.errs)
	for i, sp := range specs {
		wl := fileW
		if wl == nil {
			// The seed only changes which tasks random kinds draw, never
			// the input sizes, so the check generates with seed 0.
			var err error
			if wl, err = generate(sp); err != nil {
				p.errf("workload", "n", "at n = %d: %v", sp.N, err)
				continue
			}
		}
		info[i] = wsInfo{wl.WorkingSetMiB(), wl.MaxInputBytes()}
	}
	if len(p.errs) > before {
		return
	}
	memKey := "memory_mb"
	runtimes := ps.runtimePoints()
	mems := len(ps.MemoryMiB)
	if len(ps.MemoryBytes) > 0 {
		memKey, mems = "memory_bytes", len(ps.MemoryBytes)
	}
	reported := map[string]bool{}
	for gi, g := range ps.GPUs {
		for mi := 0; mi < mems; mi++ {
			for _, rt := range runtimes {
				pl := ps.Base.Clone()
				pl.GPUs, pl.CPUs = g, ps.CPUsAt(gi)
				coords := map[string]any{"gpus": g}
				if pl.CPUs > 0 {
					coords["cpus"] = pl.CPUs
				}
				var memMiB float64
				var memBytes int64
				if len(ps.MemoryBytes) > 0 {
					memBytes = ps.MemoryBytes[mi]
					pl.SetMemoryBytes(memBytes)
					coords["memory_bytes"] = memBytes
				} else {
					memMiB = ps.MemoryMiB[mi]
					pl.SetMemoryCap(memMiB) // checked by parsePlatform
					coords["memory_mb"] = memMiB
				}
				if err := pl.SetRuntime(rt); err != nil { // checks the platform too
					p.errf("platform", "gpus", "with gpus = %d%s: %v", g, runtimeDesc(rt), err)
					continue
				}
				for _, rs := range ps.Runtime {
					if rs.Axis {
						coords[rs.Key] = rt[rs.Key]
					}
				}
				var tooSmall []int // specs whose tasks cannot fit
				var need int64
				fits := func(i int) bool { return pl.Topology.NoTransfers || info[i].max <= pl.MemoryBytes }
				for i := range specs {
					if !fits(i) {
						tooSmall = append(tooSmall, i)
						need = max(need, info[i].max)
					}
				}
				if len(tooSmall) > 0 {
					where := fmt.Sprintf("n = %d", specs[tooSmall[0]].N)
					if fileW != nil {
						where = "workload " + w.File
					}
					if more := len(tooSmall) - 1; more > 0 {
						where += fmt.Sprintf(" (and %d more points)", more)
					}
					first := info[tooSmall[0]].max
					msg := fmt.Sprintf("%s = %v per GPU is smaller than the inputs of one task at %s (%.4g MiB = %d bytes); the task could never run: use %s >= %s",
						memKey, coords[memKey], where, float64(first)/hardware.MiB, first, memKey, minMemory(memKey, need))
					if !reported[msg] {
						p.errf("platform", memKey, "%s", msg)
						reported[msg] = true
					}
				}
				for i, sp := range specs {
					if !fits(i) {
						continue
					}
					c := map[string]any{}
					for k, v := range coords {
						c[k] = v
					}
					if fileW == nil {
						c["n"] = sp.N
						if len(w.NZ) > 0 {
							c["nz"] = sp.NZ
						}
						if len(w.Keep) > 0 {
							c["keep"] = sp.Keep
						}
					}
					s.points = append(s.points, point{gpus: g, memMiB: memMiB, memBytes: memBytes, spec: sp, coords: c,
						platform: pl, wsMiB: info[i].ws, maxInput: info[i].max, fileSHA: fileSHA, workload: fileW})
				}
			}
		}
	}
	if len(s.points)*len(s.Schedulers)*s.Repetitions > maxRuns {
		p.errf("suite", "", "the suite expands to more than %d runs; reduce the axes", maxRuns)
	}
}

// runtimeDesc names a point's runtime settings in an error, "" when none.
func runtimeDesc(rt map[string]any) string {
	keys := make([]string, 0, len(rt))
	for k := range rt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		out += fmt.Sprintf(", %s = %v", k, rt[k])
	}
	return out
}

// maxRuns bounds a suite's expansion.
const maxRuns = 10_000_000

// generate builds the workloads checkPoints measures (a variable so the
// fuzz test can bound their size).
var generate = workloads.Generate

func minMemory(key string, bytes int64) string {
	if key == "memory_bytes" {
		return strconv.FormatInt(bytes, 10)
	}
	return strconv.FormatFloat(float64(bytes)/hardware.MiB, 'g', 6, 64)
}

// keyConfig is the normalised configuration of a run: everything outside
// the code that can change its result. Its JSON is hashed into the run's
// configuration id, which run.Key combines with the code versions, so a
// changed parameter, platform number, model or scheduler never reuses a
// stale result.
type keyConfig struct {
	Workload     workloads.Spec `json:"workload"`
	WorkloadFile string         `json:"workload_file_sha,omitempty"`
	Platform     string         `json:"platform_hash"`
	Scheduler    string         `json:"scheduler"`
	Params       string         `json:"params"`
	Seed         uint64         `json:"seed"`
	Rep          int            `json:"rep"`
	Charge       bool           `json:"charge_sched_time"`
	Executor     string         `json:"executor"`
	Code         string         `json:"scheduler_code,omitempty"` // external or plugin code
}

func hash64(parts ...any) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		b, _ := json.Marshal(p)
		h.Write(b)
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Runs expands the suite: points × schedulers × repetitions, in a stable
// order (point-major, then scheduler, then repetition). Seeds derive from
// the suite seed and the run's configuration, never from the order, so
// results do not depend on -j or on which runs are selected.
//
// The workload seed (random orders, sparse masks, random pairs) derives
// from the suite seed, the workload and the repetition but not the
// scheduler, so every scheduler of a repetition sees the same instance;
// [workload] seed fixes it for every repetition. The run seed (the
// scheduler's random source) also covers the scheduler and its parameters.
func (s *Suite) Runs() []Run {
	if s.Batch != nil {
		return s.batchRuns()
	}
	var out []Run
	for _, pt := range s.points {
		for rep := 0; rep < s.Repetitions; rep++ {
			spec := pt.spec
			if pt.workload == nil {
				if s.Workload.Seed != nil {
					spec.Seed = *s.Workload.Seed
				} else {
					sp := spec
					sp.Seed = 0
					spec.Seed = hash64("workload", s.Seed, sp, rep)
				}
			}
			for _, sc := range s.Schedulers {
				r := Run{Suite: s.Name, Label: sc.Label,
					Scheduler: sc.Name, SchedulerVersion: sc.Version, Params: sc.Params, Point: pt.coords, Rep: rep,
					ChargeSched: sc.ChargeSched, Executor: s.Executor, Spec: spec,
					WorkingSet: pt.wsMiB, Timeout: int64(s.Timeout), Code: sc.Code, file: pt.workload, suiteSeed: s.Seed,
					kc: keyConfig{Workload: spec, WorkloadFile: pt.fileSHA, Scheduler: sc.Name, Params: sc.keyParams(),
						Rep: rep, Charge: sc.ChargeSched, Executor: s.Executor, Code: sc.Code.Key()}}
				out = append(out, r.WithPlatform(pt.platform))
			}
		}
	}
	return out
}

// WithPlatform is the run as the suite expands it on platform p: its
// seed and keys derive from p's numbers (a fit evaluating a candidate
// platform then runs what a sweep on that platform would).
func (r Run) WithPlatform(p *hardware.Platform) Run {
	kc := r.kc
	kc.Platform, kc.Seed = p.Hash(), 0
	kc.Seed = hash64("run", r.suiteSeed, kc)
	b, _ := json.Marshal(kc)
	if told, ok := run.PeerConfig(r.Executor, run.Job{Scheduler: r.Scheduler, Params: r.Params, Workload: workloadName(r.Spec, r.file)}, p); ok {
		b = []byte(told) // a peer runtime's run is what it is told
	}
	sum := sha256.Sum256(b)
	r.ConfigID = hex.EncodeToString(sum[:12])
	r.Key = run.KeyFor(r.Executor, r.ConfigID, r.SchedulerVersion)
	r.kc, r.Seed, r.Platform = kc, kc.Seed, p
	return r
}

// readWorkloadFile reads a suite's workload file: a StarPU tasks.rec
// (.rec: the whole file, repetitions after a recorded wait behind a
// barrier, workloads.ReadStarPUTasks), else a workload JSON.
func readWorkloadFile(path string) (*workloads.Workload, error) {
	if strings.HasSuffix(path, ".rec") {
		st, err := workloads.ReadStarPUTasksFile(path, workloads.StarPUTasksOptions{})
		if err != nil {
			return nil, err
		}
		return st.Workload, nil
	}
	return workloads.ReadJSONFile(path)
}

// Workload builds the run's workload (generated, or the suite's file).
func (r Run) Workload() (*workloads.Workload, error) {
	if r.file != nil {
		return r.file, nil
	}
	return workloads.Generate(r.Spec)
}

// Generated tells whether the run's workload is generated from its Spec
// (not read from the suite's file, not a batch run): runs of one Spec can
// then share one generated workload.
func (r Run) Generated() bool { return r.Batch == nil && r.file == nil }

// Config builds the run configuration; the platform is a private copy.
func (r Run) Config() (run.Config, error) {
	if r.Batch != nil {
		b := *r.Batch
		return run.Config{Executor: run.BatchExecutor, Batch: &b}, nil
	}
	w, err := r.Workload()
	if err != nil {
		return run.Config{}, err
	}
	return r.ConfigWith(w), nil
}

// ConfigWith builds the run configuration on w, the run's workload built
// beforehand (workloads are read only, so runs may share one).
func (r Run) ConfigWith(w *workloads.Workload) run.Config {
	params := map[string]string{}
	for k, v := range r.Params {
		params[k] = v
	}
	return run.Config{Workload: w, Platform: r.Platform.Clone(), Scheduler: r.Scheduler, Params: params,
		Seed: r.Seed, ChargeSched: r.ChargeSched, Executor: r.Executor}
}

// workloadName is the name a run's workload has: its file's, else its spec's.
func workloadName(spec workloads.Spec, file *workloads.Workload) string {
	if file != nil {
		return file.Name
	}
	return spec.Name()
}

// Record returns the identity fields of the run's record, so error rows
// say what failed even when the run never started.
func (r Run) Record() run.Record {
	if r.Batch != nil {
		id := run.BatchIdentity(*r.Batch)
		id.Key, id.Config, id.Suite, id.Label, id.Point, id.Rep = r.Key, r.ConfigID, r.Suite, r.Label, r.Point, r.Rep
		return run.Record{Identity: id}
	}
	id := run.NewIdentity(workloadName(r.Spec, r.file), r.WorkingSet, r.Platform, r.Scheduler, r.Params, r.Seed, r.Executor, r.ChargeSched)
	id.Key, id.Config, id.Suite, id.Label, id.Point, id.Rep = r.Key, r.ConfigID, r.Suite, r.Label, r.Point, r.Rep
	id.SchedulerCode = r.Code
	return run.Record{Identity: id}
}

// Thin keeps at most k values of each axis (the first, the last and evenly
// spaced ones between), for quick previews. The runs kept are runs of the
// full suite, with the same keys, so a later full sweep only adds the rest.
func (s *Suite) Thin(k int) {
	if k < 1 {
		return
	}
	if s.Batch != nil {
		s.Batch.Workloads = s.Batch.Workloads[:min(k, len(s.Batch.Workloads))]
		return
	}
	type axis struct {
		vals []string
		of   func(p point) string
	}
	str := func(v any) string { return fmt.Sprint(v) }
	var axes []axis
	add := func(n int, val func(i int) string, of func(p point) string) {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = val(i)
		}
		axes = append(axes, axis{vals, of})
	}
	ps, w := s.Platform, s.Workload
	add(len(ps.GPUs), func(i int) string { return str(ps.GPUs[i]) }, func(p point) string { return str(p.gpus) })
	add(len(ps.MemoryMiB), func(i int) string { return str(ps.MemoryMiB[i]) }, func(p point) string { return str(p.memMiB) })
	add(len(ps.MemoryBytes), func(i int) string { return str(ps.MemoryBytes[i]) }, func(p point) string { return str(p.memBytes) })
	add(len(w.N), func(i int) string { return str(w.N[i]) }, func(p point) string { return str(p.spec.N) })
	add(len(w.NZ), func(i int) string { return str(w.NZ[i]) }, func(p point) string { return str(p.spec.NZ) })
	add(len(w.Keep), func(i int) string { return str(w.Keep[i]) }, func(p point) string { return str(p.spec.Keep) })
	for _, rs := range ps.Runtime {
		if rs.Axis {
			add(len(rs.Values), func(i int) string { return str(rs.Values[i]) }, func(p point) string { return str(p.coords[rs.Key]) })
		}
	}
	var kept []point
	for _, p := range s.points {
		ok := true
		for _, a := range axes {
			if len(a.vals) > k && !slices.Contains(spread(a.vals, k), a.of(p)) {
				ok = false
			}
		}
		if ok {
			kept = append(kept, p)
		}
	}
	s.points = kept
}

// spread picks k of the values, evenly spaced, first and last included.
func spread(vals []string, k int) []string {
	if k == 1 {
		return vals[:1]
	}
	out := make([]string, k)
	for i := range out {
		out[i] = vals[(i*(len(vals)-1)+(k-1)/2)/(k-1)]
	}
	return out
}
