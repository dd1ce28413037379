package jobs

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRackhamWeeks(t *testing.T) {
	want := map[string]struct {
		jobs, phase int
	}{"2022-02-07": {62792, 27}, "2022-02-21": {65702, 26}, "2022-09-05": {68085, 11}}
	if got := Weeks(); !slices.Equal(got, []string{"2022-02-07", "2022-02-21", "2022-09-05"}) {
		t.Fatalf("Weeks() = %v", got)
	}
	for w, x := range want {
		tr, err := Week(w, WeekOptions{Tail: "none"})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Jobs) != x.jobs || tr.Evaluated() != x.jobs {
			t.Errorf("%s: %d jobs, %d evaluated; want %d", w, len(tr.Jobs), tr.Evaluated(), x.jobs)
		}
		if tr.Outcomes == nil || len(tr.Outcomes.Schedulers) != 10 || tr.Outcomes.Phase != x.phase {
			t.Fatalf("%s: outcomes %v", w, tr.Outcomes)
		}
		// The release's FCFS start times, rebuilt from stretch and run time,
		// do not precede the submissions (to the second of rounding), but
		// for jobs killed at their walltime under every scheduler, whose
		// duration the outputs do not tell.
		early, revealed := 0, 0
		for i := range tr.Jobs {
			j := &tr.Jobs[i]
			if st, _ := tr.Outcomes.Start("FCFS", j, 0.1); st < j.Submit-1 {
				early++
			}
			load := LoadSeconds(j.SizeGB, 0.1)
			if j.Walltime < j.Duration+load {
				revealed++ // killed at its walltime in the release
			}
		}
		if early > len(tr.Jobs)/100 {
			t.Errorf("%s: %d rebuilt starts before their submission", w, early)
		}
		if revealed == 0 {
			t.Errorf("%s: no walltime revealed by the outputs", w)
		}
	}
}

// The release's input files follow the previous-job rule exactly.
func TestInferFilesMatchesRelease(t *testing.T) {
	for _, w := range Weeks() {
		tr, err := Week(w, WeekOptions{Tail: "none"})
		if err != nil {
			t.Fatal(err)
		}
		js := slices.Clone(tr.Jobs)
		slices.SortFunc(js, func(a, b Job) int { return a.ID - b.ID }) // the release's input order
		orig := make([]int, len(js))
		for i := range js {
			orig[i], js[i].File = js[i].File, 0
		}
		InferFiles(js, "previous-job", 800)
		fwd, back := map[int]int{}, map[int]int{}
		for i := range js {
			if f, ok := fwd[js[i].File]; ok && f != orig[i] {
				t.Fatalf("%s: job %d: inferred file %d holds release files %d and %d", w, js[i].ID, js[i].File, f, orig[i])
			}
			if f, ok := back[orig[i]]; ok && f != js[i].File {
				t.Fatalf("%s: job %d: release file %d split into inferred %d and %d", w, js[i].ID, orig[i], f, js[i].File)
			}
			fwd[js[i].File], back[orig[i]] = orig[i], js[i].File
		}
	}
}

