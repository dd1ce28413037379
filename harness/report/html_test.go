package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func testDoc() *Doc {
	return &Doc{Title: "Reproduction report", Sections: []Section{
		{Title: "Summary", Level: 2, Paras: []string{"**Headline: 3 of 4** claims; see [the suite](suites/x.toml) and `make reproduce` <b>escaped</b>."}},
		{Title: "Suite suites/x.toml", Level: 2, Tables: []Table{{Caption: "GFlop/s", Header: []string{"point", "A"}, Right: []bool{false, true}, Rows: [][]string{{"n=5", "+1.5%"}}}},
			Images: []Image{{Path: "figures/x/gflops.png", Alt: "x gflops"}}},
		{Title: "Summary", Level: 3, Tables: []Table{{Header: []string{"a"}, Rows: [][]string{{"1"}}}}},
	}}
}

// The page has an index of its sections, an id on every section, table and
// figure, inline Markdown as HTML (raw HTML in the text escaped), and links
// to a figure's other formats when they exist.
func TestHTMLPage(t *testing.T) {
	var buf bytes.Buffer
	exist := func(p string) bool { return p == "figures/x/gflops.svg" }
	if err := testDoc().HTMLWith(&buf, exist); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`<a class="l2" href="#summary">Summary</a>`, `<h2 id="summary">`, `<h3 id="summary-2">`,
		`<strong>Headline: 3 of 4</strong>`, `<a href="suites/x.toml">the suite</a>`, `<code>make reproduce</code>`, `&lt;b&gt;escaped&lt;/b&gt;`,
		`<table id="table-gflop-s">`, `<td class="r">+1.5%</td>`, `<figure id="figure-x-gflops">`, `<a href="figures/x/gflops.svg">SVG</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "gflops.pdf") {
		t.Errorf("links a PDF that does not exist")
	}
}

// Rendered once by a real browser (headless Chromium): the page loads,
// every "#" link of the index and of the marks lands on an element of the
// rendered DOM, and the figure's image is there.
func TestHTMLRendersInChromium(t *testing.T) {
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no headless Chromium (Debian package chromium) installed: .ci/run installs it")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "figures/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "figures/x/gflops.png"))
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, image.NewGray(image.Rect(0, 0, 4, 4)))
	f.Close()
	var buf bytes.Buffer
	if err := testDoc().HTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "index.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page).Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v", browser, err)
	}
	dom := string(out)
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(dom, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(dom, -1)
	if len(links) < 6 {
		t.Fatalf("the rendered page has %d in-page links:\n%s", len(links), dom)
	}
	for _, m := range links {
		if !ids[m[1]] {
			t.Errorf("link #%s lands nowhere in the rendered page", m[1])
		}
	}
	if !strings.Contains(dom, `<img src="figures/x/gflops.png"`) || strings.Count(dom, "<table") != 2 {
		t.Errorf("rendered DOM lacks the figure or a table:\n%s", dom)
	}
}
