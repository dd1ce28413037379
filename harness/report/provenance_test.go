package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/run"
)

// A cell whose repetitions come from two commits is named in a warning.
func TestMixedCommitsAreWarnedAbout(t *testing.T) {
	mk := func(key, sha string, dirty bool, n int) run.Record {
		return run.Record{Identity: run.Identity{Key: key, Label: "DARTS", GPUs: 1, Point: map[string]any{"n": n, "gpus": 1},
			Provenance: run.Provenance{GitSHA: sha, Dirty: dirty}}, GFlops: 1, MakespanS: 1}
	}
	set := NewSet(nil, []run.Record{
		mk("a", "1111111111111111", false, 4), mk("b", "2222222222222222", false, 4),
		mk("c", "1111111111111111", false, 8), mk("d", "1111111111111111", true, 8),
		mk("e", "1111111111111111", false, 12),
	}, nil)
	mixed := set.MixedCells()
	if len(mixed) != 2 || !strings.Contains(mixed[0], "111111111111, 222222222222") || !strings.Contains(mixed[1], "111111111111-dirty") {
		t.Fatalf("mixed cells %q", mixed)
	}
	if txt := summaryText(set); !strings.Contains(txt, "2 table cells mix records of different commits") {
		t.Errorf("summary lacks the warning: %s", txt)
	}
}

// A results file holding a key twice is refused, naming the key and lines.
func TestDuplicateKeysAreRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	line := `{"schema":2,"key":"abc","scheduler":"eager","params":{},"workload":"w","working_set_mib":1,"platform":"p","platform_hash":"h","gpus":1,"memory_bytes":1,"seed":1,"executor":"sim","charge_sched_time":false,"rep":0,"makespan_s":1,"gflops":1,` +
		`"bytes_h2d":0,"bytes_d2d":0,"bytes_d2h":0,"loads":0,"prefetches":0,"fetches":0,"evictions":0,"writebacks":0,"invalidations":0,"pop_missing":0,"tasks":0,"tasks_per_worker":null,"sched_wall_s":0,"sim_wall_s":0}` + "\n"
	os.WriteFile(path, []byte(line+strings.Replace(line, `"abc"`, `"abd"`, 1)+line), 0o644)
	_, err := LoadRecords(path)
	if err == nil || !strings.Contains(err.Error(), "abc (lines 1, 3)") {
		t.Fatalf("err = %v", err)
	}
}

func TestPreviewIsTitled(t *testing.T) {
	_, set := handSet(t, map[string][]float64{"EAGER": {1, 2}, "DMDAR": {2, 3}})
	set.Preview = true
	d, err := Build(set, Options{Average: RatioOfMeans})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Title, "PREVIEW") || !strings.Contains(d.Sections[0].Paras[0], "PREVIEW") {
		t.Errorf("title %q, first paragraph %q", d.Title, d.Sections[0].Paras[0])
	}
	d, err = Reproduction(nil, nil, Options{Average: RatioOfMeans, Preview: true}, "memsched report")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Title, "PREVIEW") || !strings.Contains(d.Sections[0].Paras[0], "PREVIEW") {
		t.Errorf("reproduction title %q", d.Title)
	}
}
