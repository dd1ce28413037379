package dartsdag_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/dartsdag"
	"github.com/memsched/memsched/workloads"
)

// TestIncrementalMatchesScan runs darts-dag on random task graphs,
// platforms, memory sizes and parameters with checking on: every decision
// is compared with upstream's scan of the whole dataNotInMem (and the
// list's order keys and the S_0/S_1 counts with their definitions), every free
// insertion with a search of the plan from its head; a mismatch panics.
func TestIncrementalMatchesScan(t *testing.T) {
	dartsdag.SetChecking(true)
	defer dartsdag.SetChecking(false)
	rng := rand.New(rand.NewPCG(17, 5))
	runs := 200
	if testing.Short() {
		runs = 15
	}
	for i := range runs {
		kind := []string{workloads.KindCholesky, workloads.KindLU, workloads.KindMatmul3D, workloads.KindMatmul2D}[rng.IntN(4)]
		// The draw stays (the same runs as before); a 2D kind has no DAG, so
		// Deps is not given to it.
		spec := workloads.Spec{Kind: kind, N: 3 + rng.IntN(16), Tile: 1920, Deps: rng.IntN(4) > 0 && workloads.Reads(kind, workloads.FieldDeps)}
		if kind == workloads.KindMatmul3D {
			spec.N = 2 + rng.IntN(5)
		}
		params := map[string]string{
			"eviction":  []string{"luf", "lru"}[rng.IntN(2)],
			"free_push": []string{dartsdag.FreePushFewest, dartsdag.FreePushRoundRobin}[rng.IntN(2)],
			"ready":     strconv.FormatBool(rng.IntN(3) > 0),
			"threshold": strconv.Itoa([]int{0, 0, 1, 3, 10}[rng.IntN(5)]),
		}
		// GPUs alone, GPUs beside CPU cores (several worker kinds), or
		// CPU cores out of core.
		preset, gpus, cpus := "v100-gemini-1920", 1+rng.IntN(8), rng.IntN(2)*(1+rng.IntN(6))
		if rng.IntN(4) == 0 {
			preset, gpus, cpus, spec.Tile = "epyc7642-ooc", 0, 1+rng.IntN(12), 320
		}
		w, err := workloads.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := hardware.Load(preset)
		if err != nil {
			t.Fatal(err)
		}
		p.GPUs, p.CPUs = gpus, cpus
		var most int64 // the largest task's inputs
		for _, t := range w.Tasks {
			var in int64
			for _, x := range t.Inputs {
				in += w.Data[x].Bytes
			}
			most = max(most, in)
		}
		most += w.DeviceBytes // and the application's bytes on a GPU: the least memory a run accepts
		tile := int64(spec.Tile * spec.Tile * 4)
		p.SetMemoryMiB(float64(most+tile*int64(rng.IntN(3*spec.N))) / (1 << 20))
		name := fmt.Sprintf("%d/%s-n%d-deps=%v/%s-g%d-c%d-%.0fMiB/%v", i, kind, spec.N, spec.Deps, preset, gpus, cpus, p.MemoryMiB, params)
		s, _, _, err := schedulers.Build("darts-dag", params)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: %v", name, r)
				}
			}()
			if _, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 1 + rng.IntN(4), Pipeline: 1 + rng.IntN(5), Seed: rng.Uint64()}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}()
	}
}
