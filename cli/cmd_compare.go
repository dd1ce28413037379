package cli

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/memsched/memsched/harness/report"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/internal/suggest"
)

func init() {
	register("compare", "compare two results files (or two labels of one) point by point: each side's median with its interval, the change with its interval and p-value (benchstat's statistics)", cmdCompare)
}

const compareUsage = `OLD.jsonl [NEW.jsonl] [flags]

  memsched compare before.jsonl after.jsonl                      same labels and points, two runs of the code
  memsched compare results.jsonl --labels DMDAR,DARTS+LUF        two schedulers of one file
  memsched compare a.jsonl b.jsonl --metric transfers_mib --format csv -o cmp.csv

Cells are matched by label and point (the sweep coordinates). Each side is
summarised by its median and a distribution-free confidence interval over
its repetitions and seeds; the change is ~ when the Mann-Whitney U test
cannot tell the sides apart (golang.org/x/perf/benchmath, as benchstat).
One run a side is an exact value (the simulator is deterministic).`

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", compareUsage, stderr)
	metric := fs.String("metric", "gflops", "the metric compared: "+strings.Join(metricNames(), ", "))
	labels := fs.String("labels", "", "OLD,NEW: compare two labels point by point (of one file, or OLD's in the first file and NEW's in the second)")
	confidence := fs.Float64("confidence", 0.95, "confidence level of the intervals and the test (alpha = 1 − confidence)")
	format := fs.String("format", "md", "md (a Markdown table) or csv (every number, one row per label and point)")
	out := fs.String("o", "", "output file (default stdout)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if _, ok := report.Metrics[*metric]; !ok {
		return fmt.Errorf("--metric %q: not a metric%s (%s)", *metric, suggest.Closest(*metric, metricNames()), strings.Join(metricNames(), ", "))
	}
	if *format != "md" && *format != "csv" {
		return fmt.Errorf("--format %q: use md or csv", *format)
	}
	var oldLabel, newLabel string
	if *labels != "" {
		l := strings.Split(*labels, ",")
		if len(l) != 2 || l[0] == "" || l[1] == "" {
			return fmt.Errorf("--labels %q: give two labels, OLD,NEW", *labels)
		}
		oldLabel, newLabel = l[0], l[1]
	}
	switch {
	case len(files) == 1 && *labels == "":
		return fmt.Errorf("one results file: give --labels OLD,NEW to compare two of its labels, or a second file")
	case len(files) == 0 || len(files) > 2:
		return fmt.Errorf("give one or two results files, got %d", len(files))
	}
	sets := make([]*report.Set, len(files))
	for i, f := range files {
		recs, src, err := report.LoadSourced(f)
		if err != nil {
			return err
		}
		sets[i] = report.NewSet(nil, recs, src)
	}
	old, new := sets[0], sets[len(sets)-1]
	c, err := report.Compare(old, new, oldLabel, newLabel, *metric, *confidence)
	if err != nil {
		return err
	}
	return writeOut(*out, stdout, func(w io.Writer) error {
		if *format == "csv" {
			return c.WriteCSV(w)
		}
		title := fmt.Sprintf("%s against %s", files[len(files)-1], files[0])
		if len(files) == 1 {
			title = fmt.Sprintf("%s against %s in %s", newLabel, oldLabel, files[0])
		}
		doc := report.Doc{Title: title, Sections: []report.Section{{Level: 2, Title: report.Metrics[*metric].Title, Tables: []report.Table{c.Table()}}}}
		if c.Unmatched > 0 {
			doc.Sections[0].Paras = []string{fmt.Sprintf("%d cells of one side have no counterpart in the other (not compared).", c.Unmatched)}
		}
		return doc.Markdown(w)
	})
}

func metricNames() []string {
	names := make([]string, 0, len(report.Metrics))
	for n := range report.Metrics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeOut renders into a buffer, then writes it to path (atomically: a
// failed render leaves no half file) or to stdout when path is "".
func writeOut(path string, stdout io.Writer, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	if path == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes(), 0o644)
}
