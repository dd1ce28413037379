package workloads

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// small is a valid 3-task workload over 2 data for mutation tests.
func small() *Workload {
	return &Workload{
		Name: "small",
		Data: []Data{{ID: 0, Bytes: 10}, {ID: 1, Bytes: 20}},
		Tasks: []Task{
			{ID: 0, Kernel: "k", Flops: 1, Inputs: []int{0}},
			{ID: 1, Kernel: "k", Flops: 1, Inputs: []int{0, 1}},
			{ID: 2, Kernel: "k", Flops: 0, Inputs: []int{1}},
		},
		Deps: [][]int{nil, {0}, {0, 1}},
	}
}

func TestValidateErrors(t *testing.T) {
	if err := small().Validate(); err != nil {
		t.Fatalf("valid workload rejected: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(w *Workload)
		want   string
	}{
		{"task id", func(w *Workload) { w.Tasks[1].ID = 5 }, "tasks[1] has id 5"},
		{"data id", func(w *Workload) { w.Data[1].ID = 0 }, "data[1] has id 0"},
		{"zero bytes", func(w *Workload) { w.Data[0].Bytes = 0 }, "data 0 has 0 bytes"},
		{"negative flops", func(w *Workload) { w.Tasks[2].Flops = -1 }, "task 2 has flops -1"},
		{"NaN flops", func(w *Workload) { w.Tasks[0].Flops = math.NaN() }, "task 0 has flops NaN"},
		{"dangling input", func(w *Workload) { w.Tasks[1].Inputs = []int{0, 7} }, "task 1 reads data 7, which does not exist"},
		{"negative input", func(w *Workload) { w.Tasks[0].Inputs = []int{-1} }, "task 0 reads data -1"},
		{"duplicate input", func(w *Workload) { w.Tasks[1].Inputs = []int{1, 1} }, "task 1 lists input 1 twice"},
		{"dangling dep", func(w *Workload) { w.Deps[2] = []int{3} }, "task 2 depends on task 3, which does not exist"},
		{"self dep", func(w *Workload) { w.Deps[1] = []int{1} }, "task 1 depends on itself"},
		{"duplicate dep", func(w *Workload) { w.Deps[2] = []int{0, 0} }, "task 2 lists dependency 0 twice"},
		{"no tasks", func(w *Workload) { w.Tasks = nil }, `workload "small" has no tasks`},
		{"short table", func(w *Workload) { w.Deps = w.Deps[:2] }, "Deps has 2 entries for 3 tasks"},
		{"modes", func(w *Workload) { w.Modes = [][]Mode{nil, {R}, nil} }, "task 1 has 1 modes for 2 inputs"},
		// 0 depends on 2, 2 on 1, 1 on 0.
		{"cycle", func(w *Workload) { w.Deps[0] = []int{2}; w.Deps[2] = []int{1} }, "cycle through tasks 0 -> 2 -> 1 -> 0"},
		{"two-cycle", func(w *Workload) { w.Deps[0] = []int{1} }, "cycle through tasks 0 -> 1 -> 0"},
	}
	for _, c := range cases {
		w := small()
		c.mutate(w)
		err := w.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	var nilW *Workload
	if err := nilW.Validate(); err == nil {
		t.Error("nil workload accepted")
	}
}

// A long dependency chain must not overflow the stack of the cycle search.
func TestValidateLongChain(t *testing.T) {
	const n = 200_000
	w := &Workload{Data: []Data{{ID: 0, Bytes: 1}}}
	for i := range n {
		w.Tasks = append(w.Tasks, Task{ID: i, Kernel: "k", Inputs: []int{0}})
		var deps []int
		if i > 0 {
			deps = []int{i - 1}
		}
		w.Deps = append(w.Deps, deps)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	w.Deps[0] = []int{n - 1}
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("long cycle not found: %v", err)
	}
}

// A race (two accesses to a datum, one a write, with no dependency path
// between them) is an error found from the graph, whatever order a
// scheduler would run them in; a path through other tasks orders them.
func TestRacesAreFoundFromTheGraph(t *testing.T) {
	task := func(id int, inputs, modes string, deps string) string {
		return fmt.Sprintf(`{"id":%d,"kernel":"gemm","flops":1,"inputs":[%s],"modes":[%s],"deps":[%s]}`, id, inputs, modes, deps)
	}
	wl := func(tasks ...string) string {
		return `{"name":"w","data":[{"id":0,"bytes":4},{"id":1,"bytes":4},{"id":2,"bytes":4,"scratch":true}],"tasks":[` + strings.Join(tasks, ",") + `]}`
	}
	for _, c := range []struct {
		name, json, want string
	}{
		{"two writers", wl(task(0, "0", `"RW"`, ""), task(1, "0", `"W"`, "")), "task 0 writes data 0 and task 1 writes it, with no dependency path"},
		{"write then read", wl(task(0, "0", `"W"`, ""), task(1, "0,1", `"R","R"`, "")), "task 0 writes data 0 and task 1 reads it"},
		{"read then write", wl(task(0, "0", `"R"`, ""), task(1, "0", `"RW"`, "")), "task 0 reads data 0 and task 1 writes it"},
		{"a reader skipped", wl(task(0, "0", `"W"`, ""), task(1, "0", `"R"`, "0"), task(2, "0", `"R"`, "0"), task(3, "0", `"W"`, "0,1")),
			"task 2 reads data 0 and task 3 writes it"},
		{"forward dependencies", wl(task(0, "0", `"W"`, "2"), task(1, "0", `"W"`, ""), task(2, "1", `"R"`, "")), "task 1 writes data 0 and task 0 writes it"},
		{"ordered through a path", wl(task(0, "0", `"W"`, ""), task(1, "1", `"R"`, "0"), task(2, "0", `"RW"`, "1")), ""},
		{"ordered backwards", wl(task(0, "0", `"W"`, "2"), task(1, "1", `"R"`, ""), task(2, "0", `"RW"`, "1")), ""},
		{"readers only", wl(task(0, "0", `"R"`, ""), task(1, "0", `"R"`, "")), ""},
		{"scratch", wl(task(0, "2", `"W"`, ""), task(1, "2", `"W"`, "")), ""},
	} {
		_, err := ReadJSON(strings.NewReader(c.json))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	// Every generated kind is race-free (Generate validates what it makes).
	for _, k := range Kinds() {
		s := Spec{Kind: k, N: 4, Opts: smallOpts[k], Deps: Reads(k, FieldDeps)}
		if _, err := Generate(s); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}
