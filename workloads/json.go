package workloads

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// WriteJSON writes w as one JSON object, one data or task per line so that
// large files stay diffable:
//
//	{"name":"...","data":[{"id":0,"bytes":14745600}],
//	 "tasks":[{"id":0,"kernel":"gemm","flops":7.07e9,"inputs":[0,1],"deps":[]}]}
//
// Empty inputs and deps are written as [] (not null); coords and priority
// are omitted when empty or zero.
func (w *Workload) WriteJSON(wr io.Writer) error {
	bw := bufio.NewWriter(wr)
	name, err := json.Marshal(w.Name)
	if err != nil {
		return fmt.Errorf("workloads: encoding name: %w", err)
	}
	fmt.Fprintf(bw, "{\"name\":%s,\n", name)
	if w.DeviceBytes != 0 {
		fmt.Fprintf(bw, "\"device_bytes\":%d,\n", w.DeviceBytes)
	}
	bw.WriteString("\"data\":[")
	for i, d := range w.Data {
		line, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("workloads: encoding data %d: %w", i, err)
		}
		writeItem(bw, i, line)
	}
	bw.WriteString("],\n\"tasks\":[")
	for i, t := range w.Tasks {
		line, err := json.Marshal(taskJSON{ID: t.ID, Kernel: t.Kernel, Flops: t.Flops, Inputs: orEmpty(t.Inputs),
			Modes: w.ModesOf(i), Deps: orEmpty(w.DepsOf(i)), Coords: w.Coords.Of(i), Priority: w.PriorityOf(i)})
		if err != nil { // only non-finite flops can fail
			return fmt.Errorf("workloads: encoding task %d: %w (flops must be finite)", i, err)
		}
		writeItem(bw, i, line)
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("workloads: writing JSON: %w", err)
	}
	return nil
}

// taskJSON is a task's object in the JSON format: the task and its entries
// in the workload's per-task tables.
type taskJSON struct {
	ID       int     `json:"id"`
	Kernel   string  `json:"kernel"`
	Flops    float64 `json:"flops"`
	Inputs   []int   `json:"inputs"`
	Modes    []Mode  `json:"modes,omitempty"`
	Deps     []int   `json:"deps"`
	Coords   []int32 `json:"coords,omitempty"`
	Priority int     `json:"priority,omitempty"`
}

func orEmpty(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// MarshalJSON is WriteJSON, so that encoding/json keeps the per-task
// tables.
func (w *Workload) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := w.WriteJSON(&b)
	return b.Bytes(), err
}

// UnmarshalJSON is ReadJSON (validation included).
func (w *Workload) UnmarshalJSON(data []byte) error {
	got, err := ReadJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	*w = *got
	return nil
}

func writeItem(bw *bufio.Writer, i int, item []byte) {
	if i > 0 {
		bw.WriteByte(',')
	}
	bw.WriteByte('\n')
	bw.Write(item)
}

