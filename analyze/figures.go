package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/llmstream/xk6-llmstream/analyze/model"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

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

// figureDPI is the resolution of PNG figures: --size is in pixels at it.
const figureDPI = 120

// defaultWindow is the drift view's window without --window.
const defaultWindow = 10 * time.Second

// figureConfig is what the figure flags ask for, validated.
type figureConfig struct {
	marks  []float64 // percentiles to mark, e.g. 50, 90, 99
	size   plot.Option
	window time.Duration
	logX   bool
	band   bool
}

// config validates the flags.
func (f *figureFlags) config() (figureConfig, error) {
	c := figureConfig{logX: f.logX, band: f.band, window: defaultWindow}
	if f.window.set {
		if f.window.d <= 0 {
			return c, usagef("--window %s: want a positive duration such as 10s", f.window.d)
		}
		c.window = f.window.d
	}
	var err error
	if c.marks, err = f.markPercents(); err != nil {
		return c, err
	}
	c.size, err = f.sizeOption()
	return c, err
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

// ecdfOptions adds the ECDF's flags (--log, --band) to opts.
func (c figureConfig) ecdfOptions(opts []plot.Option) []plot.Option {
	out := append([]plot.Option(nil), opts...)
	if c.logX {
		out = append(out, plot.LogX(true))
	}
	if c.band {
		out = append(out, plot.Band(plot.DefaultBandLevel))
	}
	return out
}

// ecdfSeries is one group's ECDF curve with its marked percentiles (k6's).
func ecdfSeries(g *model.Group, sorted []float64, marks []float64) plot.Series {
	ps := plot.Series{Name: g.Name(), Sorted: sorted}
	for _, p := range marks {
		if v, ok := stats.Percentile(sorted, p); ok {
			ps.Marks = append(ps.Marks, plot.Mark{Name: "P" + strconv.FormatFloat(p, 'f', -1, 64), P: p / 100, Value: v})
		}
	}
	return ps
}

// ecdfFigure draws a metric's ECDF, one curve per group, with the marked
// percentiles (k6's), and returns each group's tail diagnosis.
func ecdfFigure(d *model.Data, metric string, marks []float64, opts []plot.Option) (*plot.Figure, []string, error) {
	var series []plot.Series
	var sentences []string
	for _, s := range d.Series(metric) {
		v := s.Trend.Sorted()
		series = append(series, ecdfSeries(s.Group, v, marks))
		sentences = append(sentences, tail.Diagnose(s.Label(), v, tail.Unit(d.Unit(metric))).Sentence)
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
// group, and returns each group's drift verdict.
func driftFigure(d *model.Data, metric string, width time.Duration, opts []plot.Option) (*plot.Figure, []string, error) {
	f, sentences, _, err := drift(d, metric, width, opts)
	return f, sentences, err
}

// drift is driftFigure that also returns each group's windows, by group key.
func drift(d *model.Data, metric string, width time.Duration, opts []plot.Option) (*plot.Figure, []string, map[string][]tail.Window, error) {
	var series []plot.DriftSeries
	var sentences []string
	windows := map[string][]tail.Window{}
	for _, s := range d.Series(metric) {
		ws, err := tail.Windows(s.Trend.Samples(), width)
		if err != nil {
			return nil, nil, nil, usagef("--window: %v", err)
		}
		windows[s.Group.Key] = ws
		ds := plot.DriftSeries{Name: s.Group.Name()}
		for _, dp := range driftPercents {
			pc := plot.DriftPercentile{Name: dp.name}
			for _, w := range ws {
				pc.Steps = append(pc.Steps, plot.Step{Start: w.Start, End: w.End, Value: dp.get(w)})
			}
			ds.Percentiles = append(ds.Percentiles, pc)
		}
		series = append(series, ds)
		sentences = append(sentences, tail.Drift(s.Label(), s.Trend.Samples(), tail.Unit(d.Unit(metric))).Sentence)
	}
	f, err := plot.Drift(series, opts...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", metric, err)
	}
	return f, sentences, windows, nil
}

// figureFile names a figure's PNG in a report: the metric name (characters
// other than letters, digits, _ and - replaced) and the kind.
func figureFile(metric, kind string) string {
	safe := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, metric)
	return safe + "-" + kind + ".png"
}
