// Package golden holds the regression corpus that guards every result the
// project reports: about thirty tiny configurations (every registered
// scheduler, 1, 2 and 4 GPUs, each workload kind) whose result records and
// traces are checked in under testdata/ and compared bit for bit by
// go test. The fields that legitimately vary (wall-clock times, the
// provenance: commit, host, Go and release versions) are zeroed.
//
// A change that alters any decision fails the test. If it is intended,
// bump the version of the code that decides, then rewrite the corpus:
//
//	go test ./harness/golden -update
//
// The scheduler's Version in its schedulers.Spec when one scheduler's
// outputs change; sim.ModelVersion when the engine, the workload
// generators or the platform model change (every scheduler's outputs);
// run.Schema when the record or trace format changes. testdata/versions.txt
// records, append-only, the hash of each configuration's outputs under
// each (schema, model, scheduler version): -update refuses to change the
// outputs of a version already recorded and names what to bump. Result
// keys (run.Key) cover the same versions, so a sweep reruns exactly the
// records a bump supersedes.
//
// The corpus is compared on amd64 only: Go fuses multiply-adds on arm64,
// ppc64 and s390x, so floating-point results may differ in the last bit
// there.
package golden
