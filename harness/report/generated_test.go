package report

import (
	"reflect"
	"testing"

	"github.com/memsched/memsched/workloads"
)

// The memo returns the same workload for the same spec while it is among
// the memoSize most recent, and a fresh, equal one once it left.
func TestGenerateMemo(t *testing.T) {
	first := workloads.Spec{Kind: "cholesky", N: 5}
	a, err := generate(first)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := generate(first); b != a {
		t.Fatal("the same spec generated twice in a row")
	}
	for n := 2; n < 2+memoSize; n++ {
		if _, err := generate(workloads.Spec{Kind: "matmul2d", N: n}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := generate(first)
	if err != nil {
		t.Fatal(err)
	}
	if c == a {
		t.Fatalf("spec still memoised after %d others", memoSize)
	}
	if !reflect.DeepEqual(a, c) {
		t.Fatal("regenerated workload differs")
	}
}
