package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads"
)

var (
	black  = color.RGBA{A: 255}
	red    = color.RGBA{R: 220, A: 255}
	orange = color.RGBA{R: 255, G: 140, A: 255}
	green  = color.RGBA{G: 160, A: 255}
	dotted = []vg.Length{vg.Points(2), vg.Points(2)}
	dashed = []vg.Length{vg.Points(5), vg.Points(3)}
)

// FigureFormats are the files of each figure by default: PNG for a README
// or a report, SVG for the web, PDF for a LaTeX paper.
var FigureFormats = []string{".png", ".svg", ".pdf"}

// formats are the figure files the set's figures are written as.
func (s *Set) formats() []string {
	if s.FigureFormats != nil {
		return s.FigureFormats
	}
	return FigureFormats
}

// WriteFigures draws, per panel, the GFlop/s and transfer figures (and the
// suite's metric when it is another) as PNG and SVG under dir, and returns
// the files written. Each has the papers' bounds (see bounds) where the
// suite lists them, and the reference measurements as dashed lines with
// hollow marks.
func WriteFigures(set *Set, dir string) ([]string, error) {
	if set.Suite != nil && set.Suite.Report.Style != "" && set.Suite.Report.Style != "curves" {
		return writeStyled(set, dir) // the CPU+GPU papers' bar charts
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	refs, err := measuredSeries(set)
	if err != nil {
		return nil, err
	}
	metrics := []string{"gflops", "transfers_mib"}
	if set.Metric != "gflops" && set.Metric != "transfers_mib" {
		metrics = append(metrics, set.Metric)
	}
	var files []string
	for _, panel := range set.Panels() {
		pts := set.PanelPoints(panel)
		if len(pts) == 0 {
			continue
		}
		for _, metric := range metrics {
			fig, err := figure(set, panel, pts, metric, refs)
			if err != nil {
				return nil, err
			}
			base := filepath.Join(dir, metric+fileSuffix(panel))
			for _, ext := range set.formats() {
				if err := fig.save(base + ext); err != nil {
					return nil, fmt.Errorf("writing %s: %w", base+ext, err)
				}
				files = append(files, base+ext)
			}
		}
	}
	return files, nil
}

func fileSuffix(panel string) string {
	if panel == "" {
		return ""
	}
	r := strings.NewReplacer("=", "", " ", "-", "/", "-", ".", "p")
	return "-" + r.Replace(panel)
}

// fig is a plot with its legend, drawn beside the plot rather than over
// the curves (suites have up to ten schedulers).
type fig struct {
	p     *plot.Plot
	leg   plot.Legend
	names []string
}

func (f *fig) add(name string, th ...plot.Thumbnailer) {
	f.leg.Add(name, th...)
	f.names = append(f.names, name)
}

func (f *fig) save(path string) error {
	var legW vg.Length
	for _, n := range f.names {
		legW = max(legW, f.leg.TextStyle.Rectangle(" "+n).Max.X)
	}
	legW += f.leg.ThumbnailWidth + 4*vg.Millimeter
	w, h := 15*vg.Centimeter+legW, 10*vg.Centimeter
	c, err := draw.NewFormattedCanvas(w, h, strings.TrimPrefix(filepath.Ext(path), "."))
	if err != nil {
		return err
	}
	dc := draw.New(c)
	f.p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	f.leg.Top, f.leg.Left = true, true
	f.leg.Draw(draw.Crop(dc, w-legW+2*vg.Millimeter, 0, 0, -8*vg.Millimeter))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}

// onePoint says whether the points share one x: a curve would be a dot on
// an empty axis.
func onePoint(pts []*Point) bool {
	for _, p := range pts {
		if p.X != pts[0].X {
			return false
		}
	}
	return true
}

// onePointFigure draws a panel of one x as bars, one group per label: the
// reproduced value, and the published (or measured) one beside it when
// there is one.
func onePointFigure(set *Set, panel string, pts []*Point, metric string, ms measurements) (*fig, error) {
	b := bars{title: figureTitle(set, panel), ylabel: Metrics[metric].Title, series: []string{"memsched"}, colors: []int{0, 7}}
	if e := set.Executors(); e != "" {
		b.series[0] = "memsched (" + e + ")"
	}
	var repro, published []float64
	havePublished := false
	for _, label := range set.Labels {
		st := set.Cell(label, pts[0]).Stat(metric)
		ref := refXYs(set, pts, ms.byLabel[label], metric)
		if st.N == 0 && len(ref) == 0 {
			continue
		}
		b.groups = append(b.groups, label)
		repro = append(repro, st.Mean)
		if len(ref) > 0 {
			published, havePublished = append(published, ref[0].Y), true
		} else {
			published = append(published, math.NaN())
		}
	}
	b.vals = [][]float64{repro}
	if havePublished {
		b.series = append(b.series, ms.name)
		b.vals = append(b.vals, published)
	}
	return b.draw()
}

// filledShape and hollowShape mark a label's reproduced and published
// points with the same shape, filled or not, so that the two are told
// apart without colour (in greyscale print) and the label by its shape.
func filledShape(i int) draw.GlyphDrawer {
	return []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}[i%5]
}

