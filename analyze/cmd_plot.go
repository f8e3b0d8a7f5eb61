package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

const plotExamples = `  analyze plot results.json -o ttft.png --metric llm_ttft
  analyze plot results.json -o ecdf.svg --by model --log --band
  analyze plot run-c1.json run-c4.json run-c8.json --by file --labels c=1,c=4,c=8 -o concurrency.png
  analyze plot results.json -o drift.png --metric llm_ttft --drift --window 10s
With several metrics, one file per metric: -o ecdf.png writes ecdf-llm_ttft.png, ecdf-llm_tpot.png, ...
The tail diagnosis (or, with --drift, the drift verdict) of each group goes to stdout.
`

// figureFlags are the drawing choices plot and report share.
type figureFlags struct {
	logX   bool
	band   bool
	marks  listFlag
	size   string
	window durationFlag
}

func (f *figureFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.logX, "log", false, "draw the value axis of the ECDF on a log scale")
	fs.BoolVar(&f.band, "band", false, "shade each ECDF's 95% Dvoretzky–Kiefer–Wolfowitz confidence band")
	fs.Var(&f.marks, "marks", "percentiles to mark on each ECDF, comma-separated (default 50,90,99)")
	fs.StringVar(&f.size, "size", "1080x660", "figure size `WxH` in pixels (PNG at 120 dpi; SVG the same size in points ×0.6)")
	fs.Var(&f.window, "window", "time window of the drift view, e.g. 10s (default 10s)")
}

// markPercents parses --marks.
func (f *figureFlags) markPercents() ([]float64, error) {
	if len(f.marks) == 0 {
		return []float64{50, 90, 99}, nil
	}
	var out []float64
	for _, m := range f.marks {
		v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(m), "p("), ")"), "p"), 64)
		if err != nil || !(v > 0 && v < 100) {
			return nil, usagef("--marks: %q is not a percentile between 0 and 100", m)
		}
		out = append(out, v)
	}
	return out, nil
}

// figureDPI is the resolution of PNG figures: --size is in pixels at it.
const figureDPI = 120

// sizeOption parses --size.
func (f *figureFlags) sizeOption() (plot.Option, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(f.size), "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 200 || h < 150 || w > 10000 || h > 10000 {
		return nil, usagef("--size %q: want WIDTHxHEIGHT in pixels, e.g. 1080x660 (200x150 to 10000x10000)", f.size)
	}
	return plot.Size(vg.Length(w)*vg.Inch/figureDPI, vg.Length(h)*vg.Inch/figureDPI), nil
}

func (f *figureFlags) windowWidth() time.Duration {
	if f.window.set && f.window.d > 0 {
		return f.window.d
	}
	return 10 * time.Second
}

