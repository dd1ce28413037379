package sim_test

import (
	"math"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/workloads"
)

// Hand-checked instances of how copies are chosen, issued and timed
// (hardware.Runtime source_at_copy, requests_per_node, copy_issue_us,
// task_issue_us, fetch_input_us; hardware.Topology gpu_link_gbps_each,
// copy_latency_us, serial_peer_copies), on the v100-gemini preset: GPUs 0
// and 1 share one 12 GB/s switch, NVLink peers copy at 24 GB/s.

// peerPlatform is the preset on gpus GPUs with peer copies, ample memory
// and the settings changed by set.
func peerPlatform(t *testing.T, gpus int, set func(*hardware.Platform)) *hardware.Platform {
	p := platform(t, gpus, 30e9)
	p.Topology.NVLink = true
	p.Runtime.DurationCV = 0
	if set != nil {
		set(p)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

// sized is a workload whose task i reads inputs[i] and waits for the
// tasks deps[i]; data d has size[d] bytes; kernels take 1 ms.
func sized(inputs [][]int, deps [][]int, size []int64) *workloads.Workload {
	w := chain(inputs, size)
	for i := range w.Tasks {
		w.Tasks[i].Flops = 13.253e9 // 1 ms at the preset's 13253 GFlop/s
	}
	w.Deps = deps
	return w
}

// loadOf is the load_start and load_end of data d on node n.
func loadOf(evs []event.Event, n, d int) (start, end event.Event) {
	start.T, end.T = -1, -1
	for _, e := range evs {
		if e.Node == n && e.Data == d {
			switch {
			case e.Ev == "load_start" && start.T < 0:
				start = e
			case e.Ev == "load_end" && end.T < 0:
				end = e
			}
		}
	}
	return start, end
}

// StarPU chooses a copy's source when it creates the request
// (coherency.c _starpu_create_request_to_fetch_data, _starpu_select_src_node),
// among the copies valid then: a copy still loading is not one. GPU 0 runs
// task 0 (data 0), GPU 1 task 1 (data 1 then data 0), 1.2 GB each. At 0
// both GPUs request their data; GPU 0 is loading data 0, so GPU 1's
// request of it is for main memory's copy, and its copy, which starts when
// data 1's ends (0.2 s: two copies share the 12 GB/s switch), comes from
// there (0.1 s at 12 GB/s). Choosing the source when the copy starts (the
// former model) copies data 0 from GPU 0, which has it by then, over
// NVLink (0.05 s).
func TestSourceChosenAtRequest(t *testing.T) {
	w := sized([][]int{{0}, {1, 0}}, nil, []int64{1.2e9, 1.2e9})
	for _, c := range []struct {
		atCopy bool
		src    int
		secs   float64
	}{{false, 2, 0.1}, {true, 0, 0.05}} {
		p := peerPlatform(t, 2, func(p *hardware.Platform) { p.Runtime.SourceAtCopy = c.atCopy })
		st, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: &listed{plan: [][]int{{0}, {1}}}, Buffer: 1, Pipeline: 1})
		s, e := loadOf(evs, 1, 0)
		if s.Src != c.src || !near(e.T-s.T, c.secs) {
			t.Errorf("source_at_copy=%v: data 0 reaches GPU 1 from node %d in %g s; want from node %d in %g s", c.atCopy, s.Src, e.T-s.T, c.src, c.secs)
		}
		if d2d := c.src == 0; (st.BytesD2D > 0) != d2d {
			t.Errorf("source_at_copy=%v: %d bytes between GPUs", c.atCopy, st.BytesD2D)
		}
	}
}

