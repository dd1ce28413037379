package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figures of the CPU+GPU papers are bar charts over configurations
// (suite report styles, see suite.Styles):
//   - makespan-bars (COMPAS 2022 Fig. 3): per problem size, the makespan of
//     each scheduler per (CPUs, GPUs) configuration, with the critical-path
//     length ("the minimum achievable makespan") as a black mark;
//   - locality-coefficient (PeerJ 2019 Fig. 5): per (l_CPU, l_GPU) pair, the
//     SFA over every formula and the SFM of the formula best on average
//     (bars), and the SFM over all formulas (line);
//   - dlaf-details (PeerJ 2019 Figs. 6-8): per GPU count, each formula's
//     SFA and SFM (one figure each), the mean total transfer, and the mean
//     BMD.

// writeStyled draws a suite's bar charts; it returns the files written.
func writeStyled(set *Set, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var figs map[string]*fig
	var err error
	switch set.Suite.Report.Style {
	case "makespan-bars":
		figs, err = makespanBars(set)
	case "locality-coefficient":
		figs, err = localityFigure(set)
	case "dlaf-details":
		figs, err = dlafFigures(set)
	default:
		return nil, fmt.Errorf("unknown figure style %q", set.Suite.Report.Style)
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(figs))
	for n := range figs {
		names = append(names, n)
	}
	sort.Strings(names)
	var files []string
	for _, n := range names {
		base := filepath.Join(dir, n)
		for _, ext := range set.formats() {
			if err := figs[n].save(base + ext); err != nil {
				return nil, fmt.Errorf("writing %s: %w", base+ext, err)
			}
			files = append(files, base+ext)
		}
	}
	return files, nil
}

// bars is a grouped bar chart: one group per x label, one bar per series.
type bars struct {
	title, ylabel string
	groups        []string
	series        []string
	vals          [][]float64 // [series][group]; NaN: no bar
	colors        []int       // palette index per series (nil: its position), so a label keeps its colour across a suite's figures
}

func (b bars) draw() (*fig, error) {
	p := plot.New()
	f := &fig{p: p, leg: plot.NewLegend()}
	f.leg.TextStyle.Font.Size = vg.Points(9)
	p.Title.Text = b.title
	p.Y.Label.Text = b.ylabel
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	n := len(b.series)
	ymax := 0.0
	for _, row := range b.vals {
		for _, v := range row {
			if !math.IsNaN(v) {
				ymax = math.Max(ymax, v)
			}
		}
	}
	width := vg.Points(math.Max(3, math.Min(18, 300/float64(max(1, n*len(b.groups))))))
	for i, s := range b.series {
		v := make(plotter.Values, len(b.groups))
		for g := range b.groups {
			v[g] = b.vals[i][g]
			if math.IsNaN(v[g]) {
				v[g] = 0
			}
		}
		bc, err := plotter.NewBarChart(v, width)
		if err != nil {
			return nil, err
		}
		c := i
		if b.colors != nil {
			c = b.colors[i]
		}
		bc.Color = labelColor(c)
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(float64(i)-float64(n-1)/2) * width
		p.Add(bc)
		f.add(s, bc)
	}
	p.NominalX(b.groups...)
	p.Y.Min = 0
	if ymax > 0 {
		p.Y.Max = ymax * 1.08
	}
	return f, nil
}

// marks adds one glyph per group (at x offset from its centre), joined by
// a dashed line when line is set.
func marks(f *fig, name string, vals []float64, shape draw.GlyphDrawer, offset float64, line bool) error {
	var xys plotter.XYs
	for g, v := range vals {
		if !math.IsNaN(v) {
			xys = append(xys, plotter.XY{X: float64(g) + offset, Y: v})
		}
	}
	if len(xys) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = shape, black, vg.Points(3)
	if line {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Dashes, l.Color = dashed, black
		f.p.Add(l, s)
		f.add(name, l, s)
		return nil
	}
	f.p.Add(s)
	f.add(name, s)
	return nil
}

func configName(p *Point) string {
	gpus := fmt.Sprintf("%d GPUs", p.GPUs)
	if p.GPUs == 1 {
		gpus = "1 GPU"
	}
	if c, ok := p.Coords["cpus"]; ok {
		return fmt.Sprintf("%s CPUs + %s", fmtCoord(c), gpus)
	}
	return gpus
}

// makespanBars is COMPAS 2022 Fig. 3, one figure per problem size.
func makespanBars(set *Set) (map[string]*fig, error) {
	bySize := map[int][]*Point{}
	for _, p := range set.Points {
		bySize[p.N] = append(bySize[p.N], p)
	}
	out := map[string]*fig{}
	for n, pts := range bySize {
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].GPUs < pts[j].GPUs })
		b := bars{title: fmt.Sprintf("%s, n = %d", set.Title, n), ylabel: "makespan (Table 2 cost units)", series: set.Labels}
		cp := make([]float64, len(pts))
		for g, p := range pts {
			b.groups = append(b.groups, configName(p))
			var err error
			if cp[g], err = criticalPath(set.Suite, p); err != nil {
				return nil, err
			}
		}
		for _, l := range set.Labels {
			row := make([]float64, len(pts))
			for g, p := range pts {
				row[g] = cellMean(set, l, p, mk)
			}
			b.vals = append(b.vals, row)
		}
		f, err := b.draw()
		if err != nil {
			return nil, err
		}
		if err := marks(f, "critical-path length", cp, draw.BoxGlyph{}, 0, false); err != nil {
			return nil, err
		}
		out[fmt.Sprintf("makespan-n%d", n)] = f
	}
	return out, nil
}

