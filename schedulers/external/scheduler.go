package external

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/schedulers"
)

// Scheduler is the memsched side of an external program: each decision
// (Pull, and Pop and Victim when the program handles them) is one request
// and one answer. Pushes and observed events need no answer: they are
// batched, in order, into the next request.
type Scheduler struct {
	name, path string
	spec       schedulers.Spec
	params     schedulers.Params
	timeout    time.Duration

	pop, victim, events bool // what the program handles

	v       schedulers.View
	p       *proc
	state   []uint8 // per task: notPushed, waiting (pushed, not pulled) or given
	waiting int
	pending []byte // events since the last request: JSON objects, comma-separated
	req     []byte
}

const (
	notPushed uint8 = iota
	waiting
	given
)

// Init starts the program and sends it the workload and platform.
func (s *Scheduler) Init(v schedulers.View) error {
	s.v = v
	w := v.Workload()
	s.state = make([]uint8, len(w.Tasks))
	var wl bytes.Buffer
	if err := w.WriteJSON(&wl); err != nil {
		return err
	}
	// WriteJSON puts items on their own lines; newlines occur nowhere else
	// (JSON escapes them in strings), so removing them makes one line.
	oneLine := bytes.ReplaceAll(bytes.TrimSpace(wl.Bytes()), []byte("\n"), nil)
	compute := make([]float64, len(w.Tasks))
	for t := range compute {
		compute[t] = v.ComputeSeconds(0, t)
	}
	gbps := make([]float64, v.Workers())
	kinds := make([]string, v.Workers())
	byKind := map[string][]float64{}
	for g := range gbps {
		gbps[g] = v.Platform().HomeGBps(v.WorkerNode(g))
		kinds[g] = v.WorkerKind(g)
		if byKind[kinds[g]] == nil {
			c := make([]float64, len(w.Tasks))
			for t := range c {
				if c[t] = v.ComputeSeconds(g, t); math.IsNaN(c[t]) {
					c[t] = -1 // JSON has no NaN: cannot run
				}
			}
			byKind[kinds[g]] = c
		}
	}
	msg := struct {
		Op       string               `json:"op"`
		Protocol int                  `json:"protocol"`
		Seed     uint64               `json:"seed"`
		Workers  int                  `json:"workers"`
		Buffer   int                  `json:"buffer"`
		Params   schedulers.Params    `json:"params"`
		Platform *hardware.Platform   `json:"platform"`
		Workload json.RawMessage      `json:"workload"`
		ComputeS []float64            `json:"compute_s"`
		HostGBps []float64            `json:"host_gbps"`
		Kinds    []string             `json:"worker_kinds"`
		ByKind   map[string][]float64 `json:"compute_s_by_kind"`
	}{"init", Protocol, v.Rand().Uint64(), v.Workers(), s.spec.BufferDepth(s.params, v.Platform().Runtime.Buffer),
		s.params, v.Platform(), oneLine, compute, gbps, kinds, byKind}
	req, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("%s: encoding init: %v", s.name, err)
	}
	if s.p, err = start(s.name, s.path, s.timeout); err != nil {
		return err
	}
	line, err := s.p.call(append(req, '\n'), "init")
	if err != nil {
		return err
	}
	var a struct {
		OK    bool    `json:"ok"`
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(line, &a); err != nil || (!a.OK && a.Error == nil) {
		return s.p.fail("init wants {\"ok\": true} or {\"error\": \"why\"}; got %s", quote(line))
	}
	if a.Error != nil {
		return s.p.fail("init: the program refuses: %s", *a.Error)
	}
	return nil
}

// Close ends the program (run.Run calls it after every run); output the
// program wrote after its last answer is an error, which fails the run.
func (s *Scheduler) Close() error {
	if s.p != nil {
		return s.p.close()
	}
	return nil
}

func (s *Scheduler) Push(t int) {
	if s.state[t] != notPushed {
		s.abort(fmt.Errorf("%s: task %d pushed twice (an engine bug)", s.name, t))
	}
	s.state[t] = waiting
	s.waiting++
	s.event("push", "task", -1, t)
}

func (s *Scheduler) Observe(kind schedulers.EventKind, worker, id int) {
	if !s.events {
		return
	}
	switch kind {
	case schedulers.LoadStarted:
		s.event("load_start", "data", worker, id)
	case schedulers.Loaded:
		s.event("load_end", "data", worker, id)
	case schedulers.Evicted:
		s.event("evict", "data", worker, id)
	case schedulers.Started:
		s.event("task_start", "task", worker, id)
	case schedulers.Finished:
		s.event("task_end", "task", worker, id)
	}
}

func (s *Scheduler) event(ev, field string, worker, id int) {
	if len(s.pending) > 0 {
		s.pending = append(s.pending, ',')
	}
	s.pending = append(s.pending, `{"ev":"`...)
	s.pending = append(s.pending, ev...)
	s.pending = append(s.pending, '"')
	if worker >= 0 {
		s.pending = append(s.pending, `,"worker":`...)
		s.pending = strconv.AppendInt(s.pending, int64(worker), 10)
	}
	s.pending = append(s.pending, `,"`...)
	s.pending = append(s.pending, field...)
	s.pending = append(s.pending, `":`...)
	s.pending = strconv.AppendInt(s.pending, int64(id), 10)
	s.pending = append(s.pending, '}')
}

