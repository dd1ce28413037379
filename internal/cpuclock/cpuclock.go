// Package cpuclock is a monotonic clock for timing many short calls: the
// engine reads the clock twice around every scheduler call, millions of
// times in a run. Under a hypervisor's clock source (kvm-clock) time.Since
// costs ~30 ns a read, as much as a cheap scheduler call; the processor's
// time-stamp counter costs ~11 ns. On amd64 with an invariant counter,
// Since counts it, scaled by its rate measured against the monotonic
// clock on first use (two windows of 1 ms that must agree); elsewhere, or
// when the counter is not steady or not cheaper, it is time.Since.
// Go's runtime reads the same counter for its block and mutex profiles
// (runtime.cputicks).
package cpuclock

import (
	"sync"
	"time"
)

var (
	once      sync.Once
	start     time.Time
	counter   bool    // the time-stamp counter is used
	base      int64   // its value at start
	nsPerTick float64 // its period
)

// Since returns the time elapsed since its first call.
func Since() time.Duration {
	once.Do(calibrate)
	if !counter {
		return time.Since(start)
	}
	return time.Duration(float64(ticks()-base) * nsPerTick)
}

// UsesCounter reports whether Since counts the time-stamp counter.
func UsesCounter() bool {
	once.Do(calibrate)
	return counter
}

// calibrate measures the counter's period over two consecutive windows of
// at least 1 ms each and keeps it if they agree within 0.1 % (three tries)
// and a read costs less than one of the monotonic clock. Both are
// measured so that an interruption (a profiling signal, another process)
// cannot decide: the period is retried, the costs are the least of 16
// rounds.
func calibrate() {
	start = time.Now()
	if !hasCounter() {
		return
	}
	if !cheaper() {
		return
	}
	for range 3 {
		var rate [2]float64
		w0, k0 := time.Now(), ticks()
		for i := range rate {
			for time.Since(w0) < time.Millisecond {
			}
			k1, w1 := ticks(), time.Now()
			rate[i] = float64(w1.Sub(w0).Nanoseconds()) / float64(k1-k0)
			w0, k0 = w1, k1
		}
		if rate[0] > 0 && rate[1] > 0 && rate[0]/rate[1] <= 1.001 && rate[1]/rate[0] <= 1.001 {
			counter, nsPerTick = true, (rate[0]+rate[1])/2
			base = ticks() - int64(float64(time.Since(start))/nsPerTick)
			return
		}
	}
}

// cheaper reports whether the counter reads faster than the monotonic
// clock, in the least time of 16 rounds of 64 reads each.
func cheaper() bool {
	const rounds, reads = 16, 64
	best := [2]time.Duration{1 << 62, 1 << 62}
	for range rounds {
		c0 := time.Now()
		for range reads {
			sinkTicks += ticks()
		}
		c1 := time.Now()
		for range reads {
			sinkTicks += int64(time.Since(start))
		}
		c2 := time.Now()
		best[0], best[1] = min(best[0], c1.Sub(c0)), min(best[1], c2.Sub(c1))
	}
	return best[0] < best[1]
}

var sinkTicks int64 // keeps the cost measurement's reads