// runTimes are a label's makespans at a point, over its repetitions.
func runTimes(set *Set, label string, p *Point) []float64 {
	c := set.Cell(label, p)
	if c == nil {
		return nil
	}
	var out []float64
	for _, r := range c.Records {
		out = append(out, r.MakespanS)
	}
	return out
}

// localityFigure is PeerJ 2019 Fig. 5: speedups over the baseline per
// (l_CPU, l_GPU) pair, at the suite's point(s).
func localityFigure(set *Set) (map[string]*fig, error) {
	out := map[string]*fig{}
	base := set.Baseline
	for _, p := range set.Points {
		type group struct {
			key    string
			labels []string
		}
		var groups []*group
		index := map[string]*group{}
		for _, sc := range set.Suite.Schedulers {
			if sc.Label == base {
				continue
			}
			k := fmt.Sprintf("(%s,%s)", sc.Params["l_cpu"], sc.Params["l_gpu"])
			g := index[k]
			if g == nil {
				g = &group{key: k}
				index[k] = g
				groups = append(groups, g)
			}
			g.labels = append(g.labels, sc.Label)
		}
		bt := runTimes(set, base, p)
		if len(bt) == 0 {
			continue
		}
		bMean, bMin := mean(bt), minOf(bt)
		b := bars{title: fmt.Sprintf("%s, %s", set.Title, configName(p)), ylabel: "speedup over " + base,
			series: []string{"SFA, every formula", "SFM, formula best on average"}}
		sfa := make([]float64, len(groups))
		sfmBest := make([]float64, len(groups))
		sfmAll := make([]float64, len(groups))
		for gi, g := range groups {
			var pooled []float64
			bestMean, bestMin := math.Inf(1), math.NaN()
			for _, l := range g.labels {
				ts := runTimes(set, l, p)
				if len(ts) == 0 {
					continue
				}
				pooled = append(pooled, ts...)
				if m := mean(ts); m < bestMean {
					bestMean, bestMin = m, minOf(ts)
				}
			}
			b.groups = append(b.groups, g.key)
			sfa[gi], sfmBest[gi], sfmAll[gi] = math.NaN(), math.NaN(), math.NaN()
			if len(pooled) > 0 {
				sfa[gi] = bMean / mean(pooled)
				sfmBest[gi] = bMin / bestMin
				sfmAll[gi] = bMin / minOf(pooled)
			}
		}
		b.vals = [][]float64{sfa, sfmBest}
		f, err := b.draw()
		if err != nil {
			return nil, err
		}
		f.p.X.Label.Text = "(l_CPU, l_GPU)"
		if err := marks(f, "SFM, best run of any formula", sfmAll, draw.CircleGlyph{}, 0, true); err != nil {
			return nil, err
		}
		out["speedup"+fileSuffix(fmt.Sprintf("gpus=%d", p.GPUs))] = f
	}
	return out, nil
}

// dlafFigures are PeerJ 2019 Figs. 6-8: per GPU count, each formula's
// speedup, the total transfers and the BMD.
func dlafFigures(set *Set) (map[string]*fig, error) {
	pts := append([]*Point(nil), set.Points...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].GPUs < pts[j].GPUs })
	base := set.Baseline
	var formulas []string
	var colors []int
	for i, l := range set.Labels {
		if l != base {
			formulas = append(formulas, l)
			colors = append(colors, i)
		}
	}
	groups := make([]string, len(pts))
	for g, p := range pts {
		groups[g] = configName(p)
	}
	sp := bars{title: set.Title + ": speedup over " + base, ylabel: "SFA (mean makespan / mean makespan)", groups: groups, series: formulas, colors: colors}
	tr := bars{title: set.Title + ": total memory transfer", ylabel: "mean transfers (MiB, every copy)", groups: groups, series: set.Labels}
	bmd := bars{title: set.Title + ": best memory node difference", ylabel: "mean BMD (% of tasks)", groups: groups, series: formulas, colors: colors}
	sfm := make([][]float64, len(formulas))
	for i, l := range formulas {
		row, rowM, rowB := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
		for g, p := range pts {
			bt, lt := runTimes(set, base, p), runTimes(set, l, p)
			row[g], rowM[g], rowB[g] = math.NaN(), math.NaN(), cellMean(set, l, p, "bmd_pct")
			if len(bt) > 0 && len(lt) > 0 {
				row[g], rowM[g] = mean(bt)/mean(lt), minOf(bt)/minOf(lt)
			}
		}
		sp.vals, bmd.vals, sfm[i] = append(sp.vals, row), append(bmd.vals, rowB), rowM
	}
	for _, l := range set.Labels {
		row := make([]float64, len(pts))
		for g, p := range pts {
			row[g] = cellMean(set, l, p, all)
		}
		tr.vals = append(tr.vals, row)
	}
	sm := bars{title: set.Title + ": speedup of the best runs over " + base, ylabel: "SFM (lowest makespan / lowest makespan)", groups: groups, series: formulas, vals: sfm, colors: colors}
	out := map[string]*fig{}
	var err error
	for name, b := range map[string]bars{"speedup-sfa": sp, "speedup-sfm": sm, "transfers": tr, "bmd": bmd} {
		if out[name], err = b.draw(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
