package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/memsched/memsched/harness/batch"
	"github.com/memsched/memsched/harness/run"
	sched "github.com/memsched/memsched/schedulers/batch"
)

// batchConfig is one golden batch run (thesis chapter 6): a batch scheduler
// under one rule preset on a small synthetic trace (jobs resampled from the
// Rackham weeks) on a cluster of eight Rackham nodes.
type batchConfig struct {
	name      string
	scheduler string
	params    map[string]string
	rules     string
}

var batchConfigs = []batchConfig{
	{"batch-lea-bf-synthetic-thesis", "lea", map[string]string{"backfill": "true"}, "thesis"},
	{"batch-leo-synthetic-release", "leo", map[string]string{"sticky": "true"}, "release"},
}

var batchCluster = batch.Cluster{Name: "rackham-8", Nodes: 8, CoresPerNode: 20, MemoryGB: 128, BandwidthGBs: 0.1}

func (c batchConfig) id() string { return c.name }

func (c batchConfig) setup(t *testing.T) batch.Setup {
	rules, err := batch.Preset(c.rules)
	if err != nil {
		t.Fatal(err)
	}
	return batch.Setup{Workload: batch.Workload{Kind: "synthetic", Jobs: 120, Seed: 1}, Cluster: batchCluster,
		Rules: rules, Scheduler: c.scheduler, Params: c.params, Plans: true}
}

// output runs a batch configuration and returns its golden record and its
// trace (reservations included), checked by the batch validator.
func (c batchConfig) output(t *testing.T) (record, tr []byte) {
	s := c.setup(t)
	sch, spec, params, err := sched.Build(c.scheduler, c.params)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := batch.NewWriter(&buf, batch.Header{Schema: run.Schema, ModelVersion: batch.ModelVersion, SchedulerVersion: spec.Version,
		Workload: s.Workload.Defaults().Name(), Cluster: s.Cluster, Rules: s.Rules, Scheduler: spec.Name, Params: params,
		Backfill: sch.Backfill(), Plans: true})
	s.Event = tw.Event
	rec, err := run.RunBatch(s)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	rec.SimWallS, rec.Provenance, rec.Batch.SimWallS = 0, run.Provenance{}, 0
	h, evs, err := batch.ReadTrace(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	if bad := batch.Validate(h, evs); len(bad) > 0 {
		t.Fatalf("%s: invalid batch schedule: %v", c.name, bad)
	}
	record, err = json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(record, '\n'), buf.Bytes()
}

// version: the record schema, the batch simulator's model and the batch
// scheduler's version (run.BatchKey covers the same).
func (c batchConfig) version(t *testing.T) string {
	sp, err := sched.Lookup(c.scheduler)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("schema=%d batch-model=%d batch-%s=v%d", run.Schema, batch.ModelVersion, sp.Name, sp.Version)
}
