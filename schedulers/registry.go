package schedulers

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// Param documents one typed scheduler parameter.
type Param struct {
	Name    string
	Kind    string // "bool", "int", "float" or "string"
	Default string
	Choices []string // allowed values of a string parameter, if limited
	Min     string   // lowest value of a number parameter ("" = any)
	Max     string   // highest value of a number parameter ("" = any)
	Doc     string
}

// Spec registers a scheduler: its name, version, documentation, parameters
// and a constructor receiving validated parameters.
type Spec struct {
	Name string
	// Version counts the scheduler's decision changes, from 1. Bump it when
	// a change alters what the scheduler decides (a bug fix, a new default,
	// a change in a shared part it uses): it enters every result key, so a
	// sweep reruns the scheduler's records. The golden corpus
	// (harness/golden) fails when its outputs change without a bump.
	Version int
	Doc     string
	Params  []Param
	// Buffer is the scheduler's default task buffer depth: 0 means the
	// platform's runtime setting, -1 unbounded (StarPU's dmda family pushes
	// every task to a worker queue and prefetches them all).
	Buffer int
	// NodeBuffer: the workers of a memory node share one task buffer
	// (StarPU's trees that decide per memory node, as DARTS's).
	NodeBuffer bool
	New        func(p Params) (Scheduler, error)
	// Code identifies scheduler code from outside this module (an external
	// program, a Go plugin's module); nil for memsched's own schedulers.
	// Register fills it for Go plugins.
	Code *Code
	// Deferred: the scheduler is known by its code but not asked yet (an
	// external program that Inspect checked without starting it). Only
	// memsched's own parameters (buffer, and those in Params) are declared;
	// New is nil. Lookup gives the full Spec.
	Deferred bool
}

// Params holds a scheduler's parameters, validated and with defaults filled.
type Params map[string]string

func (p Params) Bool(name string) bool     { b, _ := strconv.ParseBool(p[name]); return b }
func (p Params) Int(name string) int       { i, _ := strconv.Atoi(p[name]); return i }
func (p Params) Float(name string) float64 { f, _ := strconv.ParseFloat(p[name], 64); return f }
func (p Params) String(name string) string { return p[name] }

// Canonical renders the parameters sorted, for keys and display.
func (p Params) Canonical() string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + p[k])
	}
	return b.String()
}

// family builds the Specs of prefix:ARG schedulers: lookup completely
// (an external program is started and asked), inspect without running
// anything.
type family struct {
	lookup  func(arg string, raw map[string]string) (Spec, error)
	inspect func(arg string) (Spec, error)
}

var (
	registry = map[string]Spec{}
	families = map[string]family{}
)

// BufferParam is accepted by every scheduler: the task buffer depth
// (StarPU's STARPU_NTASKS_THRESHOLD); 0 = the scheduler's default.
var BufferParam = Param{Name: "buffer", Kind: "int", Default: "0", Min: "-1",
	Doc: "task buffer depth per worker (StarPU NTASKS_THRESHOLD); 0 = scheduler default, -1 = unbounded"}

// Register adds a scheduler; it panics on a duplicate or a missing
// version, at init time.
func Register(s Spec) {
	if _, dup := registry[s.Name]; dup {
		panic("schedulers: duplicate registration of " + s.Name)
	}
	if s.Version < 1 {
		panic("schedulers: " + s.Name + " registers no Version (start at 1)")
	}
	if s.Code == nil {
		s.Code = pluginCode(s.New)
	}
	registry[s.Name] = s
}

// RegisterFamily adds schedulers named prefix:ARG whose Spec is built when
// looked up, as exec:PATH runs an external program. inspect, when not nil,
// builds a Deferred Spec without running anything (see Inspect). It panics
// on a duplicate, at init time.
// lookup gets the raw parameters of the run about to start (nil when none).
func RegisterFamily(prefix string, lookup func(arg string, raw map[string]string) (Spec, error), inspect func(arg string) (Spec, error)) {
	if _, dup := families[prefix]; dup {
		panic("schedulers: duplicate family " + prefix)
	}
	families[prefix] = family{lookup, inspect}
}