func hollowShape(i int) draw.GlyphDrawer {
	return []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}[i%5]
}

// lighter mixes c halfway to white: a published curve beside its
// reproduced twin.
func lighter(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{mix(r), mix(g), mix(b), 255}
}

// figureTitle is the suite's title, with what made the results (the
// simulator, real GPUs or StarPU) and the panel, wrapped so that no line
// is cut at the figure's edge.
func figureTitle(set *Set, panel string) string {
	t := set.Title
	if set.Preview {
		t = "PREVIEW (quick sweep): " + t
	}
	if panel != "" {
		t += " (" + panel + ")"
	}
	if e := set.Executors(); e != "" {
		t += " [" + e + "]"
	}
	return wrap(t, 80)
}

// wrap breaks s at spaces into lines of at most width runes (a longer
// word stays whole).
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// palette: distinct colours for up to 12 labels (plotutil's has 7).
var palette = []color.RGBA{
	{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {255, 127, 14, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255}, {0, 0, 128, 255}, {128, 128, 0, 255},
}

func labelColor(i int) color.Color { return palette[i%len(palette)] }

// niceTicks labels about five round values (1, 2, 2.5 or 5 × 10^k) with
// plain numbers, where the default ticker may write "25000.00".
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		v = math.Round(v/step*1e6) / 1e6 * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		if mid := v + step/2; mid <= hi {
			ticks = append(ticks, plot.Tick{Value: mid})
		}
	}
	return ticks
}

// measurements are the series a figure draws dashed beside the simulated
// curves, per suite label: the papers' V100 measurements, a results file of
// real runs, or the suite's runs on StarPU itself ([report] peer).
type measurements struct {
	name    string
	byLabel map[string][]paper.RefPoint
}

func measuredSeries(set *Set) (measurements, error) {
	ms := measurements{name: "V100 measurements", byLabel: map[string][]paper.RefPoint{}}
	if set.Suite == nil {
		return ms, nil
	}
	if runs, err := set.peerRuns(); err != nil || runs != nil {
		ms.name = "StarPU+SimGrid"
		for _, r := range runs {
			n, _ := r.Point["n"].(float64)
			ms.byLabel[r.Label] = append(ms.byLabel[r.Label], paper.RefPoint{Scheduler: r.Label, GPUs: r.GPUs, N: int(n),
				MemoryMB: float64(r.MemoryBytes) / mib, WorkingSetMiB: r.WorkingSet, GFlops: r.GFlops, GFlopsDev: math.NaN(),
				TransfersMB: float64(r.BytesH2D+r.BytesD2D) / mib, Iterations: 1})
		}
		return ms, err
	}
	if IsResultsReference(set.Suite.Report.ReferenceCSV) {
		ms.name = "real runs"
	}
	var err error
	ms.byLabel, err = ReferenceSeries(set.Suite)
	return ms, err
}

