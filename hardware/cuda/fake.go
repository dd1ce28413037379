package cuda

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The fake's source is embedded so tests in other packages can build it
// without knowing where this package lives on disk.
//
//go:embed testdata/fakecuda.c
var fakeSource []byte

// BuildFake compiles the CPU fake of libcudart and libcublas (see the package
// comment) into dir with gcc and returns the two library paths, ready for
// EnvCudart and EnvCublas. It is for tests; it fails if gcc is missing,
// which callers should treat as a reason to skip. Load one fake per process:
// its cuBLAS finds its runtime by soname.
func BuildFake(dir string) (cudart, cublas string, err error) {
	return buildFake(dir, "", nil)
}

// buildFake builds libfakecudart<tag>.so and libfakecublas<tag>.so; the tag
// also namespaces the hooks between the two, so differently built fakes can
// share a process.
func buildFake(dir, tag string, defines []string) (cudart, cublas string, err error) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return "", "", fmt.Errorf("building the CUDA fake needs gcc: %w", err)
	}
	src := filepath.Join(dir, "fakecuda"+tag+".c")
	if err := os.WriteFile(src, fakeSource, 0o644); err != nil {
		return "", "", err
	}
	rtName := "libfakecudart" + tag + ".so"
	cudart = filepath.Join(dir, rtName)
	cublas = filepath.Join(dir, "libfakecublas"+tag+".so")
	ns := "main"
	if tag != "" {
		ns = tag
	}
	common := append([]string{"-shared", "-fPIC", "-O2", "-std=c11", "-Wall",
		"-fvisibility=hidden", "-Wl,-Bsymbolic", "-DFAKE_NS=" + ns}, defines...)
	cmds := [][]string{
		append(append([]string{}, common...), "-DFAKE_CUDART", "-Wl,-soname,"+rtName, "-o", cudart, src, "-lpthread", "-lm"),
		append(append([]string{}, common...), "-DFAKE_CUBLAS", "-o", cublas, src,
			"-L"+dir, "-l:"+rtName, "-Wl,-rpath,$ORIGIN", "-lpthread", "-lm"),
	}
	for _, args := range cmds {
		out, err := exec.Command(gcc, args...).CombinedOutput()
		if err != nil {
			return "", "", fmt.Errorf("gcc %v: %v\n%s", args, err, out)
		}
	}
	return cudart, cublas, nil
}

// ResetFake zeroes the fake's clocks and unloads its cuBLAS kernels
// (FAKE_CUDA_LOAD_US), so a test can time from a clean state;
// allocations, streams and events stay valid, events become unrecorded.
// It fails on a real libcudart.
func (r *Runtime) ResetFake() error {
	sym, err := dlsym(r.cudart, "fakecuda_reset")
	if err != nil || sym == 0 {
		return fmt.Errorf("%s is not the memsched CUDA fake", r.cudartPath)
	}
	var reset func()
	register(&reset, sym)
	reset()
	return nil
}
