package schedulers

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Code identifies the code of a scheduler from outside this module, so that
// records say what ran and result keys change when that code does: an
// external program by path and content hash, a Go plugin by the module and
// version of the package that defines its constructor.
type Code struct {
	Path    string `json:"path,omitempty"`    // external program
	SHA256  string `json:"sha256,omitempty"`  // of the program file
	Module  string `json:"module,omitempty"`  // Go plugin: its module path
	Version string `json:"version,omitempty"` // and version, from the build info
	Sum     string `json:"sum,omitempty"`     // the module's go.sum hash, when it is a dependency
	// Binary hashes the running executable when the plugin's version does
	// not identify its code (a module built from a modified or untagged
	// checkout: "(devel)", "+dirty"), so a rebuilt binary never reuses
	// results.
	Binary string `json:"binary_sha256,omitempty"`
}

// Key is what enters a result key: everything but the path, which the
// scheduler's name already carries ("" for nil).
func (c *Code) Key() string {
	if c == nil {
		return ""
	}
	return strings.Join([]string{c.SHA256, c.Module, c.Version, c.Sum, c.Binary}, "|")
}

// pluginCode identifies the module defining newFn, or nil when it is this
// module (an in-tree scheduler) or when the binary has no build info.
func pluginCode(newFn any) *Code {
	bi, ok := debug.ReadBuildInfo()
	if !ok || newFn == nil {
		return nil
	}
	self := moduleOf(packageOf(funcName(pluginCode)), bi)
	m := moduleOf(packageOf(funcName(newFn)), bi)
	if m == nil || self != nil && m.Path == self.Path {
		return nil
	}
	c := &Code{Module: m.Path, Version: m.Version, Sum: m.Sum}
	if r := m.Replace; r != nil { // replaced by another module version, or a directory
		c.Version, c.Sum = r.Path+"@"+r.Version, r.Sum
	}
	if c.Sum == "" && (m.Replace != nil || m.Version == "" || m.Version == "(devel)" || strings.HasSuffix(m.Version, "+dirty")) {
		c.Binary = executableHash()
	}
	return c
}

func funcName(fn any) string {
	f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer())
	if f == nil {
		return ""
	}
	return f.Name()
}

// packageOf cuts a function's symbol name (example.com/a/b.init.func1,
// example.com/a/b.(*T).New) to its package path.
func packageOf(symbol string) string {
	slash := strings.LastIndex(symbol, "/")
	if i := strings.Index(symbol[slash+1:], "."); i >= 0 {
		return symbol[:slash+1+i]
	}
	return symbol
}

// moduleOf finds the module providing a package: the main module or the
// dependency with the longest path prefixing it.
func moduleOf(pkg string, bi *debug.BuildInfo) *debug.Module {
	var best *debug.Module
	consider := func(m *debug.Module) {
		if m.Path != "" && (pkg == m.Path || strings.HasPrefix(pkg, m.Path+"/")) && (best == nil || len(m.Path) > len(best.Path)) {
			best = m
		}
	}
	consider(&bi.Main)
	for _, d := range bi.Deps {
		consider(d)
	}
	return best
}

var executableHash = sync.OnceValue(func() string {
	path, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	sum, err := HashFile(path)
	if err != nil {
		return "unknown"
	}
	return sum
})

// HashFile is the hex SHA-256 of a file's content.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Abort ends a run from a scheduler call that cannot return an error (Push,
// Pull, Victim, Pop, Observe): the scheduler panics with it and run.Run
// returns Err as the run's error, where any other panic is reported as a
// crash. An external scheduler aborts this way on a protocol error.
type Abort struct{ Err error }

func (a Abort) Error() string { return a.Err.Error() }
