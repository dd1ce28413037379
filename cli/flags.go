package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

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
	var name, value string
	if n, _ := fmt.Sscanf(fmt.Sprint(err), "invalid value %q for flag -%s", &value, &name); n == 2 {
		name = strings.TrimSuffix(name, ":")
		if f := fs.Lookup(name); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, ok := g.Get().(time.Duration); ok {
					return fmt.Errorf("--%s %s: not a duration; write e.g. 90s, 10m or 1h30m", name, value)
				}
			}
		}
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
	spec    workloads.Spec
	file    string
	opts    paramFlag
	scratch bool // --c-scratch (workloads.Spec.NoScratch is its negation)

	starpu     string // --starpu-tasks: a StarPU tasks.rec
	starpuOpt  workloads.StarPUTasksOptions
	barriers   bool
	starpuRead *workloads.StarPUTasks // what build read from it
}

// generated says whether the workload comes from a generator (not a file).
func (w *workloadFlags) generated() bool { return w.file == "" && w.starpu == "" }

func (w *workloadFlags) register(fs *flag.FlagSet, withFile bool) {
	fs.StringVar(&w.spec.Kind, "workload", "matmul2d", "workload kind: "+strings.Join(workloads.Kinds(), ", "))
	fs.StringVar(&w.spec.Kind, "kind", "matmul2d", "alias of --workload")
	fs.IntVar(&w.spec.N, "n", 10, "matrix size in tiles")
	fs.IntVar(&w.spec.Tile, "tile", workloads.DefaultTile, "tile size (elements)")
	fs.IntVar(&w.spec.Z, "z", workloads.DefaultZ, "inner dimension of the 2D product (elements)")
	fs.IntVar(&w.spec.NZ, "nz", 0, "3D depth in tiles (0 = n)")
	fs.StringVar(&w.spec.Order, "order", "", "submission order: submission or random")
	fs.Float64Var(&w.spec.Keep, "keep", 0, "sparse2d: probability of keeping a task, in (0, 1] (0 = 0.1)")
	fs.BoolVar(&w.spec.Deps, "deps", false, "the task graph: updated tiles in mode RW and their dependencies (3D accumulation, Cholesky, LU)")
	fs.BoolVar(&w.spec.WriteC, "write-c", false, "2D kinds: each task also writes a scratch C tile (mode W, discarded), as IPDPS 2022's random-order sgemm did")
	fs.BoolVar(&w.scratch, "c-scratch", true, "2D kinds without --write-c: every GPU holds the C tile StarPU's xgemm.c allocates there (Cscratch), out of its memory; --c-scratch=false leaves it out")
	w.opts = paramFlag{}
	fs.Var(w.opts, "opt", "option of an application workload (tree, fmm, qrmumps, spldlt, stencil) name=value, repeatable; memsched workload -h lists them")
	if withFile {
		fs.StringVar(&w.file, "workload-file", "", "read the task set from a JSON file instead of generating it")
	}
	fs.StringVar(&w.starpu, "starpu-tasks", "", "import the task graph of a StarPU run from its tasks.rec (starpu_fxt_tool); kernels are the codelets' model symbols (memsched calibrate --from-starpu DIR --host H --starpu-tasks FILE writes their platform)")
	fs.IntVar(&w.starpuOpt.Repetition, "repetition", 0, "with --starpu-tasks: import only the k-th repetition (independent part of the graph, by first submission); 0 = the whole file")
	fs.BoolVar(&w.barriers, "barriers", true, "with --starpu-tasks, the whole file: a repetition that started after the previous one ended in the recorded run waits for it; --barriers=false leaves them independent")
}

// starpuFlags apply to --starpu-tasks only.
var starpuFlags = []string{"repetition", "barriers"}

// generatorFlags describe a generated workload; a workload file fixes the
// task set, so they cannot come with --workload-file.
var generatorFlags = []string{"workload", "kind", "n", "tile", "z", "nz", "order", "keep", "deps", "write-c", "c-scratch", "opt"}

// kindFlags are the generator flags that only some kinds read, by their
// workloads field (workloads.Reads).
var kindFlags = map[string]string{"tile": workloads.FieldTile, "z": workloads.FieldZ, "nz": workloads.FieldNZ,
	"keep": workloads.FieldKeep, "deps": workloads.FieldDeps, "write-c": workloads.FieldWriteC, "c-scratch": workloads.FieldNoC, "opt": workloads.FieldOpts}

func (w *workloadFlags) build(fs *flag.FlagSet, seed uint64) (*workloads.Workload, error) {
	set := given(fs)
	if set["kind"] && set["workload"] {
		return nil, fmt.Errorf("--kind and --workload both given: --kind is an alias of --workload; give one")
	}
	if err := checkScopes(fs, flagScope{generatorFlags, w.file == "", "to a generated workload", "with --workload-file (a workload file fixes the task set)"},
		flagScope{generatorFlags, w.starpu == "", "to a generated workload", "with --starpu-tasks (the file fixes the task set)"},
		flagScope{starpuFlags, w.starpu != "", "with --starpu-tasks", "without it"},
		flagScope{[]string{"workload-file"}, w.starpu == "", "without --starpu-tasks", "with it: give one workload"}); err != nil {
		return nil, err
	}
	if w.file != "" {
		return workloads.ReadJSONFile(w.file)
	}
	if w.starpu != "" {
		w.starpuOpt.NoBarriers = !w.barriers
		st, err := workloads.ReadStarPUTasksFile(w.starpu, w.starpuOpt)
		if err != nil {
			return nil, err
		}
		w.starpuRead = st
		return st.Workload, nil
	}
	var fields []string
	flags := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		if field, ok := kindFlags[f.Name]; ok {
			fields = append(fields, field)
			flags[field] = "--" + f.Name
		}
	})
	if err := workloads.CheckGiven(w.spec.Kind, fields, func(f string) string { return flags[f] }); err != nil {
		return nil, err
	}
	w.spec.NoScratch = !w.scratch
	s := w.spec
	s.Seed = seed
	if len(w.opts) > 0 {
		s.Opts = w.opts.String()
	}
	w.spec.Opts = s.Opts
	return workloads.Generate(s)
}

