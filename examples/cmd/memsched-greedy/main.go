// Command memsched-greedy is memsched with one more scheduler, greedy, from
// this module: every command, flag and scheduler of memsched, and
//
//	memsched-greedy run --scheduler greedy --n 20 --gpus 2
//	memsched-greedy sweep my-suite.toml   # a suite may name greedy beside darts
package main

import (
	"os"

	"github.com/memsched/memsched/cli"
	"github.com/memsched/memsched/examples/greedy"
)

func main() { os.Exit(cli.Main(os.Args, cli.WithScheduler(greedy.Spec))) }
