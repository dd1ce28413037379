// Package jobs holds batch workloads for the cluster simulator of thesis
// chapter 6: single-node jobs that read one input file from a shared file
// system. It reads the Rackham weeks of the chapter (rebuilt from the
// released simulator's per-job outputs, embedded), the Parallel Workloads
// Archive's Standard Workload Format with the chapter's shared-file
// inference, the release's own workload files, and generates synthetic weeks.
package jobs

import (
	"fmt"
	"math"
	"sort"
)

// Job is one single-node job.
type Job struct {
	ID       int
	Submit   int64 // seconds since the trace origin
	Cores    int   // 1 .. cores per node
	Duration int64 // running time once the file is present (the release's "delay")
	// Walltime is the requested time. The load of the file counts inside it
	// (thesis §6.3); the job is killed at start + Walltime.
	Walltime int64
	User     int
	File     int     // input file; jobs with the same File share it; 0 = no file
	SizeGB   float32 // input file size; a C float in the release, kept as such
	// Eval marks the jobs the metrics cover (the evaluated week); the others
	// only load the cluster (lead-in, tail).
	Eval bool
}

// Trace is a batch workload: jobs in submission order.
type Trace struct {
	Name string
	Jobs []Job
	// Outcomes are the released simulator's per-job results for this trace,
	// when known (the Rackham weeks); nil otherwise.
	Outcomes *Outcomes
	// Notes say what a reader or generator decided (dropped lines, inferred
	// fields), for the record.
	Notes []string
}

// FileSizeGB is the chapter's file size rule: Cores/20 × 128 GB (thesis
// §6.5.3), 6.4 GB per core, rounded to a C float as the release's workload
// files print it (%f) and read it back (atof into a float).
func FileSizeGB(cores, coresPerNode int, nodeMemoryGB float64) float32 {
	return float32(float64(cores) / float64(coresPerNode) * nodeMemoryGB)
}

// Sort orders jobs by submission time, then ID: the order of the schedulers'
// queue.
func (t *Trace) Sort() {
	sort.SliceStable(t.Jobs, func(a, b int) bool {
		ja, jb := &t.Jobs[a], &t.Jobs[b]
		if ja.Submit != jb.Submit {
			return ja.Submit < jb.Submit
		}
		return ja.ID < jb.ID
	})
}

// Evaluated counts the evaluated jobs.
func (t *Trace) Evaluated() int {
	n := 0
	for i := range t.Jobs {
		if t.Jobs[i].Eval {
			n++
		}
	}
	return n
}

// MaxSeconds bounds each time of a job (submission, duration, walltime):
// 2^40 s, about 34,800 years.
const MaxSeconds = 1 << 40

// MaxSpan bounds the last submission plus twice the sum of the walltimes,
// which bounds every time the batch simulator reaches (a job starts at the
// latest when every job before it has ended; a reservation waits at most
// as long again): 2^43 s, half the range of its node index.
const MaxSpan = 1 << 43

// MaxJobs bounds the jobs of a trace (a line of an SWF file that asks for
// many nodes becomes a job per node; a synthetic trace has at most as many).
const MaxJobs = 50_000_000

// MaxLoadSeconds bounds the load of one file (its size over the bandwidth):
// the simulator keeps loads and waits in 32-bit seconds.
const MaxLoadSeconds = math.MaxInt32

// Validate checks a trace for a cluster of coresPerNode cores per node: every
// job fits on one node, durations and walltimes are positive, ids are unique,
// jobs are in submission order, and the times are within MaxSeconds and
// MaxSpan. It reports the first problem.
func (t *Trace) Validate(coresPerNode int) error {
	if len(t.Jobs) > MaxJobs {
		return fmt.Errorf("the trace has %d jobs; at most %d", len(t.Jobs), MaxJobs)
	}
	seen := make(map[int]bool, len(t.Jobs))
	span := 0.0
	for i := range t.Jobs {
		j := &t.Jobs[i]
		span += 2 * float64(j.Walltime)
		switch {
		case j.Submit > MaxSeconds || j.Duration > MaxSeconds || j.Walltime > MaxSeconds:
			return fmt.Errorf("job %d: submitted at %d s, duration %d s, walltime %d s: each time must be at most 2^40 s (%d s, about 34,800 years)", j.ID, j.Submit, j.Duration, j.Walltime, int64(MaxSeconds))
		case seen[j.ID]:
			return fmt.Errorf("job %d appears twice", j.ID)
		case j.Cores < 1 || j.Cores > coresPerNode:
			return fmt.Errorf("job %d asks for %d cores; a node has 1 to %d", j.ID, j.Cores, coresPerNode)
		case j.Duration < 1:
			return fmt.Errorf("job %d has duration %d s; want at least 1", j.ID, j.Duration)
		case j.Walltime < 1:
			return fmt.Errorf("job %d has walltime %d s; want at least 1", j.ID, j.Walltime)
		case j.Submit < 0:
			return fmt.Errorf("job %d is submitted at %d s; want a time from 0", j.ID, j.Submit)
		case j.File < 0 || !(j.SizeGB >= 0) || math.IsInf(float64(j.SizeGB), 0):
			return fmt.Errorf("job %d has file %d of %g GB; want a file id from 0 and a size from 0", j.ID, j.File, j.SizeGB)
		case i > 0 && j.Submit < t.Jobs[i-1].Submit:
			return fmt.Errorf("job %d is submitted at %d s, before job %d (%d s): jobs must be in submission order", j.ID, j.Submit, t.Jobs[i-1].ID, t.Jobs[i-1].Submit)
		}
		seen[j.ID] = true
	}
	if len(t.Jobs) == 0 {
		return fmt.Errorf("the trace has no job")
	}
	if span += float64(t.Jobs[len(t.Jobs)-1].Submit); span > MaxSpan {
		return fmt.Errorf("the last submission plus twice the sum of the walltimes is %.4g s, more than the 2^43 s (%d s) the batch simulator's times hold; shorten the walltimes or the trace", span, int64(MaxSpan))
	}
	return nil
}

// CheckLoads checks that every job's file loads within MaxLoadSeconds at
// bandwidthGBs (a tiny bandwidth would make loads of centuries).
func (t *Trace) CheckLoads(bandwidthGBs float32) error {
	worst := -1
	for i := range t.Jobs {
		if j := &t.Jobs[i]; j.File != 0 && (worst < 0 || j.SizeGB > t.Jobs[worst].SizeGB) {
			worst = i
		}
	}
	if worst < 0 {
		return nil
	}
	j := &t.Jobs[worst]
	if s := float64(j.SizeGB / bandwidthGBs); !(s <= MaxLoadSeconds) { // as LoadSeconds divides
		return fmt.Errorf("bandwidth %g GB/s: job %d's %g GB file would load in %.4g s, more than the %d s (68 years) the simulator holds; give a bandwidth of at least %.3g GB/s",
			bandwidthGBs, j.ID, j.SizeGB, s, int64(MaxLoadSeconds), float64(j.SizeGB)/MaxLoadSeconds)
	}
	return nil
}
