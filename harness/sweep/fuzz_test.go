package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/memsched/memsched/harness/run"
)

// FuzzRead: no input makes the results-file reader (sweep, merge, report)
// panic; each record it accepts has a key and passes run.CheckRecord, and
// an error names the file. Seeds: testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, truncated, err := readLines(bytes.NewReader(data), "r.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.jsonl") {
				t.Fatalf("an error not naming the file: %v", err)
			}
			return
		}
		if truncated > int64(len(data)) {
			t.Fatalf("truncated at %d of %d bytes", truncated, len(data))
		}
		for _, l := range lines {
			if l.Rec.Key == "" {
				t.Fatalf("line %d: a record without a key was accepted", l.N)
			}
			if err := run.CheckRecord(&l.Rec, l.Raw); err != nil {
				t.Fatalf("line %d: accepted, but %v", l.N, err)
			}
		}
		if err := Duplicates("r.jsonl", lines); err != nil && err.Error() == "" {
			t.Fatal("an empty error")
		}
	})
}
