package hypergraph

import (
	"fmt"
	"testing"
)

// BenchmarkPartition partitions the papers' task hypergraphs with the
// paper's hMETIS settings (Nruns 20, UBfactor 1, Vcycle 2) and reports the
// connectivity−1 cut in data units (cut/op) and the imbalance, so that a
// change of speed and a change of quality show side by side:
//   - 2D N=71: the 2D product of a 2,000 MiB working set (5,041 tasks, 142
//     data of 71 tasks each);
//   - Cholesky N=50: the independent Cholesky task set (22,100 tasks,
//     1,275 tiles);
//   - 2D N=300: the largest 2D point of the IPDPS suites (90,000 tasks,
//     600 data of 300 tasks each).
//
// Each runs the default partitioner (builtin) and the Bounded one.
// Run with -cpu 1 for the single-core time.
func BenchmarkPartition(b *testing.B) {
	cases := []struct {
		name string
		h    *Hypergraph
		ks   []int
	}{
		{"2D/N=71", matmul2D(71), []int{2, 4}},
		{"Cholesky/N=50", cholesky(50), []int{2, 4}},
		{"2D/N=300", matmul2D(300), []int{4}},
	}
	for _, c := range cases {
		for _, k := range c.ks {
			for _, bounded := range []bool{false, true} {
				mode := map[bool]string{false: "builtin", true: "bounded"}[bounded]
				b.Run(fmt.Sprintf("%s/K=%d/%s", c.name, k, mode), func(b *testing.B) {
					var parts []int
					for b.Loop() {
						var err error
						if parts, err = Partition(c.h, Options{Parts: k, Seed: 1, Bounded: bounded}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(Connectivity(c.h, parts))/float64(c.h.EdgeWeight[0]), "cut/op")
					b.ReportMetric(Imbalance(c.h, parts, k), "imbalance/op")
				})
			}
		}
	}
}
