package suite

import (
	"strings"
	"testing"
)

func TestBatchSuite(t *testing.T) {
	good := `[suite]
name = "b"
[batch]
weeks = ["2022-09-05"]
rules = "release"
[[scheduler]]
name = "fcfs"
label = "FCFS"
[[scheduler]]
name = "lea"
label = "LEA-BF"
backfill = true
[report]
baseline = "FCFS"
`
	s, err := Parse("b.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 2 || runs[0].Batch == nil || runs[0].Key == runs[1].Key || runs[1].Params["backfill"] != "true" {
		t.Fatalf("runs %+v", runs)
	}
	if cfg, err := runs[1].Config(); err != nil || cfg.Batch == nil || cfg.Batch.Rules.Loop != "release" {
		t.Fatalf("config %+v, %v", cfg, err)
	}
	for bad, want := range map[string]string{
		`weeks = ["2022-09-05"]`: "",
		`weeks = ["2022-9-05"]`:  `did you mean "2022-09-05"`,
		`weks = ["2022-09-05"]`:  `unknown key`,
		`rules = "relase"`:       `did you mean "release"`,
	} {
		if bad == `weeks = ["2022-09-05"]` {
			continue
		}
		text := strings.Replace(good, `weeks = ["2022-09-05"]`, bad, 1)
		if bad == `rules = "relase"` {
			text = strings.Replace(good, `rules = "release"`, bad, 1)
		}
		if _, err := Parse("b.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
	if _, err := Parse("b.toml", []byte(strings.Replace(good, `name = "lea"`, `name = "laa"`, 1))); err == nil || !strings.Contains(err.Error(), `did you mean "lea"`) {
		t.Errorf("unknown scheduler: %v", err)
	}
	if _, err := Parse("b.toml", []byte(strings.Replace(good, "backfill = true", "bakfill = true", 1))); err == nil || !strings.Contains(err.Error(), `did you mean "backfill"`) {
		t.Errorf("unknown parameter: %v", err)
	}
}
