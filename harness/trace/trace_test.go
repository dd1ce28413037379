package trace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/trace"
	_ "github.com/memsched/memsched/schedulers/baseline"
	"github.com/memsched/memsched/workloads"
)

// record runs one configuration and returns its trace bytes and workload.
func record(t *testing.T, gpus, n int) ([]byte, *workloads.Workload) {
	spec := workloads.Spec{Kind: "matmul2d", N: n, Seed: 1}
	w, err := workloads.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := hardware.Load("v100-gemini")
	p.GPUs = gpus
	p.SetMemoryMiB(250)
	var buf bytes.Buffer
	tw, err := trace.NewWriter(&buf, trace.Header{Platform: p, Workload: &spec, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := run.Run(run.Config{Workload: w, Platform: p, Scheduler: "dmdar", Trace: func(e event.Event) { tw.Event(e) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Result(rec); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w
}

func TestValidTraceValidates(t *testing.T) {
	for _, gpus := range []int{1, 2, 4} {
		b, w := record(t, gpus, 25)
		tr, err := trace.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if bad := trace.Validate(tr, w); len(bad) > 0 {
			t.Fatalf("%d GPUs: %v", gpus, bad)
		}
	}
}

// Each corruption must be caught.
func TestCorruptTracesAreRejected(t *testing.T) {
	b, w := record(t, 2, 25)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	drop := func(kind string) string {
		for i, l := range lines {
			if strings.Contains(l, `"ev":"`+kind+`"`) {
				return strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n")
			}
		}
		t.Fatalf("no %s event", kind)
		return ""
	}
	cases := map[string]string{
		"a task that never ran":             drop("task_start"),
		"input not resident at task start":  drop("load_end"),
		"eviction of data not resident":     strings.Replace(strings.Join(lines, "\n"), `"ev":"load_start"`, `"ev":"evict"`, 1),
		"memory over the cap":               strings.Replace(strings.Join(lines, "\n"), `"memory_bytes":262144000`, `"memory_bytes":20000000`, 1),
		"a load faster than the PCIe links": strings.Replace(strings.Join(lines, "\n"), `"gpu_link_gbps":12`, `"gpu_link_gbps":1`, 1),
	}
	for name, text := range cases {
		tr, err := trace.Read(strings.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bad := trace.Validate(tr, w); len(bad) == 0 {
			t.Errorf("%s: not detected", name)
		}
	}
}

func TestTruncatedTraceIsAnError(t *testing.T) {
	b, _ := record(t, 1, 10)
	_, err := trace.Read(bytes.NewReader(b[:len(b)/2]))
	if err == nil || !(strings.Contains(err.Error(), "truncated") || strings.Contains(err.Error(), "malformed")) {
		t.Fatalf("err = %v, want a truncation error", err)
	}
}
