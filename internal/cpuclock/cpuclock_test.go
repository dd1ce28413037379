package cpuclock

import (
	"testing"
	"time"
)

// TestSinceFollowsMonotonicClock checks that Since never goes back and
// measures a sleep as the monotonic clock does. The two are read a few
// instructions apart, so only a preemption between two paired reads can
// part them: 10 % of a 200 ms sleep leaves 20 ms for it on a loaded CI
// machine; it catches a period or base that is wrong, not one off by
// less than that (the calibration itself asks two windows to agree
// within 0.1 %).
func TestSinceFollowsMonotonicClock(t *testing.T) {
	a, w0 := Since(), time.Now()
	prev := a
	for range 1000 {
		now := Since()
		if now < prev {
			t.Fatalf("Since went back: %v after %v", now, prev)
		}
		prev = now
	}
	time.Sleep(200 * time.Millisecond)
	b, w1 := Since(), time.Now()
	got, want := b-a, w1.Sub(w0)
	if d := got - want; d > want/10 || d < -want/10 {
		t.Fatalf("Since measured %v where the monotonic clock measured %v (counter %v)", got, want, UsesCounter())
	}
	t.Logf("counter %v: %v against %v", UsesCounter(), got, want)
}

func BenchmarkSince(b *testing.B) {
	var s time.Duration
	for b.Loop() {
		s += Since()
	}
	_ = s
}

func BenchmarkTimeSince(b *testing.B) {
	start := time.Now()
	var s time.Duration
	for b.Loop() {
		s += time.Since(start)
	}
	_ = s
}
