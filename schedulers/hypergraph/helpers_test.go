package hypergraph

import "math/rand/v2"

// Tile sizes of the papers (960×960 fp32 tiles; 2D block-rows of 4 tiles).
const (
	tileBytes   = 960 * 960 * 4
	blockBytes2 = 4 * tileBytes
)

// matmul2D is the 2D matrix-product task hypergraph: task (i,j) reads the
// block-row A_i (edge i) and the block-column B_j (edge n+j).
func matmul2D(n int) *Hypergraph {
	h := &Hypergraph{VertexWeight: make([]int64, n*n)}
	for e := 0; e < 2*n; e++ {
		h.Edges = append(h.Edges, nil)
		h.EdgeWeight = append(h.EdgeWeight, blockBytes2)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := i*n + j
			h.VertexWeight[v] = 1
			h.Edges[i] = append(h.Edges[i], v)
			h.Edges[n+j] = append(h.Edges[n+j], v)
		}
	}
	return h
}

// cholesky is the Cholesky task set of thesis Fig 2.4 without dependencies:
// one edge per lower tile A[m][n] (id m(m+1)/2+n), vertex weights in units
// of b³/3 flops (POTRF 1, TRSM 3, SYRK 3, GEMM 6).
func cholesky(n int) *Hypergraph {
	tile := func(m, c int) int { return m*(m+1)/2 + c }
	nt := n * (n + 1) / 2
	h := &Hypergraph{Edges: make([][]int, nt), EdgeWeight: make([]int64, nt)}
	for i := range h.EdgeWeight {
		h.EdgeWeight[i] = tileBytes
	}
	task := func(w int64, tiles ...int) {
		v := len(h.VertexWeight)
		h.VertexWeight = append(h.VertexWeight, w)
		for _, t := range tiles {
			h.Edges[t] = append(h.Edges[t], v)
		}
	}
	for k := 0; k < n; k++ {
		task(1, tile(k, k))
		for m := k + 1; m < n; m++ {
			task(3, tile(k, k), tile(m, k))
		}
		for c := k + 1; c < n; c++ {
			task(3, tile(c, k), tile(c, c))
			for m := c + 1; m < n; m++ {
				task(6, tile(m, k), tile(c, k), tile(m, c))
			}
		}
	}
	return h
}

// randomHypergraph has n unit vertices and m edges of 2..maxSize random
// pins with weights in [1,100].
func randomHypergraph(n, m, maxSize int, seed uint64) *Hypergraph {
	r := rand.New(rand.NewPCG(seed, 99))
	h := &Hypergraph{VertexWeight: make([]int64, n)}
	for v := range h.VertexWeight {
		h.VertexWeight[v] = 1
	}
	for e := 0; e < m; e++ {
		size := 2 + r.IntN(maxSize-1)
		pins := make([]int, size)
		for i := range pins {
			pins[i] = r.IntN(n)
		}
		h.Edges = append(h.Edges, pins)
		h.EdgeWeight = append(h.EdgeWeight, 1+r.Int64N(100))
	}
	return h
}
