package hypergraph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// BuiltinName labels results of Partition, the native partitioner.
const BuiltinName = "builtin-multilevel"

// ErrNoExternal is returned by External when no usable external
// partitioner is on PATH.
var ErrNoExternal = errors.New("hypergraph: no external partitioner (hmetis, shmetis, khmetis, KaHyPar) on PATH")

// externalTools lists the partitioners External looks for, in order of
// preference: hmetis first because it is the tool, and the
// recursive-bisection semantics, that the paper used (thesis §3.6).
var externalTools = []string{"hmetis", "shmetis", "khmetis", "KaHyPar"}

// KaHyParPresetEnv names the environment variable holding the KaHyPar
// preset (.ini) file; KaHyPar cannot run without one, so it is skipped
// when the variable is unset.
const KaHyParPresetEnv = "KAHYPAR_PRESET"

// External partitions h with the first of hmetis, shmetis, khmetis and
// KaHyPar found on PATH and returns the partition and the tool's name. It writes h in hMETIS 1.5
// format to a temporary directory, runs the tool there and reads the
// partition file back. hMETIS gets UBfactor (rounded, at least 1), Nruns,
// Vcycle (0 for NoVCycle) and defaults for the rest (CType 1, RType 1,
// Reconst 0; khmetis OType 2, the sum of external degrees, which is the
// closest of its objectives to connectivity−1). hMETIS 1.5 takes no seed,
// so opt.Seed reaches KaHyPar only; KaHyPar minimises km1 (connectivity−1)
// with the imbalance that recursive bisection with opt.UBFactor allows.
// It returns an error wrapping ErrNoExternal when no tool is usable.
func External(h *Hypergraph, opt Options) (parts []int, tool string, err error) {
	if err := h.Validate(); err != nil {
		return nil, "", err
	}
	opt, err = opt.withDefaults()
	if err != nil {
		return nil, "", err
	}
	if opt.Parts > h.NumVertices() {
		return nil, "", fmt.Errorf("hypergraph: cannot split %d vertices into %d non-empty parts", h.NumVertices(), opt.Parts)
	}
	tool, path, err := findExternal()
	if err != nil {
		return nil, "", err
	}
	if opt.Parts == 1 {
		return make([]int, h.NumVertices()), tool, nil
	}
	dir, err := os.MkdirTemp("", "memsched-hgr-")
	if err != nil {
		return nil, tool, fmt.Errorf("hypergraph: %s: %w", tool, err)
	}
	defer os.RemoveAll(dir)
	const file = "tasks.hgr"
	if err := writeHMetisFile(filepath.Join(dir, file), h); err != nil {
		return nil, tool, fmt.Errorf("hypergraph: %s: %w", tool, err)
	}
	k := strconv.Itoa(opt.Parts)
	ub := strconv.Itoa(min(49, max(1, int(math.Round(opt.UBFactor)))))
	runs := strconv.Itoa(opt.Runs)
	vcycle := strconv.Itoa(max(0, opt.VCycles))
	var args []string
	switch tool {
	case "hmetis":
		args = []string{file, k, ub, runs, "1", "1", vcycle, "0", "0"}
	case "shmetis":
		args = []string{file, k, ub}
	case "khmetis":
		args = []string{file, k, ub, runs, "1", "2", vcycle, "0"}
	case "KaHyPar":
		args = []string{"-h", file, "-k", k, "-e", strconv.FormatFloat(kahyparEpsilon(opt), 'f', 6, 64),
			"-o", "km1", "-m", "direct", "-p", os.Getenv(KaHyParPresetEnv),
			"--seed", strconv.FormatUint(opt.Seed%math.MaxInt32, 10), "-w", "true"}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, tool, fmt.Errorf("hypergraph: %s %s: %w\n%s", tool, strings.Join(args, " "), err, tail(out, 2000))
	}
	result := filepath.Join(dir, file+".part."+k)
	if tool == "KaHyPar" {
		// KaHyPar names its output after k, epsilon and seed.
		m, _ := filepath.Glob(filepath.Join(dir, file+".part"+k+".*KaHyPar"))
		if len(m) != 1 {
			return nil, tool, fmt.Errorf("hypergraph: KaHyPar wrote %d partition files, want 1\n%s", len(m), tail(out, 2000))
		}
		result = m[0]
	}
	f, err := os.Open(result)
	if err != nil {
		return nil, tool, fmt.Errorf("hypergraph: %s wrote no partition: %w\n%s", tool, err, tail(out, 2000))
	}
	defer f.Close()
	parts, err = readPartition(f, h.NumVertices(), opt.Parts)
	if err != nil {
		return nil, tool, fmt.Errorf("hypergraph: %s: %w", tool, err)
	}
	return parts, tool, nil
}

