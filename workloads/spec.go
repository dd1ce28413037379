package workloads

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/memsched/memsched/internal/suggest"
)

// Kind names accepted by Generate.
const (
	KindMatmul2D    = "matmul2d"
	KindMatmul3D    = "matmul3d"
	KindCholesky    = "cholesky"
	KindLU          = "lu"
	KindSparse2D    = "sparse2d"
	KindRandomPairs = "randompairs"
)

// Order values accepted by Spec.Order.
const (
	OrderSubmission = "submission"
	OrderRandom     = "random"
)

// Defaults applied by Spec.WithDefaults.
const (
	DefaultTile = 960     // thesis §5: 960×960 fp32 tiles
	DefaultZ    = 4 * 960 // StarPU sgemm's default zdim: A block-rows of 4 tiles
	DefaultKeep = 0.1     // thesis Fig 3.20: "we randomly remove 90% of the tasks"
	floatBytes  = 4       // single precision everywhere in the papers
	maxDim      = 1 << 20 // bounds N, NZ, Tile, Z so sizes and counts fit in int64
	maxTasks    = 1 << 24 // refuse task sets that would exhaust memory
)

// Spec describes one workload instance. The zero values of Tile, Z, NZ and
// Keep select the defaults (see WithDefaults).
type Spec struct {
	Kind  string  // one of Kinds()
	N     int     // matrix size in tiles (2D: N block-rows of A and N block-columns of B)
	Tile  int     // tile edge in elements; default 960
	Z     int     // 2D kinds: inner dimension of a block-row/column in elements; default 3840 whatever Tile is
	NZ    int     // matmul3d: depth (inner dimension) in tiles; default N
	Order string  // "" or "submission": natural order; "random": seeded shuffle
	Keep  float64 // sparse2d: probability of keeping each task; default 0.1
	// Deps adds the sequential-task-flow dependencies of the kinds that
	// update data in place (matmul3d, cholesky, lu). The 2D kinds have an
	// empty DAG (each C tile is written once and C is not modelled) and
	// the application kinds always carry theirs, so Deps is refused there
	// (it would add nothing), as is every field a kind does not read
	// (Reads).
	Deps bool
	// WriteC (2D kinds) adds each task's C tile, written in mode W and
	// discarded after the task (scratch), as the sgemm codelet of the IPDPS
	// 2022 random-order runs did.
	WriteC bool `json:",omitempty"`
	// NoScratch (2D kinds) leaves out the C tile that StarPU's xgemm.c
	// holds on every GPU for its 2D products without WriteC
	// (Workload.DeviceBytes), as before StarPU 4a55ab954 (April 2021).
	NoScratch bool   `json:",omitempty"`
	Seed      uint64 // seeds every random choice (order, sparse mask, random pairs)
	// Opts are the named options of the application kinds (KindOptions),
	// as "name=value,..." sorted by name (FormatOpts), so a Spec stays a
	// comparable value; absent ones take their defaults.
	Opts string `json:",omitempty"`
}

// Kinds lists the workload kinds Generate knows, in a stable order.
func Kinds() []string {
	return []string{KindMatmul2D, KindMatmul3D, KindCholesky, KindLU, KindSparse2D, KindRandomPairs,
		KindTree, KindFMM, KindQRMumps, KindSpLDLT, KindStencil}
}

// WithDefaults returns s with zero Tile, Z, NZ and Keep replaced by their
// defaults. Invalid (e.g. negative) values are left for Generate to report.
func (s Spec) WithDefaults() Spec {
	if s.Tile == 0 {
		s.Tile = DefaultTile
	}
	if s.Z == 0 {
		s.Z = DefaultZ
	}
	if s.NZ == 0 {
		s.NZ = s.N
	}
	if s.Keep == 0 {
		s.Keep = DefaultKeep
	}
	return s
}

