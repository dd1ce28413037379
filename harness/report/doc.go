package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a rendered-agnostic table.
type Table struct {
	Caption string
	Header  []string
	Right   []bool // right-aligned columns (numbers)
	Rows    [][]string
}

// Image is a figure linked from a report.
type Image struct {
	Path string // as linked (relative to the report)
	Alt  string
}

// Section is a titled part of a report.
type Section struct {
	Title  string
	Level  int // 2 = ##, 3 = ###
	Paras  []string
	Tables []Table
	Images []Image
}

// Doc is a report, rendered as Markdown or HTML.
type Doc struct {
	Title    string
	Sections []Section
}

// Markdown writes the document as GitHub-flavoured Markdown.
func (d *Doc) Markdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", d.Title)
	for _, s := range d.Sections {
		level := s.Level
		if level == 0 {
			level = 2
		}
		fmt.Fprintf(&b, "\n%s %s\n", strings.Repeat("#", level), s.Title)
		for _, p := range s.Paras {
			fmt.Fprintf(&b, "\n%s\n", p)
		}
		for _, t := range s.Tables {
			if t.Caption != "" {
				fmt.Fprintf(&b, "\n%s\n", t.Caption)
			}
			b.WriteByte('\n')
			if err := markdownTable(&b, t); err != nil {
				return err
			}
		}
		for _, im := range s.Images {
			fmt.Fprintf(&b, "\n![%s](%s)\n", im.Alt, im.Path)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func markdownTable(w io.Writer, t Table) error {
	if len(t.Rows) == 0 {
		_, err := fmt.Fprintln(w, "(no rows)")
		return err
	}
	align := make([]tw.Align, len(t.Header))
	for i := range align {
		align[i] = tw.AlignLeft
		if i < len(t.Right) && t.Right[i] {
			align[i] = tw.AlignRight
		}
	}
	tab := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off), // the default upper-cases headers
		tablewriter.WithRowAutoWrap(tw.WrapNone), // long statements stay on one line
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	tab.Header(escapeCells(t.Header))
	for _, r := range t.Rows {
		if err := tab.Append(escapeCells(r)); err != nil {
			return err
		}
	}
	return tab.Render()
}

func escapeCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", `\|`), "\n", " ")
	}
	return out
}

// plain drops the Markdown emphasis and code marks that captions and
// paragraphs carry, for HTML.
func plain(s string) string { return strings.NewReplacer("**", "", "`", "").Replace(s) }

var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{"plain": plain}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; max-width: 75em; margin: 2em auto; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; }
td.r { text-align: right; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: 0.3em; }
img { max-width: 48%; }
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Sections}}<h{{.Level}}>{{.Title}}</h{{.Level}}>
{{range .Paras}}<p>{{plain .}}</p>
{{end}}{{range .Tables}}<table>{{if .Caption}}<caption>{{plain .Caption}}</caption>{{end}}
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{$t := .}}{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if $t.IsRight $i}} class="r"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{range .Images}}<img src="{{.Path}}" alt="{{.Alt}}">
{{end}}{{end}}</body></html>
`))

// IsRight reports whether column i is right-aligned (for the template).
func (t Table) IsRight(i int) bool { return i < len(t.Right) && t.Right[i] }

// HTML writes the document as a standalone HTML page.
func (d *Doc) HTML(w io.Writer) error {
	dd := *d
	dd.Sections = make([]Section, len(d.Sections))
	for i, s := range d.Sections {
		if s.Level == 0 {
			s.Level = 2
		}
		dd.Sections[i] = s
	}
	return htmlPage.Execute(w, &dd)
}
