package workloads

// Importer of a StarPU task graph: the tasks.rec file that StarPU's
// starpu_fxt_tool writes from an FxT trace (src/debug/traces/starpu_fxt.c
// dump_tasks), read as StarPU's own tools/starpu_replay.c reads it.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Limits on what ReadStarPUTasks reads.
const (
	recMaxLine     = 1 << 20 // bytes of a line
	recMaxRecords  = maxTasks
	recMaxHandles  = 1 << 12 // handles of one task (StarPU's STARPU_NMAXBUFS is 8; dynamic handles go further)
	recMaxDeps     = 1 << 16 // DependsOn entries of one record
	recMaxCollapse = 1 << 26 // dependencies kept in all, after collapsing the records that are not tasks
	recMaxName     = 256     // bytes of a Name or Model
	recMaxMS       = 1e12    // a timestamp (ms) past 30 years is not a measurement
	recMaxGFlop    = 1e9     // 1e18 flops
	recMaxBarrier  = 1 << 22 // dependencies a barrier between two repetitions may add
)

// StarPUTasksOptions say which part of a tasks.rec becomes the workload.
type StarPUTasksOptions struct {
	// Repetition 0 imports the whole file; k >= 1 imports only its k-th
	// repetition: the k-th weakly connected part of the task graph, in the
	// order of their first submission (an application repeating a
	// computation on freshly registered data, as cholesky_implicit's 11
	// iterations; a file whose graph is connected has one).
	Repetition int `json:"repetition,omitempty"`
	// NoBarriers leaves the repetitions of the whole file independent.
	// By default a repetition that started, in the recorded run, after the
	// previous one had ended (the application waited for all its tasks,
	// starpu_task_wait_for_all, which tasks.rec does not record) waits for
	// it: each task of it without a dependency depends on each task of the
	// previous one that no task depends on.
	NoBarriers bool `json:"no_barriers,omitempty"`
}

// StarPUTasks is a workload imported from a tasks.rec, with what the file
// recorded of the run.
type StarPUTasks struct {
	Workload *Workload
	// Per task of the workload: its JobId, footprint, worker (-1: none
	// recorded) and recorded start and end (ms; NaN when absent).
	JobID      []uint64
	Footprint  []uint32
	WorkerID   []int
	StartMS    []float64
	EndMS      []float64
	Codelets   []StarPUCodelet // the (kernel, footprint) pairs of the tasks, in order of first use
	Parts      []StarPUPart    // every repetition of the file (also when one is imported)
	Repetition int             // the part imported (1-based), 0 for the whole file
	Barriers   int             // dependencies added between repetitions
	Records    int             // records read
	Skipped    int             // records that are not tasks (WontUse, internal acquire and ghost records)
}

// StarPUCodelet is one task shape of a StarPU codelet as the tasks name it:
// the performance model's symbol (the workload's kernel), the footprint
// (the model's history key) and the tasks' flops; RecordedUS is the mean
// EndTime - StartTime of its tasks (0 when none has both).
type StarPUCodelet struct {
	Kernel     string
	Footprint  uint32
	Flops      float64
	Tasks      int
	RecordedUS float64
	HasModel   bool // the tasks name a Model (else Kernel is their Name)
}

// StarPUPart is one repetition of the file: its tasks and recorded span.
type StarPUPart struct {
	Tasks          int
	StartMS, EndMS float64 // NaN when no task of it has times
}

// RecordedMakespan is the span of the imported tasks in the recorded run,
// max EndTime - min StartTime, in seconds (0 when the file has no times).
func (s *StarPUTasks) RecordedMakespan() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range s.StartMS {
		if !math.IsNaN(s.StartMS[i]) && !math.IsNaN(s.EndMS[i]) {
			lo, hi = min(lo, s.StartMS[i]), max(hi, s.EndMS[i])
		}
	}
	if hi < lo {
		return 0
	}
	return (hi - lo) * 1e-3
}