// StarPU caps the pending requests per pair of nodes
// (data_request.c data_requests_npending[handling_node][peer_node]), so a
// prefetch from another GPU does not wait behind main memory's. GPU 0 runs
// task 0 (data 0); GPU 1's tasks 1-5 read data 1, 2, 3, 0, 4 and wait for
// task 0, so they are buffered (buffer 5) when GPU 0 holds data 0: data 0
// is requested from GPU 0, the others from main memory. Task 1's fetch and
// one prefetch fill main memory's pair (2 prefetches); data 0's pair is
// empty, so its prefetch is handled at once and its copy queued third,
// before data 3's. Counting every source's copies together (the former
// model), data 3 is handled when data 1 arrives, before data 0.
func TestRequestsPerPair(t *testing.T) {
	inputs := [][]int{{0}, {1}, {2}, {3}, {0}, {4}}
	deps := [][]int{nil, {0}, {0}, {0}, {0}, {0}}
	w := sized(inputs, deps, []int64{1.2e9, 1.2e9, 1.2e9, 1.2e9, 1.2e9})
	for _, perNode := range []bool{false, true} {
		p := peerPlatform(t, 2, func(p *hardware.Platform) { p.Runtime.RequestsPerNode = perNode })
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: &listed{plan: [][]int{{0}, {1, 2, 3, 4, 5}}}, Buffer: 5, Pipeline: 1})
		s0, _ := loadOf(evs, 1, 0)
		s3, _ := loadOf(evs, 1, 3)
		if s0.Src != 0 {
			t.Fatalf("requests_per_node=%v: data 0 reaches GPU 1 from node %d, want GPU 0", perNode, s0.Src)
		}
		if early := s0.T < s3.T; early == perNode {
			t.Errorf("requests_per_node=%v: GPU 1 loads data 0 at %g s and data 3 at %g s; want data 0 first only per pair", perNode, s0.T, s3.T)
		}
	}
}

// A copy takes its route's latency before it moves data, and shares links
// in inverse proportion to it (SimGrid's CM02 model: a flow's sharing
// penalty is its latency). From main memory: 11 µs to GPU 0, 10 µs to GPU
// 1. Alone, 1.2 GB reach GPU 0 in 11 µs + 0.1 s. GPUs 0 and 1 loading
// together share their 12 GB/s switch 10:11: GPU 1's copy moves alone at
// 12 GB/s from 10 µs, then from 11 µs at 12 × 11/21 GB/s; without
// latencies both end at 0.2 s.
func TestCopyLatency(t *testing.T) {
	lat := func(p *hardware.Platform) {
		m := make([][]float64, 1+p.MaxGPUs)
		for i := range m {
			m[i] = make([]float64, 1+p.MaxGPUs)
		}
		m[0][1], m[0][2] = 11, 10
		p.Topology.CopyLatencyUs = m
	}
	w := sized([][]int{{0}, {1}}, nil, []int64{1.2e9, 1.2e9})
	_, evs := traced(t, sim.Config{Workload: w, Platform: peerPlatform(t, 1, lat), Scheduler: fixed(inOrder(2), false), Buffer: 1, Pipeline: 1})
	if s, e := loadOf(evs, 0, 0); !near(e.T-s.T, 11e-6+0.1) {
		t.Errorf("one copy: %g s, want 11 µs + 0.1 s", e.T-s.T)
	}
	for _, withLat := range []bool{true, false} {
		set := lat
		if !withLat {
			set = nil
		}
		_, evs := traced(t, sim.Config{Workload: w, Platform: peerPlatform(t, 2, set), Scheduler: fixed([][]int{{0}, {1}}, false), Buffer: 1, Pipeline: 1})
		_, e1 := loadOf(evs, 1, 1)
		want := 0.2
		if withLat {
			want = 11e-6 + (1.2e9-12e9*1e-6)/(12e9*11/21)
		}
		if !near(e1.T, want) {
			t.Errorf("latencies %v: GPU 1's copy ends at %.9f s, want %.9f", withLat, e1.T, want)
		}
	}
}

// Each GPU's own link bandwidth (gpu_link_gbps_each) replaces
// gpu_link_gbps: GPU 1's link of 6 GB/s copies 1.2 GB in 0.2 s.
func TestGPULinkEach(t *testing.T) {
	w := sized([][]int{{0}}, nil, []int64{1.2e9})
	for _, c := range []struct {
		each []float64
		secs float64
	}{{nil, 0.1}, {[]float64{12, 6, 12, 12, 12, 12, 12, 12}, 0.2}} {
		p := peerPlatform(t, 2, func(p *hardware.Platform) { p.Topology.GPULinkGBpsEach = c.each })
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed([][]int{{}, {0}}, false), Buffer: 1, Pipeline: 1})
		if s, e := loadOf(evs, 1, 0); !near(e.T-s.T, c.secs) {
			t.Errorf("gpu_link_gbps_each %v: %g s, want %g", c.each, e.T-s.T, c.secs)
		}
	}
}

