package report

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/internal/atomicfile"
)

// Colours of the timeline picture, told apart in greyscale too (dark
// computing, light fetching, mid-grey copies).
var (
	computingColor = color.RGBA{0, 110, 60, 255}
	fetchingColor  = color.RGBA{250, 180, 90, 255}
	copyColor      = color.NRGBA{40, 80, 170, 90}
)

// TimelinePlot draws a run's timeline as a Gantt chart (PNG, SVG or PDF
// from out's extension): one row per worker with its computing and
// fetching intervals, and one row per GPU memory with the copies into it
// (overlapping copies darken). It is the picture a Paje viewer shows, for
// a README or a paper.
func TimelinePlot(tl *trace.Timeline, title, out string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (ms)"
	p.X.Tick.Marker = niceTicks{}
	var rows []string
	g := &gantt{tl: tl}
	for wi := range tl.Workers {
		g.workerRow = append(g.workerRow, len(rows))
		rows = append(rows, tl.WorkerName(wi))
	}
	g.nodeRow = make([]int, len(tl.Nodes))
	for n := range tl.Nodes {
		g.nodeRow[n] = -1
		if n != tl.Home {
			g.nodeRow[n] = len(rows)
			rows = append(rows, "copies to "+tl.Nodes[n].Name+" ")
		}
	}
	g.rows = len(rows)
	p.Add(g)
	ticks := make([]plot.Tick, len(rows))
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(len(rows)-1-i) + 0.5, Label: r}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = 0, float64(len(rows))
	p.X.Min, p.X.Max = 0, tl.End*1e3
	legend := plot.NewLegend()
	for _, l := range []struct {
		name string
		c    color.Color
	}{{trace.Computing, computingColor}, {trace.Fetching, fetchingColor}, {"copy", copyColor}} {
		legend.Add(l.name, swatch{l.c})
	}
	legW := 32 * vg.Millimeter
	w, h := 16*vg.Centimeter+legW, vg.Length(2+0.9*float64(len(rows)))*vg.Centimeter
	c, err := draw.NewFormattedCanvas(w, h, strings.TrimPrefix(filepath.Ext(out), "."))
	if err != nil {
		return fmt.Errorf("%s: %w (the picture is .png, .svg or .pdf)", out, err)
	}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, w-legW+2*vg.Millimeter, 0, 0, -8*vg.Millimeter))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, buf.Bytes(), 0o644)
}

type gantt struct {
	tl                 *trace.Timeline
	workerRow, nodeRow []int
	rows               int
}

func (g *gantt) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, g.tl.End * 1e3, 0, float64(g.rows)
}

func (g *gantt) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	bar := func(row int, t0, t1 float64, col color.Color) {
		y0, y1 := trY(float64(g.rows-1-row)+0.15), trY(float64(g.rows-1-row)+0.85)
		x0, x1 := trX(t0*1e3), trX(t1*1e3)
		if x1-x0 < vg.Points(0.2) {
			x1 = x0 + vg.Points(0.2) // a short interval stays visible
		}
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	for _, s := range g.tl.States {
		switch s.What {
		case trace.Computing:
			bar(g.workerRow[s.Worker], s.Start, s.End, computingColor)
		case trace.Fetching:
			bar(g.workerRow[s.Worker], s.Start, s.End, fetchingColor)
		}
	}
	for _, cp := range g.tl.Copies {
		if r := g.nodeRow[cp.Dst]; r >= 0 {
			bar(r, cp.Start, cp.End, copyColor)
		}
	}
}

// swatch is a legend entry: a filled square.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}
