// Package cudaexec executes schedules on real GPUs through CUDA (the
// purego bindings of memsched/hardware/cuda) with the simulator's own
// decision logic, and calibrates platform presets from measurements.
//
// # One state machine, two clocks
//
// The executor is the second driver of sim.Engine, the simulator's own
// core (per GPU a task buffer whose inputs are prefetched in order, a
// pipeline of popped tasks whose missing inputs are fetched first, compute
// in pop order, memory capped with eviction through the scheduler's
// Evictor or LRU). The core decides and hands out effects (start a copy,
// start a task, memory freed, start the clock); the host loop here carries
// them out on CUDA streams and reports completions (Advance, then CopyDone
// or TaskDone). Pull, Pop, Victim, Push and Observe are therefore called
// by the same code in the same order as in simulation.
// TestMachineLockstep drives the core through its effects with the
// simulator's timing model and requires sim.Run's trace event for event;
// TestMakespanMatchesSim requires the same of the CUDA executor on the
// fake's virtual clock.
//
// Per GPU the executor has a copy stream and a compute stream with one
// cuBLAS handle bound to it; the host loop makes every CUDA call from its
// own locked OS thread (cuda.Thread), switching the current device as
// needed, so that it reacts to a completion without a hand-off. A load is a cudaMemcpyAsync from pinned host memory (every data,
// filled with deterministic values) into a slab of the data's size,
// between two events. A popped task is queued on the compute stream as
// soon as its inputs are resident or loading (cudaStreamWaitEvent on the
// copy), in pop order, so the GPU starts it the moment its inputs and its
// predecessor are done without waiting for the host; the machine evicts
// inputs of popped tasks only when the oldest one misses data, and then
// none is queued. The host loop polls each GPU's copy in flight and oldest
// task with cudaEventElapsedTime, hands the machine the earliest
// completion (GPU time, loads first on ties, as the simulator), and
// records GPU times relative to an origin event recorded on every GPU at
// once. Trace times are those GPU times, corrected upward where needed so
// that a trace never shows a start before what it waited for. Stats and
// the trace have the simulator's meaning. Scheduling time passes for real;
// ChargeSchedTime says whether the clock starts before the static planning
// (Init) or after it and the submission, as the papers' timers do without
// or with COUNT_DO_SCHEDULE (sim.EffectClock). Before the clock, each
// GPU runs one copy and one SGEMM of each task shape (warmUp), so that CUDA's
// lazy loading of cuBLAS's kernels is not inside it.
//
// Task shapes (taskShape): 2D gemm m=n=tile, k=z; 3D gemm (and the
// Cholesky/LU update) m=n=k=tile over the first two inputs; other kernels
// run as a cube SGEMM of equal flops. C goes to a per-GPU scratch tile.
// Memory: one cudaMalloc per present data, reused for the next data of the
// same size, never more than the platform's MemoryBytes (slabPool).
//
// # Calibration
//
// Calibrate measures pinned host-to-device bandwidth (each GPU alone, then
// all at once, several sizes, large-size plateau), the SGEMM time of each
// task shape (median after warm-up) and device memory, and Calibration.TOML
// writes them as a preset in v100-gemini.toml's format, with provenance in
// comments. The topology is fitted so that the simulator reproduces both
// bandwidth measurements (see Calibration.TOML).
package cudaexec
