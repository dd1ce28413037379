package batch

// ModelVersion is the version of the batch simulator's model: the loop,
// the reuse, load and backfilling rules, the cluster model and the
// workload readers (workloads/jobs) that shape a batch result. It is the
// batch executor's sim.ModelVersion: batch records carry it as
// model_version and it enters their result keys (run.BatchKey), so a
// sweep reruns the records the former model made. Bump it whenever a
// batch run's outcome changes; the golden corpus (harness/golden) fails
// when it changes without a bump.
//
// 1 (issue 14): thesis chapter 6 as first released.
const ModelVersion = 1
