package cpuclock

import (
	"testing"
	"time"
)

// TestSinceFollowsMonotonicClock checks that Since never goes back and
// measures a sleep as the monotonic clock does (within 10 %: the two are
// read a few instructions apart, the sleep lasts 50 ms).
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
	time.Sleep(50 * time.Millisecond)
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