func runPlot(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", "plot [flags] FILE... -o OUT.png|OUT.svg", plotExamples, stderr)
	var (
		in    inputFlags
		fig   figureFlags
		out   string
		drift bool
		title string
	)
	in.register(fs)
	fig.register(fs)
	fs.StringVar(&out, "o", "", "write the figure to this `file`: .png or .svg (required)")
	fs.BoolVar(&drift, "drift", false, "draw P50 and P99 per time window (--window) over the run instead of the ECDF")
	fs.StringVar(&title, "title", "", "the figure's title (default: the metric and the kind of figure)")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if out == "" {
		return usagef("-o is required: the .png or .svg file to write")
	}
	if _, err := plot.FormatOf(out); err != nil {
		return usagef("-o: %v", err)
	}
	if fig.window.set && fig.window.d <= 0 {
		return usagef("--window %s: want a positive duration such as 10s", fig.window.d)
	}
	if fig.window.set && !drift {
		return usagef("--window applies to the drift view: add --drift")
	}
	marks, err := fig.markPercents()
	if err != nil {
		return err
	}
	sizeOpt, err := fig.sizeOption()
	if err != nil {
		return err
	}
	sel, err := in.selection()
	if err != nil {
		return err
	}
	ins, err := inputsFrom(paths, in.labels)
	if err != nil {
		return err
	}
	r := newReader(sel, ins, in.lenient, stdin, stderr)
	td, err := collectTimed(r, true)
	if err != nil {
		return err
	}
	metrics := td.trendMetrics()
	if len(metrics) == 0 {
		return usagef("no Trend samples selected to plot (metrics in the inputs: %s)", strings.Join(r.metricNames(), ", "))
	}
	for _, m := range metrics {
		path := out
		if len(metrics) > 1 {
			ext := filepath.Ext(out)
			path = strings.TrimSuffix(out, ext) + "-" + m + ext
		}
		opts := []plot.Option{plot.Metric(m), sizeOpt, plot.DPI(figureDPI), plot.Unit(td.unit(m))}
		if title != "" {
			opts = append(opts, plot.Title(title))
		}
		var f *plot.Figure
		var sentences []string
		if drift {
			f, sentences, err = td.driftFigure(m, fig.windowWidth(), opts)
		} else {
			if fig.logX {
				opts = append(opts, plot.LogX(true))
			}
			if fig.band {
				opts = append(opts, plot.Band(plot.DefaultBandLevel))
			}
			f, sentences, err = td.ecdfFigure(m, marks, opts)
		}
		if err != nil {
			return err
		}
		if err := f.Save(path); err != nil {
			return err
		}
		for _, n := range f.Notes {
			fmt.Fprintf(stderr, "analyze plot: note: %s: %s\n", m, n)
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
		for _, s := range sentences {
			fmt.Fprintln(stdout, s)
		}
	}
	return nil
}

// timedSeries is what plot, compare and report keep of one metric in one
// group: each sample's value and time since the start of its input (16 bytes
// a sample), and for Rates the count of non-zero samples with their error
// kinds.
type timedSeries struct {
	metric  string
	group   *group
	samples []tail.Sample
	nonZero int64
	sum     float64
	last    float64
	kinds   map[string]int64
}

func (s *timedSeries) add(p *k6json.Point) {
	// k6 writes samples in batches: a sample may predate its input's first
	// line by a little. It counts in the first window.
	s.samples = append(s.samples, tail.Sample{T: max(0, p.Elapsed), V: p.Value})
	s.sum += p.Value
	s.last = p.Value
	if p.Value != 0 {
		s.nonZero++
		if k, ok := p.Tags.Get("error"); ok && k != "" {
			if s.kinds == nil {
				s.kinds = map[string]int64{}
			}
			s.kinds[k]++
		}
	}
}

// sorted returns the values in ascending order (a new slice).
func (s *timedSeries) sorted() []float64 {
	v := make([]float64, len(s.samples))
	for i, x := range s.samples {
		v[i] = x.V
	}
	slices.Sort(v)
	return v
}

// label names the series after its metric: "llm_ttft" or "llm_ttft (model=a)".
func (s *timedSeries) label() string { return s.metric + groupSuffix(s.group) }

// timedData is every series of a read.
type timedData struct {
	r      *reader
	series map[seriesKey]*timedSeries
	// first and last are the times of the first and last kept sample of each
	// input.
	first, last []time.Time
}

// collectTimed reads the inputs once and keeps each selected point with its
// time. With trendsOnly, metrics declared as another type than Trend are not
// kept.
func collectTimed(r *reader, trendsOnly bool) (*timedData, error) {
	keep := func(name string) bool {
		if !r.sel.keeps(name) {
			return false
		}
		m, ok := r.decls[name]
		return !trendsOnly || !ok || m.Type == k6json.Trend || m.Type == k6json.TypeUnknown
	}
	return collectTimedWith(r, keep, nil, nil)
}

// collectTimedWith reads the inputs once: points of the metrics keep accepts
// go into the timed series; when also is set, every point the reader passes
// of the metrics alsoKeep accepts goes to it too (e.g. to evaluate checks in
// the same pass).
func collectTimedWith(r *reader, keep, alsoKeep func(name string) bool, also func(p *k6json.Point)) (*timedData, error) {
	td := &timedData{r: r, series: map[seriesKey]*timedSeries{},
		first: make([]time.Time, len(r.inputs)), last: make([]time.Time, len(r.inputs))}
	kept := map[string]bool{}
	r.keep = func(name string) bool {
		kept[name] = keep(name)
		return kept[name] || (alsoKeep != nil && alsoKeep(name))
	}
	var (
		lastKey seriesKey
		lastS   *timedSeries
	)
	err := r.each(func(file int, g *group, p *k6json.Point) error {
		if also != nil {
			also(p)
		}
		if !kept[p.Metric] {
			return nil
		}
		td.seen(file, p.Time)
		k := seriesKey{p.Metric, g.id}
		if lastS == nil || k != lastKey {
			s, ok := td.series[k]
			if !ok {
				s = &timedSeries{metric: p.Metric, group: g}
				td.series[k] = s
			}
			lastKey, lastS = k, s
		}
		lastS.add(p)
		return nil
	})
	return td, err
}

func (td *timedData) seen(file int, t time.Time) {
	if td.first[file].IsZero() || t.Before(td.first[file]) {
		td.first[file] = t
	}
	if t.After(td.last[file]) {
		td.last[file] = t
	}
}

// ordered returns the series of a metric in the order of their group labels.
func (td *timedData) ordered(metric string) []*timedSeries {
	var out []*timedSeries
	for k, s := range td.series {
		if k.metric == metric {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *timedSeries) int { return strings.Compare(a.group.key, b.group.key) })
	return out
}

// metrics returns the metric names with data, in report order.
func (td *timedData) metrics() []string {
	seen := map[string]bool{}
	var names []string
	for k := range td.series {
		if !seen[k.metric] {
			seen[k.metric] = true
			names = append(names, k.metric)
		}
	}
	return orderMetrics(names, td.r.sel.metrics)
}

// trendMetrics returns the Trend metrics with data, in report order. A
// metric without a declaration is taken as a Trend (with a warning).
func (td *timedData) trendMetrics() []string {
	var out []string
	for _, m := range td.metrics() {
		if typ, _ := td.r.metricType(m); typ == k6json.Trend {
			out = append(out, m)
		}
	}
	return out
}

// seriesName is a group's name in a legend: its labels ("model=a"), or only
// the input's label when the grouping is --by file.
func seriesName(g *group) string {
	if len(g.labels) == 1 && g.labels[0].Key == "file" {
		return g.labels[0].Value
	}
	return g.key
}

// unit is the unit of a metric's values: ms for time Trends.
func (td *timedData) unit(metric string) string {
	_, contains := td.r.metricType(metric)
	return contains.Unit()
}

// ecdfFigure draws a metric's ECDF, one curve per group, with the marked
// percentiles (k6's), and returns each group's tail diagnosis.
func (td *timedData) ecdfFigure(metric string, marks []float64, opts []plot.Option) (*plot.Figure, []string, error) {
	var series []plot.Series
	var sentences []string
	for _, s := range td.ordered(metric) {
		v := s.sorted()
		ps := plot.Series{Name: seriesName(s.group), Sorted: v}
		for _, p := range marks {
			val, ok := stats.Percentile(v, p)
			if !ok {
				continue
			}
			ps.Marks = append(ps.Marks, plot.Mark{Name: "P" + strconv.FormatFloat(p, 'f', -1, 64), P: p / 100, Value: val})
		}
		series = append(series, ps)
		sentences = append(sentences, tail.Diagnose(s.label(), v, tail.Unit(td.unit(metric))).Sentence)
	}
	f, err := plot.ECDF(series, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", metric, err)
	}
	return f, sentences, nil
}

// driftPercents are the percentiles drawn per time window.
var driftPercents = []struct {
	name string
	get  func(tail.Window) float64
}{
	{"P50", func(w tail.Window) float64 { return w.P50 }},
	{"P99", func(w tail.Window) float64 { return w.P99 }},
}

// driftFigure draws a metric's P50 and P99 per time window, one colour per
// group, and returns each group's drift verdict and windows.
func (td *timedData) driftFigure(metric string, width time.Duration, opts []plot.Option) (*plot.Figure, []string, error) {
	f, sentences, _, err := td.drift(metric, width, opts)
	return f, sentences, err
}

func (td *timedData) drift(metric string, width time.Duration, opts []plot.Option) (*plot.Figure, []string, map[string][]tail.Window, error) {
	var series []plot.DriftSeries
	var sentences []string
	windows := map[string][]tail.Window{}
	for _, s := range td.ordered(metric) {
		ws, err := tail.Windows(s.samples, width)
		if err != nil {
			return nil, nil, nil, usagef("--window: %v", err)
		}
		windows[s.group.key] = ws
		ds := plot.DriftSeries{Name: seriesName(s.group)}
		for _, dp := range driftPercents {
			pc := plot.DriftPercentile{Name: dp.name}
			for _, w := range ws {
				pc.Steps = append(pc.Steps, plot.Step{Start: w.Start, End: w.End, Value: dp.get(w)})
			}
			ds.Percentiles = append(ds.Percentiles, pc)
		}
		series = append(series, ds)
		sentences = append(sentences, tail.Drift(s.label(), s.samples, tail.Unit(td.unit(metric))).Sentence)
	}
	f, err := plot.Drift(series, opts...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", metric, err)
	}
	return f, sentences, windows, nil
}