// Pull asks the program for the worker's next task. With no task waiting
// the answer can only be none, so no request is made.
func (s *Scheduler) Pull(worker int) (int, bool) {
	if s.waiting == 0 {
		return 0, false
	}
	s.begin("pull", worker)
	raw := s.ask("pull", "task", `{"task": <id>} or {"task": null}`)
	if raw == nil {
		return 0, false
	}
	t := s.integer(raw, "pull", `{"task": <id>} or {"task": null}`)
	switch {
	case t < 0 || t >= len(s.state):
		s.abort(s.p.fail("pull answered unknown task %d (tasks are 0 to %d)", t, len(s.state)-1))
	case s.state[t] == notPushed:
		s.abort(s.p.fail("pull answered task %d, which was not pushed yet (its dependencies have not finished)", t))
	case s.state[t] == given:
		s.abort(s.p.fail("pull answered task %d, which an earlier pull already gave", t))
	}
	s.state[t] = given
	s.waiting--
	return t, true
}

// Pop asks which buffered task the worker starts, when the program handles
// it; else the oldest (as without a Popper).
func (s *Scheduler) Pop(worker int, buffer []int) int {
	if !s.pop {
		return 0
	}
	s.begin("pop", worker)
	s.req = appendInts(append(s.req, `,"buffer":`...), buffer)
	raw := s.ask("pop", "index", `{"index": <position in buffer>}`)
	i := s.integer(raw, "pop", `{"index": <position in buffer>}`)
	if i < 0 || i >= len(buffer) {
		s.abort(s.p.fail("pop answered index %d of a buffer of %d tasks (0 to %d)", i, len(buffer), len(buffer)-1))
	}
	return i
}

// Victim asks which data to evict, when the program handles it; else the
// least recently used (as without an Evictor).
// ChoosesVictims says whether the program chooses victims (it said so when
// asked for its capabilities).
func (s *Scheduler) ChoosesVictims() bool { return s.victim }

func (s *Scheduler) Victim(worker int, candidates []int, prefetch bool) int {
	if !s.victim {
		return candidates[0]
	}
	s.begin("victim", worker)
	s.req = appendInts(append(s.req, `,"candidates":`...), candidates)
	s.req = strconv.AppendBool(append(s.req, `,"prefetch":`...), prefetch)
	want := `{"data": <one of the candidates>} or {"data": null}`
	raw := s.ask("victim", "data", want)
	if raw == nil {
		return -1
	}
	d := s.integer(raw, "victim", want)
	for _, c := range candidates {
		if c == d {
			return d
		}
	}
	s.abort(s.p.fail("victim answered data %d, which is not among the %d candidates", d, len(candidates)))
	return -1
}

// begin starts a request: op, worker, time.
func (s *Scheduler) begin(op string, worker int) {
	s.req = append(s.req[:0], `{"op":"`...)
	s.req = append(s.req, op...)
	s.req = append(s.req, `","worker":`...)
	s.req = strconv.AppendInt(s.req, int64(worker), 10)
	s.req = append(s.req, `,"now":`...)
	s.req = strconv.AppendFloat(s.req, s.v.Now(), 'g', -1, 64)
}

// ask finishes the request with the pending events, sends it and returns
// the answer's field (nil when it is null).
func (s *Scheduler) ask(op, field, want string) json.RawMessage {
	s.req = append(s.req, `,"events":[`...)
	s.req = append(s.req, s.pending...)
	s.req = append(s.req, "]}\n"...)
	s.pending = s.pending[:0]
	line, err := s.p.call(s.req, op)
	if err != nil {
		s.abort(err)
	}
	raw, err := parseAnswer(line, op, field, want)
	if err != nil {
		s.abort(s.p.fail("%v", err))
	}
	return raw
}

// parseAnswer decodes an answer line to op: the named field's value (nil
// for null), or an error saying what is wrong with the line (not JSON,
// the program's own {"error": ...}, the field missing).
func parseAnswer(line []byte, op, field, want string) (json.RawMessage, error) {
	var a struct {
		Error *string         `json:"error"`
		Task  json.RawMessage `json:"task"`
		Index json.RawMessage `json:"index"`
		Data  json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, fmt.Errorf("%s: the answer is not JSON (%v): %s", op, err, quote(line))
	}
	if a.Error != nil {
		return nil, fmt.Errorf("%s: the program says: %s", op, *a.Error)
	}
	raw := a.Task
	switch field {
	case "index":
		raw = a.Index
	case "data":
		raw = a.Data
	}
	if raw == nil {
		return nil, fmt.Errorf("%s wants %s; got %s", op, want, quote(line))
	}
	if string(raw) == "null" {
		return nil, nil
	}
	return raw, nil
}

// parseInt reads an answer's id or index.
func parseInt(raw json.RawMessage, op, want string) (int, error) {
	i, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, fmt.Errorf("%s wants %s; got %s", op, want, quote(raw))
	}
	return i, nil
}

func (s *Scheduler) integer(raw json.RawMessage, op, want string) int {
	i, err := parseInt(raw, op, want)
	if err != nil {
		s.abort(s.p.fail("%v", err))
	}
	return i
}

func (s *Scheduler) abort(err error) { panic(schedulers.Abort{Err: err}) }

func appendInts(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// The adapter is every optional part of the contract; the program's
// handles decide which ones make requests.
var (
	_ schedulers.Popper   = (*Scheduler)(nil)
	_ schedulers.Evictor  = (*Scheduler)(nil)
	_ schedulers.Observer = (*Scheduler)(nil)
)
