// Package glibcrand is glibc's random() (and rand(), which shares its
// state): the additive feedback generator of stdlib/random_r.c with its
// default state of 31 words (TYPE_3, x³¹ + x³ + 1), seeded by srandom.
// StarPU's schedulers draw from it (dynamic_data_aware.c, HFP.c: rand()
// after srandom(SEED)), so a simulator that draws the same numbers in the
// same order makes the same random choices as a StarPU run.
package glibcrand

// Rand is one generator state: srandom(seed), then random() calls.
type Rand struct {
	r    [34]int32 // the last 34 outputs of the recurrence, a ring
	i    int       // index in r of the next word to write
	init bool
}

// New returns the state srandom(seed) leaves. Like glibc, seed 0 is
// seeded as 1.
func New(seed uint32) *Rand {
	g := &Rand{}
	g.Seed(seed)
	return g
}

// Seed is srandom(seed) (random_r.c __srandom_r): the words r[i] =
// 16807·r[i-1] mod (2³¹-1) by Schrage's method, then 310 outputs
// discarded.
func (g *Rand) Seed(seed uint32) {
	if seed == 0 {
		seed = 1
	}
	var w [34]int32
	w[0] = int32(seed)
	word := int32(seed)
	for i := 1; i < 31; i++ {
		hi, lo := word/127773, word%127773
		word = 16807*lo - 2836*hi
		if word < 0 {
			word += 2147483647
		}
		w[i] = word
	}
	for i := 31; i < 34; i++ {
		w[i] = w[i-31]
	}
	g.r, g.i, g.init = w, 0, true
	for range 310 {
		g.next()
	}
}

// next computes r[k] = r[k-31] + r[k-3] (mod 2³²) and returns it.
func (g *Rand) next() int32 {
	if !g.init {
		g.Seed(1)
	}
	// The ring holds r[k-34..k-1] at positions i..i+33 (mod 34).
	a := g.r[(g.i+3)%34]  // r[k-31]
	b := g.r[(g.i+31)%34] // r[k-3]
	v := int32(uint32(a) + uint32(b))
	g.r[g.i] = v
	g.i = (g.i + 1) % 34
	return v
}

// Int31 is random(): a number in [0, 2³¹).
func (g *Rand) Int31() int32 { return int32(uint32(g.next()) >> 1) }

// Mod is rand() % n for n > 0, as C computes it on the non-negative draw.
func (g *Rand) Mod(n int) int { return int(g.Int31()) % n }

// Skip discards n draws (random() calls made by someone else between two
// of ours, such as an application's).
func (g *Rand) Skip(n int) {
	for range n {
		g.next()
	}
}
