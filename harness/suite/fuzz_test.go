package suite

import (
	"fmt"
	"testing"

	"github.com/memsched/memsched/workloads"
)

// FuzzParse: no suite text makes Parse (or expanding what it accepts)
// panic, and every refusal says something. Seeds: testdata/fuzz/FuzzParse.
// Workloads over N = 40 are refused here so that each input stays fast.
func FuzzParse(f *testing.F) {
	f.Add([]byte("[suite]\nname = \"f\"\n[platform]\ngpus = [1, 2]\n[workload]\nkind = \"matmul2d\"\nn = 4\n[[scheduler]]\nname = \"eager\"\n"))
	saved := generate
	f.Cleanup(func() { generate = saved })
	generate = func(sp workloads.Spec) (*workloads.Workload, error) {
		if d := sp.WithDefaults(); d.N > 40 || d.NZ > 40 {
			return nil, fmt.Errorf("fuzz: N > 40 not generated")
		}
		return saved(sp)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.toml", data)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		if s.Points()*len(s.Schedulers)*s.Repetitions <= 10000 {
			for _, r := range s.Runs() {
				if r.Key == "" || r.ConfigID == "" {
					t.Fatalf("run without a key: %+v", r)
				}
			}
			s.Thin(2)
		}
	})
}
