package hypergraph

import (
	"slices"
	"strings"
	"testing"
)

func TestNewDedupsAndDefaults(t *testing.T) {
	h, err := New([]int64{1, 2, 3}, [][]int{{2, 0, 2, 0}, {1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Edges[0], []int{0, 2}) {
		t.Errorf("edge 0 = %v, want [0 2]", h.Edges[0])
	}
	if !slices.Equal(h.EdgeWeight, []int64{1, 1}) {
		t.Errorf("edge weights = %v, want [1 1]", h.EdgeWeight)
	}
}

func TestNewCopiesInput(t *testing.T) {
	vw := []int64{1, 1}
	edges := [][]int{{0, 1}}
	h, err := New(vw, edges, []int64{5})
	if err != nil {
		t.Fatal(err)
	}
	vw[0], edges[0][0] = 9, 1
	if h.VertexWeight[0] != 1 || h.Edges[0][0] != 0 {
		t.Error("New kept references to its arguments")
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name string
		vw   []int64
		e    [][]int
		ew   []int64
		want string
	}{
		{"pin out of range", []int64{1, 1}, [][]int{{0, 2}}, nil, "pin 2 out of range [0,2)"},
		{"negative pin", []int64{1, 1}, [][]int{{-1, 0}}, nil, "pin -1 out of range"},
		{"empty edge", []int64{1}, [][]int{{0}, {}}, nil, "edge 1 is empty"},
		{"negative vertex weight", []int64{1, -3}, nil, nil, "vertex 1 has negative weight -3"},
		{"negative edge weight", []int64{1, 1}, [][]int{{0, 1}}, []int64{-1}, "edge 0 has negative weight"},
		{"weight count", []int64{1, 1}, [][]int{{0, 1}}, []int64{1, 2}, "2 edge weights for 1 edges"},
		{"overflow", []int64{1 << 62, 1 << 62}, nil, nil, "overflows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.vw, c.e, c.ew)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	// Edge 0 spans parts {0,1,2}, edge 1 {0} (uncut), edge 2 {1,2}, edge 3
	// is a single pin, edge 4 repeats a pin.
	h := &Hypergraph{
		VertexWeight: []int64{1, 1, 2, 4},
		Edges:        [][]int{{0, 1, 2, 3}, {0, 1}, {2, 3}, {3}, {2, 2, 3}},
		EdgeWeight:   []int64{10, 20, 30, 40, 50},
	}
	parts := []int{0, 0, 1, 2}
	if got, want := Connectivity(h, parts), int64(10*2+30+50); got != want {
		t.Errorf("Connectivity = %d, want %d", got, want)
	}
	if got, want := CutNet(h, parts), int64(10+30+50); got != want {
		t.Errorf("CutNet = %d, want %d", got, want)
	}
	// Loads 2, 2, 4 over an average of 8/3.
	if got, want := Imbalance(h, parts, 3), 4/(8.0/3)-1; got != want {
		t.Errorf("Imbalance = %v, want %v", got, want)
	}
	if got := Connectivity(h, []int{0, 0, 0, 0}); got != 0 {
		t.Errorf("one part: Connectivity = %d, want 0", got)
	}
}

func TestCheckPartition(t *testing.T) {
	h := matmul2D(3)
	if err := CheckPartition(h, make([]int, 9), 1); err != nil {
		t.Error(err)
	}
	if err := CheckPartition(h, make([]int, 8), 1); err == nil {
		t.Error("short partition accepted")
	}
	bad := make([]int, 9)
	bad[4] = 2
	if err := CheckPartition(h, bad, 2); err == nil || !strings.Contains(err.Error(), "vertex 4") {
		t.Errorf("err = %v, want vertex 4 out of range", err)
	}
}

// Sum names a hypergraph: equal for equal inputs (nil edge weights are
// all 1), different when a pin moves to another edge or a weight changes.
func TestSumNamesTheHypergraph(t *testing.T) {
	w := []int64{1, 2, 3}
	a := Sum(w, [][]int{{0, 1}, {2}}, []int64{1, 1})
	if Sum(w, [][]int{{0, 1}, {2}}, nil) != a {
		t.Error("nil edge weights differ from weights of 1")
	}
	for name, b := range map[string][32]byte{
		"pin moved":     Sum(w, [][]int{{0}, {1, 2}}, []int64{1, 1}),
		"edge weight":   Sum(w, [][]int{{0, 1}, {2}}, []int64{1, 2}),
		"vertex weight": Sum([]int64{1, 2, 4}, [][]int{{0, 1}, {2}}, []int64{1, 1}),
	} {
		if b == a {
			t.Errorf("%s: same sum", name)
		}
	}
}
