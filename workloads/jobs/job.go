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

// Validate checks a trace for a cluster of coresPerNode cores per node: every
// job fits on one node, durations and walltimes are positive, ids are unique
// and jobs are in submission order. It reports the first problem.
func (t *Trace) Validate(coresPerNode int) error {
	seen := make(map[int]bool, len(t.Jobs))
	for i := range t.Jobs {
		j := &t.Jobs[i]
		switch {
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
		case j.File < 0 || math.IsNaN(float64(j.SizeGB)) || j.SizeGB < 0:
			return fmt.Errorf("job %d has file %d of %g GB; want a file id from 0 and a size from 0", j.ID, j.File, j.SizeGB)
		case i > 0 && j.Submit < t.Jobs[i-1].Submit:
			return fmt.Errorf("job %d is submitted at %d s, before job %d (%d s): jobs must be in submission order", j.ID, j.Submit, t.Jobs[i-1].ID, t.Jobs[i-1].Submit)
		}
		seen[j.ID] = true
	}
	if len(t.Jobs) == 0 {
		return fmt.Errorf("the trace has no job")
	}
	return nil
}
