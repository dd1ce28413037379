package trace_test

import (
	"bytes"
	"testing"

	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/workloads"
)

// FuzzRead: no input makes Read, or Validate on what it reads, panic.
// Seeds: testdata/fuzz/FuzzRead (traces of small runs).
func FuzzRead(f *testing.F) {
	w, err := workloads.Generate(workloads.Spec{Kind: "matmul2d", N: 2})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.Read(bytes.NewReader(data))
		if tr == nil {
			if err == nil || err.Error() == "" {
				t.Fatalf("no trace and no error (%v)", err)
			}
			return
		}
		if tr.Header.Platform == nil {
			t.Fatal("a trace without a platform was accepted")
		}
		if tr.Header.Platform.GPUs <= 16 { // Validate allocates per GPU
			trace.Validate(tr, w)
		}
	})
}
