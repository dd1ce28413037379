package sweep

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/5"); err != nil || s != (Shard{2, 5}) {
		t.Errorf("2/5: %v %v", s, err)
	}
	for _, bad := range []string{"5/5", "-1/3", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Shards run apart and merged give the records of one whole sweep, and
// every run lands in exactly one shard.
func TestShardsMergeIntoTheWholeSweep(t *testing.T) {
	s := load(t, base)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	sweep(t, context.Background(), s, Options{Jobs: 2, Output: whole})

	out := filepath.Join(dir, "sharded.jsonl")
	total := 0
	for i := 0; i < 3; i++ {
		sum := sweep(t, context.Background(), s, Options{Jobs: 1, Output: out, Shard: Shard{i, 3}})
		total += sum.Done
	}
	if total != 24 {
		t.Fatalf("the shards ran %d runs; want the suite's 24", total)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a shard wrote the results file itself")
	}
	if n, err := MergeShards(out); err != nil || n != 24 {
		t.Fatalf("merge: %d records, %v", n, err)
	}
	sameRecords(t, canon(t, whole), canon(t, out))
	if n, err := MergeShards(out); err != nil || n != 0 {
		t.Errorf("merging again added %d records (%v); want none", n, err)
	}
}

// After a shard is lost, rerunning it does only its missing runs, reading
// the merged file; a plain sweep merges the shards first.
func TestShardResumeRunsOnlyWhatIsMissing(t *testing.T) {
	s := load(t, base)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	for i := 0; i < 2; i++ {
		sweep(t, context.Background(), s, Options{Output: out, Shard: Shard{i, 2}})
	}
	MergeShards(out)
	lost := ShardFile(out, Shard{1, 2})
	recs, _, _ := ReadFile(lost)
	os.Remove(lost)
	var kept []Line
	all, _, _ := ReadLines(out)
	for _, l := range all {
		if !(Shard{1, 2}).Has(l.Rec.Key) {
			kept = append(kept, l)
		}
	}
	f, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f, err = rewrite(f, out, kept); err != nil {
		t.Fatal(err)
	}
	f.Close()

	sum := sweep(t, context.Background(), s, Options{Output: out, Shard: Shard{1, 2}})
	if sum.Done != len(recs) || sum.Skipped != 0 {
		t.Errorf("rerun of the lost shard: %+v; want its %d runs done", sum, len(recs))
	}
	if sum := sweep(t, context.Background(), s, Options{Output: out, Shard: Shard{0, 2}}); sum.Done != 0 {
		t.Errorf("the intact shard reran %d runs", sum.Done)
	}
	if sum := sweep(t, context.Background(), s, Options{Output: out}); sum.Done != 0 || sum.Skipped != 24 {
		t.Errorf("plain sweep after the shards: %+v; want everything merged and skipped", sum)
	}
}

// A success in a shard replaces an error row of the results file; a torn
// last line of a shard still being written is left alone.
func TestMergePrefersSuccessesAndSkipsTornLines(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	os.WriteFile(out, []byte(`{"key":"a","error":"timeout after 1s"}`+"\n"+`{"key":"b","tasks":1,"makespan_s":1,"gflops":1}`+"\n"), 0o644)
	shard := filepath.Join(dir, "s.jsonl")
	os.WriteFile(shard, []byte(`{"key":"a","tasks":2,"makespan_s":1,"gflops":1}`+"\n"+`{"key":"b","error":"x"}`+"\n"+`{"key":"c","tas`), 0o644)
	n, err := Merge(out, []string{shard})
	if err != nil || n != 1 {
		t.Fatalf("merge: %d, %v; want 1 (a replaced)", n, err)
	}
	recs, _, _ := ReadFile(out)
	if len(recs) != 2 || recs[0].Tasks != 2 || recs[0].Error != "" || recs[1].Tasks != 1 {
		t.Errorf("merged records %+v", recs)
	}
	if b, _ := os.ReadFile(shard); string(b[len(b)-4:]) != `"tas` {
		t.Errorf("the shard was changed")
	}
}
