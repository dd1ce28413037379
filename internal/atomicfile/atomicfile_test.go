package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// only lists the directory: nothing but the named files (no temporary
// file left behind).
func only(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(names) {
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.md")
	if err := WriteFile(p, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "two" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	only(t, dir, "out.md")

	// A refused content (the check) leaves the old file and no temporary
	// one; the check sees the new content under the target's extension.
	bad := errors.New("does not load")
	err := WriteFile(p, []byte("three"), 0o644, func(tmp string) error {
		if filepath.Ext(tmp) != ".md" || read(t, tmp) != "three" {
			t.Errorf("the check sees %s: %q", tmp, read(t, tmp))
		}
		return bad
	})
	if !errors.Is(err, bad) || read(t, p) != "two" {
		t.Errorf("refused write: %v, content %q", err, read(t, p))
	}
	only(t, dir, "out.md")

	// A missing directory is an error naming the file.
	if err := WriteFile(filepath.Join(dir, "no", "x"), nil, 0o644); err == nil {
		t.Error("a file in a missing directory was written")
	}
}

// A symbolic link keeps pointing at its target, which is replaced; a
// device is written in place, not replaced.
func TestWriteFileThroughLinksAndDevices(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIP: symbolic links and /dev/null")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "README.md")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("README.md", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 || read(t, target) != "new" {
		t.Errorf("link replaced (%v) or target not written (%q)", fi.Mode(), read(t, target))
	}
	only(t, dir, "README.md", "link.md")
	if err := WriteFile(os.DevNull, []byte("x"), 0o644); err != nil {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s was replaced: %v %v", os.DevNull, fi.Mode(), err)
	}
}

// Create and Replace keep the file open for appending after the rename.
func TestReplaceKeepsTheFileOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.jsonl")
	os.WriteFile(p, []byte("old\n"), 0o644)
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	f.WriteString("a\n")
	if err := f.Replace(); err != nil {
		t.Fatal(err)
	}
	f.WriteString("b\n")
	f.Close()
	if got := read(t, p); got != "a\nb\n" {
		t.Errorf("content %q", got)
	}
	only(t, dir, "r.jsonl")
	g, _ := Create(p, 0o644)
	g.WriteString("never")
	g.Abort()
	if got := read(t, p); got != "a\nb\n" {
		t.Errorf("an aborted replacement changed the file: %q", got)
	}
	only(t, dir, "r.jsonl")
}