// Compare is one line comparing a simulated makespan (seconds) with the
// recorded one.
func (s *StarPUTasks) Compare(simulated float64) string {
	rec := s.RecordedMakespan()
	what := "the whole file"
	if s.Repetition > 0 {
		what = fmt.Sprintf("repetition %d of %d", s.Repetition, len(s.Parts))
	} else if len(s.Parts) > 1 {
		what = fmt.Sprintf("%d repetitions, %d barriers", len(s.Parts), s.Barriers)
	}
	if rec == 0 {
		return fmt.Sprintf("starpu tasks (%s, %d tasks): simulated makespan %.6f ms; the file records no times", what, len(s.JobID), simulated*1e3)
	}
	return fmt.Sprintf("starpu tasks (%s, %d tasks): simulated makespan %.6f ms, recorded %.6f ms (%+.3f %%)",
		what, len(s.JobID), simulated*1e3, rec*1e3, (simulated/rec-1)*100)
}

// Summary is a few lines for the terminal: what was imported and the
// recorded times.
func (s *StarPUTasks) Summary() string {
	var b strings.Builder
	what := "the whole file"
	if s.Repetition > 0 {
		what = fmt.Sprintf("repetition %d", s.Repetition)
	} else if len(s.Parts) > 1 {
		what += fmt.Sprintf(" (%d dependencies of barriers between repetitions)", s.Barriers)
	}
	fmt.Fprintf(&b, "starpu tasks: %d records, %d not tasks (WontUse, acquire, ghost); %d repetitions; imported %s: %d tasks, %d data; recorded makespan %.6f ms\n",
		s.Records, s.Skipped, len(s.Parts), what, len(s.JobID), len(s.Workload.Data), s.RecordedMakespan()*1e3)
	for k, p := range s.Parts {
		if k == 8 && len(s.Parts) > 10 {
			fmt.Fprintf(&b, "  ... %d more repetitions\n", len(s.Parts)-9)
			p, k = s.Parts[len(s.Parts)-1], len(s.Parts)-1
		}
		fmt.Fprintf(&b, "  repetition %d: %d tasks, recorded %.6f ms (%.6f to %.6f)\n", k+1, p.Tasks, p.EndMS-p.StartMS, p.StartMS, p.EndMS)
		if k == len(s.Parts)-1 {
			break
		}
	}
	for _, c := range s.Codelets {
		fmt.Fprintf(&b, "  kernel %s footprint %08x: %d tasks, %.6g GFlop, recorded mean %.3f µs\n", c.Kernel, c.Footprint, c.Tasks, c.Flops/1e9, c.RecordedUS)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ReadStarPUTasksFile is ReadStarPUTasks on the named file; the workload
// is named after it.
func ReadStarPUTasksFile(path string, opt StarPUTasksOptions) (*StarPUTasks, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workloads: %w", err)
	}
	defer f.Close()
	return ReadStarPUTasks(f, path, opt)
}

// rec is one record of a tasks.rec.
type rec struct {
	line         int // of its first line
	jobID        uint64
	submitOrder  uint64
	hasOrder     bool
	name, model  string
	control      bool // Control: WontUse
	priority     int
	deps         []uint64
	workerID     int
	hasWorker    bool
	start, end   float64
	footprint    uint32
	gflop        float64
	handles      []uint64
	modes        []string
	sizes        []int64
	modesLine    int
	hasMPIRank   bool
	real         bool // a task: WorkerId >= 0 or a Model
	hasJob, hasF bool
}

// The keys of a record. Used: Name, Model, JobId, SubmitOrder, Priority,
// DependsOn, WorkerId, StartTime, EndTime, Footprint, GFlop, Handles,
// Modes, Sizes, Control, MPIRank. Ignored, as they change nothing
// simulated: File and Line (the submission's place in the source),
// DepLabels (what kind each dependency is: task, ghost, tag; each is a
// dependency), Tag (tag dependencies are in DependsOn already),
// MemoryNode (where the recorded run placed the task: its scheduler's
// choice), SubmitTime (memsched submits every task at the start),
// Iteration (the application's loop annotation) and Parameters (the
// handles' descriptions; Sizes gives their bytes).
var (
	recUsed    = []string{"Name", "Model", "JobId", "SubmitOrder", "Priority", "DependsOn", "WorkerId", "StartTime", "EndTime", "Footprint", "GFlop", "Handles", "Modes", "Sizes", "Control", "MPIRank"}
	recIgnored = []string{"File", "Line", "DepLabels", "Tag", "MemoryNode", "SubmitTime", "Iteration", "Parameters"}
)

// ReadStarPUTasks reads a tasks.rec (records of "Key: value" lines
// separated by blank lines) into a workload. Each task (a record with a
// WorkerId >= 0 or a Model; not Control: WontUse) becomes a memsched task
// in submission order (SubmitOrder, then JobId) whose kernel is its Model
// (else its Name) and flops GFlop × 1e9; its inputs are its handles, a
// handle listed twice taken once with the union of its modes (R, W, RW;
// S, scratch, is a W on a scratch datum; a handle of 0 bytes, StarPU's void
// interface, only orders tasks and is left out). Its dependencies are the
// tasks its DependsOn reaches, through the records that are not tasks (an
// acquire depending on a task keeps the task that depends on the acquire
// after it); JobIds absent from the file are ignored, as starpu_replay
// does.
//
// A handle is an address, and applications reuse addresses once they
// unregister a handle (cholesky_implicit's repetitions). A datum is one
// registration: an access that StarPU's sequential consistency would have
// ordered after the handle's previous accesses (a write after any access,
// a read after a write) but that no dependency path orders starts a new
// datum at that address. Sizes must agree within a datum.
//
// Every number and count is bounded, and every error names its line.
func ReadStarPUTasks(r io.Reader, name string, opt StarPUTasksOptions) (*StarPUTasks, error) {
	if opt.Repetition < 0 {
		return nil, fmt.Errorf("workloads: starpu tasks: repetition %d; give 0 (the whole file) or k >= 1 (the k-th repetition)", opt.Repetition)
	}
	recs, err := readRecords(r, name)
	if err != nil {
		return nil, err
	}
	return buildStarPU(recs, name, opt)
}

func readRecords(r io.Reader, name string) ([]*rec, error) {
	br := bufio.NewReaderSize(r, recMaxLine)
	var recs []*rec
	var cur *rec
	seen := map[string]bool{}
	ln := 0
	errf := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, ln, fmt.Sprintf(format, a...))
	}
	finish := func() error {
		if cur == nil {
			return nil
		}
		c := cur
		cur = nil
		at := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: the record starting here %s", name, c.line, fmt.Sprintf(format, a...))
		}
		if !c.hasMPIRank {
			return at("has no MPIRank line, which starpu_fxt_tool writes last in every record: the record (or the file) is truncated")
		}
		if !c.hasJob {
			return at("has no JobId")
		}
		c.real = !c.control && ((c.hasWorker && c.workerID >= 0) || c.model != "")
		if c.control && c.name != "" {
			return at("is Control: WontUse and has a Name: a record is one or the other")
		}
		if len(c.handles) != len(c.modes) && (c.real || len(c.modes) > 0) || len(c.handles) != len(c.sizes) && (c.real || len(c.sizes) > 0) {
			return at("has %d Handles, %d Modes and %d Sizes; give one mode and one size per handle", len(c.handles), len(c.modes), len(c.sizes))
		}
		if c.real {
			if c.model == "" && c.name == "" {
				return at("is a task (WorkerId %d) with neither Model nor Name: its kernel has no name", c.workerID)
			}
			if math.IsNaN(c.start) != math.IsNaN(c.end) {
				return at("has only one of StartTime and EndTime")
			}
			if !math.IsNaN(c.start) && c.end < c.start {
				return at("ends (EndTime %.6f) before it starts (StartTime %.6f)", c.end, c.start)
			}
		}
		if len(recs) >= recMaxRecords {
			return at("is one record more than %d; the file is too large", recMaxRecords)
		}
		recs = append(recs, c)
		return nil
	}
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 || err == nil {
			ln++
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errf("line longer than %d bytes", recMaxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if errors.Is(err, io.EOF) && len(b) > 0 {
			return nil, errf("the file ends inside this line (no newline): it is truncated")
		}
		if errors.Is(err, io.EOF) {
			break
		}
		line := string(bytes.TrimRight(b, "\r\n"))
		if strings.TrimSpace(line) == "" {
			if err := finish(); err != nil {
				return nil, err
			}
			continue
		}
		if cur == nil {
			cur = &rec{line: ln, workerID: -1, start: math.NaN(), end: math.NaN()}
			clear(seen)
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, errf("%q is not a \"Key: value\" line", clip(line))
		}
		val = strings.TrimSpace(val)
		if seen[key] {
			return nil, errf("key %s appears twice in one record (a blank line separates records)", key)
		}
		seen[key] = true
		if err := cur.set(key, val); err != nil {
			return nil, errf("%s: %v", key, err)
		}
		if key == "Modes" {
			cur.modesLine = ln
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records; a tasks.rec holds records of \"Key: value\" lines separated by blank lines", name)
	}
	return recs, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func (c *rec) set(key, val string) error {
	uint := func(v string, bits int) (uint64, error) {
		x, err := strconv.ParseUint(v, 10, bits)
		if err != nil {
			if strings.Contains(v, "_") {
				return 0, fmt.Errorf("%q: a rank-prefixed id (an MPI trace); import one rank's file", v)
			}
			return 0, fmt.Errorf("%q: want an integer in 0..2^%d", v, bits)
		}
		return x, nil
	}
	ms := func(v string) (float64, error) {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || x < 0 || x > recMaxMS {
			return 0, fmt.Errorf("%q: want a time in ms in [0, %g]", v, recMaxMS)
		}
		return x, nil
	}
	var err error
	switch key {
	case "Name", "Model":
		if val == "" || len(val) > recMaxName || strings.ContainsFunc(val, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return fmt.Errorf("%q: want 1 to %d printable bytes", clip(val), recMaxName)
		}
		if key == "Name" {
			c.name = val
		} else {
			c.model = val
		}
	case "JobId":
		c.jobID, err = uint(val, 62)
		c.hasJob = true
	case "SubmitOrder":
		c.submitOrder, err = uint(val, 62)
		c.hasOrder = true
	case "Priority":
		var p int64
		if p, err = strconv.ParseInt(val, 10, 32); err != nil {
			return fmt.Errorf("%q: want an integer in -2^31..2^31-1", val)
		}
		c.priority = int(p)
	case "DependsOn":
		f := strings.Fields(val)
		if len(f) > recMaxDeps {
			return fmt.Errorf("%d dependencies; at most %d", len(f), recMaxDeps)
		}
		for _, s := range f {
			d, err := uint(s, 62)
			if err != nil {
				return err
			}
			c.deps = append(c.deps, d)
		}
	case "WorkerId":
		var w int64
		if w, err = strconv.ParseInt(val, 10, 32); err != nil || w < -1 || w > 1<<20 {
			return fmt.Errorf("%q: want -1 or a worker id in 0..2^20", val)
		}
		c.workerID, c.hasWorker = int(w), true
	case "StartTime":
		c.start, err = ms(val)
	case "EndTime":
		c.end, err = ms(val)
	case "Footprint":
		var f uint64
		if f, err = strconv.ParseUint(val, 16, 32); err != nil {
			return fmt.Errorf("%q: want a hexadecimal footprint of at most 32 bits", val)
		}
		c.footprint, c.hasF = uint32(f), true
	case "GFlop":
		c.gflop, err = strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(c.gflop) || c.gflop < 0 || c.gflop > recMaxGFlop {
			return fmt.Errorf("%q: want a number of GFlop in [0, %g]", val, recMaxGFlop)
		}
	case "Handles":
		f := strings.Fields(val)
		if len(f) > recMaxHandles {
			return fmt.Errorf("%d handles; at most %d", len(f), recMaxHandles)
		}
		for _, s := range f {
			h, err := strconv.ParseUint(s, 16, 64)
			if err != nil {
				return fmt.Errorf("%q: want a hexadecimal handle address", s)
			}
			c.handles = append(c.handles, h)
		}
	case "Modes":
		c.modes = strings.Fields(val)
		if len(c.modes) > recMaxHandles {
			return fmt.Errorf("%d modes; at most %d", len(c.modes), recMaxHandles)
		}
	case "Sizes":
		f := strings.Fields(val)
		if len(f) > recMaxHandles {
			return fmt.Errorf("%d sizes; at most %d", len(f), recMaxHandles)
		}
		for _, s := range f {
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil || x < 0 || x > MaxDataBytes {
				return fmt.Errorf("%q: want a size in bytes in 0..2^50", s)
			}
			c.sizes = append(c.sizes, x)
		}
	case "Control":
		if val != "WontUse" {
			return fmt.Errorf("%q: the only control record starpu_fxt_tool writes is WontUse", val)
		}
		c.control = true
	case "MPIRank":
		if _, err := strconv.ParseInt(val, 10, 32); err != nil {
			return fmt.Errorf("%q: want an integer", val)
		}
		c.hasMPIRank = true
	default:
		if !slices.Contains(recIgnored, key) {
			return fmt.Errorf("unknown key; the keys of starpu_fxt_tool's tasks.rec are %s (used) and %s (ignored: they change nothing simulated)",
				strings.Join(recUsed, ", "), strings.Join(recIgnored, ", "))
		}
	}
	return err
}

// parseRecMode reads a Modes token: the letters starpu_fxt_tool writes in
// the order R, W, S (scratch), X (reduction), X-mpi, C (commute).
func parseRecMode(tok string) (m Mode, scratch bool, err error) {
	rest := tok
	for _, l := range []string{"R", "W", "S", "X-mpi", "X", "C"} {
		if !strings.HasPrefix(rest, l) {
			continue
		}
		rest = rest[len(l):]
		switch l {
		case "R":
			m |= R
		case "W":
			m |= W
		case "S":
			scratch = true
		case "X", "X-mpi":
			return 0, false, fmt.Errorf("mode %q: a reduction (X) is not modelled: memsched has no per-worker reduction buffers", tok)
		case "C":
			return 0, false, fmt.Errorf("mode %q: commuting accesses (C) are not modelled: memsched orders every write by a dependency", tok)
		}
	}
	switch {
	case rest != "":
		return 0, false, fmt.Errorf("mode %q: unknown letter %q; starpu_fxt_tool writes R, W, S, X and C in that order", tok, rest[:1])
	case scratch && m == 0:
		m = W
	case scratch:
		return 0, false, fmt.Errorf("mode %q: scratch (S) with R or W", tok)
	case m == 0:
		return 0, false, fmt.Errorf("mode %q: no access", tok)
	}
	return m, scratch, nil
}

func buildStarPU(recs []*rec, name string, opt StarPUTasksOptions) (*StarPUTasks, error) {
	byJob := make(map[uint64]int, len(recs))
	for i, c := range recs {
		if j, dup := byJob[c.jobID]; dup {
			return nil, fmt.Errorf("%s:%d: JobId %d again (first at line %d); JobIds are unique", name, c.line, c.jobID, recs[j].line)
		}
		byJob[c.jobID] = i
	}
	order, err := recTopo(recs, byJob, name)
	if err != nil {
		return nil, err
	}
	// The real tasks in submission order, and each one's index.
	var real []int
	for i, c := range recs {
		if c.real {
			real = append(real, i)
		}
	}
	if len(real) == 0 {
		return nil, fmt.Errorf("%s: no task records (with a WorkerId >= 0 or a Model) among %d records", name, len(recs))
	}
	slices.SortFunc(real, func(a, b int) int {
		ka, kb := recs[a].jobID, recs[b].jobID
		if recs[a].hasOrder && recs[b].hasOrder && recs[a].submitOrder != recs[b].submitOrder {
			ka, kb = recs[a].submitOrder, recs[b].submitOrder
		}
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	taskOf := make([]int, len(recs))
	for i := range taskOf {
		taskOf[i] = -1
	}
	for t, i := range real {
		taskOf[i] = t
	}
	// Collapse the records that are not tasks: via[i] is the tasks a
	// non-task record i stands for, in topological order.
	deps := make([][]int, len(real))
	via := make([][]int, len(recs))
	kept := 0
	for _, i := range order {
		c := recs[i]
		var ds []int
		for _, d := range c.deps {
			j, ok := byJob[d]
			if !ok {
				continue
			}
			if t := taskOf[j]; t >= 0 {
				ds = append(ds, t)
			} else {
				ds = append(ds, via[j]...)
			}
		}
		slices.Sort(ds)
		ds = slices.Compact(ds)
		if kept += len(ds); kept > recMaxCollapse {
			return nil, fmt.Errorf("%s:%d: more than %d dependencies after collapsing the records that are not tasks", name, c.line, recMaxCollapse)
		}
		if t := taskOf[i]; t >= 0 {
			deps[t] = ds
		} else {
			via[i] = ds
		}
	}
	// Parts (repetitions): weakly connected components, in order of their
	// first task.
	uf := make([]int, len(real))
	for t := range uf {
		uf[t] = t
	}
	var find func(int) int
	find = func(x int) int {
		for uf[x] != x {
			uf[x] = uf[uf[x]]
			x = uf[x]
		}
		return x
	}
	for t, ds := range deps {
		for _, d := range ds {
			a, b := find(t), find(d)
			if a != b {
				uf[max(a, b)] = min(a, b)
			}
		}
	}
	partOf := make([]int, len(real))
	partIdx := map[int]int{}
	var parts []StarPUPart
	for t, i := range real {
		root := find(t)
		k, ok := partIdx[root]
		if !ok {
			k = len(parts)
			partIdx[root] = k
			parts = append(parts, StarPUPart{StartMS: math.NaN(), EndMS: math.NaN()})
		}
		partOf[t] = k
		p := &parts[k]
		p.Tasks++
		if c := recs[i]; !math.IsNaN(c.start) {
			p.StartMS = nanMin(p.StartMS, c.start)
			p.EndMS = nanMax(p.EndMS, c.end)
		}
	}
	if opt.Repetition > len(parts) {
		return nil, fmt.Errorf("%s: repetition %d: the file has %d repetitions (independent parts of its task graph)", name, opt.Repetition, len(parts))
	}
	// The tasks imported, renumbered.
	keep := make([]int, len(real)) // new id + 1, 0: left out
	n := 0
	for t := range real {
		if opt.Repetition == 0 || partOf[t] == opt.Repetition-1 {
			n++
			keep[t] = n
		}
	}
	st := &StarPUTasks{Parts: parts, Repetition: opt.Repetition, Records: len(recs), Skipped: len(recs) - len(real)}
	w := &Workload{Name: "starpu:" + filepath.Base(name)}
	if opt.Repetition > 0 {
		w.Name += fmt.Sprintf("#%d", opt.Repetition)
	}
	w.Tasks = make([]Task, 0, n)
	codelet := map[[2]string]int{}
	recSum := map[int]float64{}
	recN := map[int]int{}
	for t, i := range real {
		if keep[t] == 0 {
			continue
		}
		c := recs[i]
		id := keep[t] - 1
		kernel := c.model
		if kernel == "" {
			kernel = c.name
		}
		flops := c.gflop * 1e9
		w.Tasks = append(w.Tasks, Task{ID: id, Kernel: kernel, Flops: flops})
		var ds []int
		for _, d := range deps[t] {
			if keep[d] > 0 {
				ds = append(ds, keep[d]-1)
			}
		}
		w.Deps = setColumn(w.Deps, id, ds, len(ds) > 0)
		w.Priority = setColumn(w.Priority, id, c.priority, c.priority != 0)
		st.JobID = append(st.JobID, c.jobID)
		st.Footprint = append(st.Footprint, c.footprint)
		st.WorkerID = append(st.WorkerID, c.workerID)
		st.StartMS = append(st.StartMS, c.start)
		st.EndMS = append(st.EndMS, c.end)
		key := [2]string{kernel, strconv.FormatUint(uint64(c.footprint), 16)}
		k, ok := codelet[key]
		if !ok {
			k = len(st.Codelets)
			codelet[key] = k
			st.Codelets = append(st.Codelets, StarPUCodelet{Kernel: kernel, Footprint: c.footprint, Flops: flops, HasModel: c.model != ""})
		}
		cd := &st.Codelets[k]
		if cd.Tasks++; math.Abs(flops-cd.Flops) > 1e-6*cd.Flops {
			return nil, fmt.Errorf("%s:%d: JobId %d (%s, footprint %08x) has %g GFlop, another task of that footprint %g: one footprint, one shape", name, c.line, c.jobID, kernel, c.footprint, c.gflop, cd.Flops/1e9)
		}
		if !math.IsNaN(c.start) {
			recSum[k] += (c.end - c.start) * 1e3
			recN[k]++
		}
	}
	for k := range st.Codelets {
		if recN[k] > 0 {
			st.Codelets[k].RecordedUS = recSum[k] / float64(recN[k])
		}
	}
	// Data first: a barrier orders repetitions, it does not make their
	// handles one registration.
	if err := assignData(w, recs, real, keep, name); err != nil {
		return nil, err
	}
	if opt.Repetition == 0 && !opt.NoBarriers && len(parts) > 1 {
		if err := addBarriers(w, st, partOf, keep, name); err != nil {
			return nil, err
		}
	}
	if w.Deps != nil {
		w.Deps = setColumn(w.Deps, n-1, w.DepsOf(n-1), true)
	}
	if w.Priority != nil {
		w.Priority = setColumn(w.Priority, n-1, w.PriorityOf(n-1), true)
	}
	st.Workload = w
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s: the imported workload: %w", name, err)
	}
	return st, nil
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return min(a, b)
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return max(a, b)
}

// recTopo orders the records so that each comes after the records it
// depends on, refusing a cycle (named by its JobIds).
func recTopo(recs []*rec, byJob map[uint64]int, name string) ([]int, error) {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(recs))
	next := make([]int, len(recs))
	order := make([]int, 0, len(recs))
	var stack []int
	for root := range recs {
		if color[root] != white {
			continue
		}
		color[root] = grey
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			if next[u] == len(recs[u].deps) {
				color[u] = black
				order = append(order, u)
				stack = stack[:len(stack)-1]
				continue
			}
			d := recs[u].deps[next[u]]
			next[u]++
			v, ok := byJob[d]
			if !ok {
				continue
			}
			switch color[v] {
			case white:
				color[v] = grey
				stack = append(stack, v)
			case grey:
				k := slices.Index(stack, v)
				var ids []string
				for _, x := range stack[k:] {
					ids = append(ids, strconv.FormatUint(recs[x].jobID, 10))
				}
				ids = append(ids, strconv.FormatUint(recs[v].jobID, 10))
				return nil, fmt.Errorf("%s:%d: DependsOn cycle through JobIds %s (each depends on the next); a task graph is acyclic", name, recs[u].line, strings.Join(ids, " -> "))
			}
		}
	}
	return order, nil
}

