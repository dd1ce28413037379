package hardware

import "testing"

// FuzzParse: no platform file makes Parse or what follows a successful
// Parse (links, bandwidths, hash, kernel times) panic. Seeds:
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	preset, _ := presetFS.ReadFile("presets/v100-gemini.toml")
	f.Add(preset)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz", data)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		for g := 1; g <= min(p.MaxGPUs, 16); g++ {
			q := p.Clone()
			q.GPUs = g
			if q.Check() != nil {
				continue
			}
			links, paths, _ := q.Links()
			if len(paths) != len(q.Nodes()) || len(links) == 0 {
				t.Fatalf("%d GPUs: %d paths, %d links", g, len(paths), len(links))
			}
			for i := range g {
				if bw := q.HomeGBps(i); !(bw > 0) {
					t.Fatalf("GPU %d: host bandwidth %g", i, bw)
				}
			}
		}
		if p.Hash() == "" {
			t.Fatal("empty hash")
		}
		for k := range p.Kernels {
			if s, _, err := p.KernelSeconds(k, GPU, 1e9); err != nil || !(s >= 0) {
				t.Fatalf("kernel %s: %g s, %v", k, s, err)
			}
		}
		if err := p.Clone().SetMemoryCap(0); err == nil && p.PhysicalMiB <= 0 {
			t.Fatal("memory 0 accepted without a physical memory")
		}
	})
}
