package jobs

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// The three Rackham weeks of thesis chapter 6 whose per-job outputs the
// release published (rackham/README.md says how they were rebuilt).
//
//go:embed rackham/*/*.csv.gz
var rackhamFS embed.FS

// Weeks lists the embedded Rackham weeks (first day, as the release names them).
func Weeks() []string {
	ents, _ := fs.ReadDir(rackhamFS, "rackham")
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Week numbers of 2022 (the thesis names weeks by number: "week 40").
var weekNumbers = map[string]int{"2022-02-07": 6, "2022-02-21": 8, "2022-09-05": 36}

// WeekNumber returns the 2022 week number of an embedded week, or 0.
func WeekNumber(week string) int { return weekNumbers[week] }

// WeekOptions are the choices a Rackham week needs for what the release's
// outputs lost (see rackham/README.md).
type WeekOptions struct {
	// Walltime decides the requested walltimes, which the outputs do not
	// carry: "exact" sets every walltime to ceil(WalltimeFactor × (duration +
	// load of the file)); "revealed" does the same except for the jobs the
	// release killed at their walltime (their run is the same under every
	// scheduler while their file wait differs), whose walltime the outputs
	// reveal.
	Walltime string
	// WalltimeFactor is fitted: memsched batch fit chooses the factor whose
	// LEA run agrees best in aggregate with the release's outcomes of week
	// 2022-09-05 (|ln| of the mean-stretch ratio plus |ln| of the file-wait
	// ratio: 0.038 at factor 30, 1.722 at factor 1) and measures it on
	// 2022-02-21 (0.556 against 1.179): Rackham's users ask for far more
	// than their jobs use.
	WalltimeFactor float64
	// WalltimeMax caps the walltimes set by the factor: Rackham's limit of
	// 10 days (864000 s; thesis §6.5.3: "jobs durations extend up to 10
	// days", and the release's workload files ask for walltime: 864000).
	WalltimeMax int64
	// LeadIn stands for the jobs before the week (the release starts from
	// Rackham's history: jobs of the 7 previous days pinned to their
	// historical nodes, then Day 0 under the scheduler): "none" starts from an
	// empty cluster; "day" adds the week's last day, "week" the whole week,
	// shifted back by the week's length, as unevaluated jobs.
	LeadIn string
	// Tail stands for Day 8: "day" (default): the week's first day shifted
	// forward by the week's length, unevaluated; or "none". The release's
	// loop plans queued jobs only when a completion falls on its 30 s grid,
	// which a cluster still receiving jobs provides; without a tail the
	// week's last jobs wait for the cluster to drain.
	Tail string
	// Platform numbers the file sizes and load times depend on.
	CoresPerNode int
	NodeMemoryGB float64
	BandwidthGBs float32
}

// Choices of the week options.
var (
	WalltimeChoices = []string{"revealed", "exact"}
	LeadInChoices   = []string{"none", "day", "week"}
	TailChoices     = []string{"none", "day"}
)

// Defaults fills zero fields: revealed walltimes, the fitted factor 30 up
// to 10 days,
// no lead-in, a one-day tail, Rackham's nodes (20 cores, 128 GB, 0.1 GB/s).
func (o WeekOptions) Defaults() WeekOptions {
	if o.Walltime == "" {
		o.Walltime = "revealed"
	}
	if o.WalltimeFactor == 0 {
		o.WalltimeFactor = 30
	}
	if o.WalltimeMax == 0 {
		o.WalltimeMax = 864000
	}
	if o.LeadIn == "" {
		o.LeadIn = "none"
	}
	if o.Tail == "" {
		o.Tail = "day"
	}
	if o.CoresPerNode == 0 {
		o.CoresPerNode = 20
	}
	if o.NodeMemoryGB == 0 {
		o.NodeMemoryGB = 128
	}
	if o.BandwidthGBs == 0 {
		o.BandwidthGBs = 0.1
	}
	return o
}

func (o WeekOptions) check() error {
	for _, c := range []struct {
		name, v string
		ok      []string
	}{{"walltime", o.Walltime, WalltimeChoices}, {"lead_in", o.LeadIn, LeadInChoices}, {"tail", o.Tail, TailChoices}} {
		if !slices.Contains(c.ok, c.v) {
			return fmt.Errorf("%s = %q: must be one of %s%s", c.name, c.v, strings.Join(c.ok, ", "), suggest.Closest(c.v, c.ok))
		}
	}
	if o.WalltimeFactor < 1 || math.IsInf(o.WalltimeFactor, 0) || math.IsNaN(o.WalltimeFactor) {
		return fmt.Errorf("walltime_factor = %g: want a number >= 1 (a walltime shorter than the run would kill every job)", o.WalltimeFactor)
	}
	if o.WalltimeMax < 1 {
		return fmt.Errorf("walltime_max = %d s: want a positive number of seconds", o.WalltimeMax)
	}
	return nil
}

// LoadSeconds is the time to load a file of size GB at bw GB/s as the
// release counts it: a C float division truncated to whole seconds
// (add_data_in_node in src/basic_functions.c), so 13 cores load in 831 s.
func LoadSeconds(sizeGB, bw float32) int64 { return int64(sizeGB / bw) }

// Week reads an embedded Rackham week.
func Week(name string, o WeekOptions) (*Trace, error) {
	weeks := Weeks()
	if !slices.Contains(weeks, name) {
		return nil, fmt.Errorf("unknown Rackham week %q%s; the weeks are %s", name, suggest.Closest(name, weeks), strings.Join(weeks, ", "))
	}
	sub, _ := fs.Sub(rackhamFS, path.Join("rackham", name))
	return readWeek("rackham/"+name, sub, o)
}

// ReadWeekDir reads a week directory laid out like the embedded ones
// (jobs.csv.gz and, optionally, outcomes.csv.gz; plain .csv also accepted).
func ReadWeekDir(dir string, o WeekOptions) (*Trace, error) {
	return readWeek(filepath.Base(filepath.Clean(dir)), os.DirFS(dir), o)
}

func openFirst(fsys fs.FS, names ...string) (fs.File, string, error) {
	for _, n := range names {
		f, err := fsys.Open(n)
		if err == nil {
			return f, n, nil
		}
	}
	return nil, "", fs.ErrNotExist
}

func readWeek(name string, fsys fs.FS, o WeekOptions) (*Trace, error) {
	o = o.Defaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	f, fn, err := openFirst(fsys, "jobs.csv.gz", "jobs.csv")
	if err != nil {
		return nil, fmt.Errorf("%s: no jobs.csv.gz or jobs.csv", name)
	}
	defer f.Close()
	t := &Trace{Name: path.Base(name)}
	coreSeconds, err := readJobsCSV(name+"/"+fn, f, t, o)
	if err != nil {
		return nil, err
	}
	if of, on, err := openFirst(fsys, "outcomes.csv.gz", "outcomes.csv"); err == nil {
		defer of.Close()
		t.Outcomes, err = readOutcomes(name+"/"+on, of)
		if err != nil {
			return nil, err
		}
	}
	if err := deriveTimes(t, coreSeconds, o); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if t.Outcomes != nil {
		t.Outcomes.inferPhase(t, o.BandwidthGBs)
	}
	addEdges(t, o)
	t.Sort()
	return t, t.Validate(o.CoresPerNode)
}

func readJobsCSV(name string, in io.Reader, t *Trace, o WeekOptions) (map[int]int64, error) {
	tab, err := openTable(name, in, []string{"job", "submit_s", "cores", "user", "file", "core_seconds"})
	if err != nil {
		return nil, err
	}
	coreSeconds := map[int]int64{}
	for {
		ok, err := tab.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var v [6]int64
		for i, c := range []string{"job", "submit_s", "cores", "user", "file", "core_seconds"} {
			if v[i], err = tab.int(c); err != nil {
				return nil, err
			}
		}
		if v[2] < 1 || v[2] > int64(o.CoresPerNode) {
			return nil, fmt.Errorf("%s:%d: job %d asks for %d cores; a node has 1 to %d", name, tab.line, v[0], v[2], o.CoresPerNode)
		}
		if _, dup := coreSeconds[int(v[0])]; dup {
			return nil, fmt.Errorf("%s:%d: job %d appears twice", name, tab.line, v[0])
		}
		coreSeconds[int(v[0])] = v[5]
		t.Jobs = append(t.Jobs, Job{ID: int(v[0]), Submit: v[1], Cores: int(v[2]), User: int(v[3]), File: int(v[4]),
			SizeGB: FileSizeGB(int(v[2]), o.CoresPerNode, o.NodeMemoryGB), Eval: true})
	}
	if len(t.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no job", name)
	}
	return coreSeconds, nil
}

// deriveTimes sets durations and walltimes. With outcomes: under scheduler
// s a job runs min(duration + wait_s, walltime) (start_jobs in
// src/basic_functions.c), so duration = max over s of (run − wait) when one
// run is not capped, and a job capped somewhere reveals walltime = max run.
// A job capped under every scheduler shows it by a stretch below 1, and
// its duration is at least run / stretch − load (no queue).
// Without outcomes the FCFS core time is all there is: duration =
// core_seconds / cores, its file wait included (at most one load).
func deriveTimes(t *Trace, coreSeconds map[int]int64, o WeekOptions) error {
	revealed := 0
	for i := range t.Jobs {
		j := &t.Jobs[i]
		load := LoadSeconds(j.SizeGB, o.BandwidthGBs)
		var wall int64
		if t.Outcomes != nil {
			if _, ok := t.Outcomes.index[j.ID]; !ok {
				return fmt.Errorf("job %d has no outcome", j.ID)
			}
			var dmin, dmax, rmax int64 = math.MaxInt64, 0, 0
			var bound float64 // a lower bound of the duration from the stretches
			killed := false
			for _, s := range t.Outcomes.Schedulers {
				oc, _ := t.Outcomes.Get(s, j.ID)
				d := oc.RunS - oc.FileWaitS
				dmin, dmax, rmax = min(dmin, d), max(dmax, d), max(rmax, oc.RunS)
				// stretch = (queue + run) / (duration + load) >= run / (duration + load)
				bound = max(bound, float64(oc.RunS)/oc.Stretch-float64(load))
				killed = killed || oc.Stretch < 1 // it ended before its load and run could
			}
			j.Duration = max(dmax, int64(math.Ceil(bound-0.5)), 1)
			if dmin != dmax || killed {
				wall = rmax
			}
		} else {
			cs := coreSeconds[j.ID]
			if cs%int64(j.Cores) != 0 {
				return fmt.Errorf("job %d: core_seconds %d is not a multiple of its %d cores", j.ID, cs, j.Cores)
			}
			j.Duration = max(cs/int64(j.Cores), 1)
		}
		j.Walltime = int64(math.Ceil(o.WalltimeFactor * float64(j.Duration+load)))
		if j.Walltime > o.WalltimeMax {
			j.Walltime = max(o.WalltimeMax, j.Duration+load) // never kill a job the week ran
		}
		if wall > 0 && o.Walltime == "revealed" {
			j.Walltime = wall
			revealed++
		}
	}
	if o.Walltime == "revealed" {
		t.Notes = append(t.Notes, fmt.Sprintf("%d walltimes revealed by the release's outputs; the others are %g × (duration + load), at most %d s", revealed, o.WalltimeFactor, o.WalltimeMax))
	} else {
		t.Notes = append(t.Notes, fmt.Sprintf("walltimes are %g × (duration + load), at most %d s", o.WalltimeFactor, o.WalltimeMax))
	}
	return nil
}

// Offsets that keep the ids and files of lead-in and tail copies apart from
// the week's (the release's ids stay below 10^7).
const (
	leadInOffset = 10_000_000
	tailOffset   = 20_000_000
	day          = 86400
)

// addEdges adds the lead-in and tail copies, unevaluated.
func addEdges(t *Trace, o WeekOptions) {
	if o.LeadIn == "none" && o.Tail == "none" {
		return
	}
	first, last := t.Jobs[0].Submit, t.Jobs[0].Submit
	for i := range t.Jobs {
		first, last = min(first, t.Jobs[i].Submit), max(last, t.Jobs[i].Submit)
	}
	// The week's length in whole days, at least 7: a copy never overlaps it.
	period := max(7*day, (last-first)/day*day+day)
	week := t.Jobs
	var extra []Job
	for _, j := range week {
		if o.LeadIn == "week" || o.LeadIn == "day" && j.Submit > last-day {
			c := j
			c.ID, c.File, c.Submit, c.Eval = j.ID-leadInOffset, j.File+leadInOffset, j.Submit-period, false
			extra = append(extra, c)
		}
		if o.Tail == "day" && j.Submit < first+day {
			c := j
			c.ID, c.File, c.Submit, c.Eval = j.ID+tailOffset, j.File+tailOffset, j.Submit+period, false
			extra = append(extra, c)
		}
	}
	// Times stay non-negative: shift everything if the lead-in starts before 0.
	shift := int64(0)
	for _, c := range extra {
		shift = max(shift, -c.Submit)
	}
	t.Jobs = append(t.Jobs, extra...)
	if shift > 0 {
		for i := range t.Jobs {
			t.Jobs[i].Submit += shift
		}
	}
	sort.SliceStable(t.Jobs, func(a, b int) bool { return t.Jobs[a].Submit < t.Jobs[b].Submit })
	t.Notes = append(t.Notes, fmt.Sprintf("lead-in %s, tail %s: %d unevaluated copies shifted by %d s", o.LeadIn, o.Tail, len(extra), period))
}
