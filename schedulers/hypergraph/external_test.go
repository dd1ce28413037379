package hypergraph

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// fakeHMetis is an hMETIS stand-in using only shell builtins (PATH holds
// nothing else in these tests): it records its arguments and its input
// file, then puts vertex i in part i mod K.
const fakeHMetis = `#!/bin/sh
echo "$@" > "$FAKE_ARGS"
while IFS= read -r line; do echo "$line"; done < "$1" > "$FAKE_INPUT"
read e v f < "$1"
i=0
while [ $i -lt $v ]; do echo $((i % $2)); i=$((i+1)); done > "$1.part.$2"
`

// fakeKaHyPar parses -h and -k and writes a KaHyPar-named result file.
const fakeKaHyPar = `#!/bin/sh
echo "$@" > "$FAKE_ARGS"
while [ $# -gt 0 ]; do
  case "$1" in
    -h) file=$2; shift ;;
    -k) k=$2; shift ;;
  esac
  shift
done
read e v f < "$file"
i=0
while [ $i -lt $v ]; do echo $((i % k)); i=$((i+1)); done > "$file.part$k.epsilon0.02.seed7.KaHyPar"
`

// fakeTools puts the given scripts in a fresh directory and makes it the
// whole PATH.
func fakeTools(t *testing.T, scripts map[string]string) (args, input string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	bin := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	args, input = filepath.Join(out, "args"), filepath.Join(out, "input")
	t.Setenv("PATH", bin)
	t.Setenv("FAKE_ARGS", args)
	t.Setenv("FAKE_INPUT", input)
	t.Setenv(KaHyParPresetEnv, "")
	return args, input
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// smallTasks has weights that exercise the gcd scaling, a duplicate pin,
// a single-pin edge and a zero-weight edge (the last two are left out).
func smallTasks() *Hypergraph {
	return &Hypergraph{
		VertexWeight: []int64{30, 60, 90, 30, 60},
		Edges:        [][]int{{0, 1, 1}, {1, 2, 3}, {4}, {3, 4}, {0, 4}},
		EdgeWeight:   []int64{2 << 20, 4 << 20, 8 << 20, 2 << 20, 0},
	}
}

func TestExternalHMetisFormatAndResult(t *testing.T) {
	argsFile, inputFile := fakeTools(t, map[string]string{"hmetis": fakeHMetis, "khmetis": fakeHMetis})
	parts, tool, err := External(smallTasks(), Options{Parts: 2, VCycles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tool != "hmetis" {
		t.Errorf("tool = %q, want hmetis (preferred over khmetis)", tool)
	}
	if !slices.Equal(parts, []int{0, 1, 0, 1, 0}) {
		t.Errorf("parts = %v, want the fake's i mod 2", parts)
	}
	// hmetis file Nparts UBfactor Nruns CType RType Vcycle Reconst dbglvl
	if got, want := strings.TrimSpace(readFile(t, argsFile)), "tasks.hgr 2 1 20 1 1 2 0 0"; got != want {
		t.Errorf("args = %q, want %q", got, want)
	}
	// Edge weights 2,4,2 MiB over gcd 2 MiB; vertex weights over gcd 30.
	want := "3 5 11\n1 1 2\n2 2 3 4\n1 4 5\n1\n2\n3\n1\n2\n"
	if got := readFile(t, inputFile); got != want {
		t.Errorf("hMETIS input:\n%s\nwant:\n%s", got, want)
	}
}

func TestExternalOtherTools(t *testing.T) {
	argsFile, _ := fakeTools(t, map[string]string{"shmetis": fakeHMetis})
	if _, tool, err := External(smallTasks(), Options{Parts: 3, UBFactor: 5}); err != nil || tool != "shmetis" {
		t.Fatalf("shmetis: tool %q, err %v", tool, err)
	}
	if got, want := strings.TrimSpace(readFile(t, argsFile)), "tasks.hgr 3 5"; got != want {
		t.Errorf("shmetis args = %q, want %q", got, want)
	}

	argsFile, _ = fakeTools(t, map[string]string{"khmetis": fakeHMetis})
	if _, tool, err := External(smallTasks(), Options{Parts: 2, VCycles: NoVCycle, Runs: 4}); err != nil || tool != "khmetis" {
		t.Fatalf("khmetis: tool %q, err %v", tool, err)
	}
	// khmetis file Nparts UBfactor Nruns CType OType Vcycle dbglvl
	if got, want := strings.TrimSpace(readFile(t, argsFile)), "tasks.hgr 2 1 4 1 2 0 0"; got != want {
		t.Errorf("khmetis args = %q, want %q", got, want)
	}

	argsFile, _ = fakeTools(t, map[string]string{"KaHyPar": fakeKaHyPar})
	if _, _, err := External(smallTasks(), Options{Parts: 2}); !errors.Is(err, ErrNoExternal) ||
		!strings.Contains(err.Error(), KaHyParPresetEnv) {
		t.Errorf("KaHyPar without preset: err = %v, want ErrNoExternal naming %s", err, KaHyParPresetEnv)
	}
	t.Setenv(KaHyParPresetEnv, "/presets/km1.ini")
	parts, tool, err := External(smallTasks(), Options{Parts: 4, Seed: 7})
	if err != nil || tool != "KaHyPar" || !slices.Equal(parts, []int{0, 1, 2, 3, 0}) {
		t.Fatalf("KaHyPar: parts %v, tool %q, err %v", parts, tool, err)
	}
	// Two levels of 1% bisections: 1.02² − 1.
	want := "-h tasks.hgr -k 4 -e 0.040400 -o km1 -m direct -p /presets/km1.ini --seed 7 -w true"
	if got := strings.TrimSpace(readFile(t, argsFile)); got != want {
		t.Errorf("KaHyPar args = %q, want %q", got, want)
	}
}

func TestExternalErrors(t *testing.T) {
	fakeTools(t, nil)
	if _, _, err := External(smallTasks(), Options{Parts: 2}); !errors.Is(err, ErrNoExternal) {
		t.Errorf("empty PATH: err = %v, want ErrNoExternal", err)
	}

	fakeTools(t, map[string]string{"hmetis": "#!/bin/sh\necho 'Out of netind memory!'\nexit 3\n"})
	_, tool, err := External(smallTasks(), Options{Parts: 2})
	if err == nil || tool != "hmetis" || !strings.Contains(err.Error(), "Out of netind memory!") {
		t.Errorf("failing tool: tool %q, err %v; want hmetis and its output", tool, err)
	}

	fakeTools(t, map[string]string{"hmetis": "#!/bin/sh\necho 0 > \"$1.part.$2\"\n"})
	if _, _, err := External(smallTasks(), Options{Parts: 2}); err == nil || !strings.Contains(err.Error(), "1 entries for 5 vertices") {
		t.Errorf("short partition file: err = %v", err)
	}

	fakeTools(t, map[string]string{"hmetis": "#!/bin/sh\nfor i in 0 1 2 3 9; do echo $i; done > \"$1.part.$2\"\n"})
	if _, _, err := External(smallTasks(), Options{Parts: 2}); err == nil || !strings.Contains(err.Error(), `"2" is not a part in [0,2)`) {
		t.Errorf("part out of range: err = %v", err)
	}

	fakeTools(t, map[string]string{"hmetis": "#!/bin/sh\nexit 0\n"})
	if _, _, err := External(smallTasks(), Options{Parts: 2}); err == nil || !strings.Contains(err.Error(), "wrote no partition") {
		t.Errorf("no partition file: err = %v", err)
	}
}

func TestBest(t *testing.T) {
	h := matmul2D(6)
	fakeTools(t, nil)
	parts, tool, err := Best(h, Options{Parts: 2}, true)
	if err != nil || tool != BuiltinName || Connectivity(h, parts) != 6*h.EdgeWeight[0] {
		t.Errorf("fallback: tool %q, err %v", tool, err)
	}

	fakeTools(t, map[string]string{"hmetis": fakeHMetis})
	if _, tool, err := Best(h, Options{Parts: 2}, true); err != nil || tool != "hmetis" {
		t.Errorf("with hmetis: tool %q, err %v", tool, err)
	}
	if _, tool, err := Best(h, Options{Parts: 2}, false); err != nil || tool != BuiltinName {
		t.Errorf("builtin requested: tool %q, err %v", tool, err)
	}

	fakeTools(t, map[string]string{"hmetis": "#!/bin/sh\nexit 1\n"})
	if _, tool, err := Best(h, Options{Parts: 2}, true); err == nil || tool != "hmetis" {
		t.Errorf("failing hmetis must not fall back silently: tool %q, err %v", tool, err)
	}
}

func TestFitInt32(t *testing.T) {
	got := fitInt32([]int64{3 << 40, 1 << 40, 0, 1})
	if got[2] != 0 || got[3] != 1 || got[0] < 2*got[1] {
		t.Errorf("fitInt32 = %v", got)
	}
	var sum int64
	for _, x := range got {
		sum += x
	}
	if sum > 1<<31-1 {
		t.Errorf("sum %d does not fit int32", sum)
	}
}
