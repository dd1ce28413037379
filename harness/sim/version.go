package sim

// ModelVersion is the version of the simulator model: the engine's
// decisions and everything outside the schedulers that shapes a result
// (the workload generators, the platform model). Bump it whenever they
// change what a run produces; it enters every result key, so a sweep
// reruns the records made by the former model. The golden corpus
// (harness/golden) fails when the outputs change without a bump.
//
// 2: memory nodes, access modes and MSI coherency (DAG tiles are RW, with
// write-backs), protected NVLink sources.
// 3: the worker whose task released others pulls first (StarPU pushes them
// from that worker's thread).
// 4: copies come from the fastest valid source (NVLink table, PCIe peer
// copies), workers sharing a node fill their buffers before the node's
// requests are handled, LU submits its TRSMs in the thesis' order.
// 5 (issue 11): strided data copied at Topology.StridedGBps (the 2D
// products' cycled blocks, every tile of 3D, Cholesky and LU, as xgemm.c
// and cholesky_implicit.c register them); under sched_cost = "model" the
// initial submission is never charged and the planning only when counted;
// the v100-gemini preset refitted (memsched fit): NVLink peer copies a
// fitted rule (off), strided_gbps 8.5.
// 6 (issue 17): a GPU whose popped tasks an allocation made ready (an
// input in mode W) pops again at once, as StarPU's polling driver does,
// instead of at its next event; a worker held by charged scheduling time
// has one wake-up pending (duplicates used to kick its node again, which
// sometimes popped at once by chance). Only write_c runs change among the
// suites (ipdps2022 random-order-2gpu).
// 7 (issue 33): StarPU's rules at the papers' tag (papers/ICPP2023): a
// scheduler whose FIFO above the workers prefetches at push
// (schedulers.PushPrefetcher: EAGER) has every task prefetched as it is
// pushed when the workers share one memory node; a node handles fetch
// requests while fewer than 5 copies are pending, prefetch requests while
// fewer than 2 (data_request.h; 20 and 10 before); the presets take over
// one same-size chunk before reclaiming (reuse_same_size = true).
// 8 (issue 33, rule 4 and SimGrid's transfer costs): a request chooses its
// copy's source when it is created and holds it (StarPU's
// _starpu_create_request_to_fetch_data), a datum requested again once a
// GPU holds it moves to that source, the request caps count per pair of
// nodes; copies may take a latency (Topology.CopyLatencyUs) and share
// links in inverse proportion to it, each GPU may have its own link
// (gpu_link_gbps_each), peer copies may be sequential with the copies into
// their source (serial_peer_copies), and a GPU's driver may spend host
// time per copy, kernel and input (copy_issue_us, task_issue_us,
// fetch_input_us), all set in gemini-2-ipdps. Only runs with peer copies
// change on the V100 presets (v100-gemini-1920, nvlink overrides).
// 9 (issue 33): what the schedulers see of a datum is StarPU's status
// (schedulers.Status, StarPU's Ready ranking reads it): allocated and
// loading from when its request is handled, loading after a request that
// found no memory (Runtime.LoadingFromCopy false); a Requested event
// tells it. The modular schedulers' Ready in the buffer (ReadyStarPU)
// changes.
// 10 (issue 33): the 2D products hold xgemm.c's C scratch tile on every GPU
// (workloads.Workload.DeviceBytes, Spec.NoScratch), out of the memory the
// data may use: a memory cap holds one block fewer where the 3.5 MiB tile
// crosses a block boundary (100 and 200 MiB at N = 30).
// 11 (issue 33): the 2D tasks read their blocks in xgemm.c's handle order,
// the inner loop's block first (workloads add2D): a task's requests, and
// so ties between its loads, come in StarPU's order.
// 12 (issue 33): workers woken at the same instant pull one task each in
// turn, in worker order, as StarPU's CUDA workers (SimGrid actors) do
// (Runtime.NodeAfterNode false); the former order, each node pulling all
// it could before the next, is node_after_node = true. Runs on several
// memory nodes change.
// 13 (issue 33): a GPU's driver handles its node's data requests before it
// pops (Runtime.PopBeforeProgress false, driver_cuda.c
// _starpu_cuda_driver_run_once), and a loaded datum takes its LRU place at
// allocation, not at the copy's end (Runtime.LRUAtLoad false, memalloc.c
// register_mem_chunk): the victims of the static orders on one GPU become
// StarPU's.
// 14 (issues 33, 34): a preset imported from StarPU times each GPU by its
// own history entry per task shape (hardware.Kernel.History); a GPU's
// driver pops one task per iteration, the buffer refilled in between
// (Runtime.PopAtOnce false), and only after its thread's host time
// (Runtime.PopDuringDriverTime false); a GPU whose task reads a datum
// another GPU has just requested stalls on its header lock
// (Runtime.LockFree false), and the k-th driver ending a datum's
// simultaneous copies spins k µs (Runtime.SpinFree false), both StarPU's
// SimGrid mode (the presets of real machines set lock_free and spin_free
// true); each kind of scheduler operation has its own cost
// (schedulers.Op); v100-gemini refitted with the 1-GPU Cholesky task set
// among its training series.
// 15 (issue 33): the 3D tasks read their tiles in xgemm.c -3d's handle
// order, B_kj (its A(z, y)) before A_ik (its B(x, z)), then C (workloads
// genMatmul3D): a task's requests, and so ties between its loads and the
// order of DARTS's data lists, come in StarPU's order.
// Also in 15: on the imported StarPU hosts an NVLink copy also crosses
// the PCIe links between its GPUs, each GPU's port and, under different
// switches, the switch links (Topology.NVLinkOverPCIe, GPUPortGBps:
// SimGrid's routes from perfmodel_bus.c write_bus_platform_file), and a
// copy's source is the valid copy of least predicted time over StarPU's
// bus matrices (Topology.BusMBps, BusLatencyUs: coherency.c
// _starpu_select_src_node, starpu_transfer_predict). Only runs with peer
// copies on gemini-1-fgcs and gemini-2-ipdps change. Runtime.ProgressUs
// (datawizard.c ___starpu_datawizard_progress's SimGrid sleep) is new and
// 0 in every preset.
// Also in 15: Runtime.ProgressUs > 0 runs a GPU driver's iteration in the order
// of driver_cuda.c _starpu_cuda_driver_run_once (iterate): the poll's
// launch (10 µs), then __starpu_datawizard_progress, which sleeps
// ProgressUs per driven memory node (datawizard.c
// ___starpu_datawizard_progress) before it handles the copies that ended
// and issues new ones, then _starpu_get_multi_worker_task's pop, only once
// the last popped task is launched; charged once per iteration (a launch
// or a pop ends one), and a copy's end is handled in the request handling,
// so the driver issues the next copies before it launches the task the
// copy made ready (StarPU: kernel at copy end + 2 + 10 + 10 µs, the next
// pop 2 µs after), in place of a first placement (after launches, and at
// a copy's end into an idle driver). ProgressUs stays 0 in every preset: on
// the peer suites it gains 4 equal load counts but moves multi-GPU
// DARTS+LUF's GFlop/s MAPE from 0.78 to 1.20 %; results at 0 are 15's.
const ModelVersion = 15
