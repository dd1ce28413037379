// Package slurm runs a sweep as a Slurm job array: each array task runs
// one shard of the suite's runs (memsched sweep --shard i/n) into its own
// shard file, and the shards are merged into the results file afterwards
// (sweep.Merge). It writes the batch script, submits it with sbatch and
// waits for it with squeue; nothing here needs Slurm's accounting.
package slurm

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Array is the job array of one sweep.
type Array struct {
	Name    string   // job name
	Workdir string   // where the array tasks run
	Logs    string   // directory of the tasks' logs
	Command []string // an array task's command; ShardArg stands for its shard
	Count   int      // shards (the sweep's --shard i/Count)
	Indices []int    // the shards to run now
	CPUs    int      // per array task
	Options []string // more sbatch options, e.g. --partition=gpu --time=2:00:00
}

// ShardArg in Command is replaced by the array task's shard, i/Count.
const ShardArg = "{shard}"

// Script renders the batch script. Every word of the command is quoted for
// the shell; the values of the #SBATCH lines, which sbatch reads with its
// own parser, are written plain or in double quotes, and a value that
// cannot be written so (a control character, a quote, a backslash or '#')
// is an error rather than a line that would do something else.
func (a Array) Script() (string, error) {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n# Written by memsched sweep --slurm: one array task per shard of the sweep.\n")
	for _, l := range []struct{ key, v string }{{"job-name", a.Name}, {"chdir", a.Workdir}, {"output", filepath.Join(a.Logs, "%A_%a.out")}} {
		v, err := sbatchValue(l.key, l.v)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "#SBATCH --%s=%s\n", l.key, v)
		if l.key == "job-name" {
			fmt.Fprintf(&b, "#SBATCH --array=%s\n", Ranges(a.Indices))
			fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", max(a.CPUs, 1))
		}
	}
	for _, o := range a.Options {
		if strings.IndexFunc(o, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 || strings.ContainsAny(o, `"'\#`) {
			return "", fmt.Errorf("sbatch option %q: write options without quotes, backslashes, '#', spaces or control characters (one option per word: --partition=gpu --time=4:00:00)", o)
		}
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	b.WriteString("set -e\nexec")
	for _, arg := range a.Command {
		if arg == ShardArg {
			fmt.Fprintf(&b, " \"$SLURM_ARRAY_TASK_ID/%d\"", a.Count)
		} else {
			b.WriteString(" " + quote(arg))
		}
	}
	b.WriteString("\n")
	return b.String(), nil
}

// sbatchValue writes the value of an #SBATCH --key= line.
func sbatchValue(key, v string) (string, error) {
	if strings.IndexFunc(v, unicode.IsControl) >= 0 || strings.ContainsAny(v, `"'\#`) {
		return "", fmt.Errorf("#SBATCH --%s=%q: sbatch cannot be given a value with a control character, a quote, a backslash or '#' safely; rename it (a suite name, or a directory without them)", key, v)
	}
	if v != "" && strings.Trim(v, safe) == "" {
		return v, nil
	}
	return `"` + v + `"`, nil
}

// safe are the characters a shell word needs no quotes for.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%"

// quote makes a shell word of s.
func quote(s string) string {
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Ranges writes indices as sbatch --array does: 0-3,7,9-10.
func Ranges(indices []int) string {
	xs := append([]int(nil), indices...)
	sort.Ints(xs)
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Submit runs sbatch on a script and returns the job id.
func Submit(ctx context.Context, script string) (string, error) {
	out, err := exec.CommandContext(ctx, "sbatch", "--parsable", script).CombinedOutput()
	if err != nil {
		if errors := strings.TrimSpace(string(out)); errors != "" {
			return "", fmt.Errorf("sbatch %s: %v: %s", script, err, errors)
		}
		return "", fmt.Errorf("sbatch %s: %v (is Slurm installed and this a submission host?)", script, err)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";") // id;cluster on federations
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s printed %q, not a job id", script, out)
	}
	return id, nil
}

// Active reports whether a task of the job is still pending or running.
func Active(ctx context.Context, id string) (bool, error) {
	out, err := exec.CommandContext(ctx, "squeue", "-h", "-j", id, "-o", "%i").CombinedOutput()
	text := strings.TrimSpace(string(out))
	if err != nil {
		if strings.Contains(text, "Invalid job id") { // purged some time after it ended
			return false, nil
		}
		return false, fmt.Errorf("squeue -j %s: %v: %s", id, err, text)
	}
	return text != "", nil
}

// Wait polls squeue until no task of the job is pending or running.
func Wait(ctx context.Context, id string, every time.Duration) error {
	for {
		active, err := Active(ctx, id)
		if err != nil || !active {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}
