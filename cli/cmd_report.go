package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memsched/memsched/harness/report"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/suite"
	"github.com/memsched/memsched/harness/trace"
	"github.com/memsched/memsched/internal/atomicfile"
	"github.com/memsched/memsched/paper"
	"github.com/memsched/memsched/workloads"
)

func init() {
	register("report", "tables, figures and published-vs-reproduced numbers from results files; the reproduction report; processing-order pictures", cmdReport)
}

const reportUsage = `RESULTS.jsonl... [flags]

  memsched report results/ipdps2022/2d-1gpu.jsonl --suite suites/ipdps2022/2d-1gpu.toml --claims paper/ --figures out/fig
  memsched report --reproduction paper/REPRODUCTION.md --claims paper/ --figures paper/figures results/*/*.jsonl
  memsched report --order-plot trace.jsonl [--workload-file w.json] -o order.png

Without --suite, each record's suite is looked up by name among the suites under --suites.`

// reportFlags are report's flags, parsed.
type reportFlags struct {
	suitePath, suitesDir, claimsDir, format, average, figures string
	repro, headline, out, orderPlot, workloadFile, fitFile    string
	figFormats                                                []string
	preview, formatGiven                                      bool
}

func cmdReport(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("report", reportUsage, stderr)
	var rf reportFlags
	fs.StringVar(&rf.suitePath, "suite", "", "the suite the results come from (labels, baseline, bounds, reference series)")
	fs.StringVar(&rf.suitesDir, "suites", "suites", "directory of suites, searched for the results' suites by name")
	fs.StringVar(&rf.claimsDir, "claims", "", "directory of claims files (paper/): add the published numbers beside the reproduced ones")
	fs.StringVar(&rf.format, "format", "md", "md, csv (per point and metric: mean, std, runs), runs (CSV, one row per run with every record field, for pandas or R), bench (golang.org/x/perf's benchfmt, one result per run: benchstat compares it) or html")
	fs.StringVar(&rf.average, "average", report.RatioOfMeans, "improvement averaging: ratio-of-means (the papers') or mean-of-ratios")
	fs.StringVar(&rf.figures, "figures", "", "write figures under this directory (one subdirectory per suite), as --figure-formats")
	figFormats := fs.String("figure-formats", "png,svg,pdf", "with --figures: the files of each figure, among png, svg and pdf")
	fs.StringVar(&rf.repro, "reproduction", "", "write the reproduction report (every claim of --claims, default paper/) to this file: .md (Markdown) or .html (a page with an index)")
	fs.StringVar(&rf.headline, "headline", "", "with --reproduction: write the headline into this file (README.md), on the line between <!-- headline --> and <!-- /headline -->")
	fs.StringVar(&rf.out, "o", "", "output file (default stdout; the picture file with --order-plot)")
	fs.StringVar(&rf.orderPlot, "order-plot", "", "draw the processing order of a trace (memsched run --trace) into -o (.png or .svg)")
	fs.StringVar(&rf.workloadFile, "workload-file", "", "with --order-plot: the run's workload JSON, when the trace header has no generator spec")
	fs.BoolVar(&rf.preview, "preview", false, "the results come from a quick sweep (sweep --quick): title the report and figures PREVIEW")
	fs.StringVar(&rf.fitFile, "fit", "", "with --reproduction: the fit declaration (paper/fit/v100-gemini.toml): tag each pair train or test, and show the fit's record (fitted values, sensitivity) when it exists")
	var prof profileFlags
	prof.register(fs)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := checkScopes(fs,
		flagScope{[]string{"workload-file"}, rf.orderPlot != "", "with --order-plot", "without it"},
		flagScope{[]string{"headline", "fit"}, rf.repro != "", "with --reproduction", "without it"},
		flagScope{[]string{"suite", "suites", "claims", "format", "average", "figures", "figure-formats", "reproduction", "preview"}, rf.orderPlot == "", "to tables and reports", "with --order-plot, which draws one trace"},
		flagScope{[]string{"suite", "o"}, rf.repro == "", "to a report on stdout or -o", "with --reproduction, which writes its own file and finds each record's suite under --suites"},
	); err != nil {
		return err
	}
	rf.formatGiven = formatSet(fs)
	if rf.figFormats, err = parseFigureFormats(*figFormats); err != nil {
		return err
	}
	if rf.orderPlot != "" && len(files) > 0 {
		return fmt.Errorf("unexpected argument %q: --order-plot draws the trace it names", files[0])
	}
	stop, err := prof.start()
	if err != nil {
		return err
	}
	defer func() {
		if perr := stop(); err == nil {
			err = perr
		}
	}()
	if rf.average != report.RatioOfMeans && rf.average != report.MeanOfRatios {
		return fmt.Errorf("--average %q: use %s or %s", rf.average, report.RatioOfMeans, report.MeanOfRatios)
	}
	switch {
	case rf.orderPlot != "":
		return orderPicture(rf.orderPlot, rf.workloadFile, rf.out, stdout)
	case rf.repro != "":
		return rf.reproduce(files, args, stdout, stderr)
	}
	return rf.tables(files, stdout, stderr)
}

