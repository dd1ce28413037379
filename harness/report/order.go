package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/memsched/memsched/harness/event"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/workloads"
)

// taskMark is what the order picture shows of one task.
type taskMark struct {
	worker int
	rank   int   // global start rank, 0 = first
	loads  []int // inputs loaded for this task
	kinds  []string
}

// orderMarks derives, from a trace, each task's worker, start rank and the
// loads it needed: a load counts for the first task of its worker that
// starts after it and reads the datum.
func orderMarks(evs []event.Event, w *workloads.Workload) (map[int]*taskMark, int, error) {
	marks := map[int]*taskMark{}
	type wd struct{ w, d int }
	pending := map[wd]string{}
	rank, workers := 0, 0
	for _, ev := range evs {
		if ev.Worker+1 > workers {
			workers = ev.Worker + 1
		}
		switch ev.Ev {
		case "load_start", "load_end":
			if k, ok := pending[wd{ev.Worker, ev.Data}]; !ok || k == "" {
				pending[wd{ev.Worker, ev.Data}] = ev.Kind
			}
		case "task_start":
			if ev.Task < 0 || ev.Task >= len(w.Tasks) {
				return nil, 0, fmt.Errorf("trace names task %d but the workload has %d tasks: wrong workload file?", ev.Task, len(w.Tasks))
			}
			m := &taskMark{worker: ev.Worker, rank: rank}
			rank++
			for _, d := range w.Tasks[ev.Task].Inputs {
				if k, ok := pending[wd{ev.Worker, d}]; ok {
					m.loads = append(m.loads, d)
					m.kinds = append(m.kinds, k)
					delete(pending, wd{ev.Worker, d})
				}
			}
			marks[ev.Task] = m
		}
	}
	if rank == 0 {
		return nil, 0, fmt.Errorf("the trace has no task_start event")
	}
	return marks, workers, nil
}

