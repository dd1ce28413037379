package cpuclock

// ticks reads the time-stamp counter (RDTSC).
func ticks() int64

// invariantTSC reports whether the counter runs at a constant rate in
// every power state (CPUID 0x80000007 EDX[8]).
func invariantTSC() bool

func hasCounter() bool { return invariantTSC() }
