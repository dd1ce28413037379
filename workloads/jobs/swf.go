package jobs

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// SWFOptions are the choices a Standard Workload Format trace needs to become
// a batch workload of the chapter's model.
type SWFOptions struct {
	// Share is the rule inferring shared input files (thesis §6.5.3: same
	// user, same core count, submitted within Window seconds, 800):
	//   - "previous-job": a job shares the file of the job submitted just
	//     before it when both have the same user and core count and were
	//     submitted within Window of each other. The release's files follow
	//     exactly this rule on its three published weeks (see
	//     TestInferFilesMatchesRelease).
	//   - "user": chained per user: the user's previous job, whoever
	//     submitted in between.
	//   - "anchored": per (user, cores), within Window of the group's first job.
	Share  string
	Window int64
	// WalltimeFactor sets the walltime of jobs without a requested time
	// (field 9 = -1): ceil(factor × (run time + load)).
	WalltimeFactor float64
	CoresPerNode   int
	NodeMemoryGB   float64
	BandwidthGBs   float32
}

// ShareChoices are the shared-file rules.
var ShareChoices = []string{"previous-job", "user", "anchored"}

// Defaults fills zero fields with the chapter's values.
func (o SWFOptions) Defaults() SWFOptions {
	if o.Share == "" {
		o.Share = "previous-job"
	}
	if o.Window == 0 {
		o.Window = 800
	}
	if o.WalltimeFactor == 0 {
		o.WalltimeFactor = 1
	}
	w := WeekOptions{CoresPerNode: o.CoresPerNode, NodeMemoryGB: o.NodeMemoryGB, BandwidthGBs: o.BandwidthGBs}.Defaults()
	o.CoresPerNode, o.NodeMemoryGB, o.BandwidthGBs = w.CoresPerNode, w.NodeMemoryGB, w.BandwidthGBs
	return o
}

// ReadSWFFile reads an SWF file (gzip-compressed or not).
func ReadSWFFile(path string, o SWFOptions) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSWF(path, f, o)
}

// The SWF fields memsched uses (1-based, as the format's definition numbers them).
const (
	swfFields    = 18
	swfJob       = 1
	swfSubmit    = 2
	swfRun       = 4
	swfAllocated = 5
	swfRequested = 8
	swfReqTime   = 9
	swfUser      = 12
)

// swfFieldNames name the fields in errors (1-based).
var swfFieldNames = [swfFields + 1]string{"", "job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time", "requested memory", "status", "user id",
	"group id", "executable", "queue", "partition", "preceding job", "think time"}