// The driver's host time (StarPU's SimGrid sleeps: 1 µs per input a popped
// task requests, coherency.c _starpu_fetch_task_input; 10 µs before each
// copy, simgrid.c _starpu_simgrid_transfer; 10 µs before each kernel,
// _starpu_simgrid_submit_job). Tasks 0 and 1 read data 0, buffer 1,
// pipeline 2. Task 0 is popped at 0 and requests data 0 (1 µs), whose
// copy is issued 10 µs later: it starts at 11 µs. Task 0's kernel is
// launched 10 µs after the data arrive. Task 1, popped meanwhile, is
// launched while task 0 computes: it starts when task 0 ends.
func TestDriverHostTime(t *testing.T) {
	w := sized([][]int{{0}, {0}}, nil, []int64{1.2e9})
	for _, costs := range []bool{false, true} {
		p := peerPlatform(t, 1, func(p *hardware.Platform) {
			if costs {
				p.Runtime.CopyIssueUs, p.Runtime.TaskIssueUs, p.Runtime.FetchInputUs = 10, 10, 1
			}
		})
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: fixed(inOrder(2), false), Buffer: 1, Pipeline: 2})
		s, e := loadOf(evs, 0, 0)
		start0 := firstTime(evs, "task_start", func(e event.Event) bool { return e.Task == 0 })
		end0 := firstTime(evs, "task_end", func(e event.Event) bool { return e.Task == 0 })
		start1 := firstTime(evs, "task_start", func(e event.Event) bool { return e.Task == 1 })
		wantCopy, wantLaunch := 0.0, 0.0
		if costs {
			wantCopy, wantLaunch = 11e-6, 10e-6
		}
		if math.Abs(s.T-wantCopy) > 1e-12 || math.Abs(start0-e.T-wantLaunch) > 1e-12 || start1 != end0 {
			t.Errorf("costs %v: copy starts at %g s (want %g), task 0 %g s after its data (want %g), task 1 at %g s (task 0 ends at %g)",
				costs, s.T, wantCopy, start0-e.T, wantLaunch, start1, end0)
		}
	}
}

// In StarPU's SimGrid mode a copy between GPUs is sequential with the
// copies into its source too (simgrid.c transfers_are_sequential). GPU 0
// runs task 0 (data 0, 1.2 GB) then task 2 (data 1, 12 GB, prefetched
// from the start, so its copy follows data 0's); GPU 1's task 1 reads data
// 0 and waits for task 0. When task 0 ends, GPU 1 requests data 0 from GPU
// 0, issued after data 1's copy into GPU 0: it waits for that copy to end.
// Without the rule it starts at once.
func TestSerialPeerCopies(t *testing.T) {
	w := sized([][]int{{0}, {0}, {1}}, [][]int{nil, {0}, nil}, []int64{1.2e9, 12e9})
	for _, serial := range []bool{false, true} {
		p := peerPlatform(t, 2, func(p *hardware.Platform) { p.Topology.SerialPeerCopies = serial })
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: &listed{plan: [][]int{{0, 2}, {1}}}, Buffer: 2, Pipeline: 1})
		peer, _ := loadOf(evs, 1, 0)
		_, big := loadOf(evs, 0, 1)
		end0 := firstTime(evs, "task_end", func(e event.Event) bool { return e.Task == 0 })
		if peer.Src != 0 {
			t.Fatalf("serial_peer_copies=%v: data 0 reaches GPU 1 from node %d, want GPU 0", serial, peer.Src)
		}
		if serial && peer.T != big.T || !serial && peer.T != end0 {
			t.Errorf("serial_peer_copies=%v: peer copy starts at %g s; task 0 ends at %g s, data 1 reaches GPU 0 at %g s", serial, peer.T, end0, big.T)
		}
	}
}

// A datum requested again once another source has become the best moves
// to it: StarPU creates a second request, from that source, in that pair's
// list, which is handled first when main memory's pair is full (the first
// request then finds the data loading: data_request.c
// starpu_handle_data_request, load_request). GPU 1 buffers tasks 1-4 (data
// 1, 2, 3, 0) at 0: data 0 is then loading on GPU 0, so it is requested
// from main memory, where data 1 and 2 fill the pair. Task 5 (data 0 too)
// waits for task 0 and enters GPU 1's buffer when GPU 0 has data 0: the
// request moves to GPU 0, whose pair is empty, and data 0 reaches GPU 1
// from GPU 0 before data 3.
func TestRequestMovesToNewSource(t *testing.T) {
	inputs := [][]int{{0}, {1}, {2}, {3}, {0}, {0}}
	deps := [][]int{nil, nil, nil, nil, nil, {0}}
	w := sized(inputs, deps, []int64{0.12e9, 1.2e9, 1.2e9, 1.2e9})
	_, evs := traced(t, sim.Config{Workload: w, Platform: peerPlatform(t, 2, nil), Scheduler: &listed{plan: [][]int{{0}, {1, 2, 3, 4, 5}}}, Buffer: 4, Pipeline: 1})
	s0, _ := loadOf(evs, 1, 0)
	s3, _ := loadOf(evs, 1, 3)
	if s0.Src != 0 || s0.T > s3.T {
		t.Errorf("data 0 reaches GPU 1 from node %d at %g s (data 3 at %g s); want from GPU 0, first", s0.Src, s0.T, s3.T)
	}
}

