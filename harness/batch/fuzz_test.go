package batch

import (
	"bytes"
	"testing"
)

// FuzzReadTrace: no batch trace makes ReadTrace, or Validate on what it
// reads, panic or allocate beyond what the events name (a header claiming
// a billion nodes is refused or costs nothing). Seeds:
// testdata/fuzz/FuzzReadTrace.
func FuzzReadTrace(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		h, evs, err := ReadTrace(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if h == nil {
			t.Fatal("no header and no error")
		}
		for _, v := range Validate(h, evs) {
			if v == "" {
				t.Fatal("an empty violation")
			}
		}
	})
}