// reproduce writes the reproduction report of every claim (--reproduction).
func (rf *reportFlags) reproduce(files, args []string, stdout, stderr io.Writer) error {
	html := strings.EqualFold(filepath.Ext(rf.repro), ".html")
	want := map[bool]string{true: "html", false: "md"}[html]
	switch {
	case !html && !strings.EqualFold(filepath.Ext(rf.repro), ".md"):
		return fmt.Errorf("--reproduction %s: the report is a .md (Markdown) or .html page", rf.repro)
	case rf.formatGiven && rf.format != want:
		return fmt.Errorf("--format %s with --reproduction %s: the file's extension says %s", rf.format, rf.repro, want)
	}
	claimsDir := rf.claimsDir
	if claimsDir == "" {
		claimsDir = "paper"
	}
	opt := report.Options{Average: rf.average, Preview: rf.preview}
	if rf.fitFile != "" {
		pts, err := report.LoadReference("paper/reference/gonthier-raw-results.csv")
		if err != nil {
			return err
		}
		if opt.Fit, err = paper.LoadFit(rf.fitFile, pts); err != nil {
			return err
		}
		if _, err := os.Stat(opt.Fit.Results); err == nil {
			if opt.FitResult, err = paper.ReadFitResult(opt.Fit.Results); err != nil {
				return err
			}
		}
	}
	return reproduction(files, rf.suitesDir, claimsDir, rf.figures, rf.figFormats, rf.repro, rf.headline, opt, stdout, stderr, args)
}

// tables reports results files: per suite, the tables, improvements,
// claims and figures, as Markdown, HTML or CSV, or every run as CSV.
func (rf *reportFlags) tables(files []string, stdout, stderr io.Writer) error {
	if len(files) == 0 {
		return fmt.Errorf("give at least one results file")
	}
	if rf.format != "md" && rf.format != "csv" && rf.format != "html" && rf.format != "runs" && rf.format != "bench" {
		return fmt.Errorf("--format %q: use md, csv, runs, bench or html", rf.format)
	}
	recs, src, at, err := report.LoadAt(files...)
	if err != nil {
		return err
	}
	if rf.format == "runs" {
		return writeOut(rf.out, stdout, func(w io.Writer) error { return report.WriteRunsCSV(w, recs) })
	}
	if rf.format == "bench" {
		return writeOut(rf.out, stdout, func(w io.Writer) error { return report.WriteBench(w, recs) })
	}
	var claims []paper.Claim
	if rf.claimsDir != "" {
		if claims, err = paper.LoadDir(rf.claimsDir); err != nil {
			return err
		}
	}
	if rf.figures != "" && rf.suitePath == "" {
		// Without --suite, the records' suite names become directories.
		for _, r := range recs {
			if err := suite.CheckName(r.Suite); r.Suite != "" && err != nil {
				return fmt.Errorf("--figures: the records of suite %q cannot have figures: %v", r.Suite, err)
			}
		}
	}
	sets, err := rf.sets(recs, src, at, files, stderr)
	if err != nil {
		return err
	}
	if rf.format == "csv" {
		return writeOut(rf.out, stdout, func(w io.Writer) error {
			for _, set := range sets {
				warnMixed(set, stderr)
				if err := rf.writeFigures(set, nil); err != nil {
					return err
				}
				if err := report.WriteCSV(w, set); err != nil {
					return err
				}
			}
			return nil
		})
	}
	doc, err := rf.document(sets, claims, stderr)
	if err != nil {
		return err
	}
	return writeOut(rf.out, stdout, func(w io.Writer) error {
		if rf.format == "html" {
			return doc.HTML(w)
		}
		return doc.Markdown(w)
	})
}