func figure(set *Set, panel string, pts []*Point, metric string, ms measurements) (*fig, error) {
	m := Metrics[metric]
	if onePoint(pts) {
		return onePointFigure(set, panel, pts, metric, ms)
	}
	p := plot.New()
	f := &fig{p: p, leg: plot.NewLegend()}
	f.leg.TextStyle.Font.Size = vg.Points(9)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.Title.Text = figureTitle(set, panel)
	p.X.Label.Text = "working set (MiB)"
	if set.XAxis == "memory" {
		p.X.Label.Text = "memory per GPU (MiB)"
	}
	p.Y.Label.Text = m.Title
	p.Add(plotter.NewGrid())

	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	measured := false
	for _, pt := range pts {
		xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
	}
	for i, label := range set.Labels {
		var xys plotter.XYs
		var errs plotter.YErrors
		spread := false
		for _, pt := range pts {
			st := set.Cell(label, pt).Stat(metric)
			if st.N > 0 {
				xys = append(xys, plotter.XY{X: pt.X, Y: st.Mean})
				errs = append(errs, struct{ Low, High float64 }{st.Std, st.Std})
				spread = spread || st.N > 1
				ymax = math.Max(ymax, st.Mean+st.Std)
			}
		}
		if len(xys) > 0 {
			l, s, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			l.Color, s.Color, s.Shape = labelColor(i), labelColor(i), filledShape(i)
			p.Add(l, s)
			f.add(label, l, s)
			if spread {
				// Repetitions: ± one sample standard deviation.
				eb, err := plotter.NewYErrorBars(struct {
					plotter.XYer
					plotter.YErrorer
				}{xys, errs})
				if err != nil {
					return nil, err
				}
				eb.Color = labelColor(i)
				p.Add(eb)
			}
		}
		if ref := refXYs(set, pts, ms.byLabel[label], metric); len(ref) > 0 {
			l, s, err := plotter.NewLinePoints(ref)
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes = lighter(labelColor(i)), dashed
			s.Color, s.Shape = labelColor(i), hollowShape(i)
			for _, xy := range ref {
				ymax = math.Max(ymax, xy.Y)
				xmin, xmax = math.Min(xmin, xy.X), math.Max(xmax, xy.X)
			}
			p.Add(l, s)
			measured = true
		}
	}
	if measured {
		// One entry for every measured series: same colour as the label.
		l, s, _ := plotter.NewLinePoints(plotter.XYs{{}})
		l.Color, l.Dashes, s.Color, s.Shape = color.Gray{Y: 90}, dashed, color.Gray{Y: 90}, draw.RingGlyph{}
		f.add(ms.name+" (dashed, hollow marks)", l, s)
	}
	var vlines []*vline
	if set.Suite != nil {
		for _, b := range bounds(set, pts, metric) {
			if b.vertical {
				if b.x < xmin || b.x > xmax {
					continue // outside the sweep: it would only stretch the axis
				}
			} else {
				for _, xy := range b.xys {
					ymax = math.Max(ymax, xy.Y)
				}
			}
			if v := b.add(f); v != nil {
				vlines = append(vlines, v)
			}
		}
	}
	p.Y.Min = 0
	if ymax > 0 {
		p.Y.Max = ymax * 1.08
	}
	// Vertical lines span the final y range.
	for _, v := range vlines {
		v.ymax = p.Y.Max
	}
	return f, nil
}

// refXYs returns a label's measured points on the panel's axis. Only the
// points whose GPUs and memory match the panel are drawn; transfers are
// per iteration (the reference sums 11).
func refXYs(set *Set, pts []*Point, ref []paper.RefPoint, metric string) plotter.XYs {
	if len(ref) == 0 || (metric != "gflops" && metric != "transfers_mib") {
		return nil
	}
	gpus, mem := pts[0].GPUs, pts[0].MemMiB
	var out plotter.XYs
	for _, rp := range ref {
		if rp.GPUs != gpus {
			continue
		}
		x := rp.WorkingSetMiB
		if set.XAxis == "memory" {
			x = rp.MemoryMB
		} else if rp.MemoryMB != 0 && math.Abs(rp.MemoryMB-mem) > 0.5 {
			continue
		}
		y := rp.GFlops
		if metric == "transfers_mib" {
			if !rp.HasTransfers() {
				continue
			}
			y = rp.TransfersPerIteration()
		}
		out = append(out, plotter.XY{X: x, Y: y})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].X < out[j].X })
	return out
}

// bound is one line of the papers' figures.
type bound struct {
	name     string
	color    color.Color
	dashes   []vg.Length
	vertical bool
	x        float64     // vertical line position
	xys      plotter.XYs // curve (or horizontal line through the points)
}

