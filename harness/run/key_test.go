package run

import (
	"errors"
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

// A peer runtime's results depend on what it is told alone: neither
// memsched's scheduler version nor its configuration enter their key.
func TestPeerKey(t *testing.T) {
	if KeyFor("sim", "c", 1) == KeyFor("sim", "c", 2) || KeyFor("sim", "c", 1) != Key("c", 1) {
		t.Error("a simulated run's key must follow its scheduler version")
	}
	if _, ok := PeerConfig("sim", Job{}, nil); ok {
		t.Error("the simulator is not a peer")
	}
	RegisterPeer("test-peer", func(j Job, p *hardware.Platform) (string, error) {
		if j.Scheduler == "nope" {
			return "", errors.New("cannot")
		}
		return "told " + j.Scheduler + " " + p.Name, nil
	})
	defer delete(peers, "test-peer")
	if KeyFor("test-peer", "c", 1) != KeyFor("test-peer", "c", 2) {
		t.Error("a scheduler version bump changes a peer run's key")
	}
	p := &hardware.Platform{Name: "host"}
	if s, ok := PeerConfig("test-peer", Job{Scheduler: "eager"}, p); !ok || s != "told eager host" {
		t.Errorf("PeerConfig = %q, %v", s, ok)
	}
	if _, ok := PeerConfig("test-peer", Job{Scheduler: "nope"}, p); ok {
		t.Error("a job the peer cannot be told has no peer configuration")
	}
}