// sets groups the records by suite: --suite's, or each record's suite
// found by name under --suites.
func (rf *reportFlags) sets(recs []run.Record, src, at, files []string, stderr io.Writer) ([]*report.Set, error) {
	if rf.suitePath == "" {
		return setsByName(recs, src, at, files, rf.suitesDir, stderr)
	}
	s, err := suite.Load(rf.suitePath)
	if err != nil {
		return nil, err
	}
	if err := report.CheckSuite(s, recs, at); err != nil {
		return nil, err
	}
	set := report.NewSet(s, recs, src)
	if set.Present == 0 {
		fmt.Fprintf(stderr, "memsched report: no record of %s matches the current suite %s (other suite, or results of an older configuration); run memsched sweep %s\n", strings.Join(files, ", "), s.File, s.File)
	}
	return []*report.Set{set}, nil
}

// writeFigures writes a set's figures under --figures (nothing without it),
// listing them in opt when opt is not nil.
func (rf *reportFlags) writeFigures(set *report.Set, opt *report.Options) error {
	set.Preview, set.FigureFormats = rf.preview, rf.figFormats
	if rf.figures == "" {
		return nil
	}
	write := report.WriteFigures
	if set.Suite != nil && set.Suite.Batch != nil {
		write = report.WriteBatchFigures
	}
	files, err := write(set, filepath.Join(rf.figures, safeName(set.Name)))
	if opt != nil {
		opt.Figures = files
	}
	return err
}

// document builds the report of the sets: one set's document, or one
// section per set.
func (rf *reportFlags) document(sets []*report.Set, claims []paper.Claim, stderr io.Writer) (*report.Doc, error) {
	linkDir := "."
	if rf.out != "" {
		linkDir = filepath.Dir(rf.out)
	}
	doc := &report.Doc{Title: "memsched report"}
	for _, set := range sets {
		warnMixed(set, stderr)
		opt := report.Options{Average: rf.average, Claims: claims, LinkDir: linkDir, Preview: rf.preview}
		if rf.claimsDir == "" && set.Suite != nil && set.Suite.Claims != "" {
			// Without --claims, the suite's own claims file; with the claims
			// files beside it (paper/*.toml) when a claim restates another
			// paper's, which only they resolve.
			own := set.Suite.Path(set.Suite.Claims)
			cs, err := paper.LoadClaims(own)
			if err != nil {
				if all, derr := paper.LoadDir(filepath.Dir(own)); derr == nil {
					cs, err = all, nil
				}
			}
			if err != nil {
				return nil, fmt.Errorf("the claims of suite %s (%s): %w", set.Suite.Name, set.Suite.Claims, err)
			}
			opt.Claims = cs
		}
		if err := rf.writeFigures(set, &opt); err != nil {
			return nil, err
		}
		d, err := report.Build(set, opt)
		if err != nil {
			return nil, err
		}
		if len(sets) == 1 {
			return d, nil
		}
		doc.Sections = append(doc.Sections, report.Section{Title: set.Title, Level: 2})
		for _, s := range d.Sections {
			s.Level = 3
			doc.Sections = append(doc.Sections, s)
		}
	}
	return doc, nil
}

