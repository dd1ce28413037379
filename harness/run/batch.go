package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/memsched/memsched/harness/batch"
	sched "github.com/memsched/memsched/schedulers/batch"
)

// BatchExecutor names the batch simulator in records.
const BatchExecutor = "batch"

// BatchKey is Key for a batch run: its configuration and the versions of
// the code deciding its outcome, the record schema, the batch simulator's
// model (batch.ModelVersion) and the batch scheduler's Version.
func BatchKey(config string, schedulerVersion int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|schema=%d|batch_model=%d|scheduler=%d", config, Schema, batch.ModelVersion, schedulerVersion))
	return hex.EncodeToString(sum[:12])
}

// batchExecutor is the batch simulator as an Executor: it runs
// Config.Batch.
type batchExecutor struct{}

func (batchExecutor) Execute(cfg Config) (Record, error) {
	if cfg.Batch == nil {
		return Record{}, fmt.Errorf("executor %q runs batch setups ([batch] suites, memsched batch), not a GPU configuration", BatchExecutor)
	}
	b := *cfg.Batch
	b.Context = cfg.Context
	return RunBatch(b)
}

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
// the cluster by name with a hash of its numbers and the rules, and the
// versions: model_version is batch.ModelVersion, scheduler_version the
// batch scheduler's.
func BatchIdentity(s batch.Setup) Identity {
	b, _ := json.Marshal(struct {
		C batch.Cluster
		R batch.Rules
	}{s.Cluster, s.Rules})
	sum := sha256.Sum256(b)
	id := Identity{Schema: Schema, Scheduler: s.Scheduler, ModelVer: batch.ModelVersion, Params: s.Params,
		Workload: s.Workload.Defaults().Name(), Platform: s.Cluster.Name, PlatformSHA: hex.EncodeToString(sum[:8]),
		Executor: BatchExecutor, Provenance: CurrentProvenance()}
	if spec, err := sched.Lookup(s.Scheduler); err == nil {
		id.SchedVer = spec.Version
	}
	return id
}
