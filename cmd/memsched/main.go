// Command memsched runs memory-aware GPU schedulers on workloads, on the
// simulator or real GPUs, sweeps suites and reports against the papers.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/memsched/memsched/schedulers"
)

// command is one subcommand; files of this package register theirs in init.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	commands[name] = command{summary, run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "memsched: reproduce and compare memory-aware task schedulers for GPUs")
	fmt.Fprintln(w, "\nUsage: memsched <command> [flags]   (memsched <command> -h for its flags)\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
}

func main() {
	os.Exit(mainArgs(os.Args[1:], os.Stdout, os.Stderr))
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		fmt.Fprintf(stderr, "memsched: unknown command %q%s\n", args[0], schedulers.Suggest(args[0], names))
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		if err == errHelp {
			return 0
		}
		fmt.Fprintf(stderr, "memsched %s: %s\n", args[0], strings.TrimSpace(err.Error()))
		return 1
	}
	return 0
}
