package workloads

import "testing"

// Every invented option declares its plausible range beside it, around its
// default (the claims on its kind are checked at both ends); an option the
// papers state has none.
func TestInventedOptionsDeclareARange(t *testing.T) {
	for kind, opts := range kindOptions {
		for _, o := range opts {
			lo, hi := o.Range[0], o.Range[1]
			switch {
			case o.Invented && !(lo < hi && lo <= o.Default && o.Default <= hi):
				t.Errorf("%s.%s: invented, default %g, range %g..%g: want lo < hi around the default", kind, o.Name, o.Default, lo, hi)
			case !o.Invented && o.Range != [2]float64{}:
				t.Errorf("%s.%s: stated by the paper, yet a range %v", kind, o.Name, o.Range)
			}
		}
	}
}
