package heteroprio

// The data-locality affinity formulas of PeerJ 2019 (Eqs. 6-9), on a
// task's data and where they are. They are the paper's definitions; StarPU's
// get_best_mem_node computes the same two formulas under swapped labels
// (its PUSH_LC_SMWB branch is the paper's LS_SDHB and its PUSH_LS_SDHB
// branch the paper's LC_SMWB), which matters only for naming.

// DLAF names a push formula.
type DLAF string

const (
	LaRU     DLAF = "laru"      // the pushing worker's node ("last recently used")
	MCStarPU DLAF = "mc_starpu" // least expected transfer time (starpu_task_expected_data_transfer_time_for)
	LSSDH    DLAF = "ls_sdh"    // Eq. 6: bytes already on the node
	LSSDH2   DLAF = "ls_sdh2"   // Eq. 7: read bytes + squared written bytes, per datum
	LSSDHB   DLAF = "ls_sdhb"   // Eq. 8: read bytes + θ × |written data| × written bytes
	LCSMWB   DLAF = "lc_smwb"   // Eq. 9: missing read bytes + missing written bytes × (2 − Nw/N)
)

// autoCandidates are the formulas the automatic selection compares, in
// StarPU's enum order (PUSH_LS_SDH, PUSH_LS_SDH2, PUSH_LS_SDHB, PUSH_LC_SMWB
// with the labels swapped back to the paper's), which decides ties: the
// later one wins (heteroprio.c pop_task_heteroprio_policy, ">=").
var autoCandidates = []DLAF{LSSDH, LSSDH2, LCSMWB, LSSDHB}

// access is one datum of a task as the formulas see it.
type access struct {
	size  float64
	write bool   // written (W or RW: "we consider equivalent the read-write and the write accesses")
	on    []bool // per node: a valid or requested copy is there (starpu_data_is_on_node)
}

func everywhere(a access) bool {
	for _, on := range a.on {
		if !on {
			return false
		}
	}
	return true
}

// scores evaluates a locality formula on every node. maximize says whether
// a higher value is better (a locality score, LS) or a lower one (a locality
// cost, LC). ignore drops the data present on every node. The scores and
// the sums they need are cut from buf (4 values per node: no allocation at
// every push), or allocated when buf is too short.
func scores(f DLAF, acc []access, nodes int, theta float64, ignore bool, buf []float64) (s []float64, maximize bool) {
	if len(buf) < 4*nodes {
		buf = make([]float64, 4*nodes)
	}
	buf = buf[:4*nodes]
	clear(buf)
	s = buf[:nodes]
	var n, nw int
	for _, a := range acc {
		if ignore && everywhere(a) {
			continue
		}
		n++
		if a.write {
			nw++
		}
	}
	switch f {
	case LSSDH, LSSDH2:
		for _, a := range acc {
			if ignore && everywhere(a) {
				continue
			}
			v := a.size
			if f == LSSDH2 && a.write {
				v = a.size * a.size
			}
			for m, on := range a.on {
				if on {
					s[m] += v
				}
			}
		}
		return s, true
	case LSSDHB:
		read, wBytes, wCount := buf[nodes:2*nodes], buf[2*nodes:3*nodes], buf[3*nodes:]
		for _, a := range acc {
			if ignore && everywhere(a) {
				continue
			}
			for m, on := range a.on {
				switch {
				case !on:
				case a.write:
					wBytes[m] += a.size
					wCount[m]++
				default:
					read[m] += a.size
				}
			}
		}
		for m := range s {
			s[m] = read[m] + theta*wCount[m]*wBytes[m]
		}
		return s, true
	case LCSMWB:
		coef := 2.0
		if n > 0 {
			coef = 2 - float64(nw)/float64(n)
		}
		for _, a := range acc {
			if ignore && everywhere(a) {
				continue
			}
			for m, on := range a.on {
				if on {
					continue
				}
				if a.write {
					s[m] += a.size * coef
				} else {
					s[m] += a.size
				}
			}
		}
		return s, false
	}
	panic("heteroprio: scores of " + string(f))
}

// best picks the winning node: the highest score (lowest cost); among
// equals, the pushing worker's node when it is one of them, else the first
// in StarPU's node order (heteroprio.c get_best_mem_node: ">" then
// "== && idx_node == wgroupid"). The scores are in StarPU's node order
// (the groups' order); pusher is -1 when none is preferred.
func best(s []float64, maximize bool, pusher int) int {
	win := -1
	for m := range s {
		switch {
		case win < 0:
			win = m
		case maximize && s[m] > s[win], !maximize && s[m] < s[win]:
			win = m
		case s[m] == s[win] && m == pusher:
			win = m
		}
	}
	return win
}

// ties lists every node with the winning value, for tests and the paper's
// bracketed winners (Table 1).
func ties(s []float64, maximize bool) []int {
	var out []int
	for m, v := range s {
		if len(out) == 0 || (maximize && v > s[out[0]]) || (!maximize && v < s[out[0]]) {
			out = []int{m}
		} else if v == s[out[0]] {
			out = append(out, m)
		}
	}
	return out
}
