package cli

import (
	"fmt"
	"io"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/cudaexec"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/workloads"
)

func init() {
	register("calibrate", "measure the GPUs present (PCIe bandwidth, SGEMM speed, memory), or import a StarPU calibration (--from-starpu), and write a platform preset", cmdCalibrate)
}

// gpuOnlyFlags measure a GPU: they mean nothing with --from-starpu.
var gpuOnlyFlags = []string{"gpus", "reps", "max-copy-mb"}

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "[-o hardware/presets/NAME.toml] [flags]\n       memsched calibrate --from-starpu DIR --host NAME [-o FILE] [--memory-mb 500] [--name NAME] [--starpu-tasks tasks.rec]\n\n"+
		"Without --from-starpu it measures the CUDA GPUs of this machine. With --from-starpu it needs no GPU: it reads\n"+
		"StarPU's calibration of host NAME from DIR (StarPU's sampling directory, e.g. ~/.starpu/sampling:\n"+
		"bus/NAME.{config,bandwidth,latency,platform.xml} and codelets/45/SYMBOL.NAME) and writes the platform\n"+
		"StarPU's SimGrid mode simulates: links, NVLink pairs, GPU memory, kernel rates (gemm from the sgemm\n"+
		"example's 2D task, trsm/syrk/potrf from the cholesky example's models; with --starpu-tasks, one kernel per\n"+
		"codelet symbol of the task graph), each number citing its file.", stderr)
	out := fs.String("o", "", "write the preset to this file (default: stdout)")
	name := fs.String("name", "", "preset name (default: from the GPU model and count, e.g. h100-80gb-hbm3-x1; with --from-starpu, the host)")
	gpus := fs.Int("gpus", 0, "measure CUDA devices 0..K-1 (0 = all visible)")
	tile := fs.Int("tile", 960, "tile size of the measured task shapes (2D tile×tile×z, 3D tile³); with --from-starpu, of the shapes read from the models")
	z := fs.Int("z", 3840, "inner dimension of the 2D task shape")
	memMB := fs.Float64("memory-mb", 500, "memory_mib written to the preset (the papers' per-GPU cap)")
	reps := fs.Int("reps", 20, "timed SGEMMs per shape (the median is kept)")
	maxCopy := fs.Int("max-copy-mb", 256, "largest host-to-device copy (MiB); sizes are it, /4, /16, /64")
	fromStarPU := fs.String("from-starpu", "", "import StarPU's calibration from this sampling directory (bus/, codelets/45/) instead of measuring; needs --host")
	host := fs.String("host", "", "with --from-starpu: the StarPU host name the files are named after (STARPU_HOSTNAME), e.g. gemini-2-ipdps")
	tasks := fs.String("starpu-tasks", "", "with --from-starpu: also write a kernel per codelet of this tasks.rec (its model symbol), each footprint's model mean per CUDA device (memsched run --starpu-tasks FILE then runs it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	if *fromStarPU != "" || *host != "" {
		switch {
		case *fromStarPU == "":
			return fmt.Errorf("--host %s without --from-starpu: give the StarPU sampling directory with --from-starpu DIR", *host)
		case *host == "":
			return fmt.Errorf("--from-starpu needs --host NAME: the StarPU host name the files are named after (bus/NAME.bandwidth, codelets/45/SYMBOL.NAME)")
		}
	}
	if err := checkScopes(fs, flagScope{gpuOnlyFlags, *fromStarPU == "", "when measuring a GPU", "with --from-starpu"},
		flagScope{[]string{"starpu-tasks"}, *fromStarPU != "", "with --from-starpu", "when measuring a GPU"}); err != nil {
		return err
	}
	if *fromStarPU != "" {
		opt := hardware.StarPUOptions{Name: *name, MemoryMiB: *memMB, Tile: *tile, Z: *z}
		if *tasks != "" {
			st, err := workloads.ReadStarPUTasksFile(*tasks, workloads.StarPUTasksOptions{})
			if err != nil {
				return err
			}
			opt.Codelets = st.Codelets
		}
		c, err := hardware.ImportStarPU(*fromStarPU, *host, opt)
		if err != nil {
			return err
		}
		fmt.Fprint(stderr, c.Summary())
		return writePreset(c.TOML(), c.Opt.Name, *out, stdout, stderr)
	}
	if *maxCopy < 1 {
		return fmt.Errorf("--max-copy-mb %d: want at least 1", *maxCopy)
	}
	var sizes []int64
	for div := int64(64); div >= 1; div /= 4 {
		if s := int64(*maxCopy) << 20 / div; s >= 1<<16 {
			sizes = append(sizes, s)
		}
	}
	c, err := cudaexec.Calibrate(cudaexec.CalibrateOptions{GPUs: *gpus, Tile: *tile, Z: *z,
		CopySizes: sizes, Reps: *reps, Name: *name, MemoryMiB: *memMB})
	if err != nil {
		return err
	}
	fmt.Fprint(stderr, c.Summary())
	return writePreset(c.TOML(), c.Opt.Name, *out, stdout, stderr)
}

// writePreset checks that a preset loads and writes it to stdout, or to out
// through a temporary file renamed over it once it loads from there
// (atomicfile): an interrupted or refused write never leaves a truncated or
// invalid preset.
func writePreset(data []byte, name, out string, stdout, stderr io.Writer) error {
	// Never write a preset the loader would refuse.
	if _, err := hardware.Parse(name, data); err != nil {
		return fmt.Errorf("internal error: the preset does not load: %w\n%s", err, data)
	}
	if out == "" {
		_, err := stdout.Write(data)
		return err
	}
	if err := atomicfile.WriteFile(out, data, 0o644, func(tmp string) error {
		if _, err := hardware.Load(tmp); err != nil {
			return fmt.Errorf("the preset written for %s does not load: %w", out, err)
		}
		return nil
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: use it with --platform %s (or rebuild to embed it as preset %q)\n", out, out, name)
	return nil
}
