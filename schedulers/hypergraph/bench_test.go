package hypergraph

import (
	"fmt"
	"testing"
)

// BenchmarkPartition2D partitions the 2D product task hypergraph of a
// 2,000 MiB working set (N=71: 5,041 tasks, 142 data of 71 tasks each)
// with the paper's hMETIS settings.
func BenchmarkPartition2D(b *testing.B) {
	h := matmul2D(71)
	for _, k := range []int{2, 4} {
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := Partition(h, Options{Parts: k, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPartitionCholesky partitions the Cholesky task set N=50
// (22,100 tasks, 1,275 tiles) into 4 parts.
func BenchmarkPartitionCholesky(b *testing.B) {
	h := cholesky(50)
	for b.Loop() {
		if _, err := Partition(h, Options{Parts: 4, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
