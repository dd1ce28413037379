package baseline

import (
	"testing"

	"github.com/memsched/memsched/schedulers"
)

// StarPU's eager component lets the FIFO above push one task each time a
// worker's FIFO below asks (component_eager.c eager_can_push), and that
// FIFO asks once per pull: it holds one task whenever the worker pops,
// whatever STARPU_NTASKS_THRESHOLD (StarPU+SimGrid at papers/ICPP2023 gives
// the same run with thresholds 1 to 100, READY 0 or 1). EAGER's buffer is
// one task, so its Ready pops in submission order; the queue above
// prefetches each task as it is pushed (PushPrefetcher).
func TestEagerBuffersOneTask(t *testing.T) {
	s, spec, p, err := schedulers.Build("eager", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.BufferDepth(p, 10); got != 1 {
		t.Errorf("eager's buffer under a platform buffer of 10: %d tasks, want 1", got)
	}
	if pp, ok := s.(schedulers.PushPrefetcher); !ok || !pp.PrefetchesAtPush() {
		t.Errorf("eager does not prefetch at push")
	}
}
