package workloads

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const recFile = "testdata/starpu/tasks.rec"

// The real file (testdata/starpu/README.md): 11 repetitions of the
// 35-task Cholesky of 5x5 tiles, each on freshly registered tiles.
func TestStarPUTasksRealFile(t *testing.T) {
	st, err := ReadStarPUTasksFile(recFile, StarPUTasksOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := st.Workload
	if st.Records != 892 || st.Skipped != 507 || len(w.Tasks) != 385 || len(st.Parts) != 11 {
		t.Fatalf("%d records, %d skipped, %d tasks, %d repetitions; want 892, 507, 385, 11", st.Records, st.Skipped, len(w.Tasks), len(st.Parts))
	}
	// One datum per tile and repetition: the addresses are reused.
	if len(w.Data) != 11*15 {
		t.Errorf("%d data; want 165 (15 tiles x 11 registrations)", len(w.Data))
	}
	for k, p := range st.Parts {
		if p.Tasks != 35 {
			t.Errorf("repetition %d has %d tasks; want 35", k+1, p.Tasks)
		}
	}
	want := []StarPUCodelet{
		{Kernel: "chol_model_11", Footprint: 0x617e5fe6, Flops: 0.295372e9, Tasks: 55},
		{Kernel: "chol_model_21", Footprint: 0xff82dda0, Flops: 0.885657e9, Tasks: 110},
		{Kernel: "chol_model_22", Footprint: 0x24c84a50, Flops: 1.769472e9, Tasks: 220},
	}
	if len(st.Codelets) != len(want) {
		t.Fatalf("codelets %+v", st.Codelets)
	}
	for i, c := range st.Codelets {
		if c.Kernel != want[i].Kernel || c.Footprint != want[i].Footprint || c.Tasks != want[i].Tasks || math.Abs(c.Flops-want[i].Flops) > 1 || !c.HasModel {
			t.Errorf("codelet %d: %+v; want %+v", i, c, want[i])
		}
	}
	// POTRF's recorded duration is its model mean exactly.
	if c := st.Codelets[0]; math.Abs(c.RecordedUS-20923.04) > 1e-6 {
		t.Errorf("potrf recorded mean %.6f µs; want 20923.04", c.RecordedUS)
	}
	if st.Barriers != 10 {
		t.Errorf("%d barrier dependencies; want 10 (each repetition's POTRF after the previous one's last task)", st.Barriers)
	}
	if got := st.RecordedMakespan() * 1e3; math.Abs(got-(1272.159817-0.556340)) > 1e-6 {
		t.Errorf("recorded makespan %.6f ms", got)
	}
	// A SYRK reads one tile twice: one input.
	syrk := 0
	for i, task := range w.Tasks {
		if task.Kernel == "chol_model_22" && len(task.Inputs) == 2 {
			syrk++
			if m := w.ModesOf(i); !slices.Equal(m, []Mode{R, RW}) {
				t.Errorf("task %d (JobId %d): modes %v; want R RW", i, st.JobID[i], m)
			}
		}
	}
	if syrk != 110 {
		t.Errorf("%d cl22 tasks with 2 inputs; want 110 (the SYRKs)", syrk)
	}
	// JobId 22 (line "DependsOn: 14 15"): the TRSMs of JobIds 14 and 15.
	i := slices.Index(st.JobID, 22)
	var deps []uint64
	for _, d := range w.DepsOf(i) {
		deps = append(deps, st.JobID[d])
	}
	if slices.Sort(deps); !slices.Equal(deps, []uint64{14, 15}) {
		t.Errorf("JobId 22 depends on JobIds %v; want 14 15", deps)
	}

	for rep, ms := range map[int]float64{1: 115.639057, 2: 114.887294, 11: 114.887294} {
		st, err := ReadStarPUTasksFile(recFile, StarPUTasksOptions{Repetition: rep})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Workload.Tasks) != 35 || len(st.Workload.Data) != 15 || st.Barriers != 0 {
			t.Errorf("repetition %d: %d tasks, %d data, %d barriers; want 35, 15, 0", rep, len(st.Workload.Tasks), len(st.Workload.Data), st.Barriers)
		}
		if got := st.RecordedMakespan() * 1e3; math.Abs(got-ms) > 1e-6 {
			t.Errorf("repetition %d: recorded makespan %.6f ms; want %.6f", rep, got, ms)
		}
		if !strings.Contains(st.Compare(ms*1e-3), "0.000 %)") {
			t.Errorf("Compare: %s", st.Compare(ms*1e-3))
		}
	}
	st, err = ReadStarPUTasksFile(recFile, StarPUTasksOptions{NoBarriers: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Barriers != 0 || len(st.Workload.Tasks) != 385 {
		t.Errorf("without barriers: %d barriers", st.Barriers)
	}
	if _, err := ReadStarPUTasksFile(recFile, StarPUTasksOptions{Repetition: 12}); err == nil || !strings.Contains(err.Error(), "has 11 repetitions") {
		t.Errorf("repetition 12: %v", err)
	}
}

// rec builds a tasks.rec from records, each a list of "Key: value" lines
// (MPIRank added).
func recText(records ...string) string {
	var b strings.Builder
	for _, r := range records {
		b.WriteString(strings.TrimSpace(r) + "\nMPIRank: -1\n\n")
	}
	return b.String()
}

func task(job, order int, extra string) string {
	return "Name: k\nModel: k\nJobId: " + strconv.Itoa(job) + "\nSubmitOrder: " + strconv.Itoa(order) + "\nWorkerId: 0\nFootprint: 1\nGFlop: 1\n" + extra
}

func readRec(t *testing.T, text string, opt StarPUTasksOptions) *StarPUTasks {
	t.Helper()
	st, err := ReadStarPUTasks(strings.NewReader(text), "t.rec", opt)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Dependencies pass through the records that are not tasks: B depends on
// an acquire that depends on A, so B depends on A; a JobId absent from
// the file is ignored; a WontUse record is no task.
func TestStarPUTasksDepsThroughGhosts(t *testing.T) {
	text := recText(
		task(1, 1, "Handles: a0\nModes: W\nSizes: 8"),
		"Name: _starpu_data_acquire_cb_pre\nJobId: 2\nSubmitOrder: 2\nDependsOn: 1\nFootprint: 0",
		"Name: _starpu_data_acquire_cb_release\nJobId: 3\nSubmitOrder: 3\nDependsOn: 2 99\nFootprint: 0",
		"JobId: 4\nPriority: 0\nTag: 0\nFootprint: 0",
		"Control: WontUse\nJobId: 5\nSubmitOrder: 4\nHandles: a0",
		task(6, 5, "DependsOn: 3 4 77\nHandles: a0 b0\nModes: R W\nSizes: 8 16"),
		task(7, 6, "DependsOn: 6\nHandles: b0\nModes: R\nSizes: 16"),
	)
	st := readRec(t, text, StarPUTasksOptions{})
	w := st.Workload
	if len(w.Tasks) != 3 || st.Skipped != 4 {
		t.Fatalf("%d tasks, %d skipped; want 3, 4", len(w.Tasks), st.Skipped)
	}
	if !slices.Equal(w.DepsOf(1), []int{0}) || !slices.Equal(w.DepsOf(2), []int{1}) {
		t.Errorf("deps %v %v; want [0] [1]", w.DepsOf(1), w.DepsOf(2))
	}
	if len(w.Data) != 2 || w.Data[0].Bytes != 8 || w.Data[1].Bytes != 16 || len(st.Parts) != 1 {
		t.Errorf("data %+v, %d parts", w.Data, len(st.Parts))
	}
}

// A handle listed twice by one task is one input with the union of its
// modes; an address accessed again without a dependency path from a
// conflicting access is a new registration; a void handle (0 bytes) is
// left out; S is a scratch write.
func TestStarPUTasksHandles(t *testing.T) {
	text := recText(
		task(1, 1, "Handles: a0 a0 c0\nModes: R RW R\nSizes: 8 8 0"),
		task(2, 2, "DependsOn: 1\nHandles: a0 f0\nModes: R S\nSizes: 8 4"),
		task(3, 3, "DependsOn: 1\nHandles: a0 f0\nModes: R S\nSizes: 8 4"),
		// No path from 1, 2, 3: a new registration of a0.
		task(4, 4, "Handles: a0\nModes: RW\nSizes: 32"),
		task(5, 5, "DependsOn: 4\nHandles: a0\nModes: R\nSizes: 32"),
	)
	st := readRec(t, text, StarPUTasksOptions{})
	w := st.Workload
	if !slices.Equal(w.Tasks[0].Inputs, []int{0}) || !slices.Equal(w.ModesOf(0), []Mode{RW}) {
		t.Errorf("task 0: inputs %v modes %v; want [0] [RW]", w.Tasks[0].Inputs, w.ModesOf(0))
	}
	if !slices.Equal(w.Tasks[1].Inputs, []int{0, 1}) || !slices.Equal(w.Tasks[2].Inputs, []int{0, 1}) || !w.Data[1].Scratch || w.Mode(1, 1) != W {
		t.Errorf("tasks 1, 2: inputs %v %v, data %+v", w.Tasks[1].Inputs, w.Tasks[2].Inputs, w.Data)
	}
	if !slices.Equal(w.Tasks[3].Inputs, []int{2}) || !slices.Equal(w.Tasks[4].Inputs, []int{2}) || w.Data[2].Bytes != 32 {
		t.Errorf("tasks 3, 4: inputs %v %v, data %+v; want a third datum of 32 bytes", w.Tasks[3].Inputs, w.Tasks[4].Inputs, w.Data)
	}
	if len(st.Parts) != 2 {
		t.Errorf("%d repetitions; want 2", len(st.Parts))
	}
	// Repetition 2 alone: renumbered from 0.
	st = readRec(t, text, StarPUTasksOptions{Repetition: 2})
	if w := st.Workload; len(w.Tasks) != 2 || !slices.Equal(w.DepsOf(1), []int{0}) || len(w.Data) != 1 || !slices.Equal(st.JobID, []uint64{4, 5}) {
		t.Errorf("repetition 2: %d tasks, deps %v, %d data, jobs %v", len(w.Tasks), w.DepsOf(1), len(w.Data), st.JobID)
	}
}

// Barriers: a repetition that started after the previous one ended waits
// for its last tasks; one that overlapped it does not.
func TestStarPUTasksBarriers(t *testing.T) {
	times := func(s, e string) string { return "StartTime: " + s + "\nEndTime: " + e + "\n" }
	text := recText(
		task(1, 1, times("0", "1")+"Handles: a0\nModes: RW\nSizes: 8"),
		task(2, 2, times("1", "2")+"DependsOn: 1\nHandles: a0\nModes: RW\nSizes: 8"),
		task(3, 3, times("2.5", "3")+"Handles: a0\nModes: RW\nSizes: 8"),
		task(4, 4, times("2.9", "4")+"Handles: b0\nModes: RW\nSizes: 8"),
	)
	st := readRec(t, text, StarPUTasksOptions{})
	w := st.Workload
	if st.Barriers != 1 || !slices.Equal(w.DepsOf(2), []int{1}) || w.DepsOf(3) != nil {
		t.Errorf("%d barriers, deps %v %v; want 1, [1], none (repetition 3 overlapped 2)", st.Barriers, w.DepsOf(2), w.DepsOf(3))
	}
	if len(w.Data) != 3 {
		t.Errorf("%d data; want 3 (a barrier orders registrations, it does not merge them)", len(w.Data))
	}
	if got := st.RecordedMakespan(); math.Abs(got-4e-3) > 1e-12 {
		t.Errorf("recorded makespan %g s; want 4 ms", got)
	}
	if st := readRec(t, text, StarPUTasksOptions{NoBarriers: true}); st.Barriers != 0 || st.Workload.DepsOf(2) != nil {
		t.Errorf("NoBarriers: %d barriers", st.Barriers)
	}
}

func TestStarPUTasksBadInputs(t *testing.T) {
	ok := task(1, 1, "Handles: a0\nModes: RW\nSizes: 8")
	cases := []struct{ name, text, want string }{
		{"truncated record", recText(ok) + task(2, 2, "DependsOn: 1\n"), "t.rec:13: the record starting here has no MPIRank line"},
		{"cut inside a line", recText(ok) + "Name: k\nJobId: 2", "t.rec:14: the file ends inside this line"},
		{"cycle", recText(task(1, 1, "DependsOn: 3"), "Name: x\nJobId: 2\nDependsOn: 1", task(3, 2, "DependsOn: 2")), "DependsOn cycle through JobIds"},
		{"self dependency", recText(task(1, 1, "DependsOn: 1")), "DependsOn cycle through JobIds 1 -> 1"},
		{"two sizes in one task", recText(task(1, 1, "Handles: a0 a0\nModes: R RW\nSizes: 8 16")), "lists handle a0 twice with sizes 8 and 16"},
		{"two sizes, ordered", recText(ok, task(2, 2, "DependsOn: 1\nHandles: a0\nModes: R\nSizes: 16")), "one registration of a handle has one size"},
		{"two sizes, concurrent reads", recText(task(1, 1, "Handles: a0\nModes: R\nSizes: 8"), task(2, 2, "Handles: a0\nModes: R\nSizes: 16")), "one registration of a handle has one size"},
		{"unknown mode letter", recText(task(1, 1, "Handles: a0\nModes: RQ\nSizes: 8")), `unknown letter "Q"`},
		{"commute", recText(task(1, 1, "Handles: a0\nModes: RWC\nSizes: 8")), "commuting accesses (C) are not modelled"},
		{"reduction", recText(task(1, 1, "Handles: a0\nModes: X\nSizes: 8")), "a reduction (X) is not modelled"},
		{"unknown key", recText(task(1, 1, "Colour: blue")), "t.rec:8: Colour: unknown key"},
		{"count mismatch", recText(task(1, 1, "Handles: a0 b0\nModes: R\nSizes: 8 8")), "has 2 Handles, 1 Modes and 2 Sizes"},
		{"duplicate JobId", recText(ok, task(1, 2, "")), "JobId 1 again (first at line 1)"},
		{"duplicate key", recText(task(1, 1, "GFlop: 2")), "key GFlop appears twice"},
		{"bad number", recText(task(1, 1, "StartTime: 1e400\nEndTime: 2")), `StartTime: "1e400": want a time in ms`},
		{"negative gflop", recText(strings.Replace(ok, "GFlop: 1", "GFlop: -1", 1)), "want a number of GFlop"},
		{"ends before it starts", recText(task(1, 1, "StartTime: 2\nEndTime: 1")), "ends (EndTime 1.000000) before it starts"},
		{"only a start", recText(task(1, 1, "StartTime: 2")), "only one of StartTime and EndTime"},
		{"not a key-value line", recText(ok) + "garbage\n", `t.rec:13: "garbage" is not a "Key: value" line`},
		{"footprint over 32 bits", recText(strings.Replace(ok, "Footprint: 1", "Footprint: 123456789", 1)), "at most 32 bits"},
		{"MPI job id", recText(strings.Replace(ok, "JobId: 1\n", "JobId: 0_1\n", 1)), "a rank-prefixed id"},
		{"no tasks", recText("Control: WontUse\nJobId: 1\nHandles: a0"), "no task records"},
		{"empty", "", "no records"},
		{"a task without a name", recText("JobId: 1\nWorkerId: 0"), "with neither Model nor Name"},
		{"race in the workload", recText(task(1, 1, "Handles: a0\nModes: R\nSizes: 8"), task(2, 2, "Handles: a0\nModes: R\nSizes: 8"), task(3, 3, "DependsOn: 1\nHandles: a0\nModes: RW\nSizes: 8")), ""},
	}
	for _, c := range cases {
		_, err := ReadStarPUTasks(strings.NewReader(c.text), "t.rec", StarPUTasksOptions{})
		if c.want == "" {
			// Task 3 writes a0 after task 1's read but not task 2's: a new
			// registration, not an error.
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := ReadStarPUTasks(strings.NewReader(recText(ok)), "t.rec", StarPUTasksOptions{Repetition: -1}); err == nil {
		t.Error("repetition -1 accepted")
	}
	long := recText(task(1, 1, "Parameters: "+strings.Repeat("x", recMaxLine)))
	if _, err := ReadStarPUTasks(strings.NewReader(long), "t.rec", StarPUTasksOptions{}); err == nil || !strings.Contains(err.Error(), "line longer than") {
		t.Errorf("long line: %v", err)
	}
}

func FuzzStarPUTasks(f *testing.F) {
	f.Add(recText(task(1, 1, "Handles: a0 a0\nModes: R RW\nSizes: 8 8"), "Name: x\nJobId: 2\nDependsOn: 1", task(3, 2, "DependsOn: 2\nHandles: a0\nModes: R\nSizes: 8")))
	f.Fuzz(func(t *testing.T, text string) {
		st, err := ReadStarPUTasks(strings.NewReader(text), "f.rec", StarPUTasksOptions{})
		if err == nil {
			if err := st.Workload.Validate(); err != nil {
				t.Fatalf("accepted an invalid workload: %v", err)
			}
		}
	})
}