// With peer copies, requests holding their sources, latencies, the
// driver's host time and serial peer copies, random instances run to the
// end with valid traces whatever the memory (TestRuntimeSettingsNeverDeadlock
// without peer copies).
func TestPeerCopiesNeverDeadlock(t *testing.T) {
	for it := 0; it < 100; it++ {
		r := newRand(uint64(1000 + it))
		w := randomWorkload(r, 5+r.IntN(40), 4+r.IntN(10))
		gpus := 2 + r.IntN(3)
		mem := int64(3 + r.IntN(5))
		name := []string{"eager", "dmda", "dmdar", "darts", "mhfp"}[it%5]
		for k, perNode := range []bool{false, true} {
			s, _ := build(t, name)
			p := platform(t, gpus, mem)
			p.Topology.NVLink, p.Topology.SerialPeerCopies = true, it%2 == 0
			p.Runtime.RequestsPerNode = perNode
			p.Runtime.CopyIssueUs, p.Runtime.TaskIssueUs, p.Runtime.FetchInputUs = 10, 10, 1
			m := make([][]float64, 1+p.MaxGPUs)
			for i := range m {
				m[i] = make([]float64, 1+p.MaxGPUs)
				for j := range m[i] {
					if i != j {
						m[i][j] = float64(5 + r.IntN(10))
					}
				}
			}
			p.Topology.CopyLatencyUs = m
			c := &collector{}
			st, err := sim.Run(sim.Config{Workload: w, Platform: p, Scheduler: s, Buffer: 1 + r.IntN(4), Pipeline: 1 + r.IntN(3), Trace: c.add})
			if err != nil {
				t.Fatalf("instance %d, settings %d (%s, %d GPUs): %v", it, k, name, gpus, err)
			}
			if err := replay(w, mem, gpus, c.events, st); err != nil {
				t.Fatalf("instance %d, settings %d (%s): %v", it, k, name, err)
			}
		}
	}
}

// StarPU's spin lock sleeps 1 µs in SimGrid mode whenever it finds the lock
// taken (common/thread.h), and a driver handling a copy's end holds the
// datum's header lock across simcalls (data_request.c
// _handle_pending_node_data_requests): of three GPUs whose copies of data 0
// end at one instant, GPU 0 launches its task 10 µs after (the kernel's
// queueing), GPU 1 11 µs and GPU 2 12 µs after. With SpinFree all three
// launch 10 µs after.
func TestSpinOnSimultaneousCopyEnds(t *testing.T) {
	w := sized([][]int{{0}, {0}, {0}}, nil, []int64{1.2e9})
	for _, free := range []bool{false, true} {
		p := peerPlatform(t, 3, func(p *hardware.Platform) {
			p.Runtime.TaskIssueUs, p.Runtime.SpinFree = 10, free
			p.Topology.GPUsPerSwitch = 4 // one switch: the three copies share their links alike
		})
		_, evs := traced(t, sim.Config{Workload: w, Platform: p, Scheduler: &listed{plan: [][]int{{0}, {1}, {2}}}, Buffer: 1, Pipeline: 1})
		for g := 0; g < 3; g++ {
			_, e := loadOf(evs, g, 0)
			_, e0 := loadOf(evs, 0, 0)
			if e.T != e0.T {
				t.Fatalf("spin_free=%v: data 0 reaches GPU %d at %g s, GPU 0 at %g s: want one instant", free, g, e.T, e0.T)
			}
			start := firstTime(evs, "task_start", func(e event.Event) bool { return e.Task == g })
			want := 10e-6
			if !free {
				want += float64(g) * 1e-6
			}
			if math.Abs(start-e.T-want) > 1e-12 {
				t.Errorf("spin_free=%v: GPU %d starts its task %g s after its data, want %g", free, g, start-e.T, want)
			}
		}
	}
}
