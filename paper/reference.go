package paper

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// RefPoint is one measured point of the original V100 runs (one row of
// reference/gonthier-raw-results.csv): one scheduler at one problem size N of one series.
// Provenance and column meanings are in reference/README.md.
type RefPoint struct {
	// Figure is the series id "paper/experiment/run", e.g. "ipdps22/2d_2gpu/paper".
	Figure string
	// Workload is the reference's workload label: matmul2d, matmul2d_random_order,
	// matmul2d_random_tasks, matmul2d_sparse2pct, matmul3d or cholesky_taskset
	// (ProjectWorkload maps it to the claims' names).
	Workload string
	// Scheduler is the reference's scheduler label, e.g. "HFP+U+R+Belady"
	// (DisplayScheduler maps it to the project's display name).
	Scheduler string
	GPUs      int
	// MemoryMB is STARPU_LIMIT_CUDA_MEM in MiB per GPU; 0 = no limit.
	MemoryMB float64
	// N is the number of tiles per dimension.
	N int
	// WorkingSetMiB is the total size of the distinct data the tasks read.
	WorkingSetMiB float64
	// GFlops is the mean throughput over iterations 2-11 (Cholesky: the 11th iteration only).
	GFlops float64
	// GFlopsDev is the standard deviation of GFlops over those iterations; NaN when the
	// reference has none (Cholesky).
	GFlopsDev float64
	// TransfersMB is host->GPU plus GPU->GPU MiB over the whole run (all 11 iterations);
	// NaN when no transfer file exists for the series.
	TransfersMB float64
	// Iterations is how many iterations TransfersMB sums: 0 means the
	// papers' 11; a run of memsched's (a peer's, a real GPU's) has 1, and
	// so has a series whose script ran its program once (the CSV's
	// iterations column).
	Iterations int
	// SchedulerEnv is the environment of the run as written in the experiment script.
	SchedulerEnv string
	// Confidence is the mapping confidence of the row's scheduler and N labels: high or medium.
	Confidence string
	// Source is the file in starpu-runtime/starpu (tag papers/ICPP2023, or "@commit" when read
	// from git history) the row was read from.
	Source string
}

// TransfersPerIteration is the transfer volume of one iteration (MiB).
func (p RefPoint) TransfersPerIteration() float64 {
	if p.Iterations > 0 {
		return p.TransfersMB / float64(p.Iterations)
	}
	return p.TransfersMB / PaperIterations
}

// PaperIterations is the number of iterations the papers' transfer
// volumes are summed over (reference/README.md: "all 11 iterations").
const PaperIterations = 11

// HasTransfers reports whether the point has a transfer volume.
func (p RefPoint) HasTransfers() bool { return !math.IsNaN(p.TransfersMB) }

// HasDev reports whether the point has a GFlop/s standard deviation.
func (p RefPoint) HasDev() bool { return !math.IsNaN(p.GFlopsDev) }

// referenceDisplayNames maps the reference's scheduler labels (column "scheduler") to the
// project's display names (DisplayNames). See ReferenceDisplayNames.
var referenceDisplayNames = map[string]string{
	"EAGER": "EAGER", // StarPU modular-eager-prefetching
	"DMDAR": "DMDAR",
	"MST":   "MST",
	"RCM":   "RCM",

	"DARTS":                       "DARTS",               // LRU eviction
	"DARTS+LUF":                   "DARTS+LUF",           // EVICTION_STRATEGY_DYNAMIC_DATA_AWARE=1
	"DARTS+LUF (3-input variant)": "DARTS+LUF-3inputs",   // APP=1
	"DARTS+LUF+TH":                "DARTS+LUF threshold", // THRESHOLD=1
	"DARTS+OPTI":                  "DARTS+LUF+OPTI",      // THRESHOLD=2 ... on top of LUF; -3inputs when APP=1

	// U = ORDER_U (flip), R = STARPU_SCHED_READY (Ready), Belady = BELADY.
	"HFP+U":                                "HFP only flip",
	"HFP+R":                                "HFP only Ready",
	"HFP+Belady":                           "HFP only Belady",
	"HFP+U+R+Belady":                       "HFP",
	"HFP+U+R+Belady (sched. time counted)": "HFP with sched. time",
	"HFP+U+R+Belady (sched. time counted, fast 1st iter.)": "HFP with sched. time + fast start",
	// Only in the IPDPS 2022 1-GPU series, whose figure shows mHFP: on one GPU mHFP is HFP with
	// Ready and flip (no Belady), with (counted) or without (excluded) its scheduling time.
	"HFP+U+R (sched. time excluded)": "mHFP no sched. time",
	"HFP+U+R (sched. time counted)":  "mHFP",

	"hMETIS+R":                 "hMETIS+R",               // HMETIS=1: partitioned at run time, time counted
	"hMETIS+R (no part. time)": "hMETIS+R no part. time", // HMETIS=3/6: pre-computed partitions
}

// ReferenceDisplayNames returns a copy of the map from the reference's scheduler labels (the
// "scheduler" column of reference/gonthier-raw-results.csv) to the project's display names:
//
//	EAGER, DMDAR, MST, RCM, DARTS, DARTS+LUF        -> the same name
//	DARTS+LUF (3-input variant)                     -> DARTS+LUF-3inputs
//	DARTS+LUF+TH                                    -> DARTS+LUF threshold
//	DARTS+OPTI                                      -> DARTS+LUF+OPTI (the Cholesky block, run
//	                                                   with APP=1, is DARTS+LUF+OPTI-3inputs:
//	                                                   use RefPoint.DisplayScheduler)
//	HFP+U / HFP+R / HFP+Belady                      -> HFP only flip / only Ready / only Belady
//	HFP+U+R+Belady                                  -> HFP
//	HFP+U+R+Belady (sched. time counted)            -> HFP with sched. time
//	HFP+U+R+Belady (sched. time counted, fast 1st iter.) -> HFP with sched. time + fast start
//	HFP+U+R (sched. time excluded) / (... counted)  -> mHFP no sched. time / mHFP (IPDPS 1 GPU)
//	hMETIS+R / hMETIS+R (no part. time)             -> hMETIS+R / hMETIS+R no part. time
//
// Every value is one of DisplayNames.
func ReferenceDisplayNames() map[string]string {
	m := make(map[string]string, len(referenceDisplayNames))
	for k, v := range referenceDisplayNames {
		m[k] = v
	}
	return m
}

