package suite

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memsched/memsched/schedulers"
)

// parser collects every error of a file, each with its line.
type parser struct {
	file string
	loc  *locator
	errs Errors
}

func (p *parser) errf(table, key, format string, a ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: p.loc.line(table, key), Msg: fmt.Sprintf(format, a...)})
}

// tbl is one decoded TOML table with typed accessors that record which keys
// were read, so that unknown ones (typos) can be reported.
type tbl struct {
	p    *parser
	path string // locator path: "platform", "scheduler#1", "platform.kernel.gemm"
	m    map[string]any
	used map[string]bool
}

func (t *tbl) errf(key, format string, a ...any) { t.p.errf(t.path, key, format, a...) }

func (t *tbl) join(key string) string {
	if t.path == "" {
		return key
	}
	return t.path + "." + key
}

func (t *tbl) has(key string) bool {
	if t == nil {
		return false
	}
	_, ok := t.m[key]
	return ok
}

// get marks key read and returns its value.
func (t *tbl) get(key string) (any, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.m[key]
	if ok {
		t.used[key] = true
	}
	return v, ok
}

// sub returns a nested table; required ones that are missing are reported
// and an empty table is returned so parsing goes on.
func (t *tbl) sub(key string, required bool) *tbl {
	v, ok := t.get(key)
	if !ok {
		if required {
			t.p.errf(t.path, "", "missing [%s] table; add it (see the example at the top of harness/suite/suite.go)", t.join(key))
			return &tbl{p: t.p, path: t.join(key), m: map[string]any{}, used: map[string]bool{}}
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.errf(key, "%s must be a table, not %s", key, typeName(v))
		return &tbl{p: t.p, path: t.join(key), m: map[string]any{}, used: map[string]bool{}}
	}
	return &tbl{p: t.p, path: t.join(key), m: m, used: map[string]bool{}}
}

// array returns the elements of an array of tables ([[key]]).
func (t *tbl) array(key string) []*tbl {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	list, ok := v.([]map[string]any)
	if !ok {
		if l, ok2 := v.([]any); ok2 {
			for _, e := range l {
				m, ok3 := e.(map[string]any)
				if !ok3 {
					t.errf(key, "%s must be an array of tables ([[%s]] blocks)", key, t.join(key))
					return nil
				}
				list = append(list, m)
			}
		} else {
			t.errf(key, "%s must be an array of tables: write [[%s]] blocks", key, t.join(key))
			return nil
		}
	}
	out := make([]*tbl, len(list))
	for i, m := range list {
		out[i] = &tbl{p: t.p, path: tablePath(t.join(key), i), m: m, used: map[string]bool{}}
	}
	return out
}

// unknown reports the keys that were neither read nor listed as allowed.
func (t *tbl) unknown(allowed ...string) {
	if t == nil {
		return
	}
	keys := make([]string, 0, len(t.m))
	for k := range t.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if t.used[k] || slices.Contains(allowed, k) {
			continue
		}
		where := "at the top level"
		if t.path != "" {
			where = "in [" + strings.ReplaceAll(t.path, "#", " #") + "]"
		}
		t.errf(k, "unknown key %q %s%s; allowed keys: %s", k, where, schedulers.Suggest(k, allowed), strings.Join(allowed, ", "))
	}
}

func typeName(v any) string {
	switch x := v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date"
	}
	return fmt.Sprintf("%T", v)
}

func (t *tbl) str(key, def string) string {
	v, ok := t.get(key)
	if !ok {
		return def
	}
	s, ok := v.(string)
	if !ok {
		t.errf(key, "%s must be a string (in quotes), not %s", key, typeName(v))
		return def
	}
	return s
}

