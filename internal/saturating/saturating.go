// Package saturating adds and multiplies non-negative operation counts
// that stop at math.MaxInt64 instead of wrapping negative: the modelled
// cost of StarPU's HFP (a search over every package at each merge) passes
// 2⁶³ comparisons near a million tasks.
package saturating

import "math"

// Add returns a+b, or math.MaxInt64 past it; a, b ≥ 0.
func Add(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// Mul returns a·b, or math.MaxInt64 past it; a, b ≥ 0.
func Mul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
