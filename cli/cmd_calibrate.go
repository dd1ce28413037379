package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/harness/cudaexec"
)

func init() {
	register("calibrate", "measure the GPUs present (PCIe bandwidth, SGEMM speed, memory) and write a platform preset", cmdCalibrate)
}

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "[-o hardware/presets/NAME.toml] [flags]", stderr)
	out := fs.String("o", "", "write the preset to this file (default: stdout)")
	name := fs.String("name", "", "preset name (default: from the GPU model and count, e.g. h100-80gb-hbm3-x1)")
	gpus := fs.Int("gpus", 0, "measure CUDA devices 0..K-1 (0 = all visible)")
	tile := fs.Int("tile", 960, "tile size of the measured task shapes (2D tile×tile×z, 3D tile³)")
	z := fs.Int("z", 3840, "inner dimension of the 2D task shape")
	memMB := fs.Float64("memory-mb", 500, "memory_mib written to the preset (the papers' per-GPU cap)")
	reps := fs.Int("reps", 20, "timed SGEMMs per shape (the median is kept)")
	maxCopy := fs.Int("max-copy-mb", 256, "largest host-to-device copy (MiB); sizes are it, /4, /16, /64")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
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
	data := c.TOML()
	// Never write a preset the loader would refuse.
	if _, err := hardware.Parse(c.Opt.Name, data); err != nil {
		return fmt.Errorf("internal error: the calibrated preset does not load: %w\n%s", err, data)
	}
	if *out == "" {
		_, err := stdout.Write(data)
		return err
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}
	if _, err := hardware.Load(*out); err != nil {
		return fmt.Errorf("wrote %s but it does not load: %w", *out, err)
	}
	fmt.Fprintf(stderr, "wrote %s: use it with --platform %s (or rebuild to embed it as preset %q)\n", *out, *out, c.Opt.Name)
	return nil
}
