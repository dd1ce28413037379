package sweep

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/internal/filelock"
)

// Shard is one part of a suite's runs, for sweeps spread over machines (a
// Slurm job array): the runs whose key hashes to Index modulo Count. The
// assignment depends only on the key, so every machine agrees on it and a
// shard's records are exactly those a whole sweep would write for its keys.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n" (0 <= i < n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 0 <= i < n, e.g. 0/8", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Of returns the shard index of a run key among Count.
func (s Shard) Of(key string) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(s.Count))
}

// Has reports whether a run key belongs to the shard.
func (s Shard) Has(key string) bool { return s.Of(key) == s.Index }

// ShardDir is where the shards of a results file are written, with a Slurm
// job's script and logs: results/x.jsonl -> results/x.shards.
func ShardDir(output string) string {
	return strings.TrimSuffix(output, filepath.Ext(output)) + ".shards"
}

// ShardFile is the file a shard writes its records to.
func ShardFile(output string, s Shard) string {
	return filepath.Join(ShardDir(output), fmt.Sprintf("shard-%03d-of-%03d.jsonl", s.Index, s.Count))
}

// ShardFiles lists the shard files of a results file, sorted.
func ShardFiles(output string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(ShardDir(output), "shard-*.jsonl"))
	sort.Strings(files)
	return files, err
}

// Merge joins shard files into a results file: a record whose key the
// file lacks is appended, and a success replaces an error row of the same
// key. Shards are read, never changed (a job may still be appending to
// one; its torn last line is left for later), so merging is idempotent and
// safe while shards run. It returns how many records were added or
// replaced.
func Merge(output string, shards []string) (int, error) {
	// A shard named but absent (a typo, a lost file) is an error: merging
	// nothing from it would look like success.
	for _, sf := range shards {
		if _, err := os.Stat(sf); errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("shard file %s does not exist; nothing was merged", sf)
		} else if err != nil {
			return 0, fmt.Errorf("shard file %w; nothing was merged", err)
		}
	}
	if dir := filepath.Dir(output); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
	}
	f, err := filelock.Open(output)
	if errors.Is(err, filelock.ErrLocked) {
		return 0, fmt.Errorf("%s is being written by another memsched sweep; merge its shards when it ends", output)
	}
	if err != nil {
		return 0, err
	}
	defer func() { f.Close() }() // f changes when the file is rewritten
	lines, truncated, err := ReadLines(output)
	if err != nil {
		return 0, err
	}
	at := make(map[string]int, len(lines))
	for i, l := range lines {
		if _, dup := at[l.Rec.Key]; !dup {
			at[l.Rec.Key] = i
		}
	}
	changed := 0
	for _, sf := range shards {
		slines, _, err := ReadLines(sf)
		if err != nil {
			return 0, err
		}
		for _, l := range slines {
			i, ok := at[l.Rec.Key]
			switch {
			case !ok:
				at[l.Rec.Key] = len(lines)
				lines = append(lines, l)
				changed++
			case lines[i].Rec.Error != "" && l.Rec.Error == "":
				lines[i] = l
				changed++
			}
		}
	}
	if changed == 0 && truncated < 0 {
		return 0, nil
	}
	f, err = rewrite(f, output, lines)
	return changed, err
}

// MergeShards merges every shard file of a results file into it.
func MergeShards(output string) (int, error) {
	files, err := ShardFiles(output)
	if err != nil || len(files) == 0 {
		return 0, err
	}
	return Merge(output, files)
}

// Done returns the keys of a results file, without its error rows when they
// are to be redone.
func Done(path string, retryErrors bool) (map[string]bool, error) {
	recs, _, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return doneKeys(recs, retryErrors), nil
}

func doneKeys(recs []run.Record, retryErrors bool) map[string]bool {
	have := make(map[string]bool, len(recs))
	for _, r := range recs {
		if !retryErrors || r.Error == "" {
			have[r.Key] = true
		}
	}
	return have
}
