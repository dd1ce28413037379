package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/memsched/memsched/harness/batch"
)

// BatchExecutor names the batch simulator in records.
const BatchExecutor = "batch"

// RunBatch runs a batch setup (thesis chapter 6: jobs on a cluster) and
// returns its record: the identity, and the batch report in Record.Batch.
func RunBatch(s batch.Setup) (Record, error) {
	rec := Record{Identity: BatchIdentity(s)}
	rep, _, _, err := batch.Execute(s)
	if err != nil {
		return rec, err
	}
	rec.Scheduler, rec.Params = s.Scheduler, rep.Params
	rec.Batch = rep
	rec.SimWallS = rep.SimWallS
	return rec, nil
}

// BatchIdentity describes a batch run before it runs: the workload by name,
// the cluster by name with a hash of its numbers and the rules.
func BatchIdentity(s batch.Setup) Identity {
	b, _ := json.Marshal(struct {
		C batch.Cluster
		R batch.Rules
	}{s.Cluster, s.Rules})
	sum := sha256.Sum256(b)
	return Identity{Scheduler: s.Scheduler, Params: s.Params, Workload: s.Workload.Defaults().Name(),
		Platform: s.Cluster.Name, PlatformSHA: hex.EncodeToString(sum[:8]), Executor: BatchExecutor,
		Provenance: CurrentProvenance()}
}