func (t *tbl) strings(key string) []string {
	v, _ := t.get(key)
	list, ok := v.([]any)
	if !ok {
		t.errf(key, "%s must be an array of strings, e.g. [\"a\", \"b\"]", key)
		return nil
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			t.errf(key, "%s must be an array of strings, found %s", key, typeName(e))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (t *tbl) integer(key string, def int64) int64 {
	v, ok := t.get(key)
	if !ok {
		return def
	}
	i, ok := asInt(v)
	if !ok {
		t.errf(key, "%s must be an integer, not %s", key, typeName(v))
		return def
	}
	return i
}

func (t *tbl) number(key string) float64 {
	v, _ := t.get(key)
	f, ok := asFloat(v)
	if !ok {
		t.errf(key, "%s must be a number, not %s", key, typeName(v))
	} else if math.IsNaN(f) || math.IsInf(f, 0) {
		t.errf(key, "%s = %v: give a finite number", key, f)
	}
	return f
}

func (t *tbl) boolean(key string, def bool) bool {
	v, ok := t.get(key)
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		t.errf(key, "%s must be true or false (no quotes), not %s", key, typeName(v))
		return def
	}
	return b
}

func (t *tbl) duration(key string) time.Duration {
	v, ok := t.get(key)
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case string:
		d, err := time.ParseDuration(x)
		if err != nil || d < 0 {
			t.errf(key, "%s = %q is not a duration; write e.g. \"90s\" or \"10m\"", key, x)
		}
		return d
	case int64:
		if x < 0 {
			t.errf(key, "%s = %d: use a non-negative number of seconds", key, x)
		}
		return time.Duration(x) * time.Second
	}
	t.errf(key, "%s must be a duration string such as \"10m\", not %s", key, typeName(v))
	return 0
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// maxAxis bounds the number of values of one axis.
const maxAxis = 100000

// axis reads a scalar, an array, or a range table {from, to, step}
// (inclusive) as a list of numbers.
func (t *tbl) axis(key string, def float64, integer bool) []float64 {
	v, ok := t.get(key)
	if !ok {
		return []float64{def}
	}
	kind := "a finite number"
	if integer {
		kind = "an integer"
	}
	conv := func(e any) (float64, bool) {
		if integer {
			i, ok := asInt(e)
			return float64(i), ok
		}
		f, ok := asFloat(e)
		return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	example := fmt.Sprintf("%s = 5, %s = [5, 10, 15] or %s = {from = 5, to = 90, step = 5}", key, key, key)
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			t.errf(key, "%s is an empty list; give at least one value", key)
			return nil
		}
		out := make([]float64, 0, len(x))
		seen := map[float64]bool{}
		for _, e := range x {
			f, ok := conv(e)
			if !ok {
				t.errf(key, "%s: every value must be %s, found %s; write %s", key, kind, typeName(e), example)
				return nil
			}
			if seen[f] {
				t.errf(key, "%s lists %v twice; each point once", key, f)
			}
			seen[f] = true
			out = append(out, f)
		}
		return out
	case map[string]any:
		var from, to, step float64
		for k := range x {
			if k != "from" && k != "to" && k != "step" {
				t.errf(key, "%s range: unknown key %q%s; a range has from, to and step", key, k, schedulers.Suggest(k, []string{"from", "to", "step"}))
				return nil
			}
		}
		for _, k := range []string{"from", "to", "step"} {
			e, ok := x[k]
			f, ok2 := conv(e)
			if !ok || !ok2 {
				t.errf(key, "%s range needs %s = <%s>; write %s", key, k, kind, example)
				return nil
			}
			switch k {
			case "from":
				from = f
			case "to":
				to = f
			case "step":
				step = f
			}
		}
		if step <= 0 || to < from {
			t.errf(key, "%s range {from = %v, to = %v, step = %v}: need step > 0 and to >= from", key, from, to, step)
			return nil
		}
		if (to-from)/step+1 > maxAxis {
			t.errf(key, "%s range has more than %d values; use a larger step", key, maxAxis)
			return nil
		}
		var out []float64
		// Index-based to avoid accumulating float error; to is inclusive
		// up to a relative tolerance.
		for i := 0; ; i++ {
			f := from + float64(i)*step
			if f > to+step*1e-9 {
				break
			}
			if !integer {
				f = math.Round(f*1e9) / 1e9
			}
			out = append(out, f)
		}
		return out
	default:
		f, ok := conv(v)
		if !ok {
			t.errf(key, "%s must be %s, a list or a range, not %s; write %s", key, kind, typeName(v), example)
			return nil
		}
		return []float64{f}
	}
}

func (t *tbl) axisInt(key string, def int64) []int64 {
	fs := t.axis(key, float64(def), true)
	out := make([]int64, len(fs))
	for i, f := range fs {
		out[i] = int64(f)
	}
	return out
}

func (t *tbl) axisFloat(key string, def float64) []float64 { return t.axis(key, def, false) }
