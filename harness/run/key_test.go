package run

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/sim"
	_ "github.com/memsched/memsched/schedulers/baseline"
)

// The key is the configuration and the code versions, nothing else.
func TestKeyCoversTheSchedulerVersion(t *testing.T) {
	if Key("c", 1) != Key("c", 1) {
		t.Fatal("Key is not deterministic")
	}
	if Key("c", 1) == Key("c", 2) || Key("c", 1) == Key("d", 1) {
		t.Error("Key ignores the configuration or the scheduler version")
	}
}

func TestIdentityNamesTheCode(t *testing.T) {
	p, _ := hardware.Load("v100-gemini")
	id := NewIdentity("w", 1, p, "dmdar", nil, 1, "", false)
	if id.Schema != Schema || id.ModelVer != sim.ModelVersion || id.SchedVer < 1 || id.Provenance.GitSHA == "" || id.Provenance.Version == "" {
		t.Errorf("identity %+v does not name its code", id)
	}
}
