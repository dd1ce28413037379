package jobs

import (
	"bytes"
	"testing"
)

// FuzzReadSWF: no SWF input makes ReadSWF panic; what it accepts is a
// valid trace (Trace.Validate), in submission order, numbered from 1.
// Nodes of 2^30 cores keep one line's split jobs few (a line asking for
// 2^40 processors is legal, and 2^40 single-core nodes' jobs would only
// slow the fuzzer). Seeds: testdata/fuzz/FuzzReadSWF.
func FuzzReadSWF(f *testing.F) {
	o := SWFOptions{CoresPerNode: 1 << 30, NodeMemoryGB: 128, BandwidthGBs: 0.1}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadSWF("a.swf", bytes.NewReader(data), o)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if err := tr.Validate(o.CoresPerNode); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		for i, j := range tr.Jobs {
			if j.ID != i+1 || i > 0 && j.Submit < tr.Jobs[i-1].Submit {
				t.Fatalf("job %d: id %d, submitted at %d after %d", i, j.ID, j.Submit, tr.Jobs[max(i-1, 0)].Submit)
			}
		}
	})
}
