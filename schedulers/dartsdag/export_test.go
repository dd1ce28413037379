package dartsdag

// SetChecking turns on the comparison of every decision and free insertion
// with a recomputation from scratch (check.go).
func SetChecking(on bool) { checking = on }
