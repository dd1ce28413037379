package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/memsched/memsched/internal/filelock"
)

// Bad input: every case must exit non-zero with one line on stderr that
// says what is wrong (the expected substring), and leave no file behind.
// The inputs go through the CLI as a user gives them: flags, suite and
// platform TOML, workload JSON, results files and traces.

// badSuite is a valid suite; cases edit it.
const badSuite = `[suite]
name = "bad-input"
[platform]
gpus = 1
memory_mb = 100
[workload]
kind = "matmul2d"
n = 4
[[scheduler]]
name = "eager"
label = "EAGER"
`

// badWorkload is a valid workload JSON; cases edit it.
const badWorkload = `{"name":"w","data":[{"id":0,"bytes":4},{"id":1,"bytes":4}],
"tasks":[{"id":0,"kernel":"gemm","flops":1,"inputs":[0,1],"deps":[]},{"id":1,"kernel":"gemm","flops":1,"inputs":[1],"deps":[0]}]}
`

type badCase struct {
	group string            // command or format
	files map[string]string // written into the case's directory
	args  []string          // $D is the case's directory
	want  string            // in the error line
}

// suiteWith edits the valid suite: each pair replaces old by new ("" old:
// append new).
func suiteWith(pairs ...string) string {
	s := badSuite
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i] == "" {
			s += pairs[i+1] + "\n"
			continue
		}
		if !strings.Contains(s, pairs[i]) {
			panic("suiteWith: no " + pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// platformWith edits the V100 preset: key = value for each pair; an empty
// value deletes the key's line; a key not present is added to the table
// named by its prefix (table.key).
func platformWith(t *testing.T, pairs ...string) string {
	b, err := os.ReadFile("../hardware/presets/v100-gemini.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The copy has no fitted file beside it: keep the preset's own values.
	s := regexp.MustCompile(`(?m)^fitted\s*=.*$`).ReplaceAllString(string(b), "")
	for i := 0; i < len(pairs); i += 2 {
		table, key, _ := strings.Cut(pairs[i], ".")
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*=.*$`)
		switch {
		case pairs[i+1] == "":
			s = re.ReplaceAllString(s, "")
		case re.MatchString(s):
			s = re.ReplaceAllString(s, key+" = "+pairs[i+1])
		default:
			s = strings.Replace(s, "["+table+"]\n", "["+table+"]\n"+key+" = "+pairs[i+1]+"\n", 1)
		}
	}
	return s
}

func workloadWith(pairs ...string) string {
	s := badWorkload
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			panic("workloadWith: no " + pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func badCases(t *testing.T, trace, results, batchTrace string) []badCase {
	var cs []badCase
	add := func(group, want string, files map[string]string, args ...string) {
		cs = append(cs, badCase{group, files, args, want})
	}
	run := func(want string, args ...string) { add("run", want, nil, append([]string{"run"}, args...)...) }
	workload := func(want string, args ...string) {
		add("workload", want, nil, append([]string{"workload"}, args...)...)
	}
	suiteCase := func(want, text string) {
		add("suite TOML", want, map[string]string{"s.toml": text}, "sweep", "$D/s.toml", "--dry-run", "-o", "$D/r.jsonl")
	}
	platform := func(want string, pairs ...string) {
		add("platform TOML", want, map[string]string{"p.toml": platformWith(t, pairs...)}, "run", "--platform", "$D/p.toml", "--n", "4")
	}
	wjson := func(want, text string, extra ...string) {
		add("workload JSON", want, map[string]string{"w.json": text}, append([]string{"run", "--workload-file", "$D/w.json"}, extra...)...)
	}
	traceLines := strings.Split(strings.TrimSpace(trace), "\n")
	header, events, result := traceLines[0], traceLines[1:len(traceLines)-1], traceLines[len(traceLines)-1]
	join := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	validate := func(want, text string) {
		add("validate", want, map[string]string{"t.jsonl": text}, "validate", "$D/t.jsonl")
	}
	report := func(want string, files map[string]string, args ...string) {
		add("report", want, files, append([]string{"report"}, args...)...)
	}
	sweep := func(want string, files map[string]string, args ...string) {
		if files == nil {
			files = map[string]string{}
		}
		files["s.toml"] = badSuite
		add("sweep", want, files, append([]string{"sweep"}, args...)...)
	}

	swfLine0 := "1 0 -1 100 4 -1 -1 4 200 -1 1 7 1 -1 1 -1 -1 -1\n" // a valid SWF job

	// fit: the declaration.
	fit := func(want string, files map[string]string, args ...string) {
		add("fit", want, files, append([]string{"fit"}, args...)...)
	}
	fit("give one fit declaration", nil)
	fit("no such file", nil, "--reference", "../paper/reference/gonthier-raw-results.csv", "$D/none.toml")
	fit(`[runtime] has no key "op_second"; did you mean "op_seconds"`, map[string]string{"f.toml": "preset = \"v100-gemini\"\noutput = \"o\"\nresults = \"r\"\ntrain = [\"ipdps22/2d_1gpu/paper\"]\nsuites = [\"s\"]\n[[param]]\ntable = \"runtime\"\nkey = \"op_second\"\nvalues = [1]\n"},
		"--reference", "../paper/reference/gonthier-raw-results.csv", "$D/f.toml")

	// run: flags.
	run("not a memory size", "--memory-mb", "-1")
	run("not a memory size", "--memory-mb", "NaN")
	run("not a memory size", "--memory-mb", "Inf")
	run("not a memory size", "--memory-mb", "-Inf")
	run("exceeds the 32768 MiB of a v100-gemini GPU", "--memory-mb", "40000")
	run("smaller than one task's inputs", "--memory-mb", "10")
	run("less than one byte", "--memory-mb", "1e-9")
	run(`invalid value "abc" for flag -memory-mb`, "--memory-mb", "abc")
	run("give a positive number of bytes", "--memory-bytes", "-5")
	run("give a positive number of bytes", "--memory-bytes", "0")
	run("exceeds the 32768 MiB", "--memory-bytes", "40000000000")
	run("smaller than one task's inputs", "--memory-bytes", "1000")
	run("invalid value", "--memory-bytes", "1.5")
	run("--memory-mb and --memory-bytes both given", "--memory-mb", "100", "--memory-bytes", "1000000")
	run("positive bandwidth", "--pcie-gbps", "-3")
	run("positive bandwidth", "--pcie-gbps", "0")
	run("positive bandwidth", "--pcie-gbps", "NaN")
	run("positive bandwidth", "--pcie-gbps", "Inf")
	run("no worker", "--gpus", "0")
	run("has 0 to 8 GPUs", "--gpus", "9")
	run("has 0 to 8 GPUs", "--gpus", "-1")
	run("has 0 to 0 CPU cores", "--cpus", "2")
	run("has 0 to 0 CPU cores", "--cpus", "-3")
	run(`did you mean "dmda"`, "--scheduler", "dmdr")
	run(`unknown scheduler ""`, "--scheduler", "")
	run(`did you mean "eviction"`, "--scheduler", "darts", "--param", "evicton=luf")
	run("must be one of luf, lru", "--scheduler", "darts", "--param", "eviction=lfu")
	run("alpha=NaN: want a finite number", "--scheduler", "dmdar", "--param", "alpha=NaN")
	run("alpha=Inf: want a finite number", "--scheduler", "dmdar", "--param", "alpha=Inf")
	run("beta=-Inf: want a finite number", "--scheduler", "dmda", "--param", "beta=-Inf")
	run("alpha=-1: want a number >= 0", "--scheduler", "dmdar", "--param", "alpha=-1")
	run(`alpha="x": want a number`, "--scheduler", "dmdar", "--param", "alpha=x")
	run("buffer=-2: want an integer >= -1", "--param", "buffer=-2")
	run(`buffer="1.5": want an integer`, "--param", "buffer=1.5")
	run("want key=value", "--param", "noequals")
	run("want key=value", "--param", "=5")
	run("window=-1: want an integer >= 0", "--scheduler", "dmdar", "--param", "window=-1")
	run("threshold=-1: want an integer >= 0", "--scheduler", "darts", "--param", "threshold=-1")
	run(`flip="maybe": want true or false`, "--scheduler", "hfp", "--param", "flip=maybe")
	run("runs=-1: want an integer >= 0", "--scheduler", "hmetis+r", "--param", "runs=-1")
	run("ubfactor=NaN: want a finite number", "--scheduler", "hmetis+r", "--param", "ubfactor=NaN")
	run(`did you mean "builtin"`, "--scheduler", "hmetis+r", "--param", "partitioner=bultin")
	run("timeout = 1e300; give a positive number of seconds, at most 1e+06", "--scheduler", "exec:/bin/sh", "--param", "timeout=1e300")
	run("timeout = -1; give a positive number of seconds", "--scheduler", "exec:/bin/sh", "--param", "timeout=-1")
	run(`did you mean "matmul2d"`, "--workload", "matmul2")
	run("Spec.N = 0 is out of range", "--n", "0")
	run("Spec.N = -3 is out of range", "--n", "-3")
	run("Spec.N = 2000000 is out of range", "--n", "2000000")
	run("Spec.Tile = -1 is out of range", "--tile", "-1")
	run("Spec.Z = -5 is out of range", "--z", "-5")
	run("Spec.NZ = -1 is out of range", "--workload", "matmul3d", "--nz", "-1")
	run("outside (0,1]", "--workload", "sparse2d", "--keep", "2")
	run("outside (0,1]", "--workload", "sparse2d", "--keep", "NaN")
	run("--keep applies only to workload kind sparse2d, not to matmul2d: remove it", "--keep", "0.5")
	run(`did you mean "random"`, "--order", "rnadom")
	run("above the limit", "--workload", "matmul3d", "--n", "300")
	run("invalid value", "--seed", "-1")
	run("invalid boolean value", "--charge-sched-time=maybe")
	run(`unknown executor "gpu"`, "--executor", "gpu")
	run(`did you mean "v100-gemini"`, "--platform", "v100-gemin")
	run(`unknown platform "v100"; presets: `, "--platform", "v100")
	run("no such file", "--platform", "$D/missing.toml")
	run(`unknown flag --schduler; did you mean "scheduler"`, "--schduler", "dmdar")
	run(`unexpected argument "extra"`, "extra")
	run("no such file or directory", "--trace", "$D/no/such/dir/t.jsonl")
	if runtime.GOOS == "linux" {
		run("no space left on device", "--trace", "/dev/full")
	}
	add("run", "--workload applies only to a generated workload, not with --workload-file", map[string]string{"w.json": badWorkload}, "run", "--workload-file", "$D/w.json", "--workload", "matmul2d")
	add("run", "--n applies only to a generated workload, not with --workload-file", map[string]string{"w.json": badWorkload}, "run", "--workload-file", "$D/w.json", "--n", "5")
	add("run", "--deps applies only to a generated workload, not with --workload-file", map[string]string{"w.json": badWorkload}, "run", "--workload-file", "$D/w.json", "--deps")
	add("run", "no such file", nil, "run", "--workload-file", "$D/missing.json")
	calibrate := func(want string, args ...string) {
		add("calibrate", want, nil, append([]string{"calibrate", "-o", "$D/p.toml"}, args...)...)
	}
	starpu := "../hardware/testdata/starpu" // synthetic StarPU files (host synth2)
	calibrate("--from-starpu needs --host NAME", "--from-starpu", starpu)
	calibrate("--host synth2 without --from-starpu", "--host", "synth2")
	calibrate("--gpus, --reps apply only when measuring a GPU, not with --from-starpu: remove them", "--from-starpu", starpu, "--host", "synth2", "--gpus", "1", "--reps", "3")
	calibrate("no bus/ directory", "--from-starpu", "$D", "--host", "synth2")
	calibrate("synth3.config: no such file", "--from-starpu", starpu, "--host", "synth3")
	calibrate(`host "../synth2"`, "--from-starpu", starpu, "--host", "../synth2")
	calibrate("memory -5 MiB", "--from-starpu", starpu, "--host", "synth2", "--memory-mb", "-5")
	calibrate("give the task shape with --tile and --z", "--from-starpu", starpu, "--host", "synth2", "--tile", "1000")

	// workload.
	workload("want summary or json", "--format", "xml")
	workload(`unknown kind "foo"`, "--kind", "foo")
	workload("Spec.N = 0 is out of range", "--n", "0")
	workload("Spec.N = -1 is out of range", "--n", "-1")
	workload("outside (0,1]", "--kind", "sparse2d", "--keep", "1.5")
	workload("outside (0,1]", "--kind", "sparse2d", "--keep", "-0.1")
	workload("--keep applies only to workload kind sparse2d, not to lu", "--kind", "lu", "--keep", "0.5")
	workload("Spec.Tile = -5 is out of range", "--tile", "-5")
	workload("Spec.Z = -1 is out of range", "--z", "-1")
	workload("Spec.NZ = -2 is out of range", "--kind", "matmul3d", "--nz", "-2")
	workload(`did you mean "random"`, "--order", "rand")
	workload("no such file or directory", "--format", "json", "-o", "$D/no/such/w.json")
	if runtime.GOOS == "linux" {
		workload("no space left on device", "--format", "json", "-o", "/dev/full")
	}
	workload(`unexpected argument "x"`, "x")
	workload("above the limit", "--kind", "matmul3d", "--n", "5000")
	workload("unknown flag --workload-file", "--workload-file", "w.json")
	workload("invalid value", "--seed", "abc")
	workload(`did you mean "format"`, "--fromat", "json")

	// sweep.
	sweep("want exactly one suite file, got 0", nil)
	sweep("want exactly one suite file, got 2", nil, "$D/s.toml", "$D/s.toml")
	sweep("no such file", nil, "$D/missing.toml")
	sweep("a suite is a .toml file", map[string]string{"r.jsonl": results}, "$D/r.jsonl")
	sweep("--quick -1", nil, "$D/s.toml", "--quick", "-1", "-o", "$D/r.jsonl")
	sweep("--timeout -5s", nil, "$D/s.toml", "--timeout", "-5s", "-o", "$D/r.jsonl")
	sweep("--timeout 5: not a duration", nil, "$D/s.toml", "--timeout", "5", "-o", "$D/r.jsonl")
	sweep("-j 0: want at least 1", nil, "$D/s.toml", "-j", "0", "-o", "$D/r.jsonl")
	sweep("-j -3: want at least 1", nil, "$D/s.toml", "-j", "-3", "-o", "$D/r.jsonl")
	sweep(`--only "NOPE": no such label`, nil, "$D/s.toml", "--only", "NOPE", "-o", "$D/r.jsonl")
	sweep("--retry-errors has nothing to add", nil, "$D/s.toml", "--fresh", "--retry-errors", "-o", "$D/r.jsonl")
	sweep("not a directory", map[string]string{"f": "x"}, "$D/s.toml", "-o", "$D/f/r.jsonl", "-q")
	sweep("being written by another memsched sweep", map[string]string{"locked.jsonl": ""}, "$D/s.toml", "-o", "$D/locked.jsonl", "-q")
	sweep("this is a trace", map[string]string{"t.jsonl": trace}, "$D/s.toml", "-o", "$D/t.jsonl", "-q")
	sweep("not a result record", map[string]string{"r.jsonl": results + "garbage\n"}, "$D/s.toml", "-o", "$D/r.jsonl", "-q")
	sweep(`did you mean "quick"`, nil, "$D/s.toml", "--quik", "2")

	// report.
	report("give at least one results file", nil)
	report("no such file", nil, "$D/missing.jsonl")
	report("this is a trace", map[string]string{"t.jsonl": trace}, "$D/t.jsonl")
	report("more than once", map[string]string{"r.jsonl": results + strings.SplitAfter(results, "\n")[0]}, "$D/r.jsonl")
	report("not a result record", map[string]string{"r.jsonl": "{not json}\n"}, "$D/r.jsonl")
	report("result record without a key", map[string]string{"r.jsonl": `{"scheduler":"eager"}` + "\n"}, "$D/r.jsonl")
	report("is a suite, not a results file", map[string]string{"s.toml": badSuite}, "$D/s.toml")
	report("use md, csv, runs, bench or html", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--format", "pdf")
	report("use ratio-of-means or mean-of-ratios", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--average", "median")
	report("--order-plot needs -o", map[string]string{"t.jsonl": trace}, "--order-plot", "$D/t.jsonl")
	report("no such file", nil, "--order-plot", "$D/missing.jsonl", "-o", "$D/o.png")
	report("this is a results file", map[string]string{"r.jsonl": results}, "--order-plot", "$D/r.jsonl", "-o", "$D/o.png")
	report("truncated", map[string]string{"t.jsonl": join(header, events[0])}, "--order-plot", "$D/t.jsonl", "-o", "$D/o.png")
	report("has no workload spec", map[string]string{"t.jsonl": join(regexp.MustCompile(`,"workload":\{[^}]*\}`).ReplaceAllString(header, ""), result)},
		"--order-plot", "$D/t.jsonl", "-o", "$D/o.png")
	report("no such file", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--suite", "$D/missing.toml")
	report("has no name", map[string]string{"r.jsonl": results, "s.toml": suiteWith(`name = "bad-input"`, "")}, "$D/r.jsonl", "--suite", "$D/s.toml")
	report("no *.toml claims files", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--claims", "$D/nodir")
	report(`did you mean "format"`, nil, "--formt", "md")

	// A failure that loses output is not a success.
	add("merge", "nope.jsonl does not exist; nothing was merged", map[string]string{"r.jsonl": results}, "merge", "$D/r.jsonl", "$D/nope.jsonl")
	run("--memprofile: open /", "--n", "2", "--memprofile", "$D/nope/x")
	run("--cpuprofile: open /", "--n", "2", "--cpuprofile", "$D/nope/x")
	if runtime.GOOS == "linux" {
		run("--cpuprofile /dev/full: write /dev/full: no space left on device; the profile is incomplete", "--n", "2", "--cpuprofile", "/dev/full")
		run("--memprofile /dev/full: write /dev/full: no space left on device", "--n", "2", "--memprofile", "/dev/full")
		report("--memprofile /dev/full: write /dev/full: no space left on device", map[string]string{"r.jsonl": results, "s.toml": badSuite}, "$D/r.jsonl", "--suite", "$D/s.toml", "--memprofile", "/dev/full")
	}
	report(`the claims of suite bad-input (/`, map[string]string{"r.jsonl": results, "c.toml": "not [toml", "s.toml": suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\nclaims = \"$D/c.toml\"")},
		"$D/r.jsonl", "--suite", "$D/s.toml")

	// validate.
	// trace export.
	export := func(want string, files map[string]string, args ...string) {
		add("trace export", want, files, append([]string{"trace", "export"}, args...)...)
	}
	add("trace export", "one subcommand: export", nil, "trace", "exprt")
	export("give one trace file", nil)
	export("give --format", map[string]string{"t.jsonl": trace}, "$D/t.jsonl")
	export(`did you mean "paje"`, map[string]string{"t.jsonl": trace}, "--format", "pajé", "$D/t.jsonl")
	export("needs the extension .png", map[string]string{"t.jsonl": trace}, "--format", "png", "-o", "$D/x.svg", "$D/t.jsonl")
	export("writes a picture: give -o", map[string]string{"t.jsonl": trace}, "--format", "pdf", "$D/t.jsonl")
	export("truncated", map[string]string{"t.jsonl": join(header, events[0])}, "-o", "$D/x.paje", "$D/t.jsonl")
	export("this is a results file", map[string]string{"r.jsonl": results}, "-o", "$D/x.json", "$D/r.jsonl")
	// compare.
	compare := func(want string, files map[string]string, args ...string) {
		add("compare", want, files, append([]string{"compare"}, args...)...)
	}
	compare("give --labels OLD,NEW", map[string]string{"r.jsonl": results}, "$D/r.jsonl")
	compare(`did you mean "gflops"`, map[string]string{"r.jsonl": results}, "$D/r.jsonl", "$D/r.jsonl", "--metric", "glops")
	compare("give two labels", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--labels", "DMDAR")
	compare(`no records of label "NOPE"`, map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--labels", "NOPE,X")
	compare("confidence 95", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "$D/r.jsonl", "--confidence", "95")
	compare("not a result record", map[string]string{"r.jsonl": "{not json}\n"}, "$D/r.jsonl", "$D/r.jsonl")
	// StarPU's knobs.
	run("STARPU_NTASKS_THRESHOLD is StarPU's environment; in memsched: the scheduler parameter buffer", "--scheduler", "dmdar", "--param", "STARPU_NTASKS_THRESHOLD=4", "--n", "4")
	suiteCase("STARPU_SCHED_READY is StarPU's environment", strings.Replace(badSuite, "[[scheduler]]\nname = \"eager\"", "[[scheduler]]\nname = \"eager\"\nSTARPU_SCHED_READY = 1", 1))

	validate("empty file", "")
	validate("line 1 is empty", "\n"+trace)
	validate("this is a results file", results)
	validate("the trace has no header", join(events...))
	validate("truncated", join(header, events[0], events[1]))
	validate("malformed or truncated event", join(header, `{"t":0,"ev":"task_start"`, result))
	validate(`unknown event kind "load"`, join(header, `{"t":0,"ev":"load","worker":0}`, result))
	validate(`an object without "ev"`, join(header, `{"t":0}`, result))
	validate("newer than this memsched's", join(strings.Replace(header, `"schema":2`, `"schema":99`, 1), result))
	validate("trace header has no platform", join(regexp.MustCompile(`"platform":\{.*?"runtime":\{[^}]*\}\},`).ReplaceAllString(header, ""), result))
	validate("gpus_per_switch = 0", join(strings.Replace(header, `"gpus_per_switch":2`, `"gpus_per_switch":0`, 1), result))
	validate("a bandwidth must be a positive number", join(strings.Replace(header, `"gpu_link_gbps":12`, `"gpu_link_gbps":-1`, 1), result))
	validate("names no workload", join(regexp.MustCompile(`,"workload":\{[^}]*\}`).ReplaceAllString(header, ""), result))
	validate("no such file", join(regexp.MustCompile(`"workload":\{[^}]*\}`).ReplaceAllString(header, `"workload_file":"/no/such/w.json"`), result))
	validate("Spec.N = 0 is out of range", join(regexp.MustCompile(`"N":\d+`).ReplaceAllString(header, `"N":0`), result))
	validate("violation", join(append(append([]string{header}, events[:len(events)-2]...), result)...))
	validate("a second trace header", join(header, header, result))
	validate("after the result line", join(append(append([]string{header}, events...), result, events[0])...))
	validate("not a memsched trace", "hello\n")
	validate("not a memsched trace header", `{"foo":1}`+"\n")
	add("validate", "give one trace file", nil, "validate")
	add("validate", "give one trace file", nil, "validate", "a", "b")
	add("validate", "no such file", nil, "validate", "$D/missing.jsonl")

	// Suite TOML (through sweep --dry-run).
	suiteCase("fix the TOML syntax", suiteWith("n = 4", "n = "))
	suiteCase("has no name", suiteWith(`name = "bad-input"`, ""))
	suiteCase(`unknown key "titel" in [suite]; did you mean "title"`, suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\ntitel = \"x\""))
	suiteCase("repetitions = 0", suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\nrepetitions = 0"))
	suiteCase("seed = -1", suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\nseed = -1"))
	suiteCase(`timeout = "abc" is not a duration`, suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\ntimeout = \"abc\""))
	suiteCase(`timeout = "-5s" is not a duration`, suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\ntimeout = \"-5s\""))
	suiteCase("timeout = -5: use a non-negative", suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\ntimeout = -5"))
	suiteCase(`executor = "gpu"`, suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\nexecutor = \"gpu\""))
	suiteCase("claims file nope.toml not found", suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\nclaims = \"nope.toml\""))
	suiteCase(`did you mean "v100-gemini"`, suiteWith("gpus = 1", "preset = \"v100-gemin\"\ngpus = 1"))
	suiteCase("gpus = 0 with cpus = 0: no worker", suiteWith("gpus = 1", "gpus = 0"))
	suiteCase("gpus = 9; platform v100-gemini has 0 to 8 GPUs", suiteWith("gpus = 1", "gpus = 9"))
	suiteCase("memory_mb = -1: -1 is not a memory size", suiteWith("memory_mb = 100", "memory_mb = -1"))
	suiteCase("memory_mb must be a finite number", suiteWith("memory_mb = 100", "memory_mb = nan"))
	suiteCase("memory_mb must be a finite number", suiteWith("memory_mb = 100", "memory_mb = inf"))
	suiteCase("exceeds the 32768 MiB", suiteWith("memory_mb = 100", "memory_mb = 40000"))
	suiteCase("smaller than the inputs of one task", suiteWith("memory_mb = 100", "memory_mb = 10"))
	suiteCase("memory_bytes = 0: 0 bytes: give a positive number", suiteWith("memory_mb = 100", "memory_bytes = 0"))
	suiteCase("both memory_mb and memory_bytes are set", suiteWith("memory_mb = 100", "memory_mb = 100\nmemory_bytes = 1000"))
	suiteCase("gpu_link_gbps = 0; a bandwidth must be positive", suiteWith("memory_mb = 100", "memory_mb = 100\ngpu_link_gbps = 0"))
	suiteCase("gpu_link_gbps = NaN: give a finite number", suiteWith("memory_mb = 100", "memory_mb = 100\ngpu_link_gbps = nan"))
	suiteCase("runtime buffer = 0", suiteWith("memory_mb = 100", "memory_mb = 100\nbuffer = 0"))
	suiteCase("runtime pipeline = -1", suiteWith("memory_mb = 100", "memory_mb = 100\npipeline = -1"))
	suiteCase(`did you mean "gpu_link_gbps"`, suiteWith("memory_mb = 100", "memory_mb = 100\ngpu_lnk_gbps = 6"))
	suiteCase("kernel gemm needs gflops > 0", suiteWith("memory_mb = 100", "memory_mb = 100\n[platform.kernel.gemm]\ngflops = 0"))
	suiteCase("need step > 0", suiteWith("gpus = 1", "gpus = {from = 1, to = 4, step = 0}"))
	suiteCase("need step > 0 and to >= from", suiteWith("gpus = 1", "gpus = {from = 4, to = 1, step = 1}"))
	suiteCase(`range: unknown key "stpe"`, suiteWith("gpus = 1", "gpus = {from = 1, to = 4, stpe = 1}"))
	suiteCase("gpus is an empty list", suiteWith("gpus = 1", "gpus = []"))
	suiteCase("gpus lists 1 twice", suiteWith("gpus = 1", "gpus = [1, 1]"))
	suiteCase("gpus must be an integer", suiteWith("gpus = 1", `gpus = "two"`))
	suiteCase("[workload] has no kind", suiteWith(`kind = "matmul2d"`, ""))
	suiteCase(`unknown workload kind "matmul"; did you mean`, suiteWith(`kind = "matmul2d"`, `kind = "matmul"`))
	suiteCase("[workload] has no n", suiteWith("n = 4", ""))
	suiteCase("n = 0; N is a matrix size in tiles", suiteWith("n = 4", "n = 0"))
	suiteCase("n: every value must be an integer", suiteWith("n = 4", "n = [2.5]"))
	suiteCase("keep = 1.5; it is the probability", suiteWith(`kind = "matmul2d"`, `kind = "sparse2d"`, "n = 4", "n = 4\nkeep = 1.5"))
	suiteCase(`order = "rand"; use "submission" or "random"`, suiteWith("n = 4", "n = 4\norder = \"rand\""))
	add("suite TOML", "kind is set with file", map[string]string{"w.json": badWorkload, "s.toml": suiteWith("n = 4", `file = "$D/w.json"`)},
		"sweep", "$D/s.toml", "--dry-run", "-o", "$D/r.jsonl")
	suiteCase("workload file nope.json", suiteWith(`kind = "matmul2d"`+"\nn = 4", `file = "nope.json"`))
	suiteCase("seed = -2; use a non-negative integer", suiteWith("n = 4", "n = 4\nseed = -2"))
	suiteCase("Spec.Tile = -1 is out of range", suiteWith("n = 4", "n = 4\ntile = -1"))
	suiteCase("no [[scheduler]] block", suiteWith("[[scheduler]]\nname = \"eager\"\nlabel = \"EAGER\"\n", ""))
	suiteCase("has no name; add name", suiteWith(`name = "eager"`, ""))
	suiteCase(`did you mean "dmda"`, suiteWith(`name = "eager"`, `name = "dmdr"`))
	suiteCase(`did you mean "eviction"`, suiteWith(`name = "eager"`, `name = "darts"`+"\nevicton = \"luf\""))
	suiteCase(`alpha="x": want a number`, suiteWith(`name = "eager"`, `name = "dmdar"`+"\nalpha = \"x\""))
	suiteCase("alpha=NaN: want a finite number", suiteWith(`name = "eager"`, `name = "dmdar"`+"\nalpha = nan"))
	suiteCase("buffer=-2: want an integer >= -1", suiteWith(`name = "eager"`, `name = "eager"`+"\nbuffer = -2"))
	suiteCase("use a single string, number or boolean", suiteWith(`name = "eager"`, `name = "dmdar"`+"\nalpha = [1, 2]"))
	suiteCase(`label "EAGER" is already used`, suiteWith("", "[[scheduler]]\nname = \"dmdar\"\nlabel = \"EAGER\""))
	suiteCase("they would be the same runs", suiteWith("", "[[scheduler]]\nname = \"eager\"\nlabel = \"EAGER2\""))
	suiteCase("without '|' or newlines", suiteWith(`label = "EAGER"`, `label = "A|B"`))
	suiteCase(`baseline "NOPE" is not a scheduler label`, suiteWith("", "[report]\nbaseline = \"NOPE\""))
	suiteCase(`unknown metric "gflop"; did you mean "gflops"`, suiteWith("", "[report]\nmetric = \"gflop\""))
	suiteCase(`x = "n"; use "working_set"`, suiteWith("", "[report]\nx = \"n\""))
	suiteCase(`unknown line "cieling"; did you mean "ceiling"`, suiteWith("", "[report]\nlines = [\"cieling\"]"))
	suiteCase(`unknown key "reprot" at the top level; did you mean "report"`, suiteWith("", "[reprot]\nbaseline = \"EAGER\""))
	suiteCase("missing [platform] table", suiteWith("[platform]\ngpus = 1\nmemory_mb = 100\n", ""))
	suiteCase("the suite expands to 2.99e+09 runs, more than 10000000", suiteWith("n = 4", "n = {from = 1, to = 99999, step = 1}", "memory_mb = 100", "memory_mb = {from = 100, to = 30000, step = 1}"))
	// Names and labels go into records, reports, directory names and Slurm
	// scripts: no control characters, no name that leaves a directory.
	suiteCase(`name = "bad\ninput" holds a control character`, suiteWith(`name = "bad-input"`, `name = "bad\ninput"`))
	suiteCase(`name = "bad\x00input" holds a control character`, suiteWith(`name = "bad-input"`, `name = "bad\u0000input"`))
	suiteCase("s.toml:2: name = \"..\": a suite name becomes a directory name", suiteWith(`name = "bad-input"`, `name = ".."`))
	suiteCase("a suite name becomes a directory name", suiteWith(`name = "bad-input"`, `name = "."`))
	suiteCase("a suite name becomes a directory name", suiteWith(`name = "bad-input"`, `name = "../../x"`))
	suiteCase("a suite name becomes a directory name", suiteWith(`name = "bad-input"`, `name = "/tmp/x"`))
	suiteCase("a suite name becomes a directory name", suiteWith(`name = "bad-input"`, `name = "a\\b"`))
	suiteCase(`title = "a\rb" holds a control character`, suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\ntitle = \"a\\rb\""))
	suiteCase(`label "A\tB": use a non-empty display name without '|' or newlines (or other control characters)`, suiteWith(`label = "EAGER"`, `label = "A\tB"`))
	suiteCase(`label "A\u2028B"`, suiteWith(`label = "EAGER"`, `label = "A\u2028B"`))
	suiteCase("label \"A\\nB\"", "[suite]\nname = \"b\"\n[batch]\nweeks = [\"2022-09-05\"]\n[[scheduler]]\nname = \"fcfs\"\nlabel = \"A\\nB\"\n")
	suiteCase("exec:/no/such/prog: stat /no/such/prog: no such file", suiteWith(`name = "eager"`, `name = "exec:/no/such/prog"`))
	suiteCase("parameter timeout=1e+300: want a number <= 1e6", suiteWith(`name = "eager"`, `name = "exec:/bin/sh"`+"\ntimeout = 1e300"))
	suiteCase("parameter timeout=-1: want a number >= 0", suiteWith(`name = "eager"`, `name = "exec:/bin/sh"`+"\ntimeout = -1"))
	suiteCase("sha256 = \"abc\", but /bin/sh has SHA-256", suiteWith(`name = "eager"`, `name = "exec:/bin/sh"`+"\nsha256 = \"abc\""))
	suiteCase(`has no parameter "sha256"`, suiteWith(`name = "eager"`, `name = "eager"`+"\nsha256 = \"abc\""))
	report(`--figures: the records of suite ".." cannot have figures: name = ".."`, map[string]string{"r.jsonl": strings.ReplaceAll(results, `"suite":"bad-input"`, `"suite":".."`)},
		"$D/r.jsonl", "--figures", "$D/figs/inner")
	sweep(`sbatch option "--comment=\"x": write options without quotes`, nil, "$D/s.toml", "--slurm", "--dry-run", "-o", "$D/r.jsonl", "--sbatch", "--comment=\"x")
	suiteCase("charge_sched_time must be true or false", suiteWith(`name = "bad-input"`, `name = "bad-input"`+"\ncharge_sched_time = \"yes\""))

	// A record is read as written or refused, naming its file and line: a
	// missing metric is not 0, a newer schema is not guessed at, and a
	// record whose content disagrees with its key is not filed under it.
	edit := func(re, repl string) map[string]string {
		return map[string]string{"r.jsonl": regexp.MustCompile(re).ReplaceAllString(results, repl), "s.toml": badSuite}
	}
	report(`r.jsonl:1: record of a successful run without "gflops": a reader would take it as 0`, edit(`"gflops":[^,]*,`, ""), "$D/r.jsonl")
	report(`r.jsonl:1: record of a successful run without "loads"`, edit(`"loads":[^,]*,`, ""), "$D/r.jsonl")
	report(`r.jsonl:1: record of a successful run without "makespan_s"`, edit(`"makespan_s":[^,]*,`, ""), "$D/r.jsonl")
	report("r.jsonl:1: gflops = -5: want a finite number >= 0", edit(`"gflops":[^,]*,`, `"gflops":-5,`), "$D/r.jsonl")
	report("r.jsonl:1: makespan_s = 0 for a successful run", edit(`"makespan_s":[^,]*,`, `"makespan_s":0,`), "$D/r.jsonl")
	report("r.jsonl:1: makespan_s = -1 for a successful run", edit(`"makespan_s":[^,]*,`, `"makespan_s":-1,`), "$D/r.jsonl")
	report("r.jsonl:1: loads = -3: a count is >= 0", edit(`"loads":[^,]*,`, `"loads":-3,`), "$D/r.jsonl")
	report("r.jsonl:1: tasks_per_worker adds up to 15, but tasks = 16", edit(`"tasks_per_worker":\[16\]`, `"tasks_per_worker":[15]`), "$D/r.jsonl")
	report("r.jsonl:1: schema 3 is newer than this memsched's (2)", edit(`"schema":2`, `"schema":3`), "$D/r.jsonl")
	report("r.jsonl:1: key ", edit(`"scheduler_version":\d+`, `"scheduler_version":99`), "$D/r.jsonl")
	report("under schema 2, model_version 99 and scheduler_version", edit(`"model_version":\d+`, `"model_version":99`), "$D/r.jsonl")
	report(`r.jsonl:1: record of key `+"", edit(`"scheduler":"eager"`, `"scheduler":"dmda"`), "$D/r.jsonl", "--suite", "$D/s.toml")
	report(`disagrees with that run of suite bad-input (`, edit(`"scheduler":"eager"`, `"scheduler":"dmda"`), "$D/r.jsonl", "--suites", "$D")
	report(`it names scheduler "dmda", not "eager"`, edit(`"scheduler":"eager"`, `"scheduler":"dmda"`), "$D/r.jsonl", "--suite", "$D/s.toml")
	report(`it names rep 1, not 0`, edit(`"rep":0`, `"rep":1`), "$D/r.jsonl", "--suite", "$D/s.toml")
	add("sweep", `r.jsonl:1: record of a successful run without "gflops"`, edit(`"gflops":[^,]*,`, ""), "sweep", "$D/s.toml", "-o", "$D/r.jsonl", "-q")

	// validate checks every total of the result, the fields of every
	// event, and that the result is the header's run.
	resultWith := func(old, new string) string {
		re := regexp.MustCompile(old)
		if !re.MatchString(result) {
			panic("resultWith: no " + old)
		}
		return join(append(append([]string{header}, events...), re.ReplaceAllString(result, new))...)
	}
	eventWith := func(i int, old, new string) string {
		evs := slices.Clone(events)
		if !strings.Contains(evs[i], old) {
			panic("eventWith: no " + old)
		}
		evs[i] = strings.Replace(evs[i], old, new, 1)
		return join(append(append([]string{header}, evs...), result)...)
	}
	validate("result says gflops = 1, the trace's tasks give", resultWith(`"gflops":[^,]*`, `"gflops":1`))
	validate("result says prefetches = 99, the trace gives", resultWith(`"prefetches":\d+`, `"prefetches":99`))
	validate("result says fetches = 99, the trace gives", resultWith(`"fetches":\d+`, `"fetches":99`))
	validate("result says pop_missing = 999; the trace has", resultWith(`"pop_missing":\d+`, `"pop_missing":999`))
	validate("result says tasks_per_worker[0] = 99, the trace gives", resultWith(`"tasks_per_worker":\[\d+\]`, `"tasks_per_worker":[99]`))
	validate("result says tasks_per_worker = [1 2], for 2 workers; the platform has 1", resultWith(`"tasks_per_worker":\[\d+\]`, `"tasks_per_worker":[1,2]`))
	// B_0 (data 2) loads first: xgemm's handle order.
	validate("event 1 (t=0 load_start): data 2 has 14745600 bytes, not 1", eventWith(0, `"bytes":14745600`, `"bytes":1`))
	// The first load's kind, whichever the runtime rules give it.
	firstKind := `"kind":"fetch"`
	if strings.Contains(events[0], `"kind":"prefetch"`) {
		firstKind = `"kind":"prefetch"`
	}
	otherKind := map[string]string{`"kind":"fetch"`: `"kind":"prefetch"`, `"kind":"prefetch"`: `"kind":"fetch"`}[firstKind]
	validate(`event 1 (t=0 load_start): kind "banana"; a load is a fetch or a prefetch`, eventWith(0, firstKind, `"kind":"banana"`))
	validate("result says prefetches = ", eventWith(0, firstKind, otherKind))
	validate(`load_end): kind "fetch" on a load_end event`, eventWith(1, `"kind":""`, `"kind":"fetch"`))
	validate("the header says scheduler = dmda, the result eager", join(append(append([]string{strings.Replace(header, `"scheduler":"eager"`, `"scheduler":"dmda"`, 1)}, events...), result)...))
	validate("the header says seed = 7, the result 1", join(append(append([]string{strings.Replace(header, `"seed":1}`, `"seed":7}`, 1)}, events...), result)...))
	batchWith := func(old, new string) string { // the trace of two SWF jobs (TestBadInputs)
		out := strings.Replace(batchTrace, old, new, 1)
		if out == batchTrace {
			panic("batchWith: no " + old)
		}
		return out
	}
	validate("job 1 starts with 2 cores; it was submitted with 4", batchWith(`"cores":4,"core_ids":[0,1,2,3]`, `"cores":2,"core_ids":[0,1,2,3]`))
	validate("job 1 asks for 4 cores and starts on 2 core ids", batchWith(`"core_ids":[0,1,2,3]`, `"core_ids":[0,1]`))
	validate("job 1 starts with file 9; it was submitted with file 1", batchWith(`"ev":"start","job":1,"node":0,"cores":4,"core_ids":[0,1,2,3],"file":1`, `"ev":"start","job":1,"node":0,"cores":4,"core_ids":[0,1,2,3],"file":9`))
	validate("job 1 loads file 1 of 1 GB, not its submitted file", batchWith(`"size_gb":25.6,"until"`, `"size_gb":1,"until"`))

	// Nothing given is ignored: a flag or key where it does not apply (one
	// declaration per command, flagScope; one per field for workload and
	// batch kinds, workloads.Reads and batch.Workload.CheckGiven), and two
	// inputs that contradict each other, are errors naming them.
	run("--nz applies only to workload kind matmul3d, not to matmul2d: remove it", "--nz", "3")
	run("--deps applies only to workload kind matmul3d, cholesky or lu, not to matmul2d", "--deps")
	run("--deps applies only to workload kind matmul3d, cholesky or lu, not to matmul2d", "--deps=false")
	run("--z applies only to workload kind matmul2d, sparse2d or randompairs, not to cholesky", "--workload", "cholesky", "--z", "100")
	run("--tile applies only to workload kind matmul2d, matmul3d, cholesky, lu, sparse2d, randompairs or qrmumps, not to tree", "--workload", "tree", "--tile", "480")
	run("--opt applies only to workload kind tree, fmm, qrmumps, spldlt or stencil, not to lu", "--workload", "lu", "--opt", "dim=2")
	run("--kind and --workload both given: --kind is an alias of --workload; give one", "--kind", "lu", "--workload", "cholesky")
	run(`invalid value "eviction=lru" for flag -param: eviction is already given (eviction=luf): give each key once`, "--scheduler", "darts", "--param", "eviction=luf", "--param", "eviction=lru")
	run(`invalid value "dim=3" for flag -opt: dim is already given (dim=2)`, "--workload", "tree", "--opt", "dim=2", "--opt", "dim=3")
	add("run", "--write-c applies only to a generated workload, not with --workload-file", map[string]string{"w.json": badWorkload}, "run", "--workload-file", "$D/w.json", "--write-c")
	add("run", "--opt applies only to a generated workload", map[string]string{"w.json": badWorkload}, "run", "--workload-file", "$D/w.json", "--opt", "dim=2")
	workload("--nz applies only to workload kind matmul3d, not to lu", "--kind", "lu", "--nz", "2")
	workload("--kind and --workload both given", "--kind", "lu", "--workload", "lu")
	add("optimum", "--memory-data and --memory-bytes both given; keep one", nil, "optimum", "--n", "2", "--memory-data", "2", "--memory-bytes", "100")
	add("optimum", `unexpected argument "x"`, nil, "optimum", "--n", "2", "--memory-data", "2", "x")
	suiteCase("s.toml:9: nz applies only to workload kind matmul3d, not to matmul2d: remove it", suiteWith("n = 4", "n = 4\nnz = 3"))
	suiteCase("s.toml:9: keep applies only to workload kind sparse2d, not to matmul2d", suiteWith("n = 4", "n = 4\nkeep = 0.5"))
	suiteCase("s.toml:9: deps applies only to workload kind matmul3d, cholesky or lu, not to matmul2d", suiteWith("n = 4", "n = 4\ndeps = true"))
	suiteCase("s.toml:9: deps applies only to workload kind matmul3d, cholesky or lu", suiteWith("n = 4", "n = 4\ndeps = false"))
	suiteCase("z applies only to workload kind matmul2d, sparse2d or randompairs, not to lu", suiteWith(`kind = "matmul2d"`, `kind = "lu"`, "n = 4", "n = 4\nz = 960"))
	suiteCase(`label "E AGER" differs only by spaces from "EAGER" of [[scheduler]] #1 (line 9)`, suiteWith("", "[[scheduler]]\nname = \"dmdar\"\nlabel = \"E AGER\""))
	suiteCase(`label "EAGER " starts or ends with a space`, suiteWith(`label = "EAGER"`, `label = "EAGER "`))
	batchSuite := func(want, batchTable string) {
		add("suite TOML", want, map[string]string{"a.swf": swfLine0, "s.toml": "[suite]\nname = \"b\"\n[batch]\n" + batchTable + "\n[[scheduler]]\nname = \"fcfs\"\n"},
			"sweep", "$D/s.toml", "--dry-run", "-o", "$D/r.jsonl")
	}
	batchSuite("s.toml:5: lead_in applies only to a Rackham week, not to an SWF file: remove it", "swf = \"$D/a.swf\"\nlead_in = \"day\"")
	batchSuite("s.toml:5: load applies only to a synthetic trace, not to a Rackham week", "weeks = [\"2022-09-05\"]\nload = 0.5")
	batchSuite("s.toml:5: walltime_factor 0: 0 would silently become the default (30)", "weeks = [\"2022-09-05\"]\nwalltime_factor = 0")
	batchSuite("s.toml:5: session_window applies only with sessions = window, not with sessions = release", "weeks = [\"2022-09-05\"]\nsession_window = 600")
	batchSuite(`s.toml:11: label "F CFS" differs only by spaces from "FCFS"`, "weeks = [\"2022-09-05\"]\n[[scheduler]]\nname = \"fcfs\"\nlabel = \"FCFS\"\nbackfill = true\n[[scheduler]]\nname = \"eft\"\nlabel = \"F CFS\"")
	batchCase := func(want string, args ...string) {
		add("batch", want, map[string]string{"a.swf": swfLine0}, append([]string{"batch"}, args...)...)
	}
	batchCase("--lead-in applies only to a Rackham week, not to an SWF file: remove it", "--swf", "$D/a.swf", "--lead-in", "day")
	batchCase("--walltime applies only to a Rackham week, not to an SWF file", "--swf", "$D/a.swf", "--walltime", "exact")
	batchCase("--share applies only to an SWF file, not to a Rackham week", "--week", "2022-09-05", "--share", "user")
	batchCase("--walltime-max applies only to a Rackham week, not to a synthetic trace", "--synthetic", "10", "--walltime-max", "5")
	batchCase("--seed applies only to a synthetic trace, not to a Rackham week", "--week", "2022-09-05", "--seed", "3")
	batchCase("--walltime-factor 0: 0 would silently become the default (30); give a positive value, or leave it out", "--week", "2022-09-05", "--walltime-factor", "0")
	batchCase("--walltime-factor 0: 0 would silently become the default (1)", "--swf", "$D/a.swf", "--walltime-factor", "0")
	batchCase("--window 0: 0 would silently become the default (800)", "--swf", "$D/a.swf", "--window", "0")
	batchCase("--session-window applies only with sessions = window, not with sessions = release", "--week", "2022-09-05", "--session-window", "60")
	batchCase("--trace-plans applies only with --trace, not without --trace: remove it", "--week", "2022-09-05", "--trace-plans")
	batchCase("--backfill and --param backfill=false both given: --backfill is --param backfill=true; give one", "--week", "2022-09-05", "--backfill", "--param", "backfill=false")
	batchCase(`invalid value "w=2" for flag -param: w is already given (w=1)`, "--week", "2022-09-05", "--scheduler", "lea", "--param", "w=1", "--param", "w=2")
	batchCase("--phase applies only with the release loop (--rules release or --rule loop=release), not with loop = event", "--week", "2022-09-05", "--phase", "3")
	batchCase("--week applies only to memsched batch, not to batch fit", "fit", "--week", "2022-02-07")
	batchCase("--walltime-factor applies only to memsched batch, not to batch fit", "fit", "--walltime-factor", "3")
	sweep("--wait applies only with --slurm, not without --slurm: remove it", nil, "$D/s.toml", "--wait", "-o", "$D/r.jsonl")
	sweep("--shards, --sbatch apply only with --slurm, not without --slurm: remove them", nil, "$D/s.toml", "--sbatch", "--time=1:00:00", "--shards", "4", "-o", "$D/r.jsonl")
	report("--headline applies only with --reproduction, not without it", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--headline", "$D/README.md")
	report("--fit applies only with --reproduction", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--fit", "$D/f.toml")
	report("--workload-file applies only with --order-plot", map[string]string{"r.jsonl": results}, "$D/r.jsonl", "--workload-file", "$D/w.json")
	report("--format applies only to tables and reports, not with --order-plot", map[string]string{"t.jsonl": trace}, "--order-plot", "$D/t.jsonl", "-o", "$D/o.png", "--format", "csv")
	report(`unexpected argument "`, map[string]string{"t.jsonl": trace, "r.jsonl": results}, "--order-plot", "$D/t.jsonl", "-o", "$D/o.png", "$D/r.jsonl")
	report("--suite, -o apply only to a report on stdout or -o, not with --reproduction", map[string]string{"r.jsonl": results, "s.toml": badSuite}, "$D/r.jsonl", "--reproduction", "$D/R.md", "--suite", "$D/s.toml", "-o", "$D/x.md")

	// Numbers read from files are bounded: times, counts and sizes that
	// would overflow, wrap or exhaust memory are errors naming the line.
	swfLine := func(submit, run, procs, req string) string {
		return fmt.Sprintf("1 %s -1 %s %s -1 -1 %s %s -1 1 7 1 -1 1 -1 -1 -1\n", submit, run, procs, procs, req)
	}
	swf := func(want, text string, extra ...string) {
		add("batch SWF", want, map[string]string{"a.swf": text}, append([]string{"batch", "--swf", "$D/a.swf"}, extra...)...)
	}
	swf("a.swf:1: field 9 (requested time) is 9e18; SWF numbers must be within ±2^40", swfLine("0", "100", "4", "9e18"))
	swf("a.swf:1: field 4 (run time) is 1e30", swfLine("0", "1e30", "4", "200"))
	swf("a.swf:1: field 2 (submit time) is -1e30", swfLine("-1e30", "100", "4", "200"))
	swf("a.swf:1: field 5 (allocated processors) is 1e300", swfLine("0", "100", "1e300", "200"))
	swf("a.swf:1: job 1 asks for 1000000000000 processors, 50000000000 nodes of 20 cores", swfLine("0", "100", "1e12", "200"))
	swf("a.swf:1: job 1 has no requested time, and walltime_factor 1e+300", swfLine("0", "100", "4", "-1"), "--walltime-factor", "1e300")
	swf("more than the 2^43 s", strings.Repeat(swfLine("0", "100", "4", "1e12"), 5))
	swf("bandwidth 1e-09 GB/s: job 1's 25.6 GB file would load in 2.56e+10 s, more than the 2147483647 s", swfLine("0", "100", "4", "200"), "--bandwidth", "1e-9")
	swf("a finite memory and bandwidth above 0", swfLine("0", "100", "4", "200"), "--memory-gb", "1e300")
	validate("the header's cluster \"x\": 1000000000 nodes of 20 cores", `{"ev":"batch","schema":2,"cluster":{"name":"x","nodes":1000000000,"cores_per_node":20,"memory_gb":128,"bandwidth_gbs":0.1}}`+"\n")
	validate("the header's cluster \"x\": 1000 nodes of 100000000 cores", `{"ev":"batch","schema":2,"cluster":{"name":"x","nodes":1000,"cores_per_node":100000000,"memory_gb":128,"bandwidth_gbs":0.1}}`+"\n")
	validate("memsched simulates at most 1024 GPUs and 65536 CPU cores", join(strings.Replace(header, `"gpus":1,`, `"gpus":1000000000,`, 1), result))
	validate("memsched simulates at most 1024 GPUs and 65536 CPU cores", join(strings.Replace(header, `"gpus":1,`, `"cpus":100000000,"gpus":1,`, 1), result))
	platform("max_gpus = 1000000000, max_cpus = 0; memsched simulates at most 1024 GPUs", "platform.max_gpus", "1000000000")
	platform("max_cpus = 1000000000; memsched simulates at most", "platform.max_cpus", "1000000000", "platform.cpus", "1000000000")
	add("platform TOML", "memsched simulates at most 1024 GPUs", map[string]string{"p.toml": platformWith(t, "platform.max_gpus", "1000000000")},
		"run", "--platform", "$D/p.toml", "--gpus", "1000000", "--n", "4")

	// Platform TOML (through run --platform FILE).
	platform("line 21: expected a top-level item to end with a newline, comment, or EOF, but got '1' instead; fix the TOML syntax", "topology.gpu_link_gbps", "12.0 12.0")
	for _, k := range []string{"topology.gpu_link_gbps", "topology.switch_link_gbps", "topology.numa_link_gbps", "topology.inter_numa_gbps",
		"topology.gpus_per_switch", "topology.gpus_per_numa", "platform.name", "platform.max_gpus", "platform.memory_mib", "runtime.buffer", "runtime.pipeline"} {
		platform(k+" is missing", k, "")
	}
	platform("max_gpus = 0", "platform.max_gpus", "0")
	platform("memory per GPU is 0 MiB", "platform.memory_mib", "0")
	platform("memory per GPU is -5 MiB", "platform.memory_mib", "-5")
	platform("memory per GPU is NaN MiB", "platform.memory_mib", "nan")
	platform("memory per GPU is 1e+300 MiB; give at most 2^42 MiB", "platform.memory_mib", "1e300", "platform.physical_memory_mib", "")
	platform("exceeds the GPU's physical 32768 MiB", "platform.memory_mib", "40000")
	platform("physical_memory_mib = -1", "platform.physical_memory_mib", "-1")
	platform("gpu_link_gbps = -1; a bandwidth must be a positive number", "topology.gpu_link_gbps", "-1")
	platform("gpu_link_gbps = NaN", "topology.gpu_link_gbps", "nan")
	platform("gpu_link_gbps = +Inf", "topology.gpu_link_gbps", "inf")
	platform("switch_link_gbps = 0", "topology.switch_link_gbps", "0")
	platform("gpus_per_switch = 0", "topology.gpus_per_switch", "0")
	platform("need 1 <= gpus_per_switch <= gpus_per_numa", "topology.gpus_per_numa", "1")
	platform("nvlink is on but nvlink_gbps = 0", "topology.nvlink", "true", "topology.nvlink_gbps", "")
	platform("nvlink_gbps = -1", "topology.nvlink_gbps", "-1")
	platform("runtime buffer = 0", "runtime.buffer", "0")
	platform("runtime pipeline = 0", "runtime.pipeline", "0")
	platform("runtime reclaim_factor = -1", "runtime.reclaim_factor", "-1")
	platform(`alloc_sync is "sometimes"`, "runtime.alloc_sync", `"sometimes"`)
	kernel := func(want, gflops string) {
		add("platform TOML", want, map[string]string{"p.toml": strings.Replace(platformWith(t), "[kernel.gemm]\ngflops = 13253.0", "[kernel.gemm]\n"+gflops, 1)},
			"run", "--platform", "$D/p.toml", "--n", "4")
	}
	kernel("kernel gemm has gflops = 0, seconds = 0", "")
	kernel("kernel gemm has gflops = NaN", "gflops = nan")
	kernel("kernel gemm has gflops = -1", "gflops = -1")
	kernel("kernel gemm has gflops = 0, seconds = -2", "seconds = -2")
	kernel(`unknown key "kernel.gemm.gflop"; did you mean "gflops"`, "gflop = 3")
	platform(`unknown key "topology.gpu_lnk_gbps"; did you mean "gpu_link_gbps"`, "topology.gpu_lnk_gbps", "12")
	platform(`unknown key "runtime.bufer"; did you mean "buffer"`, "runtime.bufer", "12")
	platform(`unknown key "platform.max_gpu"; did you mean "max_gpus"`, "platform.max_gpu", "8")
	platform("incompatible types", "topology.gpu_link_gbps", `"12"`)
	add("platform TOML", "no [kernel.NAME] table", map[string]string{"p.toml": regexp.MustCompile(`(?ms)^\[kernel\.[a-z]+\]\ngflops = [^\n]*\n`).ReplaceAllString(platformWith(t), "")},
		"run", "--platform", "$D/p.toml")
	add("platform TOML", `no performance model for kernel "potrf"`, map[string]string{"p.toml": strings.Replace(platformWith(t), "[kernel.potrf]", "[kernel.potrff]", 1)},
		"run", "--platform", "$D/p.toml", "--workload", "cholesky", "--n", "3")
	add("platform TOML", "does not declare (physical_memory_mib)", map[string]string{"p.toml": platformWith(t, "platform.physical_memory_mib", "")},
		"run", "--platform", "$D/p.toml", "--memory-mb", "0")
	add("platform TOML", `unknown key "topolgy"; did you mean "topology"`, map[string]string{"p.toml": strings.Replace(platformWith(t), "[topology]", "[topolgy]", 1)},
		"run", "--platform", "$D/p.toml")

	// Workload JSON (through run --workload-file).
	wjson("input is empty", "")
	wjson(`expected "{" at the top level`, "[]")
	wjson("truncated", badWorkload[:60])
	wjson(`unknown top-level field "taks"; did you mean "tasks"`, strings.Replace(badWorkload, `"tasks"`, `"taks"`, 1))
	wjson(`missing top-level field "tasks"`, `{"name":"w","data":[]}`)
	wjson(`missing top-level field "data"`, `{"name":"w","tasks":[]}`)
	wjson("data[1] has id 5; ids must be dense", workloadWith(`{"id":1,"bytes":4}`, `{"id":5,"bytes":4}`))
	wjson("data 1 has 0 bytes; sizes must be positive", workloadWith(`{"id":1,"bytes":4}`, `{"id":1,"bytes":0}`))
	wjson("data 1 has -4 bytes", workloadWith(`{"id":1,"bytes":4}`, `{"id":1,"bytes":-4}`))
	wjson("tasks[1] has id 7", workloadWith(`{"id":1,"kernel"`, `{"id":7,"kernel"`))
	wjson("task 0 has flops -1", workloadWith(`"flops":1,"inputs":[0,1]`, `"flops":-1,"inputs":[0,1]`))
	wjson("task 0 reads data 9, which does not exist", workloadWith(`"inputs":[0,1]`, `"inputs":[0,9]`))
	wjson("task 0 reads data -1", workloadWith(`"inputs":[0,1]`, `"inputs":[-1]`))
	wjson("task 0 lists input 1 twice", workloadWith(`"inputs":[0,1]`, `"inputs":[1,1]`))
	wjson("task 1 depends on task 4, which does not exist", workloadWith(`"deps":[0]`, `"deps":[4]`))
	wjson("task 1 depends on itself", workloadWith(`"deps":[0]`, `"deps":[1]`))
	wjson("task 1 lists dependency 0 twice", workloadWith(`"deps":[0]`, `"deps":[0,0]`))
	wjson("dependency cycle through tasks", workloadWith(`"inputs":[0,1],"deps":[]`, `"inputs":[0,1],"deps":[1]`))
	wjson("tasks[0]: unknown field \"input\"", workloadWith(`"inputs":[0,1]`, `"input":[0,1]`))
	wjson("tasks[0].inputs: expected []int, found string", workloadWith(`"inputs":[0,1]`, `"inputs":"0,1"`))
	wjson("tasks[0].flops: expected float64, found string", workloadWith(`"flops":1,"inputs":[0,1]`, `"flops":"1","inputs":[0,1]`))
	wjson("has no tasks", `{"name":"w","data":[],"tasks":[]}`)
	wjson("unexpected content after the workload object", badWorkload+"{}")
	wjson(`field "data" appears twice`, strings.Replace(badWorkload, `"data":[`, `"data":[],"data":[`, 1))
	wjson(`no performance model for kernel "fft"`, workloadWith(`"kernel":"gemm"`, `"kernel":"fft"`))
	wjson("syntax error", workloadWith(`"flops":1,`, `"flops":1,,`))
	wjson("smaller than one task's inputs", workloadWith(`{"id":0,"bytes":4}`, `{"id":0,"bytes":4000000000}`), "--memory-mb", "100")
	wjson("data 0 has 5000000000000000000 bytes; a datum has at most 2^50 bytes", workloadWith(`{"id":0,"bytes":4}`, `{"id":0,"bytes":5000000000000000000}`))
	wjson("the flops of tasks 0 to 1 add up to more than 1.7976931348623157e+308", workloadWith(`"flops":1,"inputs":[0,1]`, `"flops":1e308,"inputs":[0,1]`, `"flops":1,"inputs":[1]`, `"flops":1e308,"inputs":[1]`))
	wjson("the run took no time (makespan 0 s): every task of w has zero duration and reads no data", `{"name":"w","data":[{"id":0,"bytes":4}],"tasks":[{"id":0,"kernel":"gemm","flops":0,"inputs":[],"deps":[]}]}`)
	// Keys are matched exactly (encoding/json would let "Flops" after
	// "flops" win), and a race is found from the graph.
	wjson(`tasks[0]: field "flops" is spelled "Flops": keys are case-sensitive`, workloadWith(`"flops":1,"inputs":[0,1]`, `"flops":1,"Flops":5,"inputs":[0,1]`))
	wjson(`tasks[0]: field "flops" is spelled "FLOPS"`, workloadWith(`"flops":1,"inputs":[0,1]`, `"FLOPS":1,"inputs":[0,1]`))
	wjson(`tasks[1]: field "deps" appears twice`, workloadWith(`"deps":[0]`, `"deps":[0],"deps":[]`))
	wjson(`data[1]: field "bytes" is spelled "Bytes"`, workloadWith(`{"id":1,"bytes":4}`, `{"id":1,"Bytes":4}`))
	wjson(`expected "{" at tasks[0]`, `{"name":"w","data":[{"id":0,"bytes":4}],"tasks":[null]}`)
	wjson("task 0 writes data 0 and task 1 writes it, with no dependency path between them: a race",
		`{"name":"w","data":[{"id":0,"bytes":4}],"tasks":[{"id":0,"kernel":"gemm","flops":1,"inputs":[0],"modes":["RW"],"deps":[]},{"id":1,"kernel":"gemm","flops":1,"inputs":[0],"modes":["RW"],"deps":[]}]}`)
	wjson("task 0 writes data 0 and task 2 reads it, with no dependency path between them",
		`{"name":"w","data":[{"id":0,"bytes":4},{"id":1,"bytes":4}],"tasks":[{"id":0,"kernel":"gemm","flops":1,"inputs":[0],"modes":["W"],"deps":[]},{"id":1,"kernel":"gemm","flops":1,"inputs":[0,1],"modes":["R","R"],"deps":[0]},{"id":2,"kernel":"gemm","flops":1,"inputs":[0],"modes":["R"],"deps":[]}]}`)
	wjson("data[0]: unknown field \"size\"", workloadWith(`{"id":0,"bytes":4}`, `{"id":0,"size":4}`))
	return cs
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	if code, _, errs := cli("run", "--n", "2", "--memory-mb", "100", "--trace", tr); code != 0 {
		t.Fatalf("making a trace: %s", errs)
	}
	s := filepath.Join(dir, "s.toml")
	os.WriteFile(s, []byte(badSuite), 0o644)
	res := filepath.Join(dir, "r.jsonl")
	if code, _, errs := cli("sweep", s, "-o", res, "-q"); code != 0 {
		t.Fatalf("making results: %s", errs)
	}
	trace, _ := os.ReadFile(tr)
	results, _ := os.ReadFile(res)
	swf := filepath.Join(dir, "a.swf")
	os.WriteFile(swf, []byte("1 0 -1 100 4 -1 -1 4 200 -1 1 7 1 -1 1 -1 -1 -1\n2 10 -1 50 2 -1 -1 2 100 -1 1 8 1 -1 1 -1 -1 -1\n"), 0o644)
	bt := filepath.Join(dir, "b.jsonl")
	if code, _, errs := cli("batch", "--swf", swf, "--trace", bt); code != 0 {
		t.Fatalf("making a batch trace: %s", errs)
	}
	batchTrace, _ := os.ReadFile(bt)
	if code, out, errs := cli("validate", bt); code != 0 || !strings.Contains(out, "valid batch trace") {
		t.Fatalf("the batch trace does not validate: %s%s", out, errs)
	}

	cases := badCases(t, string(trace), string(results), string(batchTrace))
	count := map[string]int{}
	for i, c := range cases {
		count[c.group]++
		d := filepath.Join(dir, fmt.Sprint("case", i))
		os.Mkdir(d, 0o755)
		for name, text := range c.files {
			if err := os.WriteFile(filepath.Join(d, name), []byte(strings.ReplaceAll(text, "$D", d)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if c.files["locked.jsonl"] != "" || c.files["locked.jsonl"] == "" && slices.Contains(c.args, "$D/locked.jsonl") {
			f, err := filelock.Open(filepath.Join(d, "locked.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
		}
		before := listDir(d)
		args := make([]string, len(c.args))
		for j, a := range c.args {
			args[j] = strings.ReplaceAll(a, "$D", d)
		}
		code, _, errs := cli(args...)
		line := strings.TrimSpace(errs)
		switch {
		case code == 0:
			t.Errorf("%s %q: exit 0; want an error mentioning %q", c.group, args, c.want)
		case !strings.Contains(line, c.want):
			t.Errorf("%s %q:\n got %q\nwant %q", c.group, args, line, c.want)
		case strings.Contains(line, "\n"):
			t.Errorf("%s %q: more than one line:\n%s", c.group, args, line)
		}
		if after := listDir(d); after != before {
			t.Errorf("%s %q left files behind: %s (before: %s)", c.group, args, after, before)
		}
	}
	groups := make([]string, 0, len(count))
	total := 0
	for g, n := range count {
		groups = append(groups, fmt.Sprintf("%s %d", g, n))
		total += n
	}
	sort.Strings(groups)
	t.Logf("%d bad inputs: %s", total, strings.Join(groups, ", "))
	if total < 150 {
		t.Errorf("only %d bad inputs", total)
	}
}

func listDir(d string) string {
	ents, _ := os.ReadDir(d)
	var names []string
	for _, e := range ents {
		info, _ := e.Info()
		names = append(names, fmt.Sprintf("%s:%d", e.Name(), info.Size()))
	}
	return strings.Join(names, " ")
}

// A suite naming exec:PATH is code: the commands that only read or check a
// suite (sweep --dry-run, report --suite, report --suites, a Slurm dry run)
// start no program; the program starts when a run does, and the result
// keys are the same either way.
func TestSuiteProgramsStartOnlyWhenARunStarts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIP: the program is a shell script")
	}
	dir := t.TempDir()
	suites := filepath.Join(dir, "suites")
	os.Mkdir(suites, 0o755)
	marker := filepath.Join(dir, "started")
	greedy, _ := filepath.Abs("../examples/python/greedy.py")
	prog := filepath.Join(suites, "prog.sh")
	os.WriteFile(prog, []byte("#!/bin/sh\necho started >> '"+marker+"'\nexec python3 '"+greedy+"'\n"), 0o755)
	s := filepath.Join(suites, "s.toml")
	text := suiteWith(`name = "bad-input"`, `name = "exec-suite"`, "", "[[scheduler]]\nname = \"exec:prog.sh\"\nlabel = \"PROG\"\neviction = \"luf\"")
	os.WriteFile(s, []byte(text), 0o644)
	res := filepath.Join(dir, "r.jsonl")
	started := func(when string) {
		t.Helper()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s started the suite's program", when)
		}
	}
	ok := func(args ...string) string {
		t.Helper()
		code, out, errs := cli(args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		return out
	}
	ok("sweep", s, "--dry-run", "-o", res)
	started("sweep --dry-run")
	ok("sweep", s, "--slurm", "--dry-run", "-o", res)
	started("sweep --slurm --dry-run")
	ok("sweep", s, "--only", "EAGER", "-o", res, "-q")
	started("sweep --only EAGER")
	ok("report", res, "--suite", s)
	started("report --suite")
	ok("report", res, "--suites", suites)
	started("report --suites")
	if code, _, _ := cli("schedulers", "exec:"+prog); code != 0 {
		t.Logf("schedulers exec:PATH asks the program (python3 missing?)")
	}
	os.Remove(marker)

	// A pinned hash is checked on every path, running nothing.
	pinned := filepath.Join(suites, "pinned.toml")
	os.WriteFile(pinned, []byte(strings.Replace(text, `label = "PROG"`, `label = "PROG"`+"\nsha256 = \"0000\"", 1)), 0o644)
	if code, _, errs := cli("sweep", pinned, "--dry-run", "-o", res); code == 0 || !strings.Contains(errs, "pinned.toml:") || !strings.Contains(errs, "sha256") {
		t.Errorf("a wrong pinned hash: exit %d: %s", code, errs)
	}
	started("a pinned hash")

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIP: python3 is not on PATH; the program is not run")
	}
	ok("sweep", s, "-o", res, "-q")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the sweep ran no program: %v", err)
	}
	// Keys made without asking the program are those of the records.
	if out := ok("sweep", s, "--dry-run", "-o", res); !strings.Contains(out, "0 to do") {
		t.Errorf("after the sweep, a dry run still has runs to do: %s", out)
	}
	if out := ok("report", res, "--suite", s); !strings.Contains(out, "PROG") {
		t.Errorf("the report lacks the program's runs:\n%s", out)
	}
	// The program's own parameters are checked when it is asked, before
	// any run: one error naming the suite's line, no error rows.
	bad := filepath.Join(suites, "bad.toml")
	os.WriteFile(bad, []byte(strings.Replace(text, `eviction = "luf"`, `eviction = "lfu"`, 1)), 0o644)
	res2 := filepath.Join(dir, "r2.jsonl")
	if code, _, errs := cli("sweep", bad, "-o", res2, "-q"); code == 0 || !strings.Contains(errs, "bad.toml:") || !strings.Contains(errs, "must be one of luf, lru") {
		t.Errorf("a bad parameter of the program: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(res2); len(b) > 0 {
		t.Errorf("a bad parameter of the program left records:\n%s", b)
	}
}

// A sweep whose every run failed, or whose profile was lost, exits non-zero;
// one with some runs done does not.
func TestFailedWorkIsNotSuccess(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s.toml")
	os.WriteFile(s, []byte(suiteWith("", "[[scheduler]]\nname = \"dmdar\"\nlabel = \"DMDAR\"")), 0o644)
	res := filepath.Join(dir, "r.jsonl")
	code, _, errs := cli("sweep", s, "-o", res, "-q", "--timeout", "1ns")
	if code == 0 || !strings.Contains(errs, "bad-input: every run failed (2 of 2;") || !strings.Contains(errs, "--retry-errors") {
		t.Errorf("every run timed out: exit %d: %s", code, errs)
	}
	if code, _, errs := cli("sweep", s, "-o", res, "-q", "--retry-errors", "--only", "EAGER"); code != 0 {
		t.Errorf("a sweep that runs: exit %d: %s", code, errs)
	}
	if runtime.GOOS == "linux" {
		code, _, errs := cli("sweep", s, "-o", res, "-q", "--retry-errors", "--cpuprofile", "/dev/full")
		if code == 0 || !strings.Contains(errs, "--cpuprofile /dev/full: write /dev/full: no space left on device") {
			t.Errorf("a lost CPU profile: exit %d: %s", code, errs)
		}
	}
}
