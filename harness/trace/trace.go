// Package trace writes and re-checks run traces: JSON Lines whose first
// line describes the run (platform and workload), then one object per event
// (load_start, load_end, alloc, evict, invalidate, writeback_start,
// writeback_end, task_start, task_end), then the result
// record. Validate replays a trace against its workload and platform.
package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// Header is the first line of a trace: the code that made it (schema,
// simulator model, scheduler and their versions, git commit) and enough to
// rebuild the run's workload and platform.
type Header struct {
	Ev               string             `json:"ev"` // "run"
	Schema           int                `json:"schema"`
	ModelVersion     int                `json:"model_version"`
	Scheduler        string             `json:"scheduler,omitempty"`
	SchedulerVersion int                `json:"scheduler_version,omitempty"`
	Params           map[string]string  `json:"params,omitempty"`
	Provenance       run.Provenance     `json:"provenance"`
	Platform         *hardware.Platform `json:"platform"`
	Workload         *workloads.Spec    `json:"workload,omitempty"`
	WorkloadFile     string             `json:"workload_file,omitempty"`
	// StarPUTasks names a workload imported from a StarPU tasks.rec
	// (workloads.ReadStarPUTasks) and how.
	StarPUTasks *StarPUTasks `json:"starpu_tasks,omitempty"`
	Seed        uint64       `json:"seed"`
}

// StarPUTasks is a tasks.rec and the options it was imported with.
type StarPUTasks struct {
	File string `json:"file"`
	workloads.StarPUTasksOptions
}

type resultLine struct {
	Ev     string      `json:"ev"` // "result"
	Result *run.Record `json:"result"`
}

// Writer writes a trace. The first write error is kept: later writes are
// skipped and Result returns it, so a caller checks once.
type Writer struct {
	enc *json.Encoder
	err error
}

// NewWriter writes the header line, stamping it with this code's schema,
// model version and provenance.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Ev, h.Schema, h.ModelVersion, h.Provenance = "run", run.Schema, run.ModelVersion, run.CurrentProvenance()
	tw := &Writer{enc: json.NewEncoder(w)}
	tw.err = tw.enc.Encode(h)
	return tw, tw.err
}

// Event writes one event (errors are kept for Result to report). The
// events of sim.Config.Decisions (pop, sched) are not part of the trace
// format: they are skipped.
func (w *Writer) Event(ev event.Event) {
	if ev.Ev == "pop" || ev.Ev == "sched" {
		return
	}
	if w.err == nil {
		w.err = w.enc.Encode(ev)
	}
}

// Result writes the closing line, or returns the first write error.
func (w *Writer) Result(r run.Record) error {
	if w.err != nil {
		return w.err
	}
	w.err = w.enc.Encode(resultLine{Ev: "result", Result: &r})
	return w.err
}

// Trace is a parsed trace.
type Trace struct {
	Header Header
	Events []event.Event
	Result *run.Record
}

// ErrTruncated is returned, wrapped, with the events read so far when a
// trace ends without its result line.
var ErrTruncated = errors.New("trace ends without its result line: truncated (the run was interrupted or the file cut)")

// Read parses a trace. A first line that is not a trace header, a newer
// schema, a malformed line or an unknown event kind is an error naming the
// line; a trace without its result line returns what was read and an error
// wrapping ErrTruncated.
func Read(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	t := &Trace{}
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			if line == 1 {
				return nil, fmt.Errorf("line 1 is empty: a trace starts with its header {\"ev\":\"run\",...}")
			}
			continue
		}
		if line == 1 {
			if err := readHeader(b, &t.Header); err != nil {
				return nil, fmt.Errorf("line 1: %w", err)
			}
			continue
		}
		var probe struct {
			Ev *string `json:"ev"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			return nil, fmt.Errorf("line %d: malformed or truncated event: %v", line, err)
		}
		if probe.Ev == nil {
			return nil, fmt.Errorf("line %d: an object without \"ev\": not a trace event", line)
		}
		if t.Result != nil {
			return nil, fmt.Errorf("line %d: %q after the result line, which ends a trace", line, *probe.Ev)
		}
		switch *probe.Ev {
		case "result":
			var rl resultLine
			if err := json.Unmarshal(b, &rl); err != nil || rl.Result == nil {
				return nil, fmt.Errorf("line %d: malformed result line (want {\"ev\":\"result\",\"result\":{...}}): %v", line, err)
			}
			t.Result = rl.Result
			continue
		case "load_start", "load_end", "alloc", "evict", "invalidate", "writeback_start", "writeback_end", "task_start", "task_end":
		case "run":
			return nil, fmt.Errorf("line %d: a second trace header: two traces were concatenated", line)
		default:
			return nil, fmt.Errorf("line %d: unknown event kind %q; a trace has load_start, load_end, alloc, evict, invalidate, writeback_start, writeback_end, task_start, task_end and result", line, *probe.Ev)
		}
		var ev event.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			return nil, fmt.Errorf("line %d: malformed event: %v", line, err)
		}
		t.Events = append(t.Events, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, fmt.Errorf("empty file: a trace starts with its header {\"ev\":\"run\",...} (memsched run --trace FILE writes one)")
	}
	if t.Result == nil {
		return t, fmt.Errorf("after %d lines: %w", line, ErrTruncated)
	}
	return t, nil
}

// readHeader decodes line 1, saying what the line is when it is not a
// header (a results record, a headless event stream).
func readHeader(b []byte, h *Header) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("not a memsched trace (want a header {\"ev\":\"run\",...}): %v", err)
	}
	var ev string
	json.Unmarshal(probe["ev"], &ev)
	switch {
	case ev == "run":
	case probe["ev"] == nil && (probe["makespan_s"] != nil || probe["key"] != nil):
		return fmt.Errorf("this is a results file (one record per line, written by memsched sweep or run), not a trace: memsched report reads it")
	case ev != "":
		return fmt.Errorf("the trace has no header: it starts with a %q event; the first line {\"ev\":\"run\",...} describes the platform and workload (memsched run --trace writes it)", ev)
	default:
		return fmt.Errorf("not a memsched trace header (want {\"ev\":\"run\",...})")
	}
	if err := json.Unmarshal(b, h); err != nil {
		return fmt.Errorf("malformed trace header: %v", err)
	}
	if h.Schema > run.Schema {
		return fmt.Errorf("trace schema %d is newer than this memsched's (%d): use the memsched that wrote it (commit %s)", h.Schema, run.Schema, h.Provenance.GitSHA)
	}
	p := h.Platform
	if p == nil {
		return fmt.Errorf("trace header has no platform")
	}
	// A trace carries the workers the run used, not the machine's counts.
	q := p.Clone()
	q.MaxGPUs, q.MaxCPUs = max(q.MaxGPUs, q.GPUs), max(q.MaxCPUs, q.CPUs)
	if err := q.Check(); err != nil {
		return fmt.Errorf("trace header: %v", err)
	}
	return nil
}
