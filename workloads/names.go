package workloads

import "fmt"

// DataName names data d of the workload s generates after its role in the
// layouts Generate documents: "A row 3" and "B col 5" (the 2D kinds' block
// rows and columns), "C(1,2)" (their scratch C tiles, and matmul3d's C),
// "A(4,2)" and "B(2,0)" (matmul3d's tiles), "A(3,1)" (the Cholesky and LU
// tile A[m][n]). It is "" for an id outside the layout or a kind without
// one, so a caller falls back to the id.
func (s Spec) DataName(d int) string {
	s = s.WithDefaults()
	n, nz := s.N, s.NZ
	if d < 0 {
		return ""
	}
	switch s.Kind {
	case KindMatmul2D, KindSparse2D, KindRandomPairs:
		switch {
		case d < n:
			return fmt.Sprintf("A row %d", d)
		case d < 2*n:
			return fmt.Sprintf("B col %d", d-n)
		case s.WriteC && d < 2*n+n*n:
			return fmt.Sprintf("C(%d,%d)", (d-2*n)/n, (d-2*n)%n)
		}
	case KindMatmul3D:
		switch {
		case d < n*nz:
			return fmt.Sprintf("A(%d,%d)", d/nz, d%nz)
		case d < 2*n*nz:
			return fmt.Sprintf("B(%d,%d)", (d-n*nz)/n, (d-n*nz)%n)
		case d < 2*n*nz+n*n:
			return fmt.Sprintf("C(%d,%d)", (d-2*n*nz)/n, (d-2*n*nz)%n)
		}
	case KindCholesky:
		for m := range n { // tile A[m][k] has id m(m+1)/2 + k, k <= m
			if k := d - m*(m+1)/2; k <= m {
				return fmt.Sprintf("A(%d,%d)", m, k)
			}
		}
	case KindLU:
		if d < n*n {
			return fmt.Sprintf("A(%d,%d)", d/n, d%n)
		}
	}
	return ""
}