// ReadSWF reads a trace in the Standard Workload Format (Parallel Workloads
// Archive, version 2.2): comment lines start with ';', each job is a line of
// 18 numbers. Jobs whose run time or processor count is unknown (-1) or zero
// are skipped and counted in the notes (cancelled jobs); a job needing more
// cores than a node has is replaced by as many single-node jobs as necessary
// for the same work (thesis §6.5.3). Every job is evaluated.
func ReadSWF(name string, in io.Reader, o SWFOptions) (*Trace, error) {
	o = o.Defaults()
	if !slices.Contains(ShareChoices, o.Share) {
		return nil, fmt.Errorf("share = %q: must be one of %s%s", o.Share, strings.Join(ShareChoices, ", "), suggest.Closest(o.Share, ShareChoices))
	}
	if o.Window < 0 || o.WalltimeFactor < 1 || math.IsNaN(o.WalltimeFactor) {
		return nil, fmt.Errorf("window = %d s, walltime_factor = %g: want a window >= 0 and a factor >= 1", o.Window, o.WalltimeFactor)
	}
	br, err := maybeGunzip(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	t := &Trace{Name: name}
	var skipped, split int
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == ';' {
			continue
		}
		f := strings.Fields(s)
		if len(f) != swfFields {
			return nil, fmt.Errorf("%s:%d: %d fields; an SWF job line has %d (a truncated file?)", name, line, len(f), swfFields)
		}
		var v [swfFields + 1]int64
		for i, x := range f {
			n, err := strconv.ParseFloat(x, 64)
			if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
				return nil, fmt.Errorf("%s:%d: field %d is %q; SWF fields are numbers (-1 when unknown)", name, line, i+1, x)
			}
			// Times, counts and ids alike: a number beyond 2^40 is no
			// job's (MaxSeconds is about 34,800 years).
			if math.Abs(n) > MaxSeconds {
				return nil, fmt.Errorf("%s:%d: field %d (%s) is %s; SWF numbers must be within ±2^40 (%d), -1 when unknown", name, line, i+1, swfFieldNames[i+1], x, int64(MaxSeconds))
			}
			v[i+1] = int64(math.Round(n))
		}
		run, procs := v[swfRun], v[swfRequested]
		if procs <= 0 {
			procs = v[swfAllocated]
		}
		if run <= 0 || procs <= 0 || v[swfSubmit] < 0 {
			skipped++
			continue
		}
		m := int64(o.CoresPerNode)
		if n := (procs + m - 1) / m; int64(len(t.Jobs))+n > MaxJobs {
			return nil, fmt.Errorf("%s:%d: job %d asks for %d processors, %d nodes of %d cores; with the jobs before it that is more than %d single-node jobs", name, line, v[swfJob], procs, n, m, MaxJobs)
		}
		for left := procs; left > 0; left -= m {
			c := min(left, m)
			size := FileSizeGB(int(c), o.CoresPerNode, o.NodeMemoryGB)
			wall := v[swfReqTime]
			if wall <= 0 {
				w := math.Ceil(o.WalltimeFactor * float64(run+LoadSeconds(size, o.BandwidthGBs)))
				if !(w <= MaxSeconds) {
					return nil, fmt.Errorf("%s:%d: job %d has no requested time, and walltime_factor %g × (run time %d s + load) = %.4g s is more than 2^40 s", name, line, v[swfJob], o.WalltimeFactor, run, w)
				}
				wall = int64(w)
			}
			t.Jobs = append(t.Jobs, Job{ID: int(v[swfJob]), Submit: v[swfSubmit], Cores: int(c), Duration: run,
				Walltime: wall, User: int(v[swfUser]), SizeGB: size, Eval: true})
			if left > m {
				split++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(t.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no job with a known run time and processor count", name)
	}
	sort.SliceStable(t.Jobs, func(a, b int) bool { return t.Jobs[a].Submit < t.Jobs[b].Submit })
	// Split jobs repeat their SWF number: renumber in submission order.
	for i := range t.Jobs {
		t.Jobs[i].ID = i + 1
	}
	InferFiles(t.Jobs, o.Share, o.Window)
	t.Notes = append(t.Notes, fmt.Sprintf("SWF: %d jobs read, %d skipped (unknown or zero run time or processors), %d extra single-node jobs from splitting; jobs renumbered in submission order; files inferred by the %q rule within %d s",
		len(t.Jobs)-split, skipped, split, o.Share, o.Window))
	return t, t.Validate(o.CoresPerNode)
}

func maybeGunzip(in io.Reader) (io.Reader, error) {
	br := bufio.NewReader(in)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return gzipReader(br)
	}
	return br, nil
}

// InferFiles numbers the shared input files of jobs in submission order by
// rule (see SWFOptions.Share), files from 1.
func InferFiles(jobs []Job, rule string, window int64) {
	type last struct {
		submit, first int64
		cores, file   int
	}
	byUser := map[int]last{}
	byUserCores := map[[2]int]last{}
	next := 0
	for i := range jobs {
		j := &jobs[i]
		file := 0
		switch rule {
		case "previous-job":
			if i > 0 {
				p := &jobs[i-1]
				if p.User == j.User && p.Cores == j.Cores && j.Submit-p.Submit <= window {
					file = p.File
				}
			}
		case "user":
			if l, ok := byUser[j.User]; ok && l.cores == j.Cores && j.Submit-l.submit <= window {
				file = l.file
			}
		case "anchored":
			if l, ok := byUserCores[[2]int{j.User, j.Cores}]; ok && j.Submit-l.first <= window {
				file = l.file
			}
		}
		if file == 0 {
			next++
			file = next
			byUserCores[[2]int{j.User, j.Cores}] = last{first: j.Submit, file: file}
		}
		j.File = file
		byUser[j.User] = last{submit: j.Submit, cores: j.Cores, file: file}
	}
}
