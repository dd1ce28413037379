package suggest

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"eager", "dmda", "dmdar", "darts", "hfp"}
	for in, want := range map[string]string{
		"dmdr":       `; did you mean "dmda"?`,
		"DARST":      `; did you mean "darts"?`,
		"hpf":        `; did you mean "hfp"?`,
		"zzzzzzzzzz": "",
	} {
		if got := Closest(in, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"cholesy", "cholesky", 1}, {"same", "same", 0}} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q,%q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
