// Package trace writes and re-checks run traces: JSON Lines whose first
// line describes the run (platform and workload), then one object per event
// (load_start, load_end, evict, task_start, task_end), then the result
// record. Validate replays a trace against its workload and platform.
package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// Header is the first line of a trace: enough to rebuild the run's workload
// and platform.
type Header struct {
	Ev           string             `json:"ev"` // "run"
	Platform     *hardware.Platform `json:"platform"`
	Workload     *workloads.Spec    `json:"workload,omitempty"`
	WorkloadFile string             `json:"workload_file,omitempty"`
	Seed         uint64             `json:"seed"`
}

type resultLine struct {
	Ev     string      `json:"ev"` // "result"
	Result *run.Record `json:"result"`
}

// Writer writes a trace.
type Writer struct {
	enc *json.Encoder
	err error
}

// NewWriter writes the header line.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Ev = "run"
	tw := &Writer{enc: json.NewEncoder(w)}
	return tw, tw.enc.Encode(h)
}

// Event writes one event (errors are kept for Result to report).
func (w *Writer) Event(ev sim.Event) {
	if w.err == nil {
		w.err = w.enc.Encode(ev)
	}
}

// Result writes the closing line.
func (w *Writer) Result(r run.Record) error {
	if w.err != nil {
		return w.err
	}
	return w.enc.Encode(resultLine{Ev: "result", Result: &r})
}

// Trace is a parsed trace.
type Trace struct {
	Header Header
	Events []sim.Event
	Result *run.Record
}

// Read parses a trace; a truncated or malformed line is an error naming it.
func Read(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	t := &Trace{}
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		if line == 1 {
			if err := json.Unmarshal(b, &t.Header); err != nil || t.Header.Ev != "run" {
				return nil, fmt.Errorf("line 1: not a memsched trace header (want {\"ev\":\"run\",...}): %v", err)
			}
			if t.Header.Platform == nil {
				return nil, fmt.Errorf("line 1: trace header has no platform")
			}
			continue
		}
		var probe struct {
			Ev string `json:"ev"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			return nil, fmt.Errorf("line %d: malformed or truncated event: %v", line, err)
		}
		if probe.Ev == "result" {
			var rl resultLine
			if err := json.Unmarshal(b, &rl); err != nil {
				return nil, fmt.Errorf("line %d: malformed result: %v", line, err)
			}
			t.Result = rl.Result
			continue
		}
		var ev sim.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			return nil, fmt.Errorf("line %d: malformed event: %v", line, err)
		}
		t.Events = append(t.Events, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, fmt.Errorf("empty trace")
	}
	if t.Result == nil {
		return t, fmt.Errorf("trace ends without its result line after %d lines: truncated (the run was interrupted or the file cut)", line)
	}
	return t, nil
}