// DisplayScheduler returns the project's display name of the point's scheduler, or "" when the
// label is unknown. It refines ReferenceDisplayNames with the run's environment: DARTS+OPTI
// run with APP=1 (the Cholesky task set) is "DARTS+LUF+OPTI-3inputs".
func (p RefPoint) DisplayScheduler() string {
	name, ok := referenceDisplayNames[p.Scheduler]
	if !ok {
		return ""
	}
	if p.Scheduler == "DARTS+OPTI" && hasEnvField(p.SchedulerEnv, "APP=1") {
		return "DARTS+LUF+OPTI-3inputs"
	}
	return name
}

func hasEnvField(s, field string) bool {
	for _, f := range strings.Fields(s) {
		if f == field {
			return true
		}
	}
	return false
}

// referenceWorkloads maps the reference's workload labels to the claims' workload names.
var referenceWorkloads = map[string]string{
	"matmul2d":              "matmul2d",
	"matmul2d_random_order": "matmul2d-random-order",
	"matmul2d_random_tasks": "randompairs",
	"matmul2d_sparse2pct":   "sparse2d",
	"matmul3d":              "matmul3d",
	"cholesky_taskset":      "cholesky-taskset",
}

// ProjectWorkload returns the claims' workload name of the point's workload ("" when unknown).
// Note that the reference's sparse workload keeps 2% of the tasks.
func (p RefPoint) ProjectWorkload() string { return referenceWorkloads[p.Workload] }

// refColumns are the CSV columns LoadReference reads; others (tile, x, y, z, time_ms) are
// ignored, and the column order does not matter. The column iterations is optional (empty or
// absent: the papers' 11).
var refColumns = []string{
	"source_file", "figure", "workload", "ngpu", "gpu_mem_mb", "N", "working_set_mib",
	"scheduler", "scheduler_env", "gflops", "gflops_dev", "transfers_mb", "mapping_confidence",
}

// LoadReference reads the reference measurements (reference/gonthier-raw-results.csv). Columns
// are found by their header names. A missing column, a row with the wrong number of fields, or
// a value that does not parse is an error naming the file, line and column.
func LoadReference(path string) ([]RefPoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("paper: %w", err)
	}
	defer f.Close()
	pts, err := readReference(f, path)
	if err != nil {
		return nil, err
	}
	return pts, nil
}

func readReference(r io.Reader, path string) ([]RefPoint, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("paper: %s: empty file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("paper: %s: header: %w", path, err)
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("paper: %s: duplicate column %q", path, h)
		}
		col[h] = i
	}
	var missing []string
	for _, c := range refColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("paper: %s: missing columns: %s", path, strings.Join(missing, ", "))
	}

	var pts []RefPoint
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("paper: %s:%d: %w", path, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("paper: %s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		p, err := parseRefRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("paper: %s:%d: %w", path, line, err)
		}
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("paper: %s: no data rows", path)
	}
	return pts, nil
}

func parseRefRow(rec []string, col map[string]int) (RefPoint, error) {
	get := func(name string) string { return strings.TrimSpace(rec[col[name]]) }
	var errs []error
	text := func(name string) string {
		v := get(name)
		if v == "" {
			errs = append(errs, fmt.Errorf("column %s: empty", name))
		}
		return v
	}
	// number parses a float; empty gives def when optional, an error otherwise.
	number := func(name string, optional bool, def float64) float64 {
		v := get(name)
		if v == "" {
			if !optional {
				errs = append(errs, fmt.Errorf("column %s: empty", name))
			}
			return def
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			errs = append(errs, fmt.Errorf("column %s: invalid number %q", name, v))
			return def
		}
		if x < 0 {
			errs = append(errs, fmt.Errorf("column %s: negative value %q", name, v))
		}
		return x
	}
	integer := func(name string) int {
		v := get(name)
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("column %s: invalid integer %q", name, v))
			return 0
		}
		if n < 1 {
			errs = append(errs, fmt.Errorf("column %s: %d must be >= 1", name, n))
		}
		return n
	}
	p := RefPoint{
		Source:        text("source_file"),
		Figure:        text("figure"),
		Workload:      text("workload"),
		GPUs:          integer("ngpu"),
		MemoryMB:      number("gpu_mem_mb", true, 0),
		N:             integer("N"),
		WorkingSetMiB: number("working_set_mib", false, 0),
		Scheduler:     text("scheduler"),
		SchedulerEnv:  get("scheduler_env"),
		GFlops:        number("gflops", false, 0),
		GFlopsDev:     number("gflops_dev", true, math.NaN()),
		TransfersMB:   number("transfers_mb", true, math.NaN()),
		Confidence:    text("mapping_confidence"),
	}
	if _, ok := col["iterations"]; ok && get("iterations") != "" {
		if p.Iterations = integer("iterations"); p.Iterations > 1000 {
			errs = append(errs, fmt.Errorf("column iterations: %d; at most 1000", p.Iterations))
		}
	}
	return p, errors.Join(errs...)
}
