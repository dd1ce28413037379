package trace_test

import (
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/workloads"
)

// With NVLink on, data already on one GPU is copied from it: bytes are
// counted GPU-to-GPU, the trace names the source, and it validates.
func TestNVLinkPeerCopies(t *testing.T) {
	w, _ := workloads.Generate(workloads.Spec{Kind: "matmul2d", N: 12})
	for _, nvlink := range []bool{false, true} {
		p, _ := hardware.Load("v100-gemini")
		p.GPUs = 2
		p.Topology.NVLink = nvlink
		var events []event.Event
		rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "eager", Trace: func(e event.Event) { events = append(events, e) }})
		if err != nil {
			t.Fatal(err)
		}
		peer := 0
		for _, e := range events {
			if e.Ev == "load_start" && e.Src != p.HomeNode() {
				peer++
			}
		}
		if nvlink != (rec.BytesD2D > 0) || nvlink != (peer > 0) {
			t.Fatalf("nvlink=%v: %d GPU-to-GPU bytes, %d peer loads", nvlink, rec.BytesD2D, peer)
		}
		if rec.BytesH2D+rec.BytesD2D != int64(rec.Loads)*w.Data[0].Bytes {
			t.Fatalf("bytes %d + %d do not add up to %d loads", rec.BytesH2D, rec.BytesD2D, rec.Loads)
		}
		tr := &trace.Trace{Header: trace.Header{Platform: p}, Events: events, Result: &rec}
		if bad := trace.Validate(tr, w); len(bad) > 0 {
			t.Fatalf("nvlink=%v: %v", nvlink, bad)
		}
	}
}
