package batch

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	sched "github.com/memsched/memsched/schedulers/batch"
	"github.com/memsched/memsched/workloads/jobs"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	weeks := strings.Split(os.Getenv("WEEKS"), ",")
	for _, w := range weeks {
		for _, lead := range strings.Split(os.Getenv("LEAD"), ",") {
			fac, _ := strconv.ParseFloat(os.Getenv("FACTOR"), 64)
			tr, err := jobs.Week(w, jobs.WeekOptions{LeadIn: lead, Tail: os.Getenv("TAIL"), WalltimeFactor: fac, Walltime: os.Getenv("WALL")})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range strings.Split(os.Getenv("SCHEDS"), ",") {
				params := map[string]string{}
				base, bf := strings.CutSuffix(name, "-BF")
				if bf {
					params["backfill"] = "true"
				}
				if base == "LEO" {
					params["sticky"] = "true"
				}
				s, _, _, err := sched.Build(strings.ToLower(base), params)
				if err != nil {
					t.Fatal(err)
				}
				rules, _ := Preset("release")
				r, err := Run(Config{Trace: tr, Cluster: Rackham(), Rules: rules, Scheduler: s, Phase: tr.Outcomes.Phase})
				if err != nil {
					t.Fatal(err)
				}
				f, err := Compare(tr, r, name, 0.1)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s lead=%s %s: ratio p5 %.3f p25 %.3f p50 %.3f p75 %.3f p95 %.3f within1 %.3f within10 %.3f samestart %.3f dstart %.0f | stretch %.2f/%.2f filewait %d/%d coretime %d/%d",
					w, lead, name, f.P5, f.P25, f.P50, f.P75, f.P95, f.Within1, f.Within10, f.SameStart, f.StartDiffS, f.MeanStretch, f.TheirMeanStretch, f.FileWaitS, f.TheirFileWaitS, f.CoreTimeS, f.TheirCoreTimeS)
			}
		}
	}
}

func TestExploreWorst(t *testing.T) {
	if os.Getenv("WORST") == "" {
		t.Skip()
	}
	tr, _ := jobs.Week(os.Getenv("WORST"), jobs.WeekOptions{})
	name := os.Getenv("SCHED")
	n, p, _ := ReleaseScheduler(name)
	s, _, _, _ := sched.Build(n, p)
	rules, _ := Preset("release")
	r, _ := Run(Config{Trace: tr, Cluster: Rackham(), Rules: rules, Scheduler: s, Phase: tr.Outcomes.Phase})
	type d struct {
		i    int
		diff int64
	}
	var ds []d
	for i := range tr.Jobs {
		st, _ := tr.Outcomes.Start(name, &tr.Jobs[i], 0.1)
		ds = append(ds, d{i, r.Jobs[i].Start - st})
	}
	sort.Slice(ds, func(a, b int) bool { return abs(ds[a].diff) > abs(ds[b].diff) })
	for _, x := range ds[:15] {
		j := tr.Jobs[x.i]
		st, _ := tr.Outcomes.Start(name, &j, 0.1)
		t.Logf("job %d submit %d cores %d ours start %d theirs %d diff %d", j.ID, j.Submit, j.Cores, r.Jobs[x.i].Start, st, x.diff)
	}
	t.Logf("end %d forced %d", r.End, r.ForcedPasses)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
