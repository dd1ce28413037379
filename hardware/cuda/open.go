package cuda

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Environment variables that name the libraries by full path, skipping the
// soname probe (for CUDA outside the loader path, or for the test fake).
const (
	EnvCudart = "MEMSCHED_LIBCUDART"
	EnvCublas = "MEMSCHED_LIBCUBLAS"
)

// Sonames probed in order: the newest CUDA first, the unversioned
// development symlink last.
var (
	cudartNames = []string{"libcudart.so.13", "libcudart.so.12", "libcudart.so"}
	cublasNames = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so"}
)

// Runtime is a loaded libcudart + libcublas pair with at least one device.
//
// CUDA keeps the current device per OS thread, and Go moves goroutines
// between threads, so every call that acts on a device (allocation, copies,
// streams, events, cuBLAS) must come from a goroutine that called
// runtime.LockOSThread and then SetDevice. OnDevice and Worker do both.
// Version, count and Device queries are safe from any goroutine.
type Runtime struct {
	f                      funcs
	cudart, cublas         uintptr
	cudartPath, cublasPath string // resolved file paths, for provenance
	devices                int
}

// openError carries a full user-facing message and wraps a sentinel.
type openError struct {
	msg  string
	kind error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.kind }

// Open loads libcudart and libcublas (see EnvCudart, EnvCublas), binds the
// functions this package uses, and checks that at least one device is
// visible. Errors wrap ErrNoLibrary or ErrNoDevice.
func Open() (*Runtime, error) {
	return open(candidates(EnvCudart, cudartNames), candidates(EnvCublas, cublasNames))
}

func candidates(env string, names []string) []string {
	if p := os.Getenv(env); p != "" {
		return []string{p}
	}
	return names
}

func open(cudartCands, cublasCands []string) (*Runtime, error) {
	if !platformSupported {
		_, err := dlopen("")
		return nil, &openError{err.Error(), ErrNoLibrary}
	}
	r := &Runtime{}
	var err error
	if r.cudart, r.cudartPath, err = probe(cudartCands, "CUDA runtime", EnvCudart); err != nil {
		return nil, err
	}
	if r.cublas, r.cublasPath, err = probe(cublasCands, "cuBLAS", EnvCublas); err != nil {
		return nil, err
	}
	if err := r.bind(); err != nil {
		return nil, err
	}
	var n int32
	rc := r.f.getDeviceCount(&n)
	if rc != 0 || n < 1 {
		why := fmt.Sprintf("cudaGetDeviceCount reports %d devices", n)
		if rc != 0 {
			why = r.check("cudaGetDeviceCount", rc).Error()
		}
		if v := os.Getenv("CUDA_VISIBLE_DEVICES"); v != "" {
			why += fmt.Sprintf(" (CUDA_VISIBLE_DEVICES=%q)", v)
		}
		return nil, &openError{fmt.Sprintf("CUDA runtime %s loaded but found no usable GPU: %s", r.cudartPath, why), ErrNoDevice}
	}
	r.devices = int(n)
	return r, nil
}

// probe dlopens the first loadable candidate.
func probe(cands []string, what, env string) (h uintptr, path string, err error) {
	var why []string
	for _, name := range cands {
		h, err := dlopen(name)
		if err == nil {
			return h, resolvedPath(name), nil
		}
		// "No such file" is the expected miss; anything else (wrong
		// architecture, missing dependency) is worth showing.
		if msg := err.Error(); !strings.Contains(msg, "No such file") {
			why = append(why, msg)
		}
	}
	msg := fmt.Sprintf("no %s library found (tried: %s); install the %s or set %s",
		what, strings.Join(cands, ", "), what, env)
	if len(why) > 0 {
		msg += " [" + strings.Join(why, "; ") + "]"
	}
	return 0, "", &openError{msg, ErrNoLibrary}
}