// check reports the first problem of a defaulted spec.
func (s Spec) check() error {
	if s.Kind == "" {
		return fmt.Errorf("workloads: Spec.Kind is empty; set it to one of %s", strings.Join(Kinds(), ", "))
	}
	if !isKind(s.Kind) {
		return fmt.Errorf("workloads: unknown kind %q%s; valid kinds: %s",
			s.Kind, suggest.Closest(s.Kind, Kinds()), strings.Join(Kinds(), ", "))
	}
	if s.N < 1 || s.N > maxDim {
		return fmt.Errorf("workloads: %s: Spec.N = %d is out of range; N is the matrix size in tiles and must be in [1, %d]", s.Kind, s.N, maxDim)
	}
	if s.Tile < 1 || s.Tile > maxDim {
		return fmt.Errorf("workloads: %s: Spec.Tile = %d is out of range; use a tile edge in [1, %d] elements (0 selects %d)", s.Kind, s.Tile, maxDim, DefaultTile)
	}
	if s.Z < 1 || s.Z > maxDim {
		return fmt.Errorf("workloads: %s: Spec.Z = %d is out of range; use an inner dimension in [1, %d] elements (0 selects %d)", s.Kind, s.Z, maxDim, DefaultZ)
	}
	if s.NZ < 1 || s.NZ > maxDim {
		return fmt.Errorf("workloads: %s: Spec.NZ = %d is out of range; use a depth in [1, %d] tiles (0 selects N)", s.Kind, s.NZ, maxDim)
	}
	if !(s.Keep > 0 && s.Keep <= 1) { // also rejects NaN
		return fmt.Errorf("workloads: %s: Spec.Keep = %v is outside (0,1]; it is the probability that sparse2d keeps each task (0 selects %v)", s.Kind, s.Keep, DefaultKeep)
	}
	switch s.Order {
	case "", OrderSubmission, OrderRandom:
	default:
		return fmt.Errorf("workloads: %s: unknown Spec.Order %q%s; use \"\" or %q (natural order) or %q (seeded shuffle)",
			s.Kind, s.Order, suggest.Closest(s.Order, []string{OrderSubmission, OrderRandom}), OrderSubmission, OrderRandom)
	}
	if s.NoScratch && !is2D(s.Kind) {
		return fmt.Errorf("workloads: %s: Spec.NoScratch applies to the 2D kinds (matmul2d, sparse2d, randompairs), whose xgemm.c holds a C tile on every GPU", s.Kind)
	}
	if s.WriteC && !is2D(s.Kind) {
		return fmt.Errorf("workloads: %s: Spec.WriteC applies to the 2D kinds (matmul2d, sparse2d, randompairs); the other kinds update their tiles with Deps", s.Kind)
	}
	// A field the kind does not read would be ignored, yet enter the
	// workload's name, the run's key and its seed. Defaults are allowed
	// (WithDefaults fills them for every kind).
	for _, f := range []struct {
		name  string
		given bool
	}{
		{FieldTile, s.Tile != DefaultTile}, {FieldZ, s.Z != DefaultZ}, {FieldNZ, s.NZ != s.N},
		{FieldKeep, s.Keep != DefaultKeep}, {FieldDeps, s.Deps},
	} {
		if f.given && !Reads(s.Kind, f.name) {
			return fmt.Errorf("workloads: %s does not read %s (only %s do); leave it out", s.Kind, f.name, strings.Join(KindsReading(f.name), ", "))
		}
	}
	if err := s.checkOpts(); err != nil {
		return err
	}
	if n := s.taskCount(); n > maxTasks {
		return fmt.Errorf("workloads: %s with N=%d would have %d tasks, above the limit of %d; reduce N", s.Kind, s.N, n, maxTasks)
	}
	return nil
}

// The generator inputs of a Spec that only some kinds read, named as
// suites write them ([workload] keys; the command line's flags are the
// same with '-' for '_', and opt for opts). Kind, n, order and seed apply
// to every kind.
const (
	FieldTile   = "tile"
	FieldZ      = "z"
	FieldNZ     = "nz"
	FieldKeep   = "keep"
	FieldDeps   = "deps"
	FieldWriteC = "write_c"
	FieldNoC    = "c_scratch" // Spec.NoScratch
	FieldOpts   = "opts"
)

