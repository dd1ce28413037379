package report

import (
	"strings"
	"testing"
)

// A long title is wrapped at spaces, never cut; a word longer than the
// width stays whole.
func TestWrapTitle(t *testing.T) {
	got := wrap("Thesis Table 3.1, Fig. 3.8: 2D matrix multiplication, 1 V100, 500 MB (the V100 runs' protocol) [simulated]", 40)
	for _, line := range strings.Split(got, "\n") {
		if len([]rune(line)) > 40 {
			t.Errorf("line %q longer than 40", line)
		}
	}
	if strings.ReplaceAll(got, "\n", " ") != "Thesis Table 3.1, Fig. 3.8: 2D matrix multiplication, 1 V100, 500 MB (the V100 runs' protocol) [simulated]" {
		t.Errorf("words lost or changed: %q", got)
	}
	if wrap("supercalifragilistic x", 5) != "supercalifragilistic\nx" {
		t.Errorf("a long word: %q", wrap("supercalifragilistic x", 5))
	}
}

// A panel of one x is drawn as bars (one group per label, the published
// value beside), not as a curve of one dot.
func TestOnePointFigureIsBars(t *testing.T) {
	pts := []*Point{{X: 5}, {X: 5}}
	if !onePoint(pts) || onePoint([]*Point{{X: 5}, {X: 6}}) {
		t.Fatal("onePoint")
	}
	set := NewSet(nil, reps("A", 10, 100, 102), nil)
	set.Labels = []string{"A"}
	f, err := onePointFigure(set, "", set.Points, "gflops", measurements{name: "V100"})
	if err != nil || len(f.names) != 1 || !strings.HasPrefix(f.names[0], "memsched (simulated)") {
		t.Fatalf("%+v %v", f, err)
	}
	if e := set.Executors(); e != "simulated" {
		t.Errorf("executors %q", e)
	}
}
