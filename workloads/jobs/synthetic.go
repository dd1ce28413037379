package jobs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// SyntheticOptions describe a synthetic trace.
type SyntheticOptions struct {
	Jobs int // number of jobs (at least; the last burst completes)
	// Load is the offered load: the bursts' core-seconds (runs plus loads)
	// over the cluster's core-seconds for the span of submissions; 0 = the
	// mean of the Rackham weeks.
	Load         float64
	Nodes        int // 486
	Seed         uint64
	CoresPerNode int
	NodeMemoryGB float64
	BandwidthGBs float32
}

// burst is one input file's jobs in a Rackham week: the shape synthetic
// traces resample.
type burst struct {
	cores int
	jobs  []burstJob
	work  float64 // core-seconds, runs and one load per job
}

type burstJob struct{ offset, duration, walltime int64 }

var (
	burstsOnce sync.Once
	bursts     []burst
	weeksLoad  float64
	burstsErr  error
)

// rackhamBursts collects the file bursts of the embedded weeks and their
// mean offered load, once.
func rackhamBursts() ([]burst, float64, error) {
	burstsOnce.Do(func() {
		var loads []float64
		for _, w := range Weeks() {
			t, err := Week(w, WeekOptions{})
			if err != nil {
				burstsErr = err
				return
			}
			byFile := map[int]int{}
			first, last := t.Jobs[0].Submit, t.Jobs[len(t.Jobs)-1].Submit
			work := 0.0
			for _, j := range t.Jobs {
				b, ok := byFile[j.File]
				if !ok {
					b = len(bursts)
					byFile[j.File] = b
					bursts = append(bursts, burst{cores: j.Cores})
				}
				bu := &bursts[b]
				off := int64(0)
				if len(bu.jobs) > 0 {
					off = j.Submit - (bursts[b].jobs[0].offset)
				} else {
					off = j.Submit // first job: remember its absolute time, fixed below
				}
				bu.jobs = append(bu.jobs, burstJob{offset: off, duration: j.Duration, walltime: j.Walltime})
				w := float64(j.Cores) * float64(j.Duration+LoadSeconds(j.SizeGB, 0.1))
				bu.work += w
				work += w
			}
			for _, b := range byFile {
				bursts[b].jobs[0].offset = 0
			}
			loads = append(loads, work/(486*20*float64(last-first+1)))
		}
		for _, l := range loads {
			weeksLoad += l / float64(len(loads))
		}
	})
	return bursts, weeksLoad, burstsErr
}

// Synthetic generates a trace of Rackham-like weeks: bursts of jobs sharing
// one input file are drawn uniformly from the file bursts of the embedded
// Rackham weeks (core count, submission offsets within the burst, durations
// and walltimes), and arrive as a Poisson process whose rate gives the
// offered load. Each burst has its own user and file. Same options, same
// trace.
func Synthetic(o SyntheticOptions) (*Trace, error) {
	w := WeekOptions{CoresPerNode: o.CoresPerNode, NodeMemoryGB: o.NodeMemoryGB, BandwidthGBs: o.BandwidthGBs}.Defaults()
	if o.Nodes == 0 {
		o.Nodes = 486
	}
	if o.Jobs < 1 || o.Jobs > MaxJobs {
		return nil, fmt.Errorf("synthetic trace of %d jobs: want 1 to 50,000,000", o.Jobs)
	}
	if o.Load < 0 || math.IsNaN(o.Load) || o.Load > 100 {
		return nil, fmt.Errorf("synthetic load %g: want 0 (Rackham's) to 100", o.Load)
	}
	bs, meanLoad, err := rackhamBursts()
	if err != nil {
		return nil, err
	}
	if o.Load == 0 {
		o.Load = meanLoad
	}
	var meanWork float64
	for _, b := range bs {
		meanWork += b.work / float64(len(bs))
	}
	// bursts per second = load × capacity / work per burst
	rate := o.Load * float64(o.Nodes*w.CoresPerNode) / meanWork
	rng := rand.New(rand.NewPCG(o.Seed, 0x6c6f63616c697479))
	t := &Trace{Name: fmt.Sprintf("synthetic-%d", o.Jobs)}
	at := 0.0
	for user := 1; len(t.Jobs) < o.Jobs; user++ {
		at += rng.ExpFloat64() / rate
		b := &bs[rng.IntN(len(bs))]
		size := FileSizeGB(b.cores, w.CoresPerNode, w.NodeMemoryGB)
		for _, j := range b.jobs {
			t.Jobs = append(t.Jobs, Job{Submit: int64(at) + j.offset, Cores: min(b.cores, w.CoresPerNode), Duration: j.duration,
				Walltime: j.walltime, User: user, File: user, SizeGB: size, Eval: true})
		}
	}
	sort.SliceStable(t.Jobs, func(a, b int) bool { return t.Jobs[a].Submit < t.Jobs[b].Submit })
	for i := range t.Jobs {
		t.Jobs[i].ID = i + 1
	}
	t.Notes = append(t.Notes, fmt.Sprintf("synthetic: %d jobs in bursts resampled from the Rackham weeks, offered load %.3f, seed %d", len(t.Jobs), o.Load, o.Seed))
	return t, t.Validate(w.CoresPerNode)
}
