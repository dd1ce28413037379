package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteBatchFigures draws a batch suite's figures under dir (PNG and SVG):
// boxplots of the per-session improvement over the baseline, pooled over the
// weeks, every session, without and with backfilling (Figs. 6.7a, 6.8a)
// and per week, the sessions at least 1% away from 1 (Fig. 6.3a), and their
// empirical distribution (Fig. 6.7b).
func WriteBatchFigures(set *Set, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := set.Suite
	ws := batchWeeks(set)
	var files []string
	save := func(f *fig, name string) error {
		for _, ext := range set.formats() {
			path := filepath.Join(dir, name+ext)
			if err := f.save(path); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
			files = append(files, path)
		}
		return nil
	}
	groups := []struct {
		name, title string
		bf          bool
	}{{"sessions-boxplot", "without backfilling", false}, {"sessions-boxplot-bf", "with backfilling", true}}
	for _, g := range groups {
		var series []boxSeries
		for _, l := range set.Labels {
			base := batchBaseline(s, l)
			if l == base || strings.HasSuffix(l, "-BF") != g.bf {
				continue
			}
			r, used, err := sessionRatios(ws, l, base, false)
			if err != nil {
				return nil, err
			}
			// Every session, as Figs. 6.7 and 6.8 (Expe2.sh draws them
			// with count_improvement_equal_at_1 = 1).
			if st := sessionStats(r, false); len(st.sorted) > 0 {
				series = append(series, boxSeries{l, st})
				_ = used
			}
		}
		if len(series) == 0 {
			continue
		}
		f := boxFigure("Session stretch improvement over the baseline, "+g.title+", all weeks", series)
		if err := save(f, g.name); err != nil {
			return nil, err
		}
		if !g.bf {
			e := ecdfFigure("Empirical distribution of the session improvement, without backfilling, all weeks", series)
			if err := save(e, "sessions-ecdf"); err != nil {
				return nil, err
			}
		}
	}
	// Per week, without backfilling.
	for _, w := range ws {
		var series []boxSeries
		for _, l := range set.Labels {
			base := batchBaseline(s, l)
			if l == base || strings.HasSuffix(l, "-BF") {
				continue
			}
			r, _, err := sessionRatios([]*batchWeek{w}, l, base, false)
			if err != nil {
				return nil, err
			}
			// A week's sessions at least 1% away from 1, as Fig. 6.3,
			// their share beside the name.
			if st := sessionStats(r, true); len(st.sorted) > 0 {
				series = append(series, boxSeries{fmt.Sprintf("%s (%.0f%%)", l, st.Different), st})
			}
		}
		if len(series) > 0 {
			if err := save(boxFigure("Session stretch improvement over the baseline, "+w.title(), series), "sessions-boxplot-"+w.name); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

type boxSeries struct {
	name string
	st   SessionStats
}

// box draws the thesis' boxplot: box from 25% to 75%, whiskers at 12.5% and
// 87.5%, a line at the median and a triangle at the mean, no outliers.
type box struct {
	x  float64
	st SessionStats
	c  color.Color
}

func (b *box) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	x := tx(b.x)
	half := vg.Points(10)
	ls := draw.LineStyle{Color: b.c, Width: vg.Points(1)}
	y := func(v float64) vg.Length { return ty(math.Max(v, p.Y.Min)) }
	c.StrokeLines(ls, []vg.Point{{X: x, Y: y(b.st.P12)}, {X: x, Y: y(b.st.P25)}}, []vg.Point{{X: x, Y: y(b.st.P75)}, {X: x, Y: y(b.st.P87)}})
	c.StrokeLines(ls, []vg.Point{{X: x - half/2, Y: y(b.st.P12)}, {X: x + half/2, Y: y(b.st.P12)}}, []vg.Point{{X: x - half/2, Y: y(b.st.P87)}, {X: x + half/2, Y: y(b.st.P87)}})
	rect := []vg.Point{{X: x - half, Y: y(b.st.P25)}, {X: x + half, Y: y(b.st.P25)}, {X: x + half, Y: y(b.st.P75)}, {X: x - half, Y: y(b.st.P75)}, {X: x - half, Y: y(b.st.P25)}}
	c.StrokeLines(ls, rect)
	c.StrokeLines(draw.LineStyle{Color: b.c, Width: vg.Points(2)}, []vg.Point{{X: x - half, Y: y(b.st.Median)}, {X: x + half, Y: y(b.st.Median)}})
	c.DrawGlyph(draw.GlyphStyle{Color: b.c, Radius: vg.Points(3), Shape: draw.TriangleGlyph{}}, vg.Point{X: x, Y: y(b.st.Mean)})
}

func (b *box) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x - 0.5, b.x + 0.5, b.st.P12, b.st.P87
}

func boxFigure(title string, series []boxSeries) *fig {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "baseline stretch / scheduler stretch (log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = ratioTicks{}
	f := &fig{p: p, leg: plot.NewLegend()}
	var names []string
	lo, hi := 0.5, 2.0
	for i, s := range series {
		p.Add(&box{x: float64(i), st: s.st, c: labelColor(i)})
		names = append(names, s.name)
		lo, hi = math.Min(lo, s.st.P12), math.Max(hi, s.st.P87)
	}
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = lo/1.2, hi*1.2
	one, _ := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(series)) - 0.5, Y: 1}})
	one.Dashes = dotted
	p.Add(one)
	return f
}

func ecdfFigure(title string, series []boxSeries) *fig {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "baseline stretch / scheduler stretch (log)"
	p.Y.Label.Text = "fraction of sessions"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = ratioTicks{}
	f := &fig{p: p, leg: plot.NewLegend()}
	p.X.Min, p.X.Max = 0.1, 10
	for i, s := range series {
		xs := s.st.sorted
		pts := make(plotter.XYs, 0, len(xs))
		for j, x := range xs {
			pts = append(pts, plotter.XY{X: math.Min(math.Max(x, p.X.Min), p.X.Max), Y: float64(j+1) / float64(len(xs))})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			continue
		}
		l.Color = labelColor(i)
		p.Add(l)
		f.add(s.name, l)
	}
	return f
}

// ratioTicks labels 1, 2, 5 × 10^k on a log axis of ratios.
type ratioTicks struct{}

func (ratioTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return out
}
