package workloads

import "testing"

// BenchmarkGenerate generates the largest workloads of the suites (and
// the report, which generates each point's workload for its bounds):
// every sweep and every run starts here.
func BenchmarkGenerate(b *testing.B) {
	for _, s := range []Spec{
		{Kind: KindMatmul2D, N: 300},
		{Kind: KindMatmul2D, N: 1000},
		{Kind: KindCholesky, N: 70},
		{Kind: KindLU, N: 100, Deps: true, Tile: 320},
		{Kind: "fmm", N: 5},
	} {
		b.Run(s.WithDefaults().Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