// ReadJSON decodes a workload written by WriteJSON (or by hand), rejecting
// unknown fields, then runs Validate. Errors name the JSON path, e.g.
// `tasks[12].inputs`. Empty inputs, modes and deps decode as nil, so a
// generated workload round-trips exactly.
func ReadJSON(r io.Reader) (*Workload, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	dec.DisallowUnknownFields()
	w := &Workload{}
	if err := expectDelim(dec, '{', "the top level"); err != nil {
		return nil, err
	}
	got := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, decodeErr(dec, err, "the top level")
		}
		key, _ := tok.(string) // object keys are always strings
		if got[key] {
			return nil, fmt.Errorf("workloads: JSON: field %q appears twice at the top level", key)
		}
		got[key] = true
		switch key {
		case "name":
			if err := dec.Decode(&w.Name); err != nil {
				return nil, decodeErr(dec, err, "name")
			}
		case "device_bytes":
			if err := dec.Decode(&w.DeviceBytes); err != nil {
				return nil, decodeErr(dec, err, "device_bytes")
			}
		case "data":
			if err := decodeArray(dec, "data", func(i int) error {
				var d Data
				if err := decodeObject(dec, fmt.Sprintf("data[%d]", i), dataFields, func(k string) any {
					switch k {
					case "id":
						return &d.ID
					case "bytes":
						return &d.Bytes
					case "scratch":
						return &d.Scratch
					}
					return &d.Strided
				}); err != nil {
					return err
				}
				w.Data = append(w.Data, d)
				return nil
			}); err != nil {
				return nil, err
			}
		case "tasks":
			if err := decodeArray(dec, "tasks", func(i int) error {
				var t taskJSON
				if err := decodeObject(dec, fmt.Sprintf("tasks[%d]", i), taskFields, func(k string) any {
					switch k {
					case "id":
						return &t.ID
					case "kernel":
						return &t.Kernel
					case "flops":
						return &t.Flops
					case "inputs":
						return &t.Inputs
					case "modes":
						return &t.Modes
					case "deps":
						return &t.Deps
					case "coords":
						return &t.Coords
					}
					return &t.Priority
				}); err != nil {
					return err
				}
				if len(t.Inputs) == 0 {
					t.Inputs = nil
				}
				if len(t.Modes) == 0 {
					t.Modes = nil
				}
				if len(t.Deps) == 0 {
					t.Deps = nil
				}
				w.Tasks = append(w.Tasks, Task{ID: t.ID, Kernel: t.Kernel, Flops: t.Flops, Inputs: t.Inputs})
				w.Modes = setColumn(w.Modes, i, t.Modes, len(t.Modes) > 0)
				w.Deps = setColumn(w.Deps, i, t.Deps, len(t.Deps) > 0)
				w.Priority = setColumn(w.Priority, i, t.Priority, t.Priority != 0)
				w.Coords.Add(t.Coords...)
				return nil
			}); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("workloads: JSON: unknown top-level field %q%s; allowed: name, device_bytes, data, tasks",
				key, suggest.Closest(key, []string{"name", "device_bytes", "data", "tasks"}))
		}
	}
	if err := expectDelim(dec, '}', "the top level"); err != nil {
		return nil, err
	}
	for _, k := range []string{"data", "tasks"} {
		if !got[k] {
			return nil, fmt.Errorf("workloads: JSON: missing top-level field %q", k)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("workloads: JSON: unexpected content after the workload object at byte %d; a file holds exactly one workload", dec.InputOffset())
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// ReadJSONFile is ReadJSON on the named file; errors name the file.
func ReadJSONFile(path string) (*Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workloads: %w", err)
	}
	defer f.Close()
	w, err := ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// The keys of a data and a task object.
var (
	dataFields = []string{"id", "bytes", "scratch", "strided"}
	taskFields = []string{"id", "kernel", "flops", "inputs", "modes", "deps", "coords", "priority"}
)

// pathError is an error that already names its place in the JSON.
type pathError struct{ msg string }

func (e *pathError) Error() string { return e.msg }

// decodeObject reads one object whose keys must be among fields, each at
// most once, spelled exactly: encoding/json matches keys without regard to
// case, so "Flops" after "flops" would silently win. field(k) gives where
// key k's value goes.
func decodeObject(dec *json.Decoder, path string, fields []string, field func(k string) any) error {
	if err := expectDelim(dec, '{', path); err != nil {
		return err
	}
	seen := make([]bool, len(fields))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return decodeErr(dec, err, path)
		}
		key, _ := tok.(string)
		i := slices.Index(fields, key)
		if i < 0 {
			for _, f := range fields {
				if strings.EqualFold(f, key) {
					return &pathError{fmt.Sprintf("workloads: JSON: %s: field %q is spelled %q: keys are case-sensitive", path, f, key)}
				}
			}
			return &pathError{fmt.Sprintf("workloads: JSON: %s: unknown field %q%s; allowed: %s", path, key, suggest.Closest(key, fields), strings.Join(fields, ", "))}
		}
		if seen[i] {
			return &pathError{fmt.Sprintf("workloads: JSON: %s: field %q appears twice", path, key)}
		}
		seen[i] = true
		if err := dec.Decode(field(key)); err != nil {
			return decodeErr(dec, err, path+"."+key)
		}
	}
	return expectDelim(dec, '}', path)
}

// decodeArray reads '[' item, item, ... ']' calling item(i) for each
// element so that errors carry the element's index.
func decodeArray(dec *json.Decoder, field string, item func(i int) error) error {
	if err := expectDelim(dec, '[', field); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		if err := item(i); err != nil {
			return decodeErr(dec, err, fmt.Sprintf("%s[%d]", field, i))
		}
	}
	return expectDelim(dec, ']', field)
}

func expectDelim(dec *json.Decoder, want json.Delim, where string) error {
	tok, err := dec.Token()
	if err != nil {
		return decodeErr(dec, err, where)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("workloads: JSON: expected %q at %s (byte %d), found %v", string(want), where, dec.InputOffset(), tok)
	}
	return nil
}

// decodeErr turns encoding/json errors into messages that name the path.
func decodeErr(dec *json.Decoder, err error, path string) error {
	var pe *pathError
	if errors.As(err, &pe) {
		return err
	}
	var typeErr *json.UnmarshalTypeError
	var synErr *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) && dec.InputOffset() == 0:
		return fmt.Errorf("workloads: JSON input is empty; expected a workload object {\"name\":...,\"data\":[...],\"tasks\":[...]}")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("workloads: JSON is truncated: input ended inside %s (byte %d); the file was probably cut off while being written", path, dec.InputOffset())
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			path += "." + typeErr.Field
		}
		return fmt.Errorf("workloads: JSON: %s: expected %s, found %s", path, typeErr.Type, typeErr.Value)
	case errors.As(err, &synErr):
		return fmt.Errorf("workloads: JSON syntax error in %s at byte %d: %v", path, synErr.Offset, err)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		allowed := "id, bytes"
		if strings.HasPrefix(path, "tasks") {
			allowed = "id, kernel, flops, inputs, deps, coords, priority"
		}
		return fmt.Errorf("workloads: JSON: %s: unknown field %s; allowed: %s", path, field, allowed)
	}
	return fmt.Errorf("workloads: JSON: %s: %v", path, err)
}