// setsByName groups records by their suite name and finds each suite file
// under dir; records of an unknown suite are reported as recorded.
func setsByName(recs []run.Record, src, at, files []string, dir string, stderr io.Writer) ([]*report.Set, error) {
	byName := map[string][]run.Record{}
	srcByName := map[string][]string{}
	atByName := map[string][]string{}
	var names []string
	for i, r := range recs {
		if _, ok := byName[r.Suite]; !ok {
			names = append(names, r.Suite)
		}
		byName[r.Suite] = append(byName[r.Suite], r)
		srcByName[r.Suite] = append(srcByName[r.Suite], src[i])
		atByName[r.Suite] = append(atByName[r.Suite], at[i])
	}
	sort.Strings(names)
	suites := loadSuites(dir, stderr)
	var sets []*report.Set
	for _, name := range names {
		var s *suite.Suite
		for _, cand := range suites {
			if cand.Name == name && name != "" {
				s = cand
			}
		}
		if s == nil && name != "" {
			fmt.Fprintf(stderr, "memsched report: suite %q not found under %s; reporting its records as recorded (give --suite for labels, bounds and claims)\n", name, dir)
		}
		if err := report.CheckSuite(s, byName[name], atByName[name]); err != nil {
			return nil, err
		}
		sets = append(sets, report.NewSet(s, byName[name], srcByName[name]))
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("no records in %s", strings.Join(files, ", "))
	}
	return sets, nil
}

// loadSuites parses every suite under dir, in parallel (parsing builds
// every point's workload); broken ones are reported, in path order, and
// skipped, since only the suites of the results matter here.
func loadSuites(dir string, stderr io.Writer) map[string]*suite.Suite {
	var paths []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".toml") {
			paths = append(paths, path)
		}
		return nil
	})
	suites := make([]*suite.Suite, len(paths))
	errs := make([]error, len(paths))
	parallel(len(paths), func(i int) { suites[i], errs[i] = suite.Load(paths[i]) })
	out := map[string]*suite.Suite{}
	for i, s := range suites {
		if errs[i] != nil {
			fmt.Fprintf(stderr, "memsched report: skipping suite %s:\n%v\n", paths[i], errs[i])
			continue
		}
		out[s.RelFile()] = s
	}
	return out
}

// parallel calls f(0), ..., f(n-1) on GOMAXPROCS goroutines: the report's
// suites and figures are independent, and making them one at a time left
// a core idle at the end of every `make reproduce`.
func parallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}

func safeName(s string) string {
	if s == "" {
		return "unnamed"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '-'
		}
		return r
	}, s)
}

// warnMixed says on stderr when a table cell mixes commits.
func warnMixed(set *report.Set, stderr io.Writer) {
	if mixed := set.MixedCells(); len(mixed) > 0 {
		fmt.Fprintf(stderr, "memsched report: %s: %s\n", set.Name, strings.ReplaceAll(report.MixedWarning(mixed), "**", ""))
	}
}