// addBarriers makes each repetition that started, in the recorded run,
// after the previous one ended wait for it.
func addBarriers(w *Workload, st *StarPUTasks, partOf, keep []int, name string) error {
	n := len(w.Tasks)
	sources := make([][]int, len(st.Parts))
	hasSucc := make([]bool, n)
	part := make([]int, n)
	for t, k := range keep {
		if k > 0 {
			part[k-1] = partOf[t]
		}
	}
	for t := range n {
		for _, d := range w.DepsOf(t) {
			hasSucc[d] = true
		}
		if len(w.DepsOf(t)) == 0 {
			sources[part[t]] = append(sources[part[t]], t)
		}
	}
	sinks := make([][]int, len(st.Parts))
	for t := range n {
		if !hasSucc[t] {
			sinks[part[t]] = append(sinks[part[t]], t)
		}
	}
	added := 0
	for k := 1; k < len(st.Parts); k++ {
		prev, cur := st.Parts[k-1], st.Parts[k]
		if math.IsNaN(prev.EndMS) || math.IsNaN(cur.StartMS) || cur.StartMS < prev.EndMS {
			continue
		}
		if added += len(sources[k]) * len(sinks[k-1]); added > recMaxBarrier {
			return fmt.Errorf("%s: the barriers between repetitions would add more than %d dependencies; import without them", name, recMaxBarrier)
		}
		for _, s := range sources[k] {
			w.Deps = setColumn(w.Deps, s, slices.Clone(sinks[k-1]), true)
		}
	}
	st.Barriers = added
	return nil
}

