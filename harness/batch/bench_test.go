package batch

import (
	"flag"
	"syscall"
	"testing"
	"time"

	"github.com/memsched/memsched/workloads/jobs"
)

// cpuTime is the process's user + system CPU time: on a shared machine it
// says what a run costs better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchSetup(b *testing.B, s Setup) {
	if _, err := s.Workload.Trace(s.Cluster); err != nil { // read once, outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	c0 := cpuTime()
	var rep *Report
	for i := 0; i < b.N; i++ {
		var err error
		if rep, _, _, err = Execute(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(rep.Jobs), "jobs")
	b.ReportMetric(float64(rep.Plannings), "plannings")
}

// benchFull adds the long batch benchmarks: the saturated week and the
// thesis rules (minutes per run) and a million jobs. make bench runs every
// benchmark six times, so by default only the light week under the
// release's rules runs.
var benchFull = flag.Bool("batch.full", false, "batch benchmarks: also week 2022-02-07, the thesis rules and a million jobs (long)")

// BenchmarkWeek runs the ten schedulers of the thesis on a Rackham week
// (02-07 is the saturated one: the most planning) under both rule sets.
//
//	go test ./harness/batch -run xxx -bench Week -benchtime 1x -batch.full
func BenchmarkWeek(b *testing.B) {
	for _, week := range []string{"2022-02-07", "2022-09-05"} {
		for _, rules := range []string{"release", "thesis"} {
			if !*benchFull && (week == "2022-02-07" || rules == "thesis") {
				continue
			}
			for _, name := range jobs.ReleaseSchedulers {
				n, p, _ := ReleaseScheduler(name)
				if rules == "thesis" {
					delete(p, "sticky")
				}
				r, _ := Preset(rules)
				b.Run(week+"/"+rules+"/"+name, func(b *testing.B) {
					benchSetup(b, Setup{Workload: Workload{Kind: "rackham", Week: week}, Cluster: Rackham(), Rules: r, Scheduler: n, Params: p})
				})
			}
		}
	}
}

// BenchmarkSynthetic1M: a million jobs (about 15 Rackham weeks) complete.
func BenchmarkSynthetic1M(b *testing.B) {
	if !*benchFull {
		b.Skip("long: run with -batch.full")
	}
	for _, name := range []string{"FCFS", "LEA", "LEM-BF"} {
		n, p, _ := ReleaseScheduler(name)
		r, _ := Preset("release")
		b.Run(name, func(b *testing.B) {
			benchSetup(b, Setup{Workload: Workload{Kind: "synthetic", Jobs: 1_000_000, Seed: 1}, Cluster: Rackham(), Rules: r, Scheduler: n, Params: p})
		})
	}
}
