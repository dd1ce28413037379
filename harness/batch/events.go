package batch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Event kinds of a batch trace.
const (
	EvSubmit = "submit" // Job enters the queue: Cores, File (SizeGB), Duration, Walltime
	EvPass   = "pass"   // a planning pass (Full: the whole queue from scratch)
	EvPlan   = "plan"   // a reservation of the pass: Job on Node, Cores cores over [At, Until)
	EvStart  = "start"  // Job starts on Node (CoreIDs), loads File for Transfer s or waits Wait s; the file is there at At; killed at Until
	EvLoad   = "load"   // Node starts loading File for Job, loaded at Until
	EvEnd    = "end"    // Job ends on Node
)

// Event is one line of a batch trace. Node is -1 on events without one.
type Event struct {
	T        int64   `json:"t"`
	Kind     string  `json:"ev"`
	Job      int     `json:"job"`
	Node     int     `json:"node"`
	Cores    int     `json:"cores,omitempty"`
	CoreIDs  []int   `json:"core_ids,omitempty"`
	File     int     `json:"file,omitempty"`
	SizeGB   float32 `json:"size_gb,omitempty"`
	Duration int64   `json:"duration,omitempty"`
	Walltime int64   `json:"walltime,omitempty"`
	Transfer int64   `json:"transfer,omitempty"`
	Wait     int64   `json:"wait,omitempty"`
	At       int64   `json:"at,omitempty"`
	Until    int64   `json:"until,omitempty"`
	Full     bool    `json:"full,omitempty"`
}

// Header is a batch trace's first line: what ran.
type Header struct {
	Ev               string            `json:"ev"`                // "batch"
	Schema           int               `json:"schema"`            // run.Schema
	ModelVersion     int               `json:"model_version"`     // ModelVersion
	SchedulerVersion int               `json:"scheduler_version"` // the batch scheduler's Version
	Workload         string            `json:"workload"`
	Cluster          Cluster           `json:"cluster"`
	Rules            Rules             `json:"rules"`
	Scheduler        string            `json:"scheduler"`
	Params           map[string]string `json:"params"`
	Backfill         bool              `json:"backfill"`
	Plans            bool              `json:"plans"` // plan events included
}

// HeaderEv marks a batch trace's first line.
const HeaderEv = "batch"

// Writer writes a batch trace as JSON Lines: the header, then events.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

// NewWriter starts a trace.
func NewWriter(w io.Writer, h Header) *Writer {
	bw := bufio.NewWriterSize(w, 1<<20)
	tw := &Writer{w: bw, enc: json.NewEncoder(bw)}
	h.Ev = HeaderEv
	tw.err = tw.enc.Encode(h)
	return tw
}

// Event appends an event (the first write error sticks).
func (w *Writer) Event(e Event) {
	if w.err == nil {
		w.err = w.enc.Encode(e)
	}
}

// Close flushes the trace and reports the first error.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

// ReadTrace reads a batch trace.
func ReadTrace(r io.Reader) (*Header, []Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	var h Header
	var evs []Event
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Ev != HeaderEv {
				return nil, nil, fmt.Errorf("line 1: not a batch trace header (want {\"ev\":\"batch\",...}, written by memsched batch --trace)")
			}
			// The cluster sizes what a check allocates: bounded first.
			if err := h.Cluster.Check(); err != nil {
				return nil, nil, fmt.Errorf("line 1: the header's %v", err)
			}
			continue
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, nil, fmt.Errorf("line %d: %v (a truncated trace?)", line, err)
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if line == 0 {
		return nil, nil, fmt.Errorf("empty trace")
	}
	return &h, evs, nil
}

// IsTrace reports whether a trace's first line is a batch header.
func IsTrace(first []byte) bool {
	var h struct {
		Ev string `json:"ev"`
	}
	return json.Unmarshal(first, &h) == nil && h.Ev == HeaderEv
}
