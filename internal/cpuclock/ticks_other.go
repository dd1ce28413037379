//go:build !amd64

package cpuclock

func ticks() int64     { return 0 }
func hasCounter() bool { return false }
