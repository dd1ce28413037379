package cli

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profileFlags profile memsched itself (runtime/pprof), for go tool pprof.
type profileFlags struct{ cpu, mem string }

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of memsched to this file (go tool pprof FILE)")
	fs.StringVar(&p.mem, "memprofile", "", "write a memory allocation profile of memsched to this file at the end (go tool pprof FILE)")
}

// start starts the CPU profile and creates the memory profile's file (a
// path that cannot be written fails now, not after the work); the returned
// stop ends the CPU profile, writes the memory profile and returns the
// first failure of either, which the command returns: a lost profile is
// not a success.
func (p *profileFlags) start() (stop func() error, err error) {
	var cpu *errWriter
	var mem *os.File
	if p.mem != "" {
		if mem, err = os.Create(p.mem); err != nil {
			return nil, fmt.Errorf("--memprofile: %w", err)
		}
	}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			closeAndRemove(mem)
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		cpu = &errWriter{f: f}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			f.Close()
			closeAndRemove(mem)
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		var first error
		if cpu != nil {
			pprof.StopCPUProfile() // its writes' errors are kept by cpu
			if err := cpu.f.Close(); cpu.err == nil {
				cpu.err = err
			}
			if cpu.err != nil {
				first = fmt.Errorf("--cpuprofile %s: %w; the profile is incomplete", p.cpu, cpu.err)
			}
		}
		if mem != nil {
			if err := writeAllocs(mem); err != nil && first == nil {
				first = fmt.Errorf("--memprofile %s: %w; the profile is incomplete", p.mem, err)
			}
		}
		return first
	}, nil
}

// errWriter keeps the first write error: runtime/pprof ignores them.
type errWriter struct {
	f   *os.File
	err error
}

func (w *errWriter) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

func closeAndRemove(f *os.File) {
	if f != nil {
		f.Close()
		os.Remove(f.Name())
	}
}

// writeAllocs writes the allocation profile, as go test -memprofile does.
func writeAllocs(f *os.File) error {
	runtime.GC() // up-to-date statistics of what is live
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
