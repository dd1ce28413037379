package heteroprio_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/workloads"
)

// The emulated QR of PeerJ 2019's suites (7,422 tasks) on 4 K40s and 20
// cores, whole simulations: Heteroprio and LAHeteroprio's automatic
// selection, which evaluates four formulas at every push and pop.
func BenchmarkQRMumpsK40(b *testing.B) {
	p, err := hardware.Load("plafrim-k40")
	if err != nil {
		b.Fatal(err)
	}
	w, err := workloads.Generate(workloads.Spec{Kind: workloads.KindQRMumps, N: 4, Tile: 512})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []string{"heteroprio", "laheteroprio"} {
		b.Run(s, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := memrun.Run(memrun.Config{Workload: w, Platform: p, Scheduler: s, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
