package figures

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// DPI is the resolution of PNG figures: sizes in pixels are at it.
const DPI = 120

// DefaultWindow is the drift view's window when none is asked for.
const DefaultWindow = 10 * time.Second

// Config is the drawing choices analyze plot and report share, validated.
type Config struct {
	Marks  []float64 // percentiles to mark, e.g. 50, 90, 99
	Size   plot.Option
	Window time.Duration
	LogX   bool
	Band   bool
	// WindowSet and LogSet say whether the window and the log axis were
	// asked for (else they are chosen from the data).
	WindowSet, LogSet bool
}

// WindowFor is the drift window for a run of the given span: the one asked
// for, else one chosen from the span (Window).
func (c Config) WindowFor(span time.Duration) time.Duration {
	if c.WindowSet {
		return c.Window
	}
	return Window(span, c.Window)
}

// ECDFOptions adds the ECDF's choices (log axis, DKW band) to opts.
func (c Config) ECDFOptions(opts []plot.Option) []plot.Option {
	out := append([]plot.Option(nil), opts...)
	if c.LogX {
		out = append(out, plot.LogX(true))
	}
	if c.Band {
		out = append(out, plot.Band(plot.DefaultBandLevel))
	}
	return out
}

// ParsePercents reads percentiles (50, p99, p(99.9)) strictly between 0
// and 100; what names the input in the error (--marks).
func ParsePercents(what string, list []string) ([]float64, error) {
	var out []float64
	for _, m := range list {
		v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(m), "p("), ")"), "p"), 64)
		if err != nil || !(v > 0 && v < 100) {
			return nil, fmt.Errorf("%s: %q is not a percentile between 0 and 100", what, m)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseSize reads a figure size WIDTHxHEIGHT in pixels at DPI; what names
// the input in the error (--size).
func ParseSize(what, size string) (plot.Option, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(size), "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 200 || h < 150 || w > 10000 || h > 10000 {
		return nil, fmt.Errorf("%s %q: want WIDTHxHEIGHT in pixels, e.g. 1080x660 (200x150 to 10000x10000)", what, size)
	}
	return plot.Size(vg.Length(w)*vg.Inch/DPI, vg.Length(h)*vg.Inch/DPI), nil
}

// PlotOptions are analyze plot's choices besides Config.
type PlotOptions struct {
	Out   string // the file; with several metrics, OUT-<metric>.ext each
	Drift bool   // P50 and P99 per window instead of the ECDF
	Title string // empty: the metric and the kind of figure
}

// Plot draws each metric's ECDF (or drift) into its file, and writes to
// stdout the file written and each group's tail diagnosis (or drift
// verdict), and the figure's notes to stderr, metric by metric.
func Plot(d *rundata.Data, metrics []string, c Config, o PlotOptions, stdout, stderr io.Writer) error {
	for _, m := range metrics {
		path := o.Out
		if len(metrics) > 1 {
			ext := filepath.Ext(o.Out)
			path = strings.TrimSuffix(o.Out, ext) + "-" + m + ext
		}
		opts := []plot.Option{plot.Metric(m), c.Size, plot.DPI(DPI), plot.Unit(d.Unit(m))}
		if o.Title != "" {
			opts = append(opts, plot.Title(o.Title))
		}
		var f *plot.Figure
		var sentences []string
		var err error
		if o.Drift {
			f, sentences, _, err = Drift(d, m, c.WindowFor(d.Span()), opts...)
		} else {
			f, sentences, err = ECDF(d, m, c.Marks, c.ECDFOptions(opts)...)
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
