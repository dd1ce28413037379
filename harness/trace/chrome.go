package trace

import (
	"encoding/json"
	"fmt"
	"io"
)

// chromeEvent is one entry of the Trace Event Format that Perfetto and
// chrome://tracing open ("JSON Object Format": {"traceEvents": [...]}).
// Times are microseconds.
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Chrome process ids: workers, and memory nodes (copies and memory use).
const (
	chromeWorkers = 1
	chromeMemory  = 2
)

// WriteChrome writes the timeline in the Trace Event Format: one thread
// per worker with its computing and fetching intervals (idle is the gap),
// one thread per memory node with the copies into it as async spans
// (copies overlap, which complete events on one thread may not), and a
// memory-used counter per node. TaskName, when not nil, names the tasks
// (their kernel); otherwise a task is "task N".
func WriteChrome(w io.Writer, tl *Timeline, taskName func(int) string) error {
	us := func(s float64) float64 { return s * 1e6 }
	evs := []chromeEvent{
		{Name: "process_name", Ph: "M", Pid: chromeWorkers, Args: map[string]any{"name": "workers"}},
		{Name: "process_name", Ph: "M", Pid: chromeMemory, Args: map[string]any{"name": "memory nodes"}},
	}
	for wi := range tl.Workers {
		evs = append(evs, chromeEvent{Name: "thread_name", Ph: "M", Pid: chromeWorkers, Tid: wi, Args: map[string]any{"name": tl.WorkerName(wi)}})
	}
	for n := range tl.Nodes {
		evs = append(evs, chromeEvent{Name: "thread_name", Ph: "M", Pid: chromeMemory, Tid: n, Args: map[string]any{"name": tl.NodeName(n)}})
	}
	for _, s := range tl.States {
		if s.What == Idle {
			continue
		}
		d := us(s.End) - us(s.Start)
		e := chromeEvent{Name: s.What, Cat: s.What, Ph: "X", Ts: us(s.Start), Dur: &d, Pid: chromeWorkers, Tid: s.Worker}
		if s.What == Computing {
			e.Name = fmt.Sprintf("task %d", s.Task)
			if taskName != nil {
				e.Name = taskName(s.Task)
			}
			e.Args = map[string]any{"task": s.Task}
		}
		evs = append(evs, e)
	}
	for i, c := range tl.Copies {
		name := fmt.Sprintf("%s data %d", c.Kind, c.Data)
		args := map[string]any{"data": c.Data, "bytes": c.Bytes, "from": tl.NodeName(c.Src), "to": tl.NodeName(c.Dst)}
		id := fmt.Sprint(i)
		evs = append(evs,
			chromeEvent{Name: name, Cat: c.Kind, Ph: "b", Ts: us(c.Start), Pid: chromeMemory, Tid: c.Dst, ID: id, Args: args},
			chromeEvent{Name: name, Cat: c.Kind, Ph: "e", Ts: us(c.End), Pid: chromeMemory, Tid: c.Dst, ID: id})
	}
	for _, m := range tl.Memory {
		evs = append(evs, chromeEvent{Name: tl.NodeName(m.Node) + " used (MiB)", Ph: "C", Ts: us(m.T), Pid: chromeMemory, Tid: m.Node,
			Args: map[string]any{"MiB": float64(m.Bytes) / (1 << 20)}})
	}
	return json.NewEncoder(w).Encode(struct {
		TraceEvents     []chromeEvent `json:"traceEvents"`
		DisplayTimeUnit string        `json:"displayTimeUnit"`
	}{evs, "ms"})
}
