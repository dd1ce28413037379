package batch

// Event kinds of a batch trace.
const (
	EvSubmit = "submit" // a job enters the queue
	EvPass   = "pass"   // a planning pass (Full: the whole queue from scratch)
	EvPlan   = "plan"   // a reservation of the pass: Job on Node, Cores cores over [At, Until)
	EvStart  = "start"  // Job starts on Node (CoreIDs), loads File for Transfer s or waits Wait s; the file is there at At; killed at Until
	EvLoad   = "load"   // Node starts loading File for Job, loaded at Until
	EvEnd    = "end"    // Job ends on Node
)

// Event is one line of a batch trace.
type Event struct {
	T        int64  `json:"t"`
	Kind     string `json:"ev"`
	Job      int    `json:"job"`
	Node     int    `json:"node"`
	Cores    int    `json:"cores,omitempty"`
	CoreIDs  []int  `json:"core_ids,omitempty"`
	File     int    `json:"file,omitempty"`
	Transfer int64  `json:"transfer,omitempty"`
	Wait     int64  `json:"wait,omitempty"`
	At       int64  `json:"at,omitempty"`
	Until    int64  `json:"until,omitempty"`
	Full     bool   `json:"full,omitempty"`
}
