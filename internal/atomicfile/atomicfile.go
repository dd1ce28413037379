// Package atomicfile replaces a file as a whole: the new content goes to a
// temporary file beside it, which is synced and renamed over it, so a
// failed write (a full disk, an interruption) leaves the old file, never a
// truncated one. Results files, reports, presets, workload files and the
// README headline are all written through it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is the temporary file that will replace Target.
type File struct {
	*os.File
	Target string
	perm   os.FileMode
	done   bool
}

// Create makes the temporary file for path, in path's directory (a rename
// is atomic only within a file system), hidden and with path's extension
// (a loader that goes by the extension reads it as path's kind):
// .NAME.tmpRANDOM.EXT.
func Create(path string, perm os.FileMode) (*File, error) {
	path, err := target(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	f, err := os.CreateTemp(filepath.Dir(path), "."+base+".tmp*"+filepath.Ext(base))
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &File{File: f, Target: path, perm: perm}, nil
}

// Replace syncs the temporary file, gives it its permissions and renames
// it over Target, leaving it open (a results file is appended to next).
// On an error the temporary file is removed and Target is unchanged.
func (f *File) Replace() error {
	if err := f.Sync(); err != nil {
		return f.fail(err)
	}
	if err := f.Chmod(f.perm); err != nil {
		return f.fail(err)
	}
	if err := os.Rename(f.Name(), f.Target); err != nil {
		return f.fail(err)
	}
	f.done = true
	return nil
}

// Commit is Replace, closing the file first (a close can report a failed
// write).
func (f *File) Commit() error {
	if err := f.Sync(); err != nil {
		return f.fail(err)
	}
	if err := f.Chmod(f.perm); err != nil {
		return f.fail(err)
	}
	if err := f.Close(); err != nil {
		return f.fail(err)
	}
	if err := os.Rename(f.Name(), f.Target); err != nil {
		return f.fail(err)
	}
	f.done = true
	return nil
}

// Abort removes the temporary file unless it replaced Target; call it
// deferred.
func (f *File) Abort() {
	if !f.done {
		f.Close()
		os.Remove(f.Name())
		f.done = true
	}
}

func (f *File) fail(err error) error {
	f.Abort()
	return fmt.Errorf("writing %s: %w", f.Target, err)
}

// WriteFile writes data to path as a whole: the old file, or the new one,
// never a part of either. check, when given, is called with the temporary
// file's path once it is written and closed, before the rename: an error
// from it leaves path as it was.
//
// A path that is not a regular file (/dev/stdout, a pipe) is written in
// place: a rename would replace the device, not write to it.
func WriteFile(path string, data []byte, perm os.FileMode, check ...func(tmp string) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		if err := os.WriteFile(path, data, perm); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return f.fail(err)
	}
	if err := f.Sync(); err != nil {
		return f.fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return f.fail(err)
	}
	if err := f.Close(); err != nil {
		return f.fail(err)
	}
	for _, c := range check {
		if err := c(f.Name()); err != nil {
			return err
		}
	}
	if err := os.Rename(f.Name(), f.Target); err != nil {
		return f.fail(err)
	}
	f.done = true
	return nil
}

// target is the file a write to path replaces: a symbolic link's target
// (renaming over the link would replace the link), which must be a
// regular file if it exists.
func target(path string) (string, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if path, err = filepath.EvalSymlinks(path); err != nil {
			return "", fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("writing %s: not a regular file", path)
	}
	return path, nil
}
