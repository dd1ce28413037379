package linkshare

import (
	"math"
	"math/bits"
	"slices"
)

// pathSet identifies the set of active paths: rates depend on it alone.
type pathSet [4]uint64

// rates shares link bandwidth among the active flows with max-min fairness
// (progressive filling). The rates are a function of the set of active
// paths only (at most one flow per path, flows of a path share its rate
// whatever their order), so they are computed once per set and memoised:
// every set of paths below 64 (4 GPUs: a run cycles through a few dozen),
// and the last sets per slot of a direct-mapped cache for the others (8
// GPUs copying peer to peer: tens of thousands of sets a run, a fifth of
// them seen again, nearly all soon after; a map of them all grew to tens
// of thousands of entries for as many hits).
func (n *Network[P]) rates() {
	k := len(n.flows)
	if k == 0 || n.instant {
		return
	}
	var key pathSet
	memo := true
	for _, f := range n.flows {
		if f.path >= 64*len(key) || key[f.path/64]&(1<<(f.path%64)) != 0 {
			memo = false // more paths than the key holds
			break
		}
		key[f.path/64] |= 1 << (f.path % 64)
	}
	small := key[1]|key[2]|key[3] == 0 // every path below 64: a cheaper key
	var big *bigEntry
	if memo {
		var r []float64
		if small {
			r = n.lookup64(key[0])
		} else {
			if n.big == nil {
				n.big = new([1 << 10]bigEntry)
			}
			big = &n.big[key.slot()]
			if big.key == key { // an empty slot's key has no path from 64 on
				r = big.rates
			}
		}
		if r != nil {
			if small {
				for _, f := range n.flows {
					f.rate = r[bits.OnesCount64(key[0]&(1<<f.path-1))] // rank, paths below 64
				}
				return
			}
			for _, f := range n.flows {
				f.rate = r[key.rank(f.path)]
			}
			return
		}
	}
	n.fairShare()
	if memo {
		var r []float64
		if small {
			r = make([]float64, k)
		} else {
			r = slices.Grow(big.rates[:0], k)[:k] // the slot's last rates are not needed again
		}
		for _, f := range n.flows {
			r[key.rank(f.path)] = f.rate
		}
		if small {
			n.memo64[key[0]] = r
			n.cache[memoSlot(key[0])] = memoEntry{key[0], r}
		} else {
			*big = bigEntry{key, r}
		}
	}
}

// bigEntry is a slot of Network.big.
type bigEntry struct {
	key   pathSet
	rates []float64
}

// slot is the set's slot in Network.big.
func (k *pathSet) slot() int {
	h := k[0]*0x9e3779b97f4a7c15 ^ k[1]*0xbf58476d1ce4e5b9 ^ k[2]*0x94d049bb133111eb ^ k[3]
	return int(h >> (64 - 10))
}

// memoEntry is a slot of the direct-mapped cache in front of memo64: a
// run cycles through a few dozen sets of paths, and a map lookup per copy
// started or ended was a tenth of EAGER's run time.
type memoEntry struct {
	key   uint64
	rates []float64
}

func memoSlot(key uint64) int { return int((key * 0x9e3779b97f4a7c15) >> (64 - 10)) }

// lookup64 is the memoised rates of a set of paths below 64, nil if
// unknown.
func (n *Network[P]) lookup64(key uint64) []float64 {
	s := &n.cache[memoSlot(key)]
	if s.rates != nil && s.key == key {
		return s.rates
	}
	r := n.memo64[key]
	if r != nil {
		*s = memoEntry{key, r}
	}
	return r
}

// rank is the number of paths of the set below p.
func (k *pathSet) rank(p int) int {
	r := 0
	for i := 0; i < p/64; i++ {
		r += bits.OnesCount64(k[i])
	}
	return r + bits.OnesCount64(k[p/64]&(1<<(p%64)-1))
}

// fairScratch is fairShare's space, kept between calls.
type fairScratch struct {
	capLeft []float64 // per link, its capacity not yet given
	users   []int     // per link, its flows not yet fixed
	weights []float64 // per link, the sum of their weights
	share   []float64 // per link, capLeft over weights (the rate of a flow of weight 1), when not stale
	stale   []bool
	fixed   []bool // per flow
	active  []int  // the links with flows to fix, in index order
	onLink  []int  // the flows of each link in flow order: link l's are onLink[start[l]:start[l+1]]
	start   []int
}

// fairShare computes the max-min fair rates of the active flows, weighted
// by their weight (Start; all 1 without latencies), as SimGrid's
// lmm::MaxMin::maxmin_solve does. Each round scans only the links that still carry a
// flow to fix, in index order (on 8 GPUs with NVLink, about a dozen of
// 46), recomputes the share of those the last round changed only, and
// fixes the flows of the bottleneck from its own list, so it picks the
// same link, with the same share, as dividing anew on every link: the
// first of the smallest share.
func (n *Network[P]) fairShare() {
	s := &n.fair
	k, nl := len(n.flows), len(n.capacity)
	if cap(s.capLeft) < nl {
		s.capLeft, s.users, s.weights = make([]float64, nl), make([]int, nl), make([]float64, nl)
		s.share, s.stale = make([]float64, nl), make([]bool, nl)
		s.start = make([]int, nl+1)
	}
	capLeft, users, weights, share, stale := s.capLeft[:nl], s.users[:nl], s.weights[:nl], s.share[:nl], s.stale[:nl]
	clear(users)
	clear(weights)
	if cap(s.fixed) < k {
		s.fixed = make([]bool, k)
	}
	fixed := s.fixed[:k]
	clear(fixed)
	uses := 0 // (flow, link) pairs
	for _, f := range n.flows {
		for _, l := range f.links {
			users[l]++
			weights[l] += f.weight
		}
		uses += len(f.links)
	}
	start, active := s.start[:nl+1], s.active[:0]
	at := 0
	for l := range users {
		start[l] = at
		if users[l] > 0 {
			active = append(active, l)
			capLeft[l] = n.capacity[l]
			stale[l] = true
			at += users[l]
		}
	}
	start[nl] = at
	onLink := slices.Grow(s.onLink[:0], uses)[:uses]
	for i, f := range n.flows {
		for _, l := range f.links {
			onLink[start[l]] = i
			start[l]++
		}
	}
	for l := nl - 1; l >= 0; l-- { // each start moved to the next list's: back
		start[l+1] = start[l]
	}
	start[0] = 0
	for left := k; left > 0; {
		// The most constrained link fixes the rate of its flows; the
		// links left without flows to fix leave the scan.
		bl, least := -1, math.Inf(1)
		j := 0
		for _, l := range active {
			if users[l] == 0 {
				continue
			}
			active[j] = l
			j++
			if stale[l] {
				share[l], stale[l] = capLeft[l]/weights[l], false
			}
			if share[l] < least {
				bl, least = l, share[l]
			}
		}
		active = active[:j]
		for _, i := range onLink[start[bl]:start[bl+1]] {
			if fixed[i] {
				continue
			}
			f := n.flows[i]
			f.rate = least * f.weight
			fixed[i] = true
			left--
			for _, l := range f.links {
				capLeft[l] -= f.rate
				users[l]--
				weights[l] -= f.weight
				stale[l] = true
			}
		}
	}
	s.active, s.onLink = active, onLink
}
