package batch

import (
	"os"
	"strconv"
	"testing"

	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

func benchWeek(b *testing.B, week, name string, params map[string]string, rules string) {
	tr, err := jobs.Week(week, jobs.WeekOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if n, _ := strconv.Atoi(os.Getenv("MAXJOBS")); n > 0 && n < len(tr.Jobs) {
		tr.Jobs = tr.Jobs[:n]
	}
	s, _, _, err := sched.Build(name, params)
	if err != nil {
		b.Fatal(err)
	}
	r, _ := Preset(rules)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(Config{Trace: tr, Cluster: Rackham(), Rules: r, Scheduler: s, Phase: tr.Outcomes.Phase}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeekFCFS(b *testing.B) { benchWeek(b, "2022-02-07", "fcfs", nil, "release") }
func BenchmarkWeekLEA(b *testing.B)  { benchWeek(b, "2022-02-07", "lea", nil, "release") }

func BenchmarkWeekFCFSBF(b *testing.B) {
	benchWeek(b, "2022-09-05", "fcfs", map[string]string{"backfill": "true"}, "release")
}