// given is the set of flags the command line gave.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// A flagScope declares flags that apply only to some uses of a command:
// given where they do not apply, they would be ignored. Each command
// declares its scopes once and checkScopes refuses, in one place, the
// flags given out of theirs, naming them.
type flagScope struct {
	flags   []string // names, without dashes
	applies bool     // whether they apply to this command line
	where   string   // where they apply: "with --slurm"
	here    string   // what this command line has instead: "without --slurm"
}

// flagName spells a flag as README does: -o, -j, -q, --n, --slurm.
func flagName(name string) string {
	if name == "o" || name == "j" || name == "q" {
		return "-" + name
	}
	return "--" + name
}

func checkScopes(fs *flag.FlagSet, scopes ...flagScope) error {
	set := given(fs)
	for _, sc := range scopes {
		if sc.applies {
			continue
		}
		var out []string
		for _, f := range sc.flags {
			if set[f] {
				out = append(out, flagName(f))
			}
		}
		switch len(out) {
		case 0:
		case 1:
			return fmt.Errorf("%s applies only %s, not %s: remove it", out[0], sc.where, sc.here)
		default:
			return fmt.Errorf("%s apply only %s, not %s: remove them", strings.Join(out, ", "), sc.where, sc.here)
		}
	}
	return nil
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
	fs.IntVar(&p.gpus, "gpus", 0, "number of GPUs; omitted = the preset's (v100-gemini: 1)")
	fs.IntVar(&p.cpus, "cpus", 0, "number of CPU-core workers; omitted = the preset's (v100-gemini: 0)")
	fs.Float64Var(&p.memoryMB, "memory-mb", 0, "memory per GPU (RAM out of core) in MiB (the papers' MB); 0 = no limit (the whole memory), as in suites and claims; omitted = the preset's (v100-gemini: 500)")
	fs.Int64Var(&p.memoryBytes, "memory-bytes", 0, "memory per GPU (RAM out of core) in bytes, > 0 (toy instances)")
	fs.BoolVar(&p.nvlink, "nvlink", false, "GPU-to-GPU copies over NVLink: --nvlink or --nvlink=false (default: the preset's)")
	fs.Float64Var(&p.pcieGBps, "pcie-gbps", 0, "override the per-GPU PCIe link bandwidth in GB/s, > 0 (COLOC 2021 used 6)")
}

// build loads the preset and applies the flags the user gave (fs.Visit):
// a flag left out keeps the preset's value.
func (p *platformFlags) build(fs *flag.FlagSet) (*hardware.Platform, error) {
	pl, err := hardware.Load(p.preset)
	if err != nil {
		return nil, err
	}
	set := given(fs)
	if set["gpus"] {
		pl.GPUs = p.gpus
	}
	if set["cpus"] {
		pl.CPUs = p.cpus
	}
	switch {
	case set["memory-mb"] && set["memory-bytes"]:
		return nil, fmt.Errorf("--memory-mb and --memory-bytes both given; keep one")
	case set["memory-bytes"]:
		if err := pl.SetMemoryCapBytes(p.memoryBytes); err != nil {
			return nil, fmt.Errorf("--memory-bytes %d: %w", p.memoryBytes, err)
		}
	case set["memory-mb"]:
		if err := pl.SetMemoryCap(p.memoryMB); err != nil {
			return nil, fmt.Errorf("--memory-mb %g: %w", p.memoryMB, err)
		}
	}
	if set["nvlink"] {
		pl.Topology.NVLink = p.nvlink
	}
	if set["pcie-gbps"] {
		if !(p.pcieGBps > 0) || math.IsInf(p.pcieGBps, 1) {
			return nil, fmt.Errorf("--pcie-gbps %g: give a positive bandwidth in GB/s", p.pcieGBps)
		}
		pl.Topology.GPULinkGBps = p.pcieGBps
	}
	if set["gpus"] && (p.gpus < 0 || p.gpus > pl.MaxGPUs) {
		return nil, fmt.Errorf("--gpus %d: platform %s has 0 to %d GPUs", p.gpus, pl.Name, pl.MaxGPUs)
	}
	if set["cpus"] && (p.cpus < 0 || p.cpus > pl.MaxCPUs) {
		return nil, fmt.Errorf("--cpus %d: platform %s has 0 to %d CPU cores for workers", p.cpus, pl.Name, pl.MaxCPUs)
	}
	if pl.GPUs+pl.CPUs < 1 {
		return nil, fmt.Errorf("--gpus %d --cpus %d: no worker; ask for at least one GPU or CPU core", pl.GPUs, pl.CPUs)
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

// Set adds one key=value; a key given twice is refused (the flag package
// names the flag), not silently resolved to the last value.
func (p paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, e.g. eviction=luf")
	}
	if old, ok := p[k]; ok {
		return fmt.Errorf("%s is already given (%s=%s): give each key once", k, k, old)
	}
	p[k] = v
	return nil
}