func (r *Runtime) bind() error {
	for _, b := range r.f.table() {
		h, path := r.cudart, r.cudartPath
		if b.lib == libCublas {
			h, path = r.cublas, r.cublasPath
		}
		var sym uintptr
		for _, name := range b.names {
			if s, err := dlsym(h, name); err == nil && s != 0 {
				sym = s
				break
			}
		}
		if sym == 0 {
			if b.optional {
				continue
			}
			return &openError{fmt.Sprintf("%s does not export %s; it is not a supported CUDA library",
				path, strings.Join(b.names, " or ")), ErrNoLibrary}
		}
		register(b.fptr, sym)
	}
	return nil
}

// resolvedPath finds the file a soname resolved to, through the process's
// mappings, so provenance names e.g. libcudart.so.13.0.48 and its directory.
func resolvedPath(name string) string {
	if strings.ContainsRune(name, '/') {
		if p, err := filepath.EvalSymlinks(name); err == nil {
			return p
		}
		return name
	}
	prefix := name
	if i := strings.Index(prefix, ".so"); i >= 0 {
		prefix = prefix[:i+3]
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return name
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		p := fields[len(fields)-1]
		if strings.HasPrefix(filepath.Base(p), prefix) {
			return p
		}
	}
	return name
}

// Paths returns the resolved library paths.
func (r *Runtime) Paths() (cudart, cublas string) { return r.cudartPath, r.cublasPath }

// Info is what was found, for provenance and error messages.
type Info struct {
	CudartPath, CublasPath string
	RuntimeVersion         int    // CUDA encoding: 1000*major + 10*minor
	DriverVersion          int    // newest CUDA the driver supports, same encoding
	BlasVersion            string // e.g. "12.8.4"; empty if unknown
	KernelDriver           string // NVIDIA kernel module version; empty if unknown
	Devices                []DeviceInfo
}

// Info queries versions and every device. Device queries make each device
// current once, which creates its primary context.
func (r *Runtime) Info() (Info, error) {
	in := Info{CudartPath: r.cudartPath, CublasPath: r.cublasPath, KernelDriver: kernelDriver()}
	var err error
	if in.RuntimeVersion, err = r.RuntimeVersion(); err != nil {
		return in, err
	}
	if in.DriverVersion, err = r.DriverVersion(); err != nil {
		return in, err
	}
	in.BlasVersion = r.BlasVersion()
	for i := 0; i < r.devices; i++ {
		d, err := r.Device(i)
		if err != nil {
			return in, err
		}
		in.Devices = append(in.Devices, d)
	}
	return in, nil
}

// String is a one-line summary, e.g.
// "CUDA runtime 13.0 (/usr/local/cuda/lib64/libcudart.so.13.0.48), driver
// CUDA 13.0 / NVIDIA 580.65.06, cuBLAS 13.0.0 (...); 1 GPU: [0] NVIDIA H100
// 80GB HBM3, sm_90, 132 SMs, 79.2 GiB".
func (in Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CUDA runtime %s (%s), driver CUDA %s", VersionString(in.RuntimeVersion), in.CudartPath, VersionString(in.DriverVersion))
	if in.KernelDriver != "" {
		fmt.Fprintf(&b, " / NVIDIA %s", in.KernelDriver)
	}
	b.WriteString(", cuBLAS ")
	if in.BlasVersion != "" {
		b.WriteString(in.BlasVersion + " ")
	}
	fmt.Fprintf(&b, "(%s); %d GPU", in.CublasPath, len(in.Devices))
	if len(in.Devices) != 1 {
		b.WriteString("s")
	}
	for i, d := range in.Devices {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		b.WriteString(sep + d.String())
	}
	return b.String()
}

// Describe opens CUDA and summarises it in one line, or says why it is
// unavailable. For `memsched calibrate` and result provenance.
func Describe() string {
	r, err := Open()
	if err != nil {
		return "CUDA unavailable: " + err.Error()
	}
	in, err := r.Info()
	if err != nil {
		return in.String() + "; query failed: " + err.Error()
	}
	return in.String()
}

// VersionString renders a CUDA version number: 12080 -> "12.8".
func VersionString(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

var kernelVersionRE = regexp.MustCompile(`\b\d+\.\d+(\.\d+)?\b`)

// kernelDriver reads the NVIDIA kernel module version, which
// cudaDriverGetVersion does not report; no nvidia-smi needed.
func kernelDriver() string {
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return kernelVersionRE.FindString(line)
}
