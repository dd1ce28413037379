package paper

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/suggest"
)

// FitSpec declares how a platform's uncertain parameters are fitted to the
// reference measurements (paper/fit/*.toml), before any fitting: the
// training series, the parameters with the values tried, the suites whose
// points are simulated, and the uncertain rules whose effect the
// sensitivity analysis measures. Every (series, scheduler) pair of the
// reference that a suite simulates and the training set does not name is a
// test pair.
type FitSpec struct {
	File      string        `toml:"-"`
	Preset    string        `toml:"preset"`
	Output    string        `toml:"output"`  // the fitted values (the preset's fitted file)
	Results   string        `toml:"results"` // the fit's record: errors, history, sensitivity (JSON)
	Train     []string      `toml:"train"`   // reference series ids
	Suites    []string      `toml:"suites"`
	Params    []FitParam    `toml:"param"`
	Sensitive []Sensitivity `toml:"sensitivity"`
}

// FitParam is one fitted parameter: a [topology] or [runtime] key of the
// preset and the values the fit tries.
type FitParam struct {
	Table  string `toml:"table"`
	Key    string `toml:"key"`
	Values []any  `toml:"values"` // numbers, or booleans for a rule
	Why    string `toml:"why"`
}

// Sensitivity is one uncertain rule and the alternatives to its value the
// sensitivity analysis runs, one at a time.
type Sensitivity struct {
	Table  string `toml:"table"`
	Key    string `toml:"key"`
	Values []any  `toml:"values"`
	Why    string `toml:"why"`
}

// IsTrain reports whether a reference series is in the training set.
func (f *FitSpec) IsTrain(figure string) bool { return slices.Contains(f.Train, figure) }

// LoadFit reads and checks a fit declaration: known keys, known tables and
// parameter keys (the preset's own), training series that exist in the
// reference.
func LoadFit(path string, reference []RefPoint) (*FitSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	return ParseFit(path, data, reference)
}

// ParseFit is LoadFit on a declaration's content; path names it.
func ParseFit(path string, data []byte, reference []RefPoint) (*FitSpec, error) {
	var f FitSpec
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("fit: %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("fit: %s: unknown key %q; keys: preset, output, results, train, suites, [[param]] (table, key, values, why), [[sensitivity]] (table, key, values, why)", path, und[0].String())
	}
	f.File = path
	var problems []string
	if f.Preset == "" || f.Output == "" || f.Results == "" {
		problems = append(problems, "preset, output and results are required")
	}
	if len(f.Train) == 0 || len(f.Suites) == 0 {
		problems = append(problems, "train (reference series) and suites are required")
	}
	figures := map[string]bool{}
	for _, p := range reference {
		figures[p.Figure] = true
	}
	for _, t := range f.Train {
		if !figures[t] {
			problems = append(problems, fmt.Sprintf("train: %q is not a reference series%s", t, suggest.Closest(t, sortedKeys(figures))))
		}
	}
	check := func(what, table, key string) {
		var keys []string
		if strings.HasPrefix(table, "kernel.") {
			if key != "gflops" && key != "seconds" {
				problems = append(problems, fmt.Sprintf("%s: [%s] has no key %q; use gflops or seconds", what, table, key))
			}
			return
		}
		switch table {
		case "topology":
			keys = hardware.TopologyKeys()
		case "runtime":
			keys = hardware.RuntimeKeys()
		default:
			problems = append(problems, fmt.Sprintf("%s %s: table %q; use topology, runtime or kernel.NAME", what, key, table))
			return
		}
		if !slices.Contains(keys, key) {
			problems = append(problems, fmt.Sprintf("%s: [%s] has no key %q%s", what, table, key, suggest.Closest(key, keys)))
		}
	}
	for _, p := range f.Params {
		check("param", p.Table, p.Key)
		if len(p.Values) == 0 {
			problems = append(problems, fmt.Sprintf("param %s: no values to try", p.Key))
		}
	}
	for _, s := range f.Sensitive {
		check("sensitivity", s.Table, s.Key)
		if len(s.Values) == 0 {
			problems = append(problems, fmt.Sprintf("sensitivity %s: no alternative values", s.Key))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("fit: %s: %s", path, strings.Join(problems, "; "))
	}
	return &f, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// FitSetting is one override of a platform setting.
type FitSetting struct {
	Table string `json:"table"`
	Key   string `json:"key"`
	Value any    `json:"value"`
}

func (s FitSetting) String() string { return fmt.Sprintf("%s = %v", s.Key, s.Value) }

// FitPair is the fidelity of one (series, scheduler) pair.
type FitPair struct {
	Figure        string  `json:"figure"`
	Label         string  `json:"label"`
	Suite         string  `json:"suite"`
	Train         bool    `json:"train"`
	Points        int     `json:"points"`
	MAPE          float64 `json:"gflops_mape"`    // %
	Bias          float64 `json:"gflops_bias"`    // %
	TransfersMAPE float64 `json:"transfers_mape"` // %; NaN without measured transfers (-1 in the JSON record)
}

// FitStep is one evaluation of a fit's search.
type FitStep struct {
	Settings []FitSetting `json:"settings"`
	Train    float64      `json:"train_gflops_mape"`
}

// FitSensitivity is every pair's fidelity with one rule set to one
// alternative, the fitted values otherwise.
type FitSensitivity struct {
	Setting FitSetting `json:"setting"`
	Why     string     `json:"why"`
	Pairs   []FitPair  `json:"pairs"`
}

// FitResult is the record of a fit (memsched fit): the values found, how,
// and every pair's error at them and under each rule's alternatives.
type FitResult struct {
	Spec     string       `json:"spec"`
	Command  string       `json:"command"`
	Train    []string     `json:"train"`
	Fitted   []FitSetting `json:"fitted"`
	Measured []FitSetting `json:"measured"` // measured from the reference, held fixed during the fit
	Why      []string     `json:"measured_how"`
	History  []FitStep    `json:"history"`
	Pairs    []FitPair    `json:"pairs"` // every pair at the fitted values
	// ModelVersion is the simulator's model (sim.ModelVersion) the fit ran
	// under; 0 in records older than the field.
	ModelVersion int              `json:"model_version,omitempty"`
	TrainMAPE    float64          `json:"train_gflops_mape"`
	TestMAPE     float64          `json:"test_gflops_mape"`
	TrainTr      float64          `json:"train_transfers_mape"`
	TestTr       float64          `json:"test_transfers_mape"`
	Sensitive    []FitSensitivity `json:"sensitivity,omitempty"`
}

// Settings are the measured and the fitted values together.
func (r *FitResult) Settings() []FitSetting {
	return append(slices.Clone(r.Measured), r.Fitted...)
}

// ReadFitResult reads a fit's record; -1 (no measured transfers) becomes NaN.
func ReadFitResult(path string) (*FitResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res FitResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fix := func(ps []FitPair) {
		for i := range ps {
			if ps[i].TransfersMAPE < 0 {
				ps[i].TransfersMAPE = math.NaN()
			}
		}
	}
	fix(res.Pairs)
	for i := range res.Sensitive {
		fix(res.Sensitive[i].Pairs)
	}
	return &res, nil
}
