package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"golang.org/x/perf/benchfmt"

	"github.com/memsched/memsched/harness/run"
)

// WriteRunsCSV writes one row per record with every field of the record
// (schema 2), nested objects flattened to dotted columns (point.n,
// params.buffer, provenance.git_sha, sched_stats.bmd_pct): a table pandas'
// read_csv and R's read.csv take without help. Columns are the record's
// own fields in the record's order, then the dotted ones sorted; a field a
// record lacks is empty. Lists (tasks_per_worker) are JSON in their cell.
func WriteRunsCSV(w io.Writer, recs []run.Record) error {
	rows := make([]map[string]string, len(recs))
	var top []string // top-level fields in record order
	seenTop := map[string]bool{}
	nested := map[string]bool{}
	for i, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		var obj orderedObject
		if err := json.Unmarshal(b, &obj); err != nil {
			return err
		}
		row := map[string]string{}
		for _, kv := range obj {
			var inner map[string]any
			if decodeNumbers(kv.value, &inner) == nil && inner != nil {
				for k, v := range inner {
					col := kv.key + "." + k
					row[col] = cell(v)
					nested[col] = true
				}
				continue
			}
			var v any
			decodeNumbers(kv.value, &v)
			row[kv.key] = cell(v)
			if !seenTop[kv.key] {
				seenTop[kv.key] = true
				top = append(top, kv.key)
			}
		}
		rows[i] = row
	}
	cols := append([]string{}, top...)
	var dotted []string
	for c := range nested {
		dotted = append(dotted, c)
	}
	sort.Strings(dotted)
	cols = append(cols, dotted...)
	cw := csv.NewWriter(w)
	cw.Write(cols)
	line := make([]string, len(cols))
	for _, row := range rows {
		for j, c := range cols {
			line[j] = row[c]
		}
		cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// cell renders a JSON value for a CSV cell: numbers exactly, strings as
// they are, null empty, lists and objects as JSON.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String() // as the record wrote it: a 64-bit seed stays exact
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// decodeNumbers is json.Unmarshal keeping numbers as written.
func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

type keyValue struct {
	key   string
	value json.RawMessage
}

// orderedObject is a JSON object that keeps its keys' order.
type orderedObject []keyValue

func (o *orderedObject) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		*o = append(*o, keyValue{t.(string), raw})
	}
	return nil
}

// WriteBench writes the records in golang.org/x/perf's benchfmt
// (run.Record.Result), which benchstat compares: each metric's direction
// first, then one result per successful record (error rows have none).
func WriteBench(w io.Writer, recs []run.Record) error {
	bw := benchfmt.NewWriter(w)
	for _, u := range run.BenchUnits() {
		if err := bw.Write(u); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if res := r.Result(); res != nil {
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}
