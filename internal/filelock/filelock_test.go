package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSecondOpenFailsAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	f.Close()
	g, err := Open(path)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	g.Close()
}

// A locked temporary file renamed over the path keeps the path locked.
func TestLockSurvivesRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmp, err := os.CreateTemp(dir, "tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	if err := Lock(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open after the rename: %v, want ErrLocked", err)
	}
}
