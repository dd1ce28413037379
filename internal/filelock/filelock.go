// Package filelock gives a file one writer at a time: an advisory,
// exclusive, non-blocking lock (flock(2) on Unix) held on the open file.
// Every writer must take it; readers need not.
package filelock

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked is returned, wrapped, when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Open opens (creating it) and locks path for appending. It fails at once
// when another process holds the lock. A file replaced by a rename between
// the open and the lock is opened again, so the lock is always on the file
// the path names. Closing the file releases the lock.
func Open(path string) (*os.File, error) {
	for try := 0; try < 10; try++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := lock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		same, err := names(f, path)
		if err != nil {
			f.Close()
			return nil, err
		}
		if same {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s keeps being replaced while locking it", path)
}

// Lock locks an open file (a temporary file about to be renamed over a
// locked one keeps the path locked through the rename).
func Lock(f *os.File) error { return lock(f) }

// names says whether path still names the open file f.
func names(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}
