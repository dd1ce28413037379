package paper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The repository's declaration loads; mistakes are named.
func TestLoadFit(t *testing.T) {
	pts, err := LoadReference("reference/gonthier-raw-results.csv")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := LoadFit("fit/v100-gemini.toml", pts)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.IsTrain("ipdps22/2d_1gpu/paper") || spec.IsTrain("ipdps22/2d_2gpu/paper") || len(spec.Params) == 0 || len(spec.Sensitive) == 0 {
		t.Errorf("declaration %+v", spec)
	}
	dir := t.TempDir()
	base := `preset = "v100-gemini"
output = "o.toml"
results = "r.json"
train = ["ipdps22/2d_1gpu/paper"]
suites = ["suites/ipdps2022/2d-1gpu.toml"]
`
	for _, c := range []struct{ extra, want string }{
		{"[[param]]\ntable = \"runtime\"\nkey = \"op_second\"\nvalues = [1]\n", `did you mean "op_seconds"`},
		{"[[param]]\ntable = \"topolgy\"\nkey = \"nvlink\"\nvalues = [1]\n", "use topology, runtime or kernel.NAME"},
		{"[[param]]\ntable = \"kernel.potrf\"\nkey = \"speed\"\nvalues = [1]\n", "use gflops or seconds"},
		{"[[param]]\ntable = \"runtime\"\nkey = \"op_seconds\"\n", "no values to try"},
		{"colour = 1\n", `unknown key "colour"`},
	} {
		path := filepath.Join(dir, "f.toml")
		os.WriteFile(path, []byte(base+c.extra), 0o644)
		if _, err := LoadFit(path, pts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.extra, err, c.want)
		}
	}
	path := filepath.Join(dir, "f.toml")
	os.WriteFile(path, []byte(strings.Replace(base, "2d_1gpu/paper", "2d_1gpu/papr", 1)), 0o644)
	if _, err := LoadFit(path, pts); err == nil || !strings.Contains(err.Error(), `did you mean "ipdps22/2d_1gpu/paper"`) {
		t.Errorf("unknown training series: %v", err)
	}
}
