package workloads

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestJSONRoundTrip(t *testing.T) {
	for _, s := range []Spec{
		{Kind: "matmul2d", N: 4},
		{Kind: "cholesky", N: 5, Deps: true},
		{Kind: "lu", N: 4, Deps: true, Order: "random", Seed: 2},
		{Kind: "matmul3d", N: 3, NZ: 2, Deps: true},
		{Kind: "sparse2d", N: 6, Keep: 0.5, Seed: 1},
		{Kind: "randompairs", N: 3, Seed: 8},
	} {
		w := mustGen(t, s)
		var buf bytes.Buffer
		if err := w.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJSON(&buf)
		if err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: round trip changed the workload", w.Name)
		}
		// encoding/json goes through the same format: the per-task
		// tables (modes, deps, priorities, coordinates) survive.
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON Workload
		if err := json.Unmarshal(b, &viaJSON); err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		if !reflect.DeepEqual(&viaJSON, w) {
			t.Errorf("%s: encoding/json changed the workload", w.Name)
		}
	}
}

func TestWriteJSONFormat(t *testing.T) {
	w := mustGen(t, Spec{Kind: "matmul2d", N: 1})
	var buf bytes.Buffer
	if err := w.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"matmul2d-n1",
"device_bytes":3686400,
"data":[
{"id":0,"bytes":14745600},
{"id":1,"bytes":14745600,"strided":true}],
"tasks":[
{"id":0,"kernel":"gemm","flops":7077888000,"inputs":[1,0],"deps":[],"coords":[0,0]}]}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestReadJSONBriefExample(t *testing.T) {
	in := `{"name":"x","data":[{"id":0,"bytes":14745600},{"id":1,"bytes":14745600}],
	"tasks":[{"id":0,"kernel":"gemm","flops":7.07e9,"inputs":[0,1],"deps":[]},
	         {"id":1,"kernel":"gemm","flops":7.07e9,"inputs":[1],"deps":[0],"priority":3}]}`
	w, err := ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Tasks) != 2 || w.PriorityOf(1) != 3 || w.DepsOf(0) != nil || w.DepsOf(1)[0] != 0 {
		t.Errorf("decoded %+v", w)
	}
}

func TestReadJSONErrors(t *testing.T) {
	const head = `{"data":[{"id":0,"bytes":4}],"tasks":[`
	cases := []struct{ name, in, want string }{
		{"unknown task field", head + `{"id":0,"kernel":"k","flops":1,"inputs":[0],"deps":[],"colour":1}]}`,
			`tasks[0]: unknown field "colour"; allowed: id, kernel`},
		{"unknown data field", `{"data":[{"id":0,"bytes":4,"size":4}],"tasks":[]}`, `data[0]: unknown field "size"`},
		{"unknown top field", `{"data":[],"task":[]}`, `unknown top-level field "task"; did you mean "tasks"?`},
		{"type error", head + `{"id":0,"kernel":"k","flops":1,"inputs":"0"}]}`, "tasks[0].inputs: expected []int, found string"},
		{"dangling input", head + `{"id":0,"kernel":"k","flops":1,"inputs":[3]}]}`, "task 0 reads data 3, which does not exist"},
		{"dangling dep", head + `{"id":0,"kernel":"k","flops":1,"inputs":[0],"deps":[4]}]}`, "task 0 depends on task 4"},
		{"cycle", head + `{"id":0,"kernel":"k","inputs":[0],"deps":[1]},{"id":1,"kernel":"k","inputs":[0],"deps":[0]}]}`, "cycle through tasks 0 -> 1 -> 0"},
		{"truncated", head + `{"id":0,"kernel":"k","flops":1,"inp`, "JSON is truncated: input ended inside tasks[0]"},
		{"truncated between items", head + `{"id":0,"kernel":"k","inputs":[0]},`, "JSON is truncated"},
		{"empty", ``, "JSON input is empty"},
		{"not an object", `[1,2]`, `expected "{" at the top level`},
		{"trailing", head + `{"id":0,"kernel":"k","inputs":[0]}]} {}`, "unexpected content after the workload object"},
		{"missing tasks", `{"data":[]}`, `missing top-level field "tasks"`},
		{"duplicate field", `{"data":[],"data":[]}`, `field "data" appears twice`},
		{"syntax", head + `{"id":0,,}]}`, "JSON syntax error in tasks[0]"},
	}
	for _, c := range cases {
		_, err := ReadJSON(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// A real file cut at any point is reported as truncated, never accepted.
func TestReadJSONTruncatedFile(t *testing.T) {
	w := mustGen(t, Spec{Kind: "cholesky", N: 4, Deps: true})
	var buf bytes.Buffer
	if err := w.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	for _, cut := range []int{1, len(full) / 3, len(full) / 2, len(full) - 3} {
		_, err := ReadJSON(bytes.NewReader(full[:cut]))
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("cut at %d/%d: got %v, want a truncation error", cut, len(full), err)
		}
	}
}

func TestReadJSONFile(t *testing.T) {
	w := mustGen(t, Spec{Kind: "matmul3d", N: 2})
	path := filepath.Join(t.TempDir(), "w.json")
	var buf bytes.Buffer
	if err := w.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONFile(path)
	if err != nil || !reflect.DeepEqual(got, w) {
		t.Fatalf("ReadJSONFile: %v", err)
	}
	if _, err := ReadJSONFile(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"data":[]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSONFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file error should name the file: %v", err)
	}
}
