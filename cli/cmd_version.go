package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
	"github.com/memsched/memsched/internal/buildinfo"
)

func init() {
	register("version", "print the memsched version, the commit it was built from, and the simulator model and record schema its results carry", cmdVersion)
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version takes no arguments, got %q", fs.Arg(0))
	}
	c := buildinfo.Current()
	commit := c.Commit
	if c.Dirty {
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(stdout, "memsched %s\ncommit %s\nsimulator model %d, record schema %d\n%s %s/%s\n",
		buildinfo.Version, commit, sim.ModelVersion, run.Schema, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
