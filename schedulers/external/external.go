// Package external runs a scheduler written in any language as a separate
// process that speaks JSON Lines over its stdin and stdout: memsched writes
// one request per line (describe, init, pull, pop, victim), the program
// writes one answer per line. docs/protocol.md specifies the messages;
// examples/python/greedy.py is a complete scheduler.
//
// Such a scheduler is named exec:PATH (on the command line, or in a suite,
// where a relative PATH is relative to the suite file). Looking it up runs
// the program once to ask for its documentation and typed parameters, so
// it is validated, listed and parameterised like any Go scheduler; Inspect
// only checks the file and hashes it, and the commands that only read or
// check a suite use it, so that they start no program. Its record carries
// the program's path and SHA-256 (schedulers.Code), which enter the result
// key: changing the program never reuses old results.
//
// The process is part of the run: any protocol error (an answer that is
// not JSON, of the wrong kind, naming an unknown task, late, or a program
// that exits) ends the run with an error naming the request, the answer
// and the end of the program's stderr, and the process is always killed
// and reaped.
package external

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memsched/memsched/schedulers"
)

// Protocol is the version of docs/protocol.md that this package speaks; it
// is sent in the describe and init requests.
const Protocol = 1

// DefaultTimeout is how long memsched waits for an answer (the timeout
// parameter of every exec: scheduler changes it per run).
const DefaultTimeout = 60 * time.Second

// MaxTimeout bounds the timeout parameter (seconds): about 11.6 days, far
// below where a time.Duration overflows.
const MaxTimeout = 1e6

func init() { schedulers.RegisterFamily("exec", LookupWith, Inspect) }

// description is the answer to describe.
type description struct {
	Doc     string   `json:"doc"`
	Buffer  int      `json:"buffer"`
	Handles []string `json:"handles"`
	Params  []struct {
		Name    string   `json:"name"`
		Kind    string   `json:"kind"`
		Default string   `json:"default"`
		Choices []string `json:"choices"`
		Doc     string   `json:"doc"`
	} `json:"params"`
}

// handles are the optional requests a program may ask for.
var handles = []string{"pop", "victim", "events"}

var timeoutParam = schedulers.Param{Name: "timeout", Kind: "float", Default: "60", Min: "0", Max: "1e6",
	Doc: "seconds memsched waits for each answer of the program (describe and init included) before ending the run with an error"}

// timeout reads the timeout parameter: a positive number of seconds, at
// most MaxTimeout.
func timeout(name, v string) (time.Duration, error) {
	t, err := strconv.ParseFloat(v, 64)
	if err != nil || !(t > 0 && t <= MaxTimeout) {
		return 0, fmt.Errorf("%s: timeout = %s; give a positive number of seconds, at most %g", name, v, float64(MaxTimeout))
	}
	return time.Duration(t * float64(time.Second)), nil
}

var (
	mu    sync.Mutex
	specs = map[string]schedulers.Spec{} // by path and content hash
)

// Lookup builds the Spec of exec:PATH. The program is asked to describe
// itself once per content: a changed program is described again.
func Lookup(path string) (schedulers.Spec, error) { return LookupWith(path, nil) }

