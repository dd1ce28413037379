package workloads

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzReadJSON: no input makes ReadJSON panic; what it accepts is valid
// and round-trips through WriteJSON exactly. Seeds:
// testdata/fuzz/FuzzReadJSON.
func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"name":"w","data":[{"id":0,"bytes":4}],"tasks":[{"id":0,"kernel":"gemm","flops":1,"inputs":[0],"deps":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("ReadJSON accepted an invalid workload: %v", err)
		}
		var buf bytes.Buffer
		if err := w.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		w2, err := ReadJSON(&buf)
		if err != nil {
			t.Fatalf("re-reading what WriteJSON wrote: %v", err)
		}
		if !reflect.DeepEqual(w, w2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", w, w2)
		}
	})
}
