package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/internal/filelock"
)

// Line is one record of a results file, with its line number and bytes
// (rewrites copy the bytes, so fields this version does not know survive).
type Line struct {
	Rec run.Record
	N   int
	Raw []byte // without the newline
}

// ReadFile reads a results file (JSON Lines, one run.Record per line).
// A missing file is empty. A last line without its newline is the trace of
// an interrupted write: it is ignored and truncated reports its byte offset
// (-1 when the file is whole) so a writer can cut it off. Any other bad line
// is an error naming the file and line.
func ReadFile(path string) (recs []run.Record, truncated int64, err error) {
	lines, truncated, err := ReadLines(path)
	for _, l := range lines {
		recs = append(recs, l.Rec)
	}
	return recs, truncated, err
}

// ReadLines is ReadFile keeping each record's line.
func ReadLines(path string) (lines []Line, truncated int64, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	defer f.Close()
	return readLines(f, path)
}

// Read is ReadFile on a reader; name is used in errors.
func Read(r io.Reader, name string) (recs []run.Record, truncated int64, err error) {
	lines, truncated, err := readLines(r, name)
	for _, l := range lines {
		recs = append(recs, l.Rec)
	}
	return recs, truncated, err
}

func readLines(r io.Reader, name string) (lines []Line, truncated int64, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var off int64
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 && err == io.EOF {
			// No newline: an interrupted write. Even if the JSON happens to
			// be whole, the run is redone rather than trusted.
			return lines, off, nil
		}
		if err == io.EOF {
			return lines, -1, nil
		}
		if err != nil {
			return nil, -1, fmt.Errorf("%s: %w", name, err)
		}
		off += int64(len(b))
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var probe struct {
			Ev *string `json:"ev"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.Ev != nil {
			return nil, -1, fmt.Errorf("%s:%d: this is a trace (memsched run --trace), not a results file: memsched validate checks it, memsched report --order-plot draws it", name, n)
		}
		var rec run.Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, -1, fmt.Errorf("%s:%d: not a result record (%v); a complete line was damaged: delete that line (the run is redone on the next sweep) or move the file away", name, n, err)
		}
		if rec.Key == "" {
			return nil, -1, fmt.Errorf("%s:%d: result record without a key; results files are written by memsched sweep: delete that line", name, n)
		}
		if err := run.CheckRecord(&rec, b); err != nil {
			return nil, -1, fmt.Errorf("%s:%d: %v; delete that line (the run is redone on the next sweep) or move the file away", name, n, err)
		}
		lines = append(lines, Line{Rec: rec, N: n, Raw: b})
	}
}

// Duplicates returns an error naming the keys that appear more than once
// (with their lines), or nil. Two sweeps writing one file at once leave
// them; a sweep keeps one record per key when it next runs.
func Duplicates(name string, lines []Line) error {
	at := map[string][]int{}
	var keys []string
	for _, l := range lines {
		if len(at[l.Rec.Key]) == 1 {
			keys = append(keys, l.Rec.Key)
		}
		at[l.Rec.Key] = append(at[l.Rec.Key], l.N)
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	var parts []string
	for i, k := range keys {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-5))
			break
		}
		ns := make([]string, len(at[k]))
		for j, n := range at[k] {
			ns[j] = strconv.Itoa(n)
		}
		parts = append(parts, fmt.Sprintf("%s (lines %s)", k, strings.Join(ns, ", ")))
	}
	return fmt.Errorf("%s holds %d %s more than once (two sweeps wrote it at once?): %s; run memsched sweep on it again, which keeps one record per key", name, len(keys), plural(len(keys), "key"), strings.Join(parts, ", "))
}

// rewrite replaces the locked results file f at path with lines,
// atomically (a temporary file renamed over it), so an interruption leaves
// either the old or the new file. The temporary file is locked before the
// rename, so the path never goes unlocked; it is returned, positioned at
// its end, as the file to append to, and f is closed.
func rewrite(f *os.File, path string, lines []Line) (*os.File, error) {
	tmp, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return f, err
	}
	fail := func(err error) (*os.File, error) {
		tmp.Abort()
		return f, fmt.Errorf("rewriting %s: %w", path, err)
	}
	if err := filelock.Lock(tmp.File); err != nil {
		return fail(err)
	}
	bw := bufio.NewWriter(tmp)
	for _, l := range lines {
		bw.Write(l.Raw)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Replace(); err != nil { // removes the temporary file on failure
		return f, fmt.Errorf("rewriting %s: %w", path, err)
	}
	f.Close()
	return tmp.File, nil
}
