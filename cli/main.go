// Package cli is the memsched command line: run schedulers on workloads, on
// the simulator or real GPUs, sweep suites and report against the papers.
// cmd/memsched is Main with memsched's schedulers; a researcher builds the
// same command with schedulers of their own, as Kubernetes'
// scheduler-plugins build kube-scheduler with theirs:
//
//	func main() {
//		os.Exit(cli.Main(os.Args, cli.WithScheduler(mysched.Spec)))
//	}
//
// Every memsched scheduler stays linked in, so theirs runs, sweeps and
// reports beside the papers' ones; records name its module and version
// (schedulers.Spec.Code).
package cli

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

// Option configures Main.
type Option func(*options)

type options struct {
	specs          []schedulers.Spec
	stdout, stderr io.Writer
}

// WithScheduler adds a scheduler to the command, beside memsched's own:
// `memsched schedulers` lists it, run, sweep and suites accept its name and
// parameters. Its Spec needs a Name no other scheduler has, a Version (from
// 1, bumped when its decisions change: it enters result keys) and New. A
// name is registered once per process: calling Main again keeps it.
func WithScheduler(spec schedulers.Spec) Option {
	return func(o *options) { o.specs = append(o.specs, spec) }
}

// WithOutput sends the command's output and errors elsewhere than
// os.Stdout and os.Stderr.
func WithOutput(stdout, stderr io.Writer) Option {
	return func(o *options) { o.stdout, o.stderr = stdout, stderr }
}

// Main runs the command line args (os.Args: the program name first) and
// returns the exit status: 0, 1 when the command fails, 2 for an unknown
// command or a scheduler that cannot be added.
func Main(args []string, opts ...Option) int {
	o := options{stdout: os.Stdout, stderr: os.Stderr}
	for _, opt := range opts {
		opt(&o)
	}
	if err := registerSchedulers(o.specs); err != nil {
		fmt.Fprintf(o.stderr, "memsched: %v\n", err)
		return 2
	}
	if len(args) > 0 {
		args = args[1:]
	}
	return mainArgs(args, o.stdout, o.stderr)
}

// added holds the schedulers Main registered, so that calling it again in
// the same process (a test) does not register them twice.
var added = map[string]bool{}

func registerSchedulers(specs []schedulers.Spec) error {
	for _, s := range specs {
		switch {
		case added[s.Name]:
			continue
		case s.Name == "" || strings.ContainsAny(s.Name, ": \t\n,="):
			return fmt.Errorf("scheduler name %q: give a name without spaces, ':', ',' or '='", s.Name)
		case s.Version < 1:
			return fmt.Errorf("scheduler %s has no Version: start at 1 and bump it when its decisions change (it enters every result key)", s.Name)
		case s.New == nil:
			return fmt.Errorf("scheduler %s has no constructor (Spec.New)", s.Name)
		}
		if _, err := schedulers.Lookup(s.Name); err == nil {
			return fmt.Errorf("scheduler %s is already registered (memsched has one of that name): rename yours", s.Name)
		}
		schedulers.Register(s)
		added[s.Name] = true
	}
	return nil
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