// Best runs External when preferExternal is set and a tool is installed,
// and Partition otherwise; tool names what ran (BuiltinName for the
// native partitioner) so that results can be labelled "hMETIS" only when
// hMETIS ran. An external tool that is found but fails is an error, not a
// silent fallback.
func Best(h *Hypergraph, opt Options, preferExternal bool) (parts []int, tool string, err error) {
	if preferExternal {
		parts, tool, err = External(h, opt)
		if !errors.Is(err, ErrNoExternal) {
			return parts, tool, err
		}
	}
	parts, err = Partition(h, opt)
	return parts, BuiltinName, err
}

func findExternal() (tool, path string, err error) {
	skipped := ""
	for _, name := range externalTools {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if name == "KaHyPar" && os.Getenv(KaHyParPresetEnv) == "" {
			skipped = fmt.Sprintf(" (KaHyPar found but %s is unset)", KaHyParPresetEnv)
			continue
		}
		return name, p, nil
	}
	return "", "", fmt.Errorf("%w%s", ErrNoExternal, skipped)
}

// kahyparEpsilon is the k-way imbalance that recursive bisection with
// UBfactor b allows: each of the ⌈log2 K⌉ levels may add a factor 1+2b/100.
func kahyparEpsilon(opt Options) float64 {
	levels := math.Ceil(math.Log2(float64(opt.Parts)))
	return math.Pow(1+2*opt.UBFactor/100, levels) - 1
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// writeHMetisFile writes h in hMETIS 1.5 format with fmt 11 (edge and
// vertex weights): a header "E V 11", one line per edge with its weight
// then its 1-based pins, then one vertex weight per line. Duplicate pins
// are merged and edges with fewer than two pins or zero weight are left
// out (they cannot be cut). hMETIS adds weights in 32-bit ints, so both
// kinds of weights are divided by their gcd and, if their sum still
// exceeds 2^31−1, scaled down proportionally (at least 1 each).
func writeHMetisFile(path string, h *Hypergraph) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeHMetis(f, h); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeHMetis(w io.Writer, h *Hypergraph) error {
	n := h.NumVertices()
	var edges [][]int
	var ew []int64
	seen := make([]int, n)
	for i := range seen {
		seen[i] = -1
	}
	for e, pins := range h.Edges {
		if h.edgeWeight(e) == 0 {
			continue
		}
		var ps []int
		for _, p := range pins {
			if seen[p] != e {
				seen[p] = e
				ps = append(ps, p)
			}
		}
		if len(ps) < 2 {
			continue
		}
		edges = append(edges, ps)
		ew = append(ew, h.edgeWeight(e))
	}
	ew = fitInt32(ew)
	vw := fitInt32(h.VertexWeight)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d %d 11\n", len(edges), n)
	for i, ps := range edges {
		bw.WriteString(strconv.FormatInt(ew[i], 10))
		for _, p := range ps {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(p + 1))
		}
		bw.WriteByte('\n')
	}
	for _, x := range vw {
		bw.WriteString(strconv.FormatInt(x, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// fitInt32 divides weights by their gcd and, if their sum is still above
// 2^31−1, scales them down, keeping positive weights at least 1.
func fitInt32(ws []int64) []int64 {
	var g int64
	for _, x := range ws {
		g = gcd(g, x)
	}
	out := make([]int64, len(ws))
	var sum float64
	for i, x := range ws {
		if g > 0 {
			x /= g
		}
		out[i] = x
		sum += float64(x)
	}
	if sum <= math.MaxInt32 {
		return out
	}
	// Leave room for the weights rounded up to 1.
	scale := float64(math.MaxInt32-len(ws)) / sum
	for i, x := range out {
		if x > 0 {
			out[i] = max(1, int64(float64(x)*scale))
		}
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// readPartition reads an hMETIS partition file: one 0-based part per line
// for each of the n vertices.
func readPartition(r io.Reader, n, k int) ([]int, error) {
	parts := make([]int, 0, n)
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		p, err := strconv.Atoi(s)
		if err != nil || p < 0 || p >= k {
			return nil, fmt.Errorf("partition line %d: %q is not a part in [0,%d)", line, s, k)
		}
		if len(parts) == n {
			return nil, fmt.Errorf("partition has more than %d entries", n)
		}
		parts = append(parts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(parts) != n {
		return nil, fmt.Errorf("partition has %d entries for %d vertices", len(parts), n)
	}
	return parts, nil
}