func TestWeekOptions(t *testing.T) {
	base, _ := Week("2022-09-05", WeekOptions{Tail: "none"})
	tr, err := Week("2022-09-05", WeekOptions{LeadIn: "day", Tail: "day"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Evaluated() != base.Evaluated() || len(tr.Jobs) <= len(base.Jobs) {
		t.Errorf("lead-in and tail: %d jobs, %d evaluated (week: %d)", len(tr.Jobs), tr.Evaluated(), len(base.Jobs))
	}
	if err := tr.Validate(20); err != nil {
		t.Error(err)
	}
	exact, _ := Week("2022-09-05", WeekOptions{Walltime: "exact", WalltimeFactor: 1, Tail: "none"})
	for i := range exact.Jobs {
		j := &exact.Jobs[i]
		if j.Walltime != j.Duration+LoadSeconds(j.SizeGB, 0.1) {
			t.Fatalf("exact walltime of job %d: %d, duration %d", j.ID, j.Walltime, j.Duration)
		}
	}
	for _, o := range []WeekOptions{{LeadIn: "wek"}, {Walltime: "exakt"}, {WalltimeFactor: 0.5}, {Tail: "month"}} {
		if _, err := Week("2022-09-05", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := Week("2022-10-03", WeekOptions{}); err == nil || !strings.Contains(err.Error(), "the weeks are") {
		t.Errorf("unknown week: %v", err)
	}
	if _, err := Week("2022-09-5", WeekOptions{}); err == nil || !strings.Contains(err.Error(), `did you mean "2022-09-05"`) {
		t.Errorf("misspelt week: %v", err)
	}
}

func TestCSVErrors(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"unknown column": {"job,submit_s,cores,usr,file,core_seconds\n1,0,1,1,1,10\n", `unknown column "usr"; did you mean "user"?`},
		"missing column": {"job,submit_s,cores,user,core_seconds\n1,0,1,1,10\n", `missing column "file"`},
		"not a number":   {"job,submit_s,cores,user,file,core_seconds\n1,zero,1,1,1,10\n", `column submit_s is "zero"; want an integer`},
		"too many cores": {"job,submit_s,cores,user,file,core_seconds\n1,0,21,1,1,10\n", "asks for 21 cores"},
		"ragged":         {"job,submit_s,cores,user,file,core_seconds\n1,0,1,1\n", "wrong number of fields"},
		"empty":          {"", "empty file"},
	} {
		tr := &Trace{}
		_, err := readJobsCSV("jobs.csv", strings.NewReader(c.text), tr, WeekOptions{}.Defaults())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// A truncated gzip stream.
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("job,submit_s,cores,user,file,core_seconds\n" + strings.Repeat("1,0,1,1,1,10\n", 1000)))
	zw.Close()
	tr := &Trace{}
	if _, err := readJobsCSV("jobs.csv.gz", bytes.NewReader(b.Bytes()[:b.Len()/2]), tr, WeekOptions{}.Defaults()); err == nil {
		t.Error("a truncated gzip file is accepted")
	}
	if _, err := readOutcomes("o.csv", strings.NewReader("job,FCFS_stretch,FCFS_run_s\n1,1,1\n")); err == nil || !strings.Contains(err.Error(), `missing column "FCFS_file_wait_s"`) {
		t.Errorf("outcomes without a column: %v", err)
	}
	if _, err := readOutcomes("o.csv", strings.NewReader("job,FSCF_stretch\n")); err == nil || !strings.Contains(err.Error(), `did you mean "FCFS"`) {
		t.Errorf("outcomes of an unknown scheduler: %v", err)
	}
}

const swf = `; Version: 2.2
; Computer: test
1 0 5 100 1 -1 -1 1 200 -1 1 7 -1 -1 -1 -1 -1 -1
2 10 5 50 1 -1 -1 1 -1 -1 1 7 -1 -1 -1 -1 -1 -1
3 20 5 -1 4 -1 -1 4 100 -1 0 7 -1 -1 -1 -1 -1 -1
4 900 5 30 45 -1 -1 45 3600 -1 1 8 -1 -1 -1 -1 -1 -1
5 2000 5 30 1 -1 -1 1 100 -1 1 7 -1 -1 -1 -1 -1 -1
`

func TestSWF(t *testing.T) {
	tr, err := ReadSWF("t.swf", strings.NewReader(swf), SWFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Job 3 (unknown run time) is skipped; job 4's 45 cores become 20 + 20 + 5.
	var got [][3]int
	for _, j := range tr.Jobs {
		got = append(got, [3]int{int(j.Submit), j.Cores, j.File})
	}
	want := [][3]int{{0, 1, 1}, {10, 1, 1}, {900, 20, 2}, {900, 20, 2}, {900, 5, 3}, {2000, 1, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs (submit, cores, file) = %v, want %v", got, want)
	}
	if tr.Jobs[0].Walltime != 200 || tr.Jobs[1].Walltime != 50+64 {
		t.Errorf("walltimes %d, %d: want the requested 200, then run + load", tr.Jobs[0].Walltime, tr.Jobs[1].Walltime)
	}
	for name, c := range map[string]struct{ text, want string }{
		"truncated":  {swf + "6 2100 5 30 1 -1 -1 1\n", "8 fields; an SWF job line has 18"},
		"not number": {"1 0 5 x 1 -1 -1 1 200 -1 1 7 -1 -1 -1 -1 -1 -1\n", `field 4 is "x"`},
		"no job":     {"; only a header\n", "no job with a known run time"},
	} {
		if _, err := ReadSWF("t.swf", strings.NewReader(c.text), SWFOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := ReadSWF("t.swf", strings.NewReader(swf), SWFOptions{Share: "previous"}); err == nil || !strings.Contains(err.Error(), `did you mean "previous-job"`) {
		t.Errorf("unknown share rule: %v", err)
	}
	// Compressed input reads the same.
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(swf))
	zw.Close()
	gz, err := ReadSWF("t.swf.gz", &b, SWFOptions{})
	if err != nil || !reflect.DeepEqual(gz.Jobs, tr.Jobs) {
		t.Errorf("gzip SWF: %v", err)
	}
}

func TestInferFileRules(t *testing.T) {
	mk := func() []Job {
		return []Job{
			{Submit: 0, User: 1, Cores: 1}, {Submit: 100, User: 2, Cores: 1}, {Submit: 200, User: 1, Cores: 1},
			{Submit: 900, User: 1, Cores: 1}, {Submit: 1100, User: 1, Cores: 1},
		}
	}
	for rule, want := range map[string][]int{
		"previous-job": {1, 2, 3, 3, 3}, // job 2 breaks user 1's run; then 700 s and 200 s apart
		"user":         {1, 2, 1, 1, 1}, // chained on user 1's previous job
		"anchored":     {1, 2, 1, 3, 3}, // 900 is beyond 800 s of the group's first job
	} {
		js := mk()
		InferFiles(js, rule, 800)
		var got []int
		for _, j := range js {
			got = append(got, j.File)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: files %v, want %v", rule, got, want)
		}
	}
}

func TestSynthetic(t *testing.T) {
	a, err := Synthetic(SyntheticOptions{Jobs: 5000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthetic(SyntheticOptions{Jobs: 5000, Seed: 7})
	c, _ := Synthetic(SyntheticOptions{Jobs: 5000, Seed: 8})
	if len(a.Jobs) < 5000 || !reflect.DeepEqual(a.Jobs, b.Jobs) || reflect.DeepEqual(a.Jobs, c.Jobs) {
		t.Errorf("synthetic: %d jobs; same seed equal %v, other seed equal %v", len(a.Jobs), reflect.DeepEqual(a.Jobs, b.Jobs), reflect.DeepEqual(a.Jobs, c.Jobs))
	}
	if err := a.Validate(20); err != nil {
		t.Error(err)
	}
	if _, err := Synthetic(SyntheticOptions{Jobs: 0}); err == nil {
		t.Error("a trace of 0 jobs is accepted")
	}
}
