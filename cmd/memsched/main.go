// Command memsched runs memory-aware GPU schedulers on workloads, on the
// simulator or real GPUs, sweeps suites and reports against the papers.
// The command line is package cli; a binary with schedulers of your own is
// the same three lines with cli.WithScheduler (see examples/).
package main

import (
	"os"

	"github.com/memsched/memsched/cli"
)

func main() { os.Exit(cli.Main(os.Args)) }
