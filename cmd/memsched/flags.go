package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/suggest"
	"github.com/memsched/memsched/workloads"
)

var errHelp = errors.New("help")

// newFlags makes a flag set whose errors come back to mainArgs.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors come back to mainArgs; -h prints the usage itself
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: memsched %s %s\n\nFlags:\n", name, usage)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses flags; an error comes back as one line (with the closest
// flag for a typo) and the usage is printed for -h only.
func parse(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {} // package flag calls it on every error
	err := fs.Parse(args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return errHelp
	}
	if name, ok := strings.CutPrefix(fmt.Sprint(err), "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return fmt.Errorf("unknown flag --%s%s (memsched %s -h lists the flags)", name, suggest.Closest(name, names), fs.Name())
	}
	return err
}

// workloadFlags are shared by run and workload.
type workloadFlags struct {
	spec workloads.Spec
	file string
	opts paramFlag
}

func (w *workloadFlags) register(fs *flag.FlagSet, withFile bool) {
	fs.StringVar(&w.spec.Kind, "workload", "matmul2d", "workload kind: "+strings.Join(workloads.Kinds(), ", "))
	fs.StringVar(&w.spec.Kind, "kind", "matmul2d", "alias of --workload")
	fs.IntVar(&w.spec.N, "n", 10, "matrix size in tiles")
	fs.IntVar(&w.spec.Tile, "tile", workloads.DefaultTile, "tile size (elements)")
	fs.IntVar(&w.spec.Z, "z", workloads.DefaultZ, "inner dimension of the 2D product (elements)")
	fs.IntVar(&w.spec.NZ, "nz", 0, "3D depth in tiles (0 = n)")
	fs.StringVar(&w.spec.Order, "order", "", "submission order: submission or random")
	fs.Float64Var(&w.spec.Keep, "keep", 0, "sparse2d: probability of keeping a task (0 = 0.1)")
	fs.BoolVar(&w.spec.Deps, "deps", false, "the task graph: updated tiles in mode RW and their dependencies (3D accumulation, Cholesky, LU)")
	fs.BoolVar(&w.spec.WriteC, "write-c", false, "2D kinds: each task also writes its C tile (mode W), as IPDPS 2022's random-order sgemm did")
	w.opts = paramFlag{}
	fs.Var(w.opts, "opt", "option of an application workload (tree, fmm, qrmumps, spldlt, stencil) name=value, repeatable; memsched workload -h lists them")
	if withFile {
		fs.StringVar(&w.file, "workload-file", "", "read the task set from a JSON file instead of generating it")
	}
}

func (w *workloadFlags) build(seed uint64) (*workloads.Workload, error) {
	if w.file != "" {
		return workloads.ReadJSONFile(w.file)
	}
	s := w.spec
	s.Seed = seed
	if len(w.opts) > 0 {
		s.Opts = w.opts.String()
	}
	w.spec.Opts = s.Opts
	return workloads.Generate(s)
}

// platformFlags select and size the platform.
type platformFlags struct {
	preset      string
	gpus        int
	cpus        int
	memoryMB    float64
	memoryBytes int64
	nvlink      bool
	pcieGBps    float64
}

func (p *platformFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.preset, "platform", "v100-gemini", "platform preset ("+strings.Join(hardware.Presets(), ", ")+") or a preset .toml file")
	fs.IntVar(&p.gpus, "gpus", -1, "number of GPUs (-1 = the preset's)")
	fs.IntVar(&p.cpus, "cpus", -1, "number of CPU-core workers (-1 = the preset's)")
	fs.Float64Var(&p.memoryMB, "memory-mb", 0, "memory per GPU (RAM out of core) in MiB (the papers' MB); 0 = the preset's")
	fs.Int64Var(&p.memoryBytes, "memory-bytes", 0, "memory per GPU (RAM out of core) in bytes (toy instances)")
	fs.BoolVar(&p.nvlink, "nvlink", false, "allow GPU-to-GPU copies over NVLink")
	fs.Float64Var(&p.pcieGBps, "pcie-gbps", 0, "override the per-GPU PCIe link bandwidth in GB/s (COLOC 2021 used 6)")
}

func (p *platformFlags) build() (*hardware.Platform, error) {
	pl, err := hardware.Load(p.preset)
	if err != nil {
		return nil, err
	}
	if p.gpus >= 0 {
		pl.GPUs = p.gpus
	}
	if p.cpus >= 0 {
		pl.CPUs = p.cpus
	}
	switch {
	case p.memoryBytes > 0:
		pl.SetMemoryBytes(p.memoryBytes)
	case p.memoryMB > 0:
		pl.SetMemoryMiB(p.memoryMB)
	}
	if p.nvlink {
		pl.Topology.NVLink = true
	}
	if p.pcieGBps > 0 {
		pl.Topology.GPULinkGBps = p.pcieGBps
	}
	return pl, pl.Check()
}

// paramFlag collects repeated --param key=value.
type paramFlag map[string]string

func (p paramFlag) String() string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k+"="+p[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (p paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("--param %q: want key=value, e.g. --param eviction=luf", s)
	}
	p[k] = v
	return nil
}
