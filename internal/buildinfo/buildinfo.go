// Package buildinfo says which code is running: the release version (the
// one CITATION.cff cites) and the git commit with a dirty flag, so that
// every record and trace names the exact code that made it.
//
// The commit comes, in order, from the Makefile's stamp
//
//	go build -ldflags "-X github.com/memsched/memsched/internal/buildinfo.stamp=$(git describe --always --dirty --abbrev=40 --exclude='*')"
//
// from Go's own VCS stamp (absent under -buildvcs=false), from
// `git describe` run in the current directory when it lies in a checkout of
// this module (go run, go test), else it is "unknown".
package buildinfo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// Version is the release version. CITATION.cff's version must equal it (a
// test checks); bump both when cutting a release. It is provenance only:
// result keys cover the simulator model and scheduler versions instead.
const Version = "0.2.0"

// Unknown is the commit of a binary built outside a checkout without a stamp.
const Unknown = "unknown"

// stamp is set at link time: a commit, with "-dirty" when the tree had
// uncommitted changes.
var stamp string

// Code is the exact code of a build.
type Code struct {
	Commit string // full git commit, or Unknown
	Dirty  bool   // built from a tree with uncommitted changes
}

var (
	once    sync.Once
	current Code
)

// Current returns this binary's code (computed once).
func Current() Code {
	once.Do(func() { current = detect() })
	return current
}

func detect() Code {
	if stamp != "" {
		return parseDescribe(stamp)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != ModulePath {
			// A binary of another module (a plugin's, as examples/): its
			// VCS stamp is that module's commit, not memsched's.
			for _, d := range bi.Deps {
				if d.Path == ModulePath {
					if c, ok := dependencyCode(d); ok {
						return c
					}
				}
			}
		}
		var c Code
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				c.Commit = s.Value
			case "vcs.modified":
				c.Dirty = s.Value == "true"
			}
		}
		if c.Commit != "" {
			return c
		}
	}
	if c, ok := describeCheckout(); ok {
		return c
	}
	return Code{Commit: Unknown}
}

// ModulePath is memsched's module path.
const ModulePath = "github.com/memsched/memsched"

// dependencyCode names memsched's code in a binary that requires it: the
// commit of a pseudo-version (v0.0.0-20261201120000-abcdef123456), a tagged
// version as is, or, for a replace by a local directory (the go.mod line
// "replace github.com/memsched/memsched => ../memsched"), that checkout's
// commit when the directory is found from here.
func dependencyCode(d *debug.Module) (Code, bool) {
	if r := d.Replace; r != nil {
		if r.Version != "" && r.Version != "(devel)" {
			d = r
		} else if c, ok := describeDir(r.Path); ok {
			return c, true
		} else {
			// A relative directory is relative to the module that was
			// built, which the binary does not record: say what is known
			// (the Makefile's -X stamp, set by the plugin's build, wins).
			return Code{Commit: Unknown + " (memsched replaced by the directory " + r.Path + ")"}, true
		}
	}
	v := d.Version
	if i := strings.LastIndexByte(v, '-'); i >= 0 && strings.Count(v, "-") >= 2 && len(v)-i-1 == 12 {
		return Code{Commit: v[i+1:]}, true // a pseudo-version's 12-digit commit prefix
	}
	if v != "" && v != "(devel)" {
		return Code{Commit: v}, true
	}
	return Code{}, false
}

// describeDir runs git describe in dir when it is a checkout of memsched.
func describeDir(dir string) (Code, bool) {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module "+ModulePath+"\n")) {
		return Code{}, false
	}
	out, err := exec.Command("git", "-C", dir, "describe", "--always", "--dirty", "--abbrev=40", "--exclude=*").Output()
	if err != nil {
		return Code{}, false
	}
	return parseDescribe(strings.TrimSpace(string(out))), true
}

// describeCheckout asks git about the current directory, only when it lies
// in a checkout of this module (another repository's commit would be a lie).
func describeCheckout() (Code, bool) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return Code{}, false
	}
	mod, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(top)), "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module github.com/memsched/memsched\n")) {
		return Code{}, false
	}
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=40", "--exclude=*").Output()
	if err != nil {
		return Code{}, false
	}
	return parseDescribe(strings.TrimSpace(string(out))), true
}

// parseDescribe reads `git describe --always --dirty` output.
func parseDescribe(s string) Code {
	commit, dirty := strings.CutSuffix(strings.TrimSpace(s), "-dirty")
	if commit == "" {
		commit = Unknown
	}
	return Code{Commit: commit, Dirty: dirty}
}