// fieldKinds lists, per field, the kinds whose generators read it: the
// one declaration behind Spec checks, suites and the command line. The
// 2D kinds have an empty DAG (Deps adds nothing), the application kinds
// always carry their dependencies, and tree, fmm, spldlt and stencil size
// their data otherwise than by tile.
var fieldKinds = map[string][]string{
	FieldTile:   {KindMatmul2D, KindMatmul3D, KindCholesky, KindLU, KindSparse2D, KindRandomPairs, KindQRMumps},
	FieldZ:      {KindMatmul2D, KindSparse2D, KindRandomPairs},
	FieldNZ:     {KindMatmul3D},
	FieldKeep:   {KindSparse2D},
	FieldDeps:   {KindMatmul3D, KindCholesky, KindLU},
	FieldWriteC: {KindMatmul2D, KindSparse2D, KindRandomPairs},
	FieldNoC:    {KindMatmul2D, KindSparse2D, KindRandomPairs},
	FieldOpts:   {KindTree, KindFMM, KindQRMumps, KindSpLDLT, KindStencil},
}

// Reads reports whether kind's generator reads field (a Field constant;
// other names, such as n, order and seed, apply to every kind).
func Reads(kind, field string) bool {
	kinds, ok := fieldKinds[field]
	return !ok || slices.Contains(kinds, kind)
}

// KindsReading lists the kinds that read field (every kind for n, order
// and seed).
func KindsReading(field string) []string {
	if kinds, ok := fieldKinds[field]; ok {
		return kinds
	}
	return Kinds()
}

// CheckGiven refuses the fields given explicitly (by a suite or on the
// command line, even at their zero value) that kind does not read: they
// would be ignored. name spells a field as the caller's user wrote it
// (e.g. "--nz"); the error names the first such field.
func CheckGiven(kind string, given []string, name func(field string) string) error {
	if !isKind(kind) {
		return nil // reported as an unknown kind
	}
	for _, f := range given {
		if !Reads(kind, f) {
			return fmt.Errorf("%s applies only to workload kind %s, not to %s: remove it", name(f), orList(KindsReading(f)), kind)
		}
	}
	return nil
}

func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

func isKind(k string) bool {
	for _, v := range Kinds() {
		if v == k {
			return true
		}
	}
	return false
}

// taskCount is the nominal number of tasks (before sparse selection).
// N and NZ are at most 2^20, so every product fits in int64.
func (s Spec) taskCount() int64 {
	n := int64(s.N)
	switch s.Kind {
	case KindMatmul3D:
		return n * n * int64(s.NZ)
	case KindCholesky:
		return n + n*(n-1) + n*(n-1)*(n-2)/6
	case KindLU:
		return n + n*(n-1) + (n-1)*n*(2*n-1)/6
	default:
		return n * n
	}
}

// name builds a readable, unique-enough name: kind, size, then only the
// options that differ from the defaults, and the seed when it matters.
func (s Spec) Name() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s-n%d", s.Kind, s.N)
	if s.Kind == KindMatmul3D && s.NZ != s.N {
		fmt.Fprintf(&b, "-nz%d", s.NZ)
	}
	if s.Tile != DefaultTile {
		fmt.Fprintf(&b, "-t%d", s.Tile)
	}
	if is2D(s.Kind) && s.Z != DefaultZ {
		fmt.Fprintf(&b, "-z%d", s.Z)
	}
	if s.Kind == KindSparse2D {
		fmt.Fprintf(&b, "-keep%g", s.Keep)
	}
	for _, o := range kindOptions[s.Kind] {
		if v, ok := s.optValues()[o.Name]; ok && v != o.Default {
			fmt.Fprintf(&b, "-%s%g", o.Name, v)
		}
	}
	if s.Deps && hasDAG(s.Kind) {
		b.WriteString("-deps")
	}
	if s.WriteC {
		b.WriteString("-c")
	}
	if s.NoScratch && !s.WriteC {
		b.WriteString("-noscratch")
	}
	if s.Order == OrderRandom {
		b.WriteString("-random")
	}
	if s.Order == OrderRandom || s.Kind == KindSparse2D || s.Kind == KindRandomPairs {
		fmt.Fprintf(&b, "-s%d", s.Seed)
	}
	return b.String()
}

func is2D(kind string) bool {
	return kind == KindMatmul2D || kind == KindSparse2D || kind == KindRandomPairs
}

func hasDAG(kind string) bool {
	return kind == KindMatmul3D || kind == KindCholesky || kind == KindLU
}

// Separate PCG streams per purpose, so that e.g. the sparse mask does not
// change when Order changes for the same seed.
const (
	streamOrder  = 0x6f72646572 // "order"
	streamSparse = 0x737061727365
	streamPairs  = 0x7061697273
)

func (s Spec) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.Seed, stream))
}
