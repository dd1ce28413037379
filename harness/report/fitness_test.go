package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/paper"
)

// A fit's record made under another simulator model says so: its errors
// are not today's.
func TestFitRecordOfAnotherModelSaysSo(t *testing.T) {
	spec := &paper.FitSpec{File: "fit.toml", Results: "fit.json"}
	text := func(model int) string {
		fit := &paper.FitResult{Command: "memsched fit fit.toml", ModelVersion: model, TrainMAPE: 16.3, TestMAPE: 17.2}
		var b strings.Builder
		for _, s := range fidelitySections(nil, spec, fit) {
			b.WriteString(strings.Join(s.Paras, "\n"))
		}
		return b.String()
	}
	if s := text(run.ModelVersion); strings.Contains(s, "That fit ran under") {
		t.Errorf("a record of the current model is flagged: %s", s)
	}
	if s := text(6); !strings.Contains(s, "That fit ran under simulator model 6") || !strings.Contains(s, fmt.Sprintf("model %d's", run.ModelVersion)) {
		t.Errorf("a record of model 6 is not flagged: %s", s)
	}
	if s := text(0); !strings.Contains(s, "an older simulator model") {
		t.Errorf("a record without a model is not flagged: %s", s)
	}
}
