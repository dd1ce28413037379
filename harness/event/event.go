// Package event is the trace record: what the engine (harness/sim) emits,
// with measured times when the CUDA executor (harness/cudaexec) drives it,
// and what trace, report and simprof read. It is a leaf, importing nothing
// of memsched, so that the readers of traces need not import the engine.
package event

// Event is one trace record. Node is a memory node (hardware.Platform's
// Nodes order: GPU g's memory is node g, the home node is last); Src is
// the node a copy comes from. Every field is always written (id 0 and GPU
// 0 included), so a reader needs no defaults; a field that does not apply
// to the kind is zero.
type Event struct {
	T      float64 `json:"t"`
	Ev     string  `json:"ev"` // load_start, load_end, alloc, evict, invalidate, writeback_start, writeback_end, task_start, task_end
	Worker int     `json:"worker"`
	Node   int     `json:"node"`
	Task   int     `json:"task"`  // task events
	Data   int     `json:"data"`  // data events
	Bytes  int64   `json:"bytes"` // data events
	Kind   string  `json:"kind"`  // fetch or prefetch, on load_start
	Src    int     `json:"src"`   // the source node, on loads

	// Until ends the charged scheduling time of a sched event
	// (sim.Config.Decisions only: never in a trace file).
	Until float64 `json:"until,omitempty"`
}
