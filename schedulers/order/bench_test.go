package order

import (
	"fmt"
	"testing"
)

// Thesis Ch. 3 setting: 960×960 fp32 tiles, A block-rows / B block-columns
// of 4 tiles (14,745,600 bytes), GPU memory capped at 500 MiB.
const (
	benchDataBytes = 14745600
	benchMemory    = 524288000
)

func BenchmarkHFP(b *testing.B) {
	for _, n := range []int{30, 60, 90, 150, 300} {
		w := grid2D(n, benchDataBytes)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				HFP(w, HFPOptions{Memory: benchMemory, Flip: true, Packages: 1})
			}
			b.ReportMetric(float64(len(w.Tasks)), "tasks")
		})
	}
}

func BenchmarkHFPFastStart(b *testing.B) {
	for _, n := range []int{90, 300} {
		w := grid2D(n, benchDataBytes)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				HFP(w, HFPOptions{Memory: benchMemory, Flip: true, FastStart: true, Packages: 1})
			}
			b.ReportMetric(float64(len(w.Tasks)), "tasks")
		})
	}
}

func BenchmarkMST(b *testing.B) {
	w := grid2D(90, benchDataBytes)
	for b.Loop() {
		MST(w)
	}
	b.ReportMetric(float64(len(w.Tasks)), "tasks")
}

func BenchmarkRCM(b *testing.B) {
	w := grid2D(90, benchDataBytes)
	for b.Loop() {
		CuthillMcKee(w, true)
	}
	b.ReportMetric(float64(len(w.Tasks)), "tasks")
}

func BenchmarkLoadsBelady(b *testing.B) {
	w := grid2D(90, benchDataBytes)
	order := flatten(HFP(w, HFPOptions{Memory: benchMemory, Flip: true, Packages: 1}))
	for b.Loop() {
		if _, _, err := Loads(w, order, benchMemory, PolicyBelady); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(w.Tasks)), "tasks")
}
