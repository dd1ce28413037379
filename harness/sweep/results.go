package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/memsched/memsched/harness/run"
)

// ReadFile reads a results file (JSON Lines, one run.Record per line).
// A missing file is empty. A last line without its newline is the trace of
// an interrupted write: it is ignored and truncated reports its byte offset
// (-1 when the file is whole) so a writer can cut it off. Any other bad line
// is an error naming the file and line.
func ReadFile(path string) (recs []run.Record, truncated int64, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read is ReadFile on a reader; name is used in errors.
func Read(r io.Reader, name string) (recs []run.Record, truncated int64, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var off int64
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 && err == io.EOF {
			// No newline: an interrupted write. Even if the JSON happens to
			// be whole, the run is redone rather than trusted.
			return recs, off, nil
		}
		if err == io.EOF {
			return recs, -1, nil
		}
		if err != nil {
			return nil, -1, fmt.Errorf("%s: %w", name, err)
		}
		off += int64(len(b))
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var rec run.Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, -1, fmt.Errorf("%s:%d: not a result record (%v); a complete line was damaged: delete that line (the run is redone on the next sweep) or move the file away", name, line, err)
		}
		if rec.Key == "" {
			return nil, -1, fmt.Errorf("%s:%d: result record without a key; results files are written by memsched sweep: delete that line", name, line)
		}
		recs = append(recs, rec)
	}
}

// rewrite replaces a results file with recs, atomically (temporary file and
// rename), so an interruption leaves either the old or the new file.
func rewrite(path string, recs []run.Record) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(tmp)
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	err = bw.Flush()
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