// assignData gives each task its inputs: one datum per registration of a
// handle (see ReadStarPUTasks), in a topological order of the tasks
// (submission order when every dependency points back).
func assignData(w *Workload, recs []*rec, real, keep []int, name string) error {
	n := len(w.Tasks)
	src := make([]*rec, n) // the record of each task
	for t, i := range real {
		if keep[t] > 0 {
			src[keep[t]-1] = recs[i]
		}
	}
	order := make([]int, n)
	forward := false
	for t := range n {
		order[t] = t
		for _, d := range w.DepsOf(t) {
			forward = forward || d > t
		}
	}
	if forward {
		order = w.TopoOrder()
	}
	pos := make([]int32, n)
	for i, t := range order {
		pos[t] = int32(i)
	}
	// The accesses of each task, a handle listed twice merged.
	type access struct {
		h       uint64
		mode    Mode
		scratch bool
		size    int64
	}
	accs := make([][]access, n)
	modes := make([][]Mode, n)
	anyMode := false
	for t, c := range src {
		for k, h := range c.handles {
			m, scratch, err := parseRecMode(c.modes[k])
			if err != nil {
				return fmt.Errorf("%s:%d: JobId %d: %v", name, c.modesLine, c.jobID, err)
			}
			if c.sizes[k] == 0 {
				continue // a void handle: it only orders tasks
			}
			j := slices.IndexFunc(accs[t], func(a access) bool { return a.h == h })
			if j < 0 {
				accs[t] = append(accs[t], access{h: h, mode: m, scratch: scratch, size: c.sizes[k]})
				continue
			}
			a := &accs[t][j]
			if a.size != c.sizes[k] {
				return fmt.Errorf("%s:%d: JobId %d lists handle %x twice with sizes %d and %d: a handle has one size", name, c.line, c.jobID, h, a.size, c.sizes[k])
			}
			if a.scratch != scratch {
				return fmt.Errorf("%s:%d: JobId %d lists handle %x twice, once as scratch (S): a scratch handle is only scratch", name, c.line, c.jobID, h)
			}
			a.mode |= m
		}
	}
	// A handle's registration: its datum, size, last writer and readers
	// since.
	type reg struct {
		data       int
		size       int64
		scratch    bool
		lastWriter int // task, -1 none
		readers    []int
		first      int // the task of its first access
		last       int // the task of its last access
	}
	regs := map[uint64]*reg{}
	paths := newPathSearch(w, pos)
	inputs := make([][]int, n)
	for _, t := range order {
		paths.markDirect(t)
		for _, a := range accs[t] {
			g := regs[a.h]
			fresh := g == nil
			if !fresh && !g.scratch && !a.scratch {
				if g.lastWriter >= 0 && !paths.reaches(g.lastWriter, t) {
					fresh = true
				} else if a.mode.Writes() {
					for _, r := range g.readers {
						if !paths.reaches(r, t) {
							fresh = true
							break
						}
					}
				}
			}
			if !fresh && g.scratch != a.scratch && !paths.reaches(g.last, t) {
				fresh = true
			}
			if !fresh && g.scratch != a.scratch {
				return fmt.Errorf("%s:%d: JobId %d accesses handle %x as scratch (S) and JobId %d does not, ordered by their dependencies: a scratch handle is only scratch",
					name, src[t].line, src[t].jobID, a.h, src[g.first].jobID)
			}
			if !fresh && g.size != a.size {
				return fmt.Errorf("%s:%d: JobId %d accesses handle %x with %d bytes, JobId %d with %d bytes, and a dependency path orders them: one registration of a handle has one size",
					name, src[t].line, src[t].jobID, a.h, a.size, src[g.first].jobID, g.size)
			}
			if fresh {
				g = &reg{data: len(w.Data), size: a.size, scratch: a.scratch, lastWriter: -1, first: t}
				if len(w.Data) >= maxTasks {
					return fmt.Errorf("%s: more than %d data", name, maxTasks)
				}
				regs[a.h] = g
				w.Data = append(w.Data, Data{ID: g.data, Bytes: a.size, Scratch: a.scratch})
			}
			if a.mode.Writes() {
				g.lastWriter, g.readers = t, g.readers[:0]
			} else {
				g.readers = append(g.readers, t)
			}
			g.last = t
			inputs[t] = append(inputs[t], g.data)
			modes[t] = append(modes[t], a.mode)
			anyMode = anyMode || a.mode != R
		}
	}
	for t := range n {
		w.Tasks[t].Inputs = inputs[t]
		if anyMode {
			w.Modes = setColumn(w.Modes, t, modes[t], len(modes[t]) > 0)
		}
	}
	return nil
}