func reproduction(files []string, suitesDir, claimsDir, figures string, formats []string, out, headlineFile string, opt report.Options, stdout, stderr io.Writer, args []string) error {
	average, preview := opt.Average, opt.Preview
	claims, err := paper.LoadDir(claimsDir)
	if err != nil {
		return err
	}
	recs, src, at, err := report.LoadAt(files...)
	if err != nil {
		return err
	}
	named := map[string]bool{}
	for _, c := range claims {
		if c.Suite != "" {
			named[c.Suite] = true
		}
	}
	swept := map[string]bool{} // suite names the records were swept from
	for _, r := range recs {
		swept[r.Suite] = true
	}
	suites := loadSuites(suitesDir, stderr)
	var rels []string
	for rel, s := range suites {
		// A suite whose runs coincide with another's (quick.toml) matches
		// records it did not produce: only claimed or swept suites count.
		if named[rel] || swept[s.Name] {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	// Each suite's set and figures are built in parallel; warnings and the
	// first error come out in suite order.
	type built struct {
		sr   *report.SuiteResults
		warn bytes.Buffer
		err  error
	}
	done := make([]built, len(rels))
	bar := newProgress(stderr, "suites", len(rels))
	parallel(len(rels), func(i int) {
		defer bar.add()
		b := &done[i]
		s := suites[rels[i]]
		if b.err = report.CheckSuite(s, recs, at); b.err != nil {
			return
		}
		set := report.NewSet(s, recs, src)
		if set.Present == 0 {
			set = nil
		} else {
			set.Preview, set.FigureFormats = preview, formats
			warnMixed(set, &b.warn)
		}
		b.sr = &report.SuiteResults{Suite: s, Set: set}
		if set != nil && figures != "" {
			dir := filepath.Join(figures, filepath.FromSlash(strings.TrimSuffix(strings.TrimPrefix(rels[i], "suites/"), ".toml")))
			write := report.WriteFigures
			if s.Batch != nil {
				write = report.WriteBatchFigures
			}
			b.sr.Figures, b.err = write(set, dir)
		}
	})
	bar.done()
	results := map[string]*report.SuiteResults{}
	for i, rel := range rels {
		stderr.Write(done[i].warn.Bytes())
		if done[i].err != nil {
			return done[i].err
		}
		results[rel] = done[i].sr
	}
	linkDir := filepath.Dir(out)
	command := "memsched report " + strings.Join(args, " ")
	opt.LinkDir = linkDir
	d, err := report.Reproduction(claims, results, opt, command)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if strings.EqualFold(filepath.Ext(out), ".html") {
		// Figures link their SVG and PDF twins where they were written.
		exist := func(p string) bool {
			_, err := os.Stat(filepath.Join(linkDir, filepath.FromSlash(p)))
			return err == nil
		}
		err = d.HTMLWith(&buf, exist)
	} else {
		err = d.Markdown(&buf)
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	counts, h := report.Counts(claims, results, average)
	fmt.Fprintf(stdout, "%s: %s; %d claims: %d reproduced, %d within noise, %d off, %d not run, %d not yet reproducible, %d not reproducible here, %d definitions, %d faster than published, %d platform inputs, %d restatements, %d qualitative\n",
		out, h, len(claims), counts[report.StatusReproduced], counts[report.StatusNoise], counts[report.StatusOff], counts[report.StatusNotRun], counts[report.StatusNotYet], counts[report.StatusNotHere],
		counts[report.StatusDefinition], counts[report.StatusFaster], counts[report.StatusInput], counts[report.StatusRestates], counts[report.StatusQualitative])
	causes := report.CauseCounts(claims, results, average)
	var parts []string
	for _, c := range append(paper.Causes(), report.NoCause) {
		if causes[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", causes[c], c))
		}
	}
	fmt.Fprintf(stdout, "not reproduced, by cause: %s\n", strings.Join(parts, ", "))
	if headlineFile != "" {
		return writeHeadline(headlineFile, fmt.Sprintf("**%s** (%s).", h, out))
	}
	return nil
}

// writeHeadline replaces the text between the headline markers of a file
// (README.md), so the number beside the command that makes it stays true.
func writeHeadline(path, text string) error {
	const begin, end = "<!-- headline -->", "<!-- /headline -->"
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("--headline %s: no %s ... %s markers; add them where the headline goes", path, begin, end)
	}
	s = s[:i+len(begin)] + text + s[j:]
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	return atomicfile.WriteFile(path, []byte(s), perm)
}

func orderPicture(tracePath, workloadFile, out string, stdout io.Writer) error {
	if out == "" {
		return fmt.Errorf("--order-plot needs -o FILE.png (or .svg)")
	}
	f, err := os.Open(tracePath)
	if err != nil {
		return err
	}
	defer f.Close()
	t, err := trace.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tracePath, err)
	}
	var w *workloads.Workload
	switch {
	case workloadFile != "":
		w, err = workloads.ReadJSONFile(workloadFile)
	case t.Header.WorkloadFile != "":
		w, err = workloads.ReadJSONFile(t.Header.WorkloadFile)
	case t.Header.Workload != nil:
		w, err = workloads.Generate(*t.Header.Workload)
	default:
		return fmt.Errorf("%s has no workload spec in its header; give --workload-file W.json (memsched workload writes one)", tracePath)
	}
	if err != nil {
		return err
	}
	if err := report.OrderPlot(t.Events, w, out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}

// parseFigureFormats reads --figure-formats: png, svg, pdf, comma-separated.
func parseFigureFormats(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(f)), ".")
		if f != "png" && f != "svg" && f != "pdf" {
			return nil, fmt.Errorf("--figure-formats %q: %q is not a figure format (png, svg, pdf)", s, f)
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, "."+f)
		}
	}
	return out, nil
}

// formatSet says whether --format was given.
func formatSet(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "format" })
	return set
}
