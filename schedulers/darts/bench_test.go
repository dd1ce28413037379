package darts

import (
	"fmt"
	"testing"
	"time"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

var benchStart = time.Now()

func monotonic() time.Duration { return time.Since(benchStart) }

// observeTimer adds the time of Observe calls, which the engine does not
// charge to SchedWall.
type observeTimer struct {
	*DARTS
	spent time.Duration
}

func (o *observeTimer) Observe(kind schedulers.EventKind, k, id int) {
	t0 := monotonic()
	o.DARTS.Observe(kind, k, id)
	o.spent += monotonic() - t0
}

// benchDARTS simulates a whole run per iteration and reports DARTS's
// scheduling time: sched-s/op is the engine's SchedWall (Init, Push, Pull,
// Victim), observe-s/op the Observe calls (counter updates on loads and
// evictions, LUF withdrawals), total-s/op their sum; ns/op also counts the
// simulator.
func benchDARTS(b *testing.B, spec workloads.Spec, gpus int, mib float64, o Options) {
	w, err := workloads.Generate(spec)
	if err != nil {
		b.Skip("generator unavailable:", err)
	}
	p, err := hardware.Load("v100-gemini")
	if err != nil {
		b.Fatal(err)
	}
	p.GPUs = gpus
	p.SetMemoryMiB(mib)
	var sched, observe time.Duration
	var loads int
	for b.Loop() {
		s := &observeTimer{DARTS: New(o)}
		st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: p.Runtime.Buffer,
			Pipeline: p.Runtime.Pipeline, Seed: 1, Clock: monotonic})
		if err != nil {
			b.Fatal(err)
		}
		sched += st.SchedWall
		observe += s.spent
		loads += st.Loads
	}
	n := float64(b.N)
	b.ReportMetric(sched.Seconds()/n, "sched-s/op")
	b.ReportMetric(observe.Seconds()/n, "observe-s/op")
	b.ReportMetric((sched+observe).Seconds()/n, "total-s/op")
	b.ReportMetric(float64(loads)/float64(b.N), "loads/op")
}

var defaults = Options{LUF: true}

// BenchmarkDARTS2D: the 2D product (N² tasks, 2N data of 14 MiB), 4 GPUs of
// 500 MiB, DARTS+LUF with default options.
func BenchmarkDARTS2D(b *testing.B) {
	for _, n := range []int{100, 300} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			benchDARTS(b, workloads.Spec{Kind: "matmul2d", N: n}, 4, 500, defaults)
		})
	}
}

// BenchmarkDARTSCholesky: the independent Cholesky task set N=50 (22,100
// tasks, GEMMs with 3 inputs), 4 GPUs of 500 MiB, default DARTS+LUF and the
// thesis's DARTS+LUF+OPTI-3inputs.
func BenchmarkDARTSCholesky(b *testing.B) {
	spec := workloads.Spec{Kind: "cholesky", N: 50}
	b.Run("luf", func(b *testing.B) { benchDARTS(b, spec, 4, 500, defaults) })
	o := defaults
	o.ThreeInputs, o.Opti = true, true
	b.Run("luf-opti-3inputs", func(b *testing.B) { benchDARTS(b, spec, 4, 500, o) })
}

// BenchmarkDARTS3D: the 3D product N=120, NZ=4 (57,600 tasks, 15,360 data
// in each GPU's list), 4 GPUs of 500 MiB, DARTS+LUF-3inputs: the list is
// long and a decision moves few of its counters, the case for the lists'
// tournament trees.
func BenchmarkDARTS3D(b *testing.B) {
	o := defaults
	o.ThreeInputs = true
	benchDARTS(b, workloads.Spec{Kind: "matmul3d", N: 120, NZ: 4}, 4, 500, o)
}
