package paper

import (
	"testing"
)

// FuzzParseClaims: no claims file makes the reader panic; what it accepts
// passes ValidateClaims, each claim naming its file. Seeds:
// testdata/fuzz/FuzzParseClaims.
func FuzzParseClaims(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ParseClaims("c.toml", data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if len(cs) == 0 {
			t.Fatal("a claims file without claims was accepted")
		}
		if err := ValidateClaims(cs); err != nil {
			t.Fatalf("accepted, but %v", err)
		}
		for _, c := range cs {
			if c.File != "c.toml" {
				t.Fatalf("claim %s names file %q", c.ID, c.File)
			}
		}
	})
}

// FuzzParseFit: no fit declaration makes the reader panic; what it accepts
// has its required keys and trains on reference series. Seeds:
// testdata/fuzz/FuzzParseFit.
func FuzzParseFit(f *testing.F) {
	var ref []RefPoint // the series paper/fit/v100-gemini.toml trains on, and one more
	for _, s := range []string{"ipdps22/2d_1gpu/paper", "fgcs23/2d_1gpu/nov2021", "ipdps22/2d_randomorder_2gpu/oct2021_early", "ipdps22/cholesky_4gpu/ae_veryquick", "ipdps22/2d_2gpu/paper"} {
		ref = append(ref, RefPoint{Figure: s})
	}
	series := map[string]bool{}
	for _, p := range ref {
		series[p.Figure] = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseFit("f.toml", data, ref)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if s.Preset == "" || s.Output == "" || s.Results == "" || len(s.Train) == 0 || len(s.Suites) == 0 {
			t.Fatalf("accepted a declaration without its required keys: %+v", s)
		}
		for _, tr := range s.Train {
			if !series[tr] {
				t.Fatalf("accepted training series %q", tr)
			}
		}
	})
}
