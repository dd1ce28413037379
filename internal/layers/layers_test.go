// Package layers holds one test: the module's packages sit on the layers
// ARCHITECTURE.md draws, and each imports only packages on lower layers,
// so no arrow points back up.
package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/memsched/memsched/"

// layers, top to bottom, as ARCHITECTURE.md draws them. A new package
// goes on the line above the highest package it imports.
var layers = [][]string{
	{"cmd/memsched"},
	{"cli"},
	{"harness/fit"},
	{"harness/report"},
	{"harness/sweep", "schedulers/conformance"},
	{"harness/suite", "harness/trace", "harness/starpuexec"},
	{"harness/run"},
	{"harness/cudaexec", "harness/batch", "schedulers/intree"},
	{"harness/sim", "schedulers/baseline", "schedulers/batch", "schedulers/darts", "schedulers/dartsdag", "schedulers/external",
		"schedulers/givenorder", "schedulers/heteroprio", "schedulers/multreeprio", "schedulers/static"},
	{"schedulers", "schedulers/schedtest", "paper", "harness/simprof"},
	{"hardware", "schedulers/order"},
	{"workloads", "workloads/jobs", "schedulers/hypergraph", "internal/minheap"},
	{"harness/event", "harness/sim/linkshare", "harness/golden", "harness/slurm", "hardware/cuda", "workloads/jobs/rackham", "internal/*"},
}

func TestLayers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{} // package -> the module's packages its non-test files import
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "results") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module (examples/)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, module) {
				imports[pkg][strings.TrimPrefix(p, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	level := func(pkg string) int {
		for i, l := range layers {
			for _, p := range l {
				if p == pkg || strings.HasSuffix(p, "/*") && strings.HasPrefix(pkg, strings.TrimSuffix(p, "*")) {
					return len(layers) - 1 - i
				}
			}
		}
		return -1
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		lp := level(p)
		if lp < 0 {
			t.Errorf("%s is on no layer: add it to layers and to ARCHITECTURE.md's picture", p)
			continue
		}
		for q := range imports[p] {
			if lq := level(q); lq >= lp {
				t.Errorf("%s (layer %d from the bottom) imports %s (layer %d): an arrow that does not point down", p, lp, q, lq)
			}
		}
	}
}
