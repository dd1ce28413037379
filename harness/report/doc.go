package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
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

var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{"inline": inline}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Title}}</title>
<style>
body { font-family: sans-serif; max-width: 80em; margin: 2em auto; padding: 0 1em; line-height: 1.4; }
nav { border: 1px solid #ccc; padding: 0.5em 1em; margin-bottom: 2em; columns: 2; }
nav a { display: block; text-decoration: none; } nav .l3 { padding-left: 1.5em; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; vertical-align: top; }
th { background: #f4f4f4; position: sticky; top: 0; }
td.r { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: 0.3em; }
figure { display: inline-block; width: 48%; margin: 0.5em 1% 1em 0; vertical-align: top; }
figure img { width: 100%; } figcaption { font-size: 0.85em; }
code { background: #f4f4f4; padding: 0 0.2em; }
a.anchor { color: #bbb; text-decoration: none; margin-left: 0.3em; }
</style></head><body>
<h1>{{.Title}}</h1>
{{if gt (len .Index) 2}}<nav aria-label="contents">{{range .Index}}<a class="l{{.Level}}" href="#{{.ID}}">{{.Title}}</a>
{{end}}</nav>
{{end}}{{range .Sections}}<h{{.Level}} id="{{.ID}}">{{.Title}}<a class="anchor" href="#{{.ID}}">#</a></h{{.Level}}>
{{range .Paras}}<p>{{inline .}}</p>
{{end}}{{range .Tables}}<table id="{{.ID}}">{{if .Caption}}<caption>{{inline .Caption}} <a class="anchor" href="#{{.ID}}">#</a></caption>{{end}}
<thead><tr>{{range .Header}}<th>{{inline .}}</th>{{end}}</tr></thead><tbody>
{{$t := .}}{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if $t.IsRight $i}} class="r"{{end}}>{{inline $c}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}{{range .Images}}<figure id="{{.ID}}"><a href="{{.Path}}"><img src="{{.Path}}" alt="{{.Alt}}" loading="lazy"></a><figcaption>{{.Alt}}{{range .Also}} · <a href="{{.Path}}">{{.Name}}</a>{{end}}</figcaption></figure>
{{end}}{{end}}</body></html>
`))

// htmlDoc is a Doc as the HTML page shows it: sections, tables and
// figures with ids to link to, an index of the sections, and each
// figure's other formats beside it.
type htmlDoc struct {
	Title    string
	Index    []htmlSection
	Sections []htmlSection
}

type htmlSection struct {
	Section
	ID     string
	Tables []htmlTable
	Images []htmlImage
}

type htmlTable struct {
	Table
	ID string
}

type htmlImage struct {
	Image
	ID   string
	Also []struct{ Name, Path string } // the same figure as SVG, PDF
}

// slug makes an HTML id of a title: lower case letters, digits and dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(plain(s)) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}

// inlineMarkdown matches the Markdown a report's text uses: links,
// **bold** and `code`.
var inlineMarkdown = regexp.MustCompile("\\[([^\\]]+)\\]\\(([^)\\s]+)\\)|\\*\\*([^*]+)\\*\\*|`([^`]+)`")

// inline renders a report's inline Markdown as HTML, escaping the rest.
func inline(s string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range inlineMarkdown.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(template.HTMLEscapeString(s[last:m[0]]))
		switch {
		case m[2] >= 0:
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, template.HTMLEscapeString(s[m[4]:m[5]]), template.HTMLEscapeString(s[m[2]:m[3]]))
		case m[6] >= 0:
			fmt.Fprintf(&b, "<strong>%s</strong>", template.HTMLEscapeString(s[m[6]:m[7]]))
		default:
			fmt.Fprintf(&b, "<code>%s</code>", template.HTMLEscapeString(s[m[8]:m[9]]))
		}
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(s[last:]))
	return template.HTML(b.String())
}

// IsRight reports whether column i is right-aligned (for the template).
func (t Table) IsRight(i int) bool { return i < len(t.Right) && t.Right[i] }

// HTML writes the document as a standalone HTML page: an index of its
// sections, and ids on every section, table and figure (linked by their
// "#" marks); a figure links to its full-size file and to the same figure
// in the other formats written beside it (SVG, PDF), when exist reports
// them (nil: none are looked for).
func (d *Doc) HTML(w io.Writer) error { return d.HTMLWith(w, nil) }

// HTMLWith is HTML with exist telling which sibling files of a figure
// exist (the path as linked).
func (d *Doc) HTMLWith(w io.Writer, exist func(path string) bool) error {
	hd := htmlDoc{Title: d.Title}
	used := map[string]int{}
	id := func(s string) string {
		base := slug(s)
		used[base]++
		if n := used[base]; n > 1 {
			return fmt.Sprintf("%s-%d", base, n)
		}
		return base
	}
	for _, s := range d.Sections {
		if s.Level == 0 {
			s.Level = 2
		}
		hs := htmlSection{Section: s, ID: id(s.Title)}
		for i, t := range s.Tables {
			name := t.Caption
			if name == "" {
				name = fmt.Sprintf("%s table %d", s.Title, i+1)
			}
			hs.Tables = append(hs.Tables, htmlTable{Table: t, ID: id("table " + name)})
		}
		for _, im := range s.Images {
			hi := htmlImage{Image: im, ID: id("figure " + im.Alt)}
			if exist != nil {
				ext := filepath.Ext(im.Path)
				for _, other := range []string{".svg", ".pdf"} {
					if p := strings.TrimSuffix(im.Path, ext) + other; other != ext && exist(p) {
						hi.Also = append(hi.Also, struct{ Name, Path string }{strings.ToUpper(other[1:]), p})
					}
				}
			}
			hs.Images = append(hs.Images, hi)
		}
		hd.Sections = append(hd.Sections, hs)
		if s.Level <= 3 && s.Title != "" {
			hd.Index = append(hd.Index, hs)
		}
	}
	return htmlPage.Execute(w, &hd)
}
