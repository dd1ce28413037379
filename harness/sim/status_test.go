package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
)

// statusSpy hands every task to worker 0's buffer in order and records,
// at each Requested event and task start, what the view reports of every
// datum (schedulers.Status).
type statusSpy struct {
	v    schedulers.View
	next int
	log  []string
}

func (s *statusSpy) Init(v schedulers.View) error { s.v = v; return nil }
func (s *statusSpy) Push(int)                     {}
func (s *statusSpy) Pull(int) (int, bool) {
	if s.next == len(s.v.Workload().Tasks) {
		return 0, false
	}
	s.next++
	return s.next - 1, true
}

// Observes says the spy follows requests and task starts.
func (s *statusSpy) Observes(kind schedulers.EventKind) bool {
	return kind == schedulers.Requested || kind == schedulers.Started
}

func (s *statusSpy) Observe(kind schedulers.EventKind, where, id int) {
	what := fmt.Sprintf("requested %d", id)
	if kind == schedulers.Started {
		what = fmt.Sprintf("task %d starts", id)
	} else if kind != schedulers.Requested {
		return
	}
	st := s.v.(schedulers.StatusViewer).Status(0)
	line := what + ":"
	for d := range s.v.Workload().Data {
		line += " " + statusString(st.Of(d))
	}
	s.log = append(s.log, line)
}

func statusString(b uint8) string {
	s := ""
	for _, c := range []struct {
		bit  uint8
		name string
	}{{schedulers.StatusAllocated, "A"}, {schedulers.StatusValid, "V"}, {schedulers.StatusLoading, "L"}} {
		if b&c.bit != 0 {
			s += c.name
		}
	}
	if s == "" {
		return "-"
	}
	return s
}

// What the schedulers see of a datum is what StarPU's
// starpu_data_query_status2 reports (user_interactions.c): allocated and
// loading from when its request is handled, and loading, not allocated,
// after a request that found no memory, since data_request.c
// starpu_handle_data_request sets the replicate's load_request before
// allocating and leaves it set on -ENOMEM. The GPU holds two data; task 0
// reads data 0 and 1, task 1 reads data 2; both are buffered (and
// prefetched) at once, and task 0 is popped: its fetches of 0 and 1 are
// handled (allocated, their copies queued: A for allocated, L loading),
// then, once 0 is valid (V), the prefetch of 2 finds memory full of data
// task 0 uses and is refused: 2 shows as loading. When task 0 ends, 2
// takes 0's place (- for nothing). Under Runtime.LoadingFromCopy (the
// former model) a datum is allocated and loading only once its copy
// starts: 0 and 1 show nothing while they wait for the copy engine, and
// the refusal of 2 shows nothing either.
func TestStatusIsStarPUs(t *testing.T) {
	w := chain([][]int{{0, 1}, {2}}, nil)
	for _, c := range []struct {
		fromCopy bool
		want     string
	}{
		{false, "requested 0: AL - -|requested 1: AL AL -|requested 2: AV AL L|task 0 starts: AV AV L|requested 2: - AV AL|task 1 starts: - AV AV"},
		{true, "requested 0: - - -|requested 1: - - -|task 0 starts: AV AV -|requested 2: - AV -|task 1 starts: - AV AV"},
	} {
		spy := &statusSpy{}
		p := runtimePlatform(t, 2, func(r *hardware.Runtime) { r.LoadingFromCopy = c.fromCopy })
		run(t, sim.Config{Workload: w, Platform: p, Scheduler: spy, Buffer: -1, Pipeline: 1})
		if got := strings.Join(spy.log, "|"); got != c.want {
			t.Errorf("loading_from_copy=%v:\n got %s\nwant %s", c.fromCopy, got, c.want)
		}
	}
}

// What the application holds on a GPU outside its data
// (Workload.DeviceBytes: xgemm.c's 2D C scratch tile) is not there for the
// data. Four one-byte data read in turn, then the first again: a GPU of 4
// bytes keeps them all (4 loads); holding 1 byte for the application it
// keeps 3, and the first is evicted before it is read again (5 loads). A
// GPU left no byte for the data is refused.
func TestDeviceBytesTakeMemory(t *testing.T) {
	for _, c := range []struct {
		device int64
		loads  int
	}{{0, 4}, {1, 5}} {
		w := chain([][]int{{0}, {1}, {2}, {3}, {0}}, nil)
		w.DeviceBytes = c.device
		st := run(t, sim.Config{Workload: w, Platform: runtimePlatform(t, 4, nil), Scheduler: &statusSpy{}, Buffer: 1, Pipeline: 1})
		if st.Loads != c.loads {
			t.Errorf("device_bytes %d: %d loads, want %d", c.device, st.Loads, c.loads)
		}
	}
	w := chain([][]int{{0}}, nil)
	w.DeviceBytes = 4
	if _, err := sim.New(sim.Config{Workload: w, Platform: runtimePlatform(t, 4, nil), Scheduler: &statusSpy{}}); err == nil {
		t.Error("a GPU holding nothing but the application's bytes was accepted")
	}
}
