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

// StarPU's results depend on StarPU: neither memsched's scheduler version
// nor the preset's simulated numbers enter their key, only what StarPU is
// told.
func TestPeerKey(t *testing.T) {
	if KeyFor(StarPU, "c", 1) != KeyFor(StarPU, "c", 2) {
		t.Error("a scheduler version bump changes a StarPU run's key")
	}
	if KeyFor("sim", "c", 1) == KeyFor("sim", "c", 2) || KeyFor("sim", "c", 1) != Key("c", 1) {
		t.Error("a simulated run's key must follow its scheduler version")
	}
	p, err := hardware.Load("gemini-2-ipdps")
	if err != nil {
		t.Fatal(err)
	}
	q := p.Clone()
	q.Topology.GPULinkGBps *= 2
	if PlatformKey(StarPU, p) != PlatformKey(StarPU, q) || PlatformKey("sim", p) == PlatformKey("sim", q) {
		t.Error("a link bandwidth must enter the simulator's key, not StarPU's")
	}
	q.SetMemoryMiB(250)
	if PlatformKey(StarPU, p) == PlatformKey(StarPU, q) {
		t.Error("the memory cap StarPU is told must enter its key")
	}
}
