package workloads

import "fmt"

// Mode is how a task accesses one of its data, as StarPU's access modes:
// R reads it, W overwrites it without reading (only an allocation is
// needed on the worker), RW updates it. A write makes the worker's copy the
// only valid one: other copies are invalidated, and it is written back to
// main memory when evicted or at the end of the run (StarPU's MSI
// coherency, src/datawizard/coherency.c).
type Mode uint8

const (
	R  Mode = 1
	W  Mode = 2
	RW Mode = R | W
)

// Reads reports whether the access needs the data's current value.
func (m Mode) Reads() bool { return m&R != 0 }

// Writes reports whether the access produces a new value.
func (m Mode) Writes() bool { return m&W != 0 }

func (m Mode) String() string {
	switch m {
	case R:
		return "R"
	case W:
		return "W"
	case RW:
		return "RW"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// MarshalText writes R, W or RW.
func (m Mode) MarshalText() ([]byte, error) {
	if m != R && m != W && m != RW {
		return nil, fmt.Errorf("workloads: invalid access mode %d", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads R, W or RW.
func (m *Mode) UnmarshalText(b []byte) error {
	switch string(b) {
	case "R":
		*m = R
	case "W":
		*m = W
	case "RW":
		*m = RW
	default:
		return fmt.Errorf("access mode %q: use R, W or RW", b)
	}
	return nil
}
