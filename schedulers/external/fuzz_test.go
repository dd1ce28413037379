package external

import (
	"testing"
)

// FuzzAnswer: no answer line makes memsched panic, to describe (decoded,
// then turned into a scheduler's spec whose defaults resolve) or to pull,
// pop and victim (the field read, then its integer). Seeds:
// testdata/fuzz/FuzzAnswer.
func FuzzAnswer(f *testing.F) {
	fields := map[string]string{"pull": "task", "pop": "index", "victim": "data"}
	f.Fuzz(func(t *testing.T, op string, line []byte) {
		if op == "describe" {
			d, err := parseDescription(line)
			if err != nil {
				return
			}
			s, err := d.spec("exec:/p", "/p", "0")
			if err != nil {
				if err.Error() == "" {
					t.Fatal("an empty error")
				}
				return
			}
			params, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("a described program's defaults do not resolve: %v", err)
			}
			if _, err := s.New(params); err != nil {
				t.Fatalf("a described program with its defaults cannot be made: %v", err)
			}
			return
		}
		field, ok := fields[op]
		if !ok {
			return
		}
		raw, err := parseAnswer(line, op, field, "an answer")
		if err != nil || raw == nil {
			return
		}
		parseInt(raw, op, "an integer")
	})
}