// LookupWith is Lookup with the parameters of the run about to start: their
// timeout bounds the wait for the describe answer.
func LookupWith(path string, raw map[string]string) (schedulers.Spec, error) {
	name, abs, sum, err := check(path)
	if err != nil {
		return schedulers.Spec{}, err
	}
	wait := DefaultTimeout
	if v, ok := raw[timeoutParam.Name]; ok {
		if wait, err = timeout(name, v); err != nil {
			return schedulers.Spec{}, err
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if s, ok := specs[abs+"\x00"+sum]; ok {
		return s, nil
	}
	d, err := describe(name, abs, wait)
	if err != nil {
		return schedulers.Spec{}, err
	}
	s, err := d.spec(name, abs, sum)
	if err != nil {
		return schedulers.Spec{}, fmt.Errorf("%s: describe: %v", name, err)
	}
	specs[abs+"\x00"+sum] = s
	return s, nil
}

// Inspect checks exec:PATH without starting it: the file exists and is
// executable, and its hash identifies it. The Spec is Deferred: it declares
// memsched's own parameters only, and LookupWith asks the program for the
// rest when a run starts.
func Inspect(path string) (schedulers.Spec, error) {
	name, abs, sum, err := check(path)
	if err != nil {
		return schedulers.Spec{}, err
	}
	return schedulers.Spec{Name: name, Doc: "external program (not asked yet: memsched schedulers " + name + " asks it)",
		Params: []schedulers.Param{timeoutParam}, Code: &schedulers.Code{Path: abs, SHA256: sum}, Deferred: true}, nil
}

// check resolves exec:PATH to the program's absolute path and hash.
func check(path string) (name, abs, sum string, err error) {
	name = "exec:" + path
	if path == "" {
		return name, "", "", fmt.Errorf("%s: give the program's path, e.g. exec:examples/python/greedy.py", name)
	}
	if abs, err = filepath.Abs(path); err != nil {
		return name, "", "", fmt.Errorf("%s: %v", name, err)
	}
	name = "exec:" + abs
	st, err := os.Stat(abs)
	if err != nil {
		return name, abs, "", fmt.Errorf("%s: %v", name, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return name, abs, "", fmt.Errorf("%s: not an executable file; make it executable (chmod +x) and start a script with a #! line, e.g. #!/usr/bin/env python3", name)
	}
	if sum, err = schedulers.HashFile(abs); err != nil {
		return name, abs, "", fmt.Errorf("%s: %v", name, err)
	}
	return name, abs, sum, nil
}

// describe runs the program for one describe request.
func describe(name, path string, wait time.Duration) (*description, error) {
	p, err := start(name, path, wait)
	if err != nil {
		return nil, err
	}
	line, err := p.call([]byte(fmt.Sprintf(`{"op":"describe","protocol":%d}`+"\n", Protocol)), "describe")
	if err != nil {
		return nil, err
	}
	if err := p.close(); err != nil {
		return nil, err
	}
	d, err := parseDescription(line)
	if err != nil {
		return nil, p.fail("describe: %v", err)
	}
	return d, nil
}

// parseDescription decodes the answer to describe.
func parseDescription(line []byte) (*description, error) {
	var d description
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("want {\"doc\": ..., \"params\": [...], \"buffer\": 0, \"handles\": [...]} (docs/protocol.md): %v; got %s", err, quote(line))
	}
	if dec.More() {
		return nil, fmt.Errorf("want one JSON object; got %s", quote(line))
	}
	return &d, nil
}

// spec turns a description into a registry entry, checking it.
func (d *description) spec(name, path, sum string) (schedulers.Spec, error) {
	var h struct{ pop, victim, events bool }
	for _, x := range d.Handles {
		switch x {
		case "pop":
			h.pop = true
		case "victim":
			h.victim = true
		case "events":
			h.events = true
		default:
			return schedulers.Spec{}, fmt.Errorf("unknown handles entry %q%s; use some of %s", x, schedulers.Suggest(x, handles), strings.Join(handles, ", "))
		}
	}
	if d.Buffer < -1 {
		return schedulers.Spec{}, fmt.Errorf("buffer = %d; use -1 (unbounded), 0 (the platform's) or a depth", d.Buffer)
	}
	s := schedulers.Spec{Name: name, Doc: strings.TrimSpace("external program. " + d.Doc), Buffer: d.Buffer,
		Code: &schedulers.Code{Path: path, SHA256: sum}}
	seen := map[string]bool{schedulers.BufferParam.Name: true, timeoutParam.Name: true, "sha256": true}
	defaults := map[string]string{}
	for _, p := range d.Params {
		if seen[p.Name] || p.Name == "" {
			return schedulers.Spec{}, fmt.Errorf("parameter name %q is empty, repeated or reserved (buffer, timeout and sha256 are memsched's)", p.Name)
		}
		switch p.Kind {
		case "bool", "int", "float", "string":
		default:
			return schedulers.Spec{}, fmt.Errorf("parameter %s has kind %q; use bool, int, float or string", p.Name, p.Kind)
		}
		seen[p.Name] = true
		defaults[p.Name] = p.Default
		s.Params = append(s.Params, schedulers.Param{Name: p.Name, Kind: p.Kind, Default: p.Default, Choices: p.Choices, Doc: p.Doc})
	}
	s.Params = append(s.Params, timeoutParam)
	if _, err := s.Resolve(defaults); err != nil {
		return schedulers.Spec{}, fmt.Errorf("a default is not valid: %v", err)
	}
	s.New = func(params schedulers.Params) (schedulers.Scheduler, error) {
		wait, err := timeout(name, params[timeoutParam.Name])
		if err != nil {
			return nil, err
		}
		return &Scheduler{name: name, path: path, spec: s, params: params,
			timeout: wait,
			pop:     h.pop, victim: h.victim, events: h.events}, nil
	}
	return s, nil
}

// quote shows an answer in an error, cut to a readable length.
func quote(line []byte) string {
	s := strings.TrimRight(string(line), "\r\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf("%q", s)
}
