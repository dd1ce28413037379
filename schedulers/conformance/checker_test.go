package conformance

import (
	"strings"
	"testing"

	"github.com/memsched/memsched/schedulers"
)

// fifo is a correct scheduler that the broken ones below spoil.
type fifo struct {
	queue []int
	v     schedulers.View
}

func (s *fifo) Init(v schedulers.View) error { s.v = v; return nil }
func (s *fifo) Push(t int)                   { s.queue = append(s.queue, t) }
func (s *fifo) Pull(int) (int, bool) {
	if len(s.queue) == 0 {
		return 0, false
	}
	t := s.queue[0]
	s.queue = s.queue[1:]
	return t, true
}

type twice struct{ fifo }

func (s *twice) Pull(w int) (int, bool) {
	t, ok := s.fifo.Pull(w)
	if ok && t == 1 {
		s.queue = append(s.queue, 1) // hands task 1 out again
	}
	return t, ok
}

type loses struct{ fifo }

func (s *loses) Push(t int) {
	if t != 2 {
		s.fifo.Push(t)
	}
}

var runs int // shared across runs: the same seed gives another order

type fickle struct{ fifo }

func (s *fickle) Init(v schedulers.View) error { runs++; return s.fifo.Init(v) }
func (s *fickle) Pull(w int) (int, bool) {
	if runs%2 == 0 && len(s.queue) > 1 {
		s.queue[0], s.queue[1] = s.queue[1], s.queue[0]
	}
	return s.fifo.Pull(w)
}

type panicky struct{ fifo }

func (s *panicky) Init(v schedulers.View) error {
	if w := v.Workload(); len(w.DepsOf(len(w.Tasks)-1)) > 0 {
		panic("graphs are not supported")
	}
	return s.fifo.Init(v)
}

type refuses struct{ fifo }

func (s *refuses) Init(v schedulers.View) error { return errRefuse }

var errRefuse = &refusal{}

type refusal struct{}

func (*refusal) Error() string { return "I schedule nothing" }

func spec(name string, mk func() schedulers.Scheduler) schedulers.Spec {
	return schedulers.Spec{Name: name, New: func(schedulers.Params) (schedulers.Scheduler, error) { return mk(), nil }}
}

func TestTheCheckerCatchesBrokenSchedulers(t *testing.T) {
	dag := Instances[len(Instances)-1]
	cases := []struct {
		spec schedulers.Spec
		in   Instance
		want string
	}{
		{spec("twice", func() schedulers.Scheduler { return &twice{} }), Instances[0], "task 1"},
		{spec("loses", func() schedulers.Scheduler { return &loses{} }), Instances[0], "stuck"},
		{spec("fickle", func() schedulers.Scheduler { return &fickle{} }), Instances[3], "not deterministic"},
		{spec("panicky", func() schedulers.Scheduler { return &panicky{} }), dag, "panicked: graphs are not supported"},
		{spec("refuses", func() schedulers.Scheduler { return &refuses{} }), Instances[0], "I schedule nothing"},
	}
	for _, c := range cases {
		problems, _ := Problems(c.spec, c.in, nil)
		if !strings.Contains(strings.Join(problems, "\n"), c.want) {
			t.Errorf("%s on %s: problems %q; want one saying %q", c.spec.Name, c.in.Name, problems, c.want)
		}
	}
	// A refusal of an optional instance is allowed; a correct FIFO passes.
	if problems, refused := Problems(spec("refuses", func() schedulers.Scheduler { return &refuses{} }), dag, nil); problems != nil || refused == nil {
		t.Errorf("refusing a task graph: problems %q, refused %v; want an allowed refusal", problems, refused)
	}
	for _, in := range Instances {
		if problems, _ := Problems(spec("fifo", func() schedulers.Scheduler { return &fifo{} }), in, nil); problems != nil {
			t.Errorf("a correct FIFO on %s: %q", in.Name, problems)
		}
	}
}
