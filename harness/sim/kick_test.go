package sim_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/memsched/memsched/hardware"
	memrun "github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/heteroprio"
	"github.com/memsched/memsched/workloads"
)

// Kick visits only its node's candidates and issue reads a kept head:
// at every kick and head, on CPU cores sharing memory out of core (a
// buffer per core and one per node, darts-dag), with scheduling time
// charged (as modelled: reproducible) or not, and on GPUs beside cores
// (Heteroprio), a scan of the node's workers finds no worker that may
// progress, or start, outside the candidates, and the same head.
func TestKickCandidates(t *testing.T) {
	var mu sync.Mutex
	var bad []string
	stop := sim.CheckCandidates(func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if len(bad) < 5 {
			bad = append(bad, s)
		}
	})
	defer stop()
	epyc, err := hardware.Load("epyc7642-ooc")
	if err != nil {
		t.Fatal(err)
	}
	k40, err := hardware.Load("plafrim-k40")
	if err != nil {
		t.Fatal(err)
	}
	lu := genW(t, workloads.Spec{Kind: "lu", N: 8, Tile: 320, Deps: true})
	qr := genW(t, workloads.Spec{Kind: workloads.KindQRMumps, N: 2, Tile: 512})
	type run struct {
		w     *workloads.Workload
		p     *hardware.Platform
		sched string
	}
	var runs []run
	for _, cpus := range []int{3, 12, 70} { // 70: two words of candidates
		for _, charge := range []bool{false, true} {
			p := epyc.Clone()
			p.CPUs = cpus
			p.SetMemoryMiB(float64(lu.MaxInputBytes()) / hardware.MiB * 6) // out of core
			if charge {
				p.Runtime.SchedCost, p.Runtime.OpSeconds, p.Runtime.ArrayOpSeconds = "model", 1e-5, 1e-6
			}
			for _, s := range []string{"eager", "dmdas", "lws", "darts-dag"} {
				runs = append(runs, run{lu, p, s})
			}
		}
	}
	for _, s := range []string{"heteroprio", "laheteroprio"} {
		p := k40.Clone()
		p.GPUs, p.CPUs = 2, 6
		runs = append(runs, run{qr, p, s})
	}
	for _, r := range runs {
		label := fmt.Sprintf("%s %s %d GPUs %d CPUs %s", r.w.Name, r.sched, r.p.GPUs, r.p.CPUs, r.p.Runtime.SchedCost)
		if _, err := memrun.Run(memrun.Config{Workload: r.w, Platform: r.p, Scheduler: r.sched, Seed: 3}); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if len(bad) > 0 {
			t.Fatalf("%s: %v", label, bad)
		}
	}
}

// A core held by charged scheduling time wakes up once at its end, however
// often its node is kicked meanwhile. A wake-up per kick made duplicates
// that each kicked the node again: LU on 48 cores charged its measured
// scheduling time grew to tens of GB (here 50 M kicks for 30 tasks on 4
// cores). The clock advances 1 ms per read, so that the measured charge is
// deterministic and holds the cores.
func TestHeldCoresWakeUpOnce(t *testing.T) {
	p, err := hardware.Load("epyc7642-ooc")
	if err != nil {
		t.Fatal(err)
	}
	p.CPUs = 12
	p.Runtime.SchedCost = "measured"
	w := genW(t, workloads.Spec{Kind: "lu", N: 6, Tile: 320, Deps: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kicks, limit := 0, 20*len(w.Tasks)
	stop := sim.OnKick(func() {
		if kicks++; kicks > limit {
			cancel() // the run stops within 256 events
		}
	})
	defer stop()
	var now time.Duration
	st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: &baseline.Eager{}, Buffer: 1, Pipeline: 1,
		ChargeSchedTime: true, Clock: func() time.Duration { now += time.Millisecond; return now }, Context: ctx})
	if kicks > limit {
		t.Fatalf("more than %d kicks for %d tasks: held cores wake up more than once", limit, len(w.Tasks))
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks != len(w.Tasks) {
		t.Fatalf("%d of %d tasks ran", st.Tasks, len(w.Tasks))
	}
}