var gpuColors = []color.RGBA{
	{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {255, 127, 14, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
}

// shade mixes a GPU's colour with white: early tasks light, late ones dark.
func shade(worker int, frac float64) color.RGBA {
	c := gpuColors[worker%len(gpuColors)]
	white := 0.75 * (1 - frac)
	mix := func(v uint8) uint8 { return uint8(math.Round(float64(v)*(1-white) + 255*white)) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

// panelSpec is one grid of the order picture.
type panelSpec struct {
	key        int
	title      string
	rows, cols int
	cells      map[[2]int]int // (row, col) -> task
}

// OrderPlot draws the processing order of a run (thesis Figs. 2.7-2.10):
// each task is the tile of C it computes, coloured by the GPU that ran it,
// lighter for early and darker for late tasks (global start rank). A line
// marks the loads a task needed: solid for a fetch, dotted for a prefetch;
// for 2D products horizontal for the row of A, vertical for the column of
// B; for other kinds a frame. 3D products get one panel per k layer,
// Cholesky and LU one panel per step k (the tiles the step writes). The
// format follows out's extension: .png or .svg.
func OrderPlot(evs []event.Event, w *workloads.Workload, out string) error {
	marks, workers, err := orderMarks(evs, w)
	if err != nil {
		return err
	}
	total := len(marks)
	// Layout from the coordinates: 2 coords = 2D [i,j]; 3 coords: 3D
	// [i,j,k] or a factorisation [k,m,n], told apart by kernel names.
	var panels []*panelSpec
	byKey := map[int]*panelSpec{}
	factor := false
	for _, t := range w.Tasks {
		if t.Kernel != "gemm" {
			factor = true
		}
	}
	n := 0
	for i := range w.Tasks {
		for _, c := range w.Coords.Of(i) {
			n = max(n, int(c)+1)
		}
	}
	get := func(key int, title string) *panelSpec {
		p := byKey[key]
		if p == nil {
			p = &panelSpec{key: key, title: title, rows: n, cols: n, cells: map[[2]int]int{}}
			byKey[key] = p
			panels = append(panels, p)
		}
		return p
	}
	for _, t := range w.Tasks {
		if _, ran := marks[t.ID]; !ran {
			continue
		}
		var c [3]int
		xs := w.Coords.Of(t.ID)
		for k := range min(len(xs), len(c)) {
			c[k] = int(xs[k])
		}
		switch len(xs) {
		case 2:
			get(0, "").cells[[2]int{c[0], c[1]}] = t.ID
		case 3:
			if factor {
				get(c[0], fmt.Sprintf("k = %d", c[0])).cells[[2]int{c[1], c[2]}] = t.ID
			} else {
				get(c[2], fmt.Sprintf("k = %d", c[2])).cells[[2]int{c[0], c[1]}] = t.ID
			}
		default:
			return fmt.Errorf("task %d has %d coordinates; the order picture needs 2D [i,j], 3D [i,j,k] or Cholesky/LU [k,m,n] coordinates", t.ID, len(xs))
		}
	}
	sort.Slice(panels, func(i, j int) bool { return panels[i].key < panels[j].key })
	twoD := len(panels) == 1 && panels[0].title == ""
	cols := int(math.Ceil(math.Sqrt(float64(len(panels)))))
	rows := (len(panels) + cols - 1) / cols
	size := 12 * vg.Centimeter // one panel; many panels get smaller
	if cols > 1 {
		size = 7 * vg.Centimeter
	}
	width, height := size*vg.Length(cols), size*vg.Length(rows)
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	for i, ps := range panels {
		p := plot.New()
		p.Title.Text = ps.title
		if i == 0 {
			p.Title.Text = strings.TrimSpace(fmt.Sprintf("%s %s (%d GPUs, %d tasks)", w.Name, ps.title, workers, total))
		}
		p.HideAxes()
		p.Add(&tileGrid{ps: ps, marks: marks, w: w, total: total, twoD: twoD})
		grid[i/cols][i%cols] = p
	}
	ext := strings.ToLower(filepath.Ext(out))
	var canvas vg.CanvasWriterTo
	switch ext {
	case ".png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	case ".svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("-o %s: the order picture is written as .png or .svg", out)
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter, PadY: vg.Millimeter}
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c := range grid[r] {
			if grid[r][c] != nil {
				grid[r][c].Draw(canvases[r][c])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, buf.Bytes(), 0o644)
}

// tileGrid draws one panel: one square per cell, row 0 at the top.
type tileGrid struct {
	ps    *panelSpec
	marks map[int]*taskMark
	w     *workloads.Workload
	total int
	twoD  bool
}

func (g *tileGrid) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, float64(g.ps.cols), 0, float64(g.ps.rows)
}

func (g *tileGrid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	border := draw.LineStyle{Color: color.RGBA{255, 255, 255, 255}, Width: vg.Points(0.3)}
	solid := draw.LineStyle{Color: color.RGBA{A: 255}, Width: vg.Points(0.8)}
	dots := solid
	dots.Dashes = []vg.Length{vg.Points(1), vg.Points(1.2)}
	keys := make([][2]int, 0, len(g.ps.cells))
	for k := range g.ps.cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		task := g.ps.cells[k]
		m := g.marks[task]
		row, col := k[0], k[1]
		x0, x1 := trX(float64(col)), trX(float64(col+1))
		y0, y1 := trY(float64(g.ps.rows-row-1)), trY(float64(g.ps.rows-row))
		rect := vg.Path{}
		rect.Move(vg.Point{X: x0, Y: y0})
		rect.Line(vg.Point{X: x1, Y: y0})
		rect.Line(vg.Point{X: x1, Y: y1})
		rect.Line(vg.Point{X: x0, Y: y1})
		rect.Close()
		frac := 0.0
		if g.total > 1 {
			frac = float64(m.rank) / float64(g.total-1)
		}
		c.SetColor(shade(m.worker, frac))
		c.Fill(rect)
		c.SetLineStyle(border)
		c.Stroke(rect)
		midX, midY := (x0+x1)/2, (y0+y1)/2
		for i, d := range m.loads {
			ls := solid
			if m.kinds[i] == "prefetch" {
				ls = dots
			}
			inputs := g.w.Tasks[task].Inputs
			switch {
			case g.twoD && len(inputs) == 2 && d == inputs[0]: // row of A: horizontal
				c.StrokeLine2(ls, x0, midY, x1, midY)
			case g.twoD && len(inputs) == 2 && d == inputs[1]: // column of B: vertical
				c.StrokeLine2(ls, midX, y0, midX, y1)
			default: // a frame inside the tile
				in := (x1 - x0) / 6
				fr := vg.Path{}
				fr.Move(vg.Point{X: x0 + in, Y: y0 + in})
				fr.Line(vg.Point{X: x1 - in, Y: y0 + in})
				fr.Line(vg.Point{X: x1 - in, Y: y1 - in})
				fr.Line(vg.Point{X: x0 + in, Y: y1 - in})
				fr.Close()
				c.SetLineStyle(ls)
				c.Stroke(fr)
			}
		}
	}
}
