// Package baseline holds StarPU's schedulers that the papers compare
// against: EAGER (modular-eager-prefetching) and DMDA/DMDAR.
package baseline

import "github.com/memsched/memsched/schedulers"

func init() {
	schedulers.Register(schedulers.Spec{
		Name:    "eager",
		Version: 1,
		Doc:     "StarPU modular-eager-prefetching: one central queue in submission order; a worker pulls the head when its buffer has room; LRU eviction",
		New:     func(schedulers.Params) (schedulers.Scheduler, error) { return &Eager{}, nil },
	})
}

// Eager is one FIFO shared by every worker.
type Eager struct {
	queue []int
	head  int
}

func (s *Eager) Init(schedulers.View) error { return nil }
func (s *Eager) Push(t int)                 { s.queue = append(s.queue, t) }
func (s *Eager) Pull(int) (int, bool) {
	if s.head == len(s.queue) {
		return 0, false
	}
	s.head++
	return s.queue[s.head-1], true
}
