package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// always lists the JSON keys of Record's own fields that every writer
// writes (no omitempty): a record of a successful run without one of them
// was not written by memsched, and a reader would take the missing metric
// as 0 (a missing gflops turned a -6.9 % improvement into +99 %).
var always = sync.OnceValue(func() []string {
	var keys []string
	t := reflect.TypeOf(Record{})
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || strings.Contains(opts, "omitempty") {
			continue
		}
		keys = append(keys, name)
	}
	return keys
})

// CheckRecord checks a record read from a results file, raw being its
// line. It refuses what a reader would otherwise take silently: a record
// of a newer schema, a successful run missing a metric (Schema 1 records,
// from before the field existed, need only makespan_s and gflops), a
// metric no run can have (negative, not finite, a zero makespan, tasks
// per worker that do not add up), and versions that disagree with the
// record's key, where the key can be recomputed (the simulator, the CUDA
// executor and batch runs; a peer runtime's key hashes what the peer was
// told, which the record does not hold).
func CheckRecord(r *Record, raw []byte) error {
	if r.Schema > Schema {
		return fmt.Errorf("schema %d is newer than this memsched's (%d): read it with the memsched that wrote it, or a newer one", r.Schema, Schema)
	}
	if r.Schema < 0 {
		return fmt.Errorf("schema %d: not a record schema", r.Schema)
	}
	if err := checkKey(r); err != nil {
		return err
	}
	if r.Error != "" {
		return nil // an error row: no metric is read
	}
	required := []string{"makespan_s", "gflops"}
	if r.Schema >= 2 {
		required = always()
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return err
	}
	for _, k := range required {
		if v, ok := keys[k]; !ok || bytes.Equal(v, []byte("null")) && k != "tasks_per_worker" {
			return fmt.Errorf("record of a successful run without %q: a reader would take it as 0; memsched always writes it", k)
		}
	}
	if r.Executor == BatchExecutor {
		if r.Batch == nil {
			return fmt.Errorf("batch record without its report (\"batch\")")
		}
		return nil // a batch run's metrics are its report's
	}
	if !(r.MakespanS > 0) || math.IsInf(r.MakespanS, 0) {
		return fmt.Errorf("makespan_s = %v for a successful run: a run takes a positive, finite time", r.MakespanS)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"gflops", r.GFlops}, {"sched_wall_s", r.SchedWallS}, {"sim_wall_s", r.SimWallS}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s = %v: want a finite number >= 0", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"bytes_h2d", r.BytesH2D}, {"bytes_d2d", r.BytesD2D}, {"bytes_d2h", r.BytesD2H}, {"loads", int64(r.Loads)},
		{"prefetches", int64(r.Prefetches)}, {"fetches", int64(r.Fetches)}, {"evictions", int64(r.Evictions)},
		{"writebacks", int64(r.WriteBacks)}, {"invalidations", int64(r.Invalid)}, {"pop_missing", int64(r.PopMissing)},
		{"tasks", int64(r.Tasks)}, {"model_loads", int64(r.ModelLoads)}} {
		if f.v < 0 {
			return fmt.Errorf("%s = %d: a count is >= 0", f.name, f.v)
		}
	}
	if len(r.PerWorker) > 0 {
		sum := 0
		for w, n := range r.PerWorker {
			if n < 0 {
				return fmt.Errorf("tasks_per_worker[%d] = %d: a count is >= 0", w, n)
			}
			sum += n
		}
		if sum != r.Tasks {
			return fmt.Errorf("tasks_per_worker adds up to %d, but tasks = %d", sum, r.Tasks)
		}
	}
	return nil
}

// checkKey recomputes the key of a record from its configuration hash and
// the versions it names (Key, BatchKey), where that is the key's formula.
func checkKey(r *Record) error {
	if r.Config == "" || r.Key == "" || r.Schema < 2 {
		return nil
	}
	var what string
	switch r.Executor {
	case "", "sim", "cuda":
		what = fmt.Sprintf("%s|schema=%d|model=%d|scheduler=%d", r.Config, r.Schema, r.ModelVer, r.SchedVer)
	case BatchExecutor:
		what = fmt.Sprintf("%s|schema=%d|batch_model=%d|scheduler=%d", r.Config, r.Schema, r.ModelVer, r.SchedVer)
	default:
		return nil
	}
	sum := sha256.Sum256([]byte(what))
	if hex.EncodeToString(sum[:12]) != r.Key {
		return fmt.Errorf("key %s is not the key of its configuration %s under schema %d, model_version %d and scheduler_version %d: the record was edited", r.Key, r.Config, r.Schema, r.ModelVer, r.SchedVer)
	}
	return nil
}
