package jobs

import (
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// table reads a CSV file (gzip-compressed when it starts with gzip's magic
// number) whose header must name exactly the columns want, in any order.
type table struct {
	name string
	r    *csv.Reader
	col  map[string]int
	line int
	rec  []string
}

func openTable(name string, in io.Reader, want []string) (*table, error) {
	return openTableFunc(name, in, func([]string) ([]string, error) { return want, nil })
}

// openTableFunc is openTable where the wanted columns depend on the header
// (an outcomes table has three columns per scheduler it covers).
func openTableFunc(name string, in io.Reader, columns func(head []string) ([]string, error)) (*table, error) {
	in, err := maybeGunzip(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t := &table{name: name, r: csv.NewReader(in), col: map[string]int{}}
	t.r.ReuseRecord = true
	head, err := t.r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file; want a CSV header line", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.line = 1
	want, err := columns(head)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", name, err)
	}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if !slices.Contains(want, h) {
			return nil, fmt.Errorf("%s:1: unknown column %q%s; the columns are %s", name, h, suggest.Closest(h, want), strings.Join(want, ","))
		}
		if _, dup := t.col[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice", name, h)
		}
		t.col[h] = i
	}
	for _, w := range want {
		if _, ok := t.col[w]; !ok {
			return nil, fmt.Errorf("%s:1: missing column %q; the columns are %s", name, w, strings.Join(want, ","))
		}
	}
	return t, nil
}

func gzipReader(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }

// next reads a record; false at the end of the file.
func (t *table) next() (bool, error) {
	rec, err := t.r.Read()
	if err == io.EOF {
		return false, nil
	}
	t.line++
	if err != nil {
		return false, fmt.Errorf("%s: %w (a truncated or corrupted file?)", t.name, err)
	}
	t.rec = rec
	return true, nil
}

func (t *table) int(col string) (int64, error) {
	s := strings.TrimSpace(t.rec[t.col[col]])
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s:%d: column %s is %q; want an integer", t.name, t.line, col, s)
	}
	return v, nil
}

func (t *table) float(col string) (float64, error) {
	s := strings.TrimSpace(t.rec[t.col[col]])
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s:%d: column %s is %q; want a number", t.name, t.line, col, s)
	}
	return v, nil
}