// List returns every registered scheduler, sorted by name.
func List() []Spec {
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a scheduler, suggesting the closest name when it is unknown.
func Lookup(name string) (Spec, error) { return LookupWith(name, nil) }

// LookupWith is Lookup for a run about to start with raw parameters: an
// external program is started and asked to describe itself within their
// timeout.
func LookupWith(name string, raw map[string]string) (Spec, error) {
	if prefix, arg, ok := strings.Cut(name, ":"); ok {
		if f, ok := families[prefix]; ok {
			return f.lookup(arg, raw)
		}
	}
	return registered(name)
}

// Inspect finds a scheduler as Lookup does, but starts no program: an
// external program (exec:PATH) is checked (it exists, is executable, its
// hash) and comes back Deferred, to be looked up when a run starts. The
// commands that only read or check a suite use it.
func Inspect(name string) (Spec, error) {
	if prefix, arg, ok := strings.Cut(name, ":"); ok {
		if f, ok := families[prefix]; ok {
			if f.inspect == nil {
				return f.lookup(arg, nil)
			}
			return f.inspect(arg)
		}
	}
	return registered(name)
}

func registered(name string) (Spec, error) {
	s, ok := registry[strings.ToLower(name)]
	if alias, isStarPU := starpuPolicies[strings.ToLower(name)]; !ok && isStarPU {
		s, ok = registry[alias]
	}
	if !ok {
		names := make([]string, 0, len(registry))
		for n := range registry {
			names = append(names, n)
		}
		for n := range starpuPolicies {
			names = append(names, n)
		}
		return Spec{}, fmt.Errorf("unknown scheduler %q%s (memsched schedulers lists them)", name, Suggest(name, names))
	}
	return s, nil
}

// Resolve validates raw parameters against a scheduler's declaration and
// fills defaults.
func (s Spec) Resolve(raw map[string]string) (Params, error) {
	return ResolveParams(s.Name, append([]Param{BufferParam}, s.Params...), raw)
}

// Declares says whether the scheduler declares the parameter (buffer is
// everyone's).
func (s Spec) Declares(name string) bool {
	if name == BufferParam.Name {
		return true
	}
	for _, p := range s.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// ResolveParams validates raw parameters of scheduler name against their
// declarations and fills defaults; unknown keys and values get the closest
// suggestion. The batch schedulers' registry uses it too.
func ResolveParams(name string, params []Param, raw map[string]string) (Params, error) {
	decl := map[string]Param{}
	names := []string{}
	for _, p := range params {
		decl[p.Name] = p
		names = append(names, p.Name)
	}
	out := Params{}
	for _, p := range decl {
		out[p.Name] = p.Default
	}
	for k, v := range raw {
		p, ok := decl[k]
		if knob := StarPUKnob(k); !ok && knob != "" {
			return nil, fmt.Errorf("scheduler %s has no parameter %q: %s", name, k, knob)
		}
		if !ok {
			return nil, fmt.Errorf("scheduler %s has no parameter %q%s; parameters: %s", name, k, Suggest(k, names), strings.Join(names, ", "))
		}
		if err := p.check(v); err != nil {
			return nil, fmt.Errorf("scheduler %s: %w", name, err)
		}
		out[k] = normalise(p.Kind, v)
	}
	return out, nil
}

// Build resolves parameters and constructs the scheduler.
func Build(name string, raw map[string]string) (Scheduler, Spec, Params, error) {
	s, err := LookupWith(name, raw)
	if err != nil {
		return nil, s, nil, err
	}
	p, err := s.Resolve(raw)
	if err != nil {
		return nil, s, nil, err
	}
	sch, err := s.New(p)
	return sch, s, p, err
}

// BufferDepth is the buffer depth a run uses: the parameter, else the
// scheduler's default, else the platform's (-1 = unbounded).
func (s Spec) BufferDepth(p Params, platformDefault int) int {
	if b := p.Int("buffer"); b != 0 {
		return b
	}
	if s.Buffer != 0 {
		return s.Buffer
	}
	return platformDefault
}

func (p Param) check(v string) error {
	var err error
	switch p.Kind {
	case "bool":
		_, err = strconv.ParseBool(v)
	case "int", "float":
		var f float64
		if p.Kind == "int" {
			var i int
			i, err = strconv.Atoi(v)
			f = float64(i)
		} else if f, err = strconv.ParseFloat(v, 64); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return fmt.Errorf("parameter %s=%s: want a finite number (default %s)", p.Name, v, p.Default)
		}
		if min, merr := strconv.ParseFloat(p.Min, 64); err == nil && merr == nil && f < min {
			return fmt.Errorf("parameter %s=%s: want %s >= %s (default %s)", p.Name, v, kindNames[p.Kind], p.Min, p.Default)
		}
		if max, merr := strconv.ParseFloat(p.Max, 64); err == nil && merr == nil && f > max {
			return fmt.Errorf("parameter %s=%s: want %s <= %s (default %s)", p.Name, v, kindNames[p.Kind], p.Max, p.Default)
		}
	case "string":
		if len(p.Choices) > 0 {
			for _, c := range p.Choices {
				if c == v {
					return nil
				}
			}
			return fmt.Errorf("parameter %s=%q: must be one of %s%s", p.Name, v, strings.Join(p.Choices, ", "), Suggest(v, p.Choices))
		}
	}
	if err != nil {
		return fmt.Errorf("parameter %s=%q: want %s (default %s)", p.Name, v, kindNames[p.Kind], p.Default)
	}
	return nil
}

var kindNames = map[string]string{"bool": "true or false", "int": "an integer", "float": "a number", "string": "a string"}

func normalise(kind, v string) string {
	switch kind {
	case "bool":
		b, _ := strconv.ParseBool(v)
		return strconv.FormatBool(b)
	case "int":
		i, _ := strconv.Atoi(v)
		return strconv.Itoa(i)
	case "float":
		f, _ := strconv.ParseFloat(v, 64)
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return v
}

// Suggest returns `; did you mean "x"?` for the closest candidate, or "".
var Suggest = suggest.Closest
