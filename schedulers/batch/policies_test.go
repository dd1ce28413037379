package batch

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memsched/memsched/workloads/jobs"
)

// board is a Board with every quantity given: the nodes' t_k, loads,
// eviction penalties, and bounds below t_k (equal, or looser as with
// backfilling).
type board struct {
	now     int64
	job     jobs.Job
	start   []int64
	bound   []int64
	load    []float32
	evict   []float32
	full    float32
	running int
	cur     cursor
}

func (b *board) Now() int64                  { return b.now }
func (b *board) Nodes() int                  { return len(b.start) }
func (b *board) Job() *jobs.Job              { return &b.job }
func (b *board) Start(k int) int64           { return b.start[k] }
func (b *board) Load(k int, _ int64) float32 { return b.load[k] }
func (b *board) Evict(k int, _ int64) float32 {
	return b.evict[k]
}
func (b *board) RunningNodes() int  { return b.running }
func (b *board) HasFile(k int) bool { return b.load[k] != b.full }
func (b *board) FullLoad() float32  { return b.full }

// AscendFile walks the nodes with the file by bound, ties in reverse node
// order (the choice must not depend on it).
func (b *board) AscendFile() Cursor {
	c := &cursor{b: b}
	for k := range b.load {
		if b.HasFile(k) {
			c.order = append(c.order, k)
		}
	}
	slices.SortFunc(c.order, func(x, y int) int {
		if b.bound[x] != b.bound[y] {
			return int(b.bound[x] - b.bound[y])
		}
		return y - x
	})
	return c
}

// Ascend sorts every node of the range by (bound, node).
func (b *board) Ascend(lo, hi int) Cursor {
	b.cur = cursor{b: b}
	for k := lo; k < hi; k++ {
		b.cur.order = append(b.cur.order, k)
	}
	slices.SortFunc(b.cur.order, func(x, y int) int {
		if b.bound[x] != b.bound[y] {
			return int(b.bound[x] - b.bound[y])
		}
		return x - y
	})
	return &b.cur
}

type cursor struct {
	b     *board
	order []int
	i     int
	last  int64
}

func (c *cursor) Next() (int, int64, bool) {
	if c.i >= len(c.order) {
		return 0, 0, false
	}
	k := c.order[c.i]
	c.i++
	c.last = c.b.bound[k]
	return k, c.last, true
}

func (c *cursor) SkipGroup() {
	for c.i < len(c.order) && c.b.bound[c.order[c.i]] == c.last {
		c.i++
	}
}
func (c *cursor) Close() {}

// randomBoard draws a board with many ties (few distinct times) so the tie
// rules matter; loose makes the bounds fall below t_k.
func randomBoard(r *rand.Rand, loose bool) *board {
	n := 1 + r.IntN(40)
	now := int64(1_000_000 + r.IntN(1000))
	b := &board{now: now, job: jobs.Job{Cores: 1 + r.IntN(20)}, full: float32(64 * (1 + r.IntN(20)))}
	if r.IntN(5) == 0 {
		b.full = 0 // a job without a file
	}
	for k := 0; k < n; k++ {
		tk := now
		if r.IntN(3) > 0 {
			tk += int64(r.IntN(5)) * int64(1+r.IntN(3000))
		}
		b.start = append(b.start, tk)
		bound := tk
		if loose && r.IntN(2) == 0 {
			bound = max(now, tk-int64(r.IntN(5000)))
		}
		b.bound = append(b.bound, bound)
		load := b.full
		if b.full > 0 {
			switch r.IntN(4) {
			case 0:
				load = 0
			case 1:
				load = float32(r.IntN(int(b.full)))
			}
		}
		b.load = append(b.load, load)
		var ev float32
		if r.IntN(2) == 0 {
			ev = float32(r.IntN(4)) * 64 * float32(b.job.Cores) / 20
		}
		b.evict = append(b.evict, ev)
	}
	b.running = r.IntN(n + 1)
	return b
}

type scanner interface{ scan(Board) int }

func TestChooseEqualsReleaseScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []map[string]string{
		nil, {"w": "1"}, {"w": "0"}, {"sticky": "true"}, {"busy_threshold": "50"}, {"evict_weight": "3"},
	}
	for _, name := range Names() {
		for _, params := range cases {
			raw := map[string]string{}
			for k, v := range params {
				raw[k] = v
			}
			s, _, _, err := Build(name, raw)
			if err != nil {
				continue // a parameter this scheduler does not have
			}
			for i := 0; i < 3000; i++ {
				b := randomBoard(r, i%2 == 1)
				got, want := s.Choose(b), s.(scanner).scan(b)
				if got != want {
					t.Fatalf("%s %v board %d (loose %v): Choose %d, release scan %d\nstart %v\nbound %v\nload %v\nevict %v running %d",
						name, params, i, i%2 == 1, got, want, b.start, b.bound, b.load, b.evict, b.running)
				}
			}
		}
	}
}

// The thesis' examples, by hand: node 0 frees in 100 s and holds the file,
// node 1 is free now without it; loading takes 64 s.
func TestToyChoices(t *testing.T) {
	b := &board{now: 0, job: jobs.Job{Cores: 1}, full: 64,
		start: []int64{100, 0}, bound: []int64{100, 0}, load: []float32{0, 64}, evict: []float32{0, 0}, running: 2}
	for name, want := range map[string]int{
		"fcfs": 1, // starts now on node 1
		"eft":  1, // file available at 64 on node 1, at 100 on node 0
		"lea":  0, // 100 + 500×0 < 0 + 500×64
		"leo":  1, // node 1 can start now: EFT's score, 64 < 100
		"lem":  0, // every node runs a job: LEA
	} {
		s, _, _, err := Build(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Choose(b); got != want {
			t.Errorf("%s chooses node %d, want %d", name, got, want)
		}
	}
	// LEM with one node idle behaves as EFT.
	b.running = 1
	s, _, _, _ := Build("lem", nil)
	if got := s.Choose(b); got != 1 {
		t.Errorf("lem with an idle node chooses %d, want 1 (EFT)", got)
	}
	// Case 3: the file loads on node 0 until 150; starting there at 100 costs
	// 50 more seconds: EFT prefers node 1 (64), LEA node 0 (100 + 500×50 <
	// 500×64).
	b.load[0] = 50
	for name, want := range map[string]int{"eft": 1, "lea": 0} {
		s, _, _, _ := Build(name, nil)
		if got := s.Choose(b); got != want {
			t.Errorf("%s with the file loading chooses %d, want %d", name, got, want)
		}
	}
}

func TestRegistryErrors(t *testing.T) {
	if _, err := Lookup("laa"); err == nil || !strings.Contains(err.Error(), `did you mean "lea"`) {
		t.Errorf("Lookup(laa) = %v, want a suggestion of lea", err)
	}
	if _, _, _, err := Build("lea", map[string]string{"wieght": "3"}); err == nil || !strings.Contains(err.Error(), "parameters: backfill, w, evict_weight") {
		t.Errorf("Build(lea, wieght) = %v, want the parameter list", err)
	}
	if _, _, _, err := Build("lem", map[string]string{"busy_threshold": "200"}); err == nil {
		t.Error("a busy threshold of 200% is accepted")
	}
	s, _, p, err := Build("leo", map[string]string{"backfill": "true"})
	if err != nil || !s.Backfill() || DisplayName("leo", p) != "LEO-BF" {
		t.Errorf("leo backfill: %v, %v, %s", err, s.Backfill(), DisplayName("leo", p))
	}
}