func (b bound) add(f *fig) *vline {
	if b.vertical {
		v := &vline{x: b.x}
		v.LineStyle.Color, v.LineStyle.Dashes, v.LineStyle.Width = b.color, b.dashes, vg.Points(1.2)
		f.p.Add(v)
		f.add(b.name, v)
		return v
	}
	if len(b.xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(b.xys)
	if err != nil {
		return nil
	}
	l.Color, l.Dashes, l.Width = b.color, b.dashes, vg.Points(1.2)
	f.p.Add(l)
	f.add(b.name, l)
	return nil
}

// vline is a vertical line across the plot at x.
type vline struct {
	x    float64
	ymax float64
	draw.LineStyle
}

func (v *vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x := trX(v.x)
	c.StrokeLine2(v.LineStyle, x, trY(0), x, trY(v.ymax))
}

func (v *vline) DataRange() (xmin, xmax, ymin, ymax float64) { return v.x, v.x, 0, 0 }

func (v *vline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(v.LineStyle, c.Min.X, y, c.Max.X, y)
}

// bounds are the papers' lines (thesis §4.4 plot conventions):
//   - ceiling: GPUs × the gemm kernel's GFlop/s, dotted black (GFlop/s);
//   - one_matrix / both_matrices / all_inputs: where the cumulated memory
//     of the GPUs holds one input matrix (red) or both (orange) of a 2D
//     product; for 3D A and B (orange) and A, B and C (green); for task
//     sets all the data (green);
//   - lower_bound: the 2D communication lower bound of thesis §3.5.1,
//     LB = ⌊I²/M²⌋·M + min(M, 2I) with I = one input matrix and M the
//     cumulated memory, and never below the working set (each datum is
//     loaded at least once), solid black (transfers); other kinds: the
//     working set;
//   - pcie: what the host links can carry during the ideal compute time,
//     aggregate host bandwidth × flops / ceiling, dotted black (transfers).
//
// For task graphs (thesis ch. 5, checks.go) the ceiling is the area bound
// of the kernels, the lower bound the I/O lower bound of Cholesky or LU,
// and the PCIe limit uses the area bound's time (and the disk out of core).
func bounds(set *Set, pts []*Point, metric string) []bound {
	s := set.Suite
	want := map[string]bool{}
	for _, l := range s.Report.Lines {
		want[l] = true
	}
	base := s.Platform.Base
	if base == nil {
		return nil
	}
	gpus := pts[0].GPUs
	gemm := base.Kernels["gemm"].GFlops
	ceiling := float64(gpus) * gemm
	var out []bound
	xs := func(f func(pt *Point) float64) plotter.XYs {
		var xys plotter.XYs
		for _, pt := range pts {
			if y := f(pt); !math.IsNaN(y) {
				xys = append(xys, plotter.XY{X: pt.X, Y: y})
			}
		}
		return xys
	}
	graph := s.Workload.Deps
	if metric == "gflops" && want["ceiling"] && graph {
		out = append(out, bound{name: "ceiling: area bound of the kernels", color: black, dashes: dotted, xys: xs(func(pt *Point) float64 {
			ideal, err := pointIdeal(set, pt)
			if err != nil || pt.Flops == 0 {
				return math.NaN()
			}
			return pt.Flops / ideal / 1e9
		})})
	} else if metric == "gflops" && want["ceiling"] && gemm > 0 {
		out = append(out, bound{name: fmt.Sprintf("ceiling: %d × %g GFlop/s", gpus, gemm), color: black, dashes: dotted,
			xys: plotter.XYs{{X: pts[0].X, Y: ceiling}, {X: pts[len(pts)-1].X, Y: ceiling}}})
	}
	kind := s.Workload.Kind
	// Memory lines, as fractions f of the working set that must fit: at
	// ws = M/f on a working-set axis, at memory = f·ws/GPUs on a memory axis.
	type memLine struct {
		key, name string
		c         color.Color
		frac      float64
	}
	var lines []memLine
	switch kind {
	case workloads.KindMatmul2D, workloads.KindSparse2D, workloads.KindRandomPairs:
		lines = []memLine{{"one_matrix", "memory holds one input matrix", red, 0.5}, {"both_matrices", "memory holds both input matrices", orange, 1}}
	case workloads.KindMatmul3D:
		lines = []memLine{{"both_matrices", "memory holds A and B", orange, 2.0 / 3}, {"all_inputs", "memory holds A, B and C", green, 1}}
	case workloads.KindCholesky, workloads.KindLU:
		lines = []memLine{{"all_inputs", "memory holds all the data", green, 1}}
	}
	for _, ml := range lines {
		if !want[ml.key] {
			continue
		}
		var x float64
		if set.XAxis == "memory" {
			x = ml.frac * pts[0].WSMiB / float64(max(gpus, 1))
		} else {
			x = float64(max(gpus, 1)) * pts[0].MemMiB / ml.frac
		}
		out = append(out, bound{name: ml.name, color: ml.c, dashes: dotted, vertical: true, x: x})
	}
	if metric == "transfers_mib" && want["lower_bound"] {
		lb := func(pt *Point) float64 {
			m := float64(pt.GPUs) * pt.MemMiB
			switch kind {
			case workloads.KindMatmul2D, workloads.KindRandomPairs:
				return LowerBound2D(pt.WSMiB/2, m, pt.WSMiB)
			case workloads.KindSparse2D:
				return math.NaN() // unread data make the working set no bound
			}
			if graph {
				if lb, err := boundMiB(set, pt, true); err == nil {
					return lb
				}
			}
			return pt.WSMiB
		}
		out = append(out, bound{name: "communication lower bound", color: black, xys: xs(lb)})
	}
	if metric == "transfers_mib" && want["pcie"] && graph {
		out = append(out, bound{name: "PCIe (disk) limit: bandwidth × area bound time", color: black, dashes: dotted, xys: xs(func(pt *Point) float64 {
			b, err := boundMiB(set, pt, false)
			if err != nil {
				return math.NaN()
			}
			return b
		})})
	} else if metric == "transfers_mib" && want["pcie"] && gemm > 0 {
		bw := AggregateHostGBps(base, gpus)
		pcie := func(pt *Point) float64 {
			if pt.Flops == 0 {
				return math.NaN()
			}
			seconds := pt.Flops / (ceiling * 1e9)
			return bw * 1e9 * seconds / mib
		}
		out = append(out, bound{name: fmt.Sprintf("PCIe limit: %g GB/s × ideal time", bw), color: black, dashes: dotted, xys: xs(pcie)})
	}
	return out
}

// LowerBound2D is the 2D communication lower bound of thesis §3.5.1 (MiB):
// ⌊I²/M²⌋·M + min(M, 2I) for input matrices of I MiB each and M MiB of
// memory, raised to the working set ws when that is larger (every input
// must be loaded once).
func LowerBound2D(input, memory, ws float64) float64 {
	if memory <= 0 {
		return ws
	}
	lb := math.Floor(input*input/(memory*memory))*memory + math.Min(memory, 2*input)
	return math.Max(lb, ws)
}

// AggregateHostGBps is the bandwidth from host memory to the first gpus
// GPUs together: on the tree of links, a link carries at most its own
// bandwidth and at most what the links below it deliver.
func AggregateHostGBps(p *hardware.Platform, gpus int) float64 {
	q := p.Clone()
	q.GPUs = gpus
	links, paths, _ := q.Links()
	children := map[int]map[int]bool{}
	roots := map[int]bool{}
	for _, path := range paths {
		if len(path) == 0 {
			continue // the home node
		}
		for i := 1; i < len(path); i++ {
			if children[path[i]] == nil {
				children[path[i]] = map[int]bool{}
			}
			children[path[i]][path[i-1]] = true
		}
		roots[path[len(path)-1]] = true
	}
	var capOf func(l int) float64
	capOf = func(l int) float64 {
		if len(children[l]) == 0 {
			return links[l].GBps
		}
		sum := 0.0
		for c := range children[l] {
			sum += capOf(c)
		}
		return math.Min(links[l].GBps, sum)
	}
	total := 0.0
	for r := range roots {
		total += capOf(r)
	}
	return total
}

// PDFs are reproducible: the same figure gives the same bytes (fpdf
// otherwise stamps the time and orders its catalogs by map iteration).
// The date is SOURCE_DATE_EPOCH's when set (reproducible-builds.org), else
// the Unix epoch.
func init() {
	t := time.Unix(0, 0).UTC()
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		t = time.Unix(s, 0).UTC()
	}
	fpdf.SetDefaultCreationDate(t)
	fpdf.SetDefaultModificationDate(t)
	fpdf.SetDefaultCatalogSort(true)
}
