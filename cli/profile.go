package cli

import (
	"flag"
	"fmt"
	"io"
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

// start starts the CPU profile; the returned stop ends it and writes the
// memory profile, reporting failures on stderr.
func (p *profileFlags) start(stderr io.Writer) (stop func(), err error) {
	var cpu *os.File
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				fmt.Fprintf(stderr, "memsched: --cpuprofile: %v\n", err)
			}
		}
		if p.mem != "" {
			if err := writeAllocs(p.mem); err != nil {
				fmt.Fprintf(stderr, "memsched: --memprofile: %v\n", err)
			}
		}
	}, nil
}

// writeAllocs writes the allocation profile, as go test -memprofile does.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // up-to-date statistics of what is live
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
