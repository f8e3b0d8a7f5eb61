package main

import (
	"flag"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
)

// figureFlags are the drawing choices plot and report share.
type figureFlags struct {
	logX   setBool
	band   bool
	marks  listFlag
	size   string
	window durationFlag
}

func (f *figureFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.logX, "log", "draw the value axis of the ECDF on a log scale (report: default on when a group's max is over 10× its P50; --log=false keeps it linear)")
	fs.BoolVar(&f.band, "band", false, "shade each ECDF's 95% Dvoretzky–Kiefer–Wolfowitz confidence band")
	fs.Var(&f.marks, "marks", "percentiles to mark on each ECDF, comma-separated (default 50,90,99)")
	fs.StringVar(&f.size, "size", "1080x660", "figure size `WxH` in pixels (PNG at 120 dpi; SVG the same size in points ×0.6)")
	fs.Var(&f.window, "window", "time window of the drift view, e.g. 10s (default 10s; a run shorter than 60s gets a window giving 10 or more)")
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
	// windowSet and logSet say whether --window and --log were given.
	windowSet, logSet bool
}

// setBool is a boolean flag that remembers whether it was given.
type setBool struct{ v, set bool }

func (b *setBool) String() string   { return strconv.FormatBool(b.v) }
func (b *setBool) IsBoolFlag() bool { return true }
func (b *setBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.v, b.set = v, true
	return nil
}

// windowFor is the drift window for a run of the given span: --window, else
// one chosen from the span (figures.Window).
func (c figureConfig) windowFor(span time.Duration) time.Duration {
	if c.windowSet {
		return c.window
	}
	return figures.Window(span, c.window)
}

// config validates the flags.
func (f *figureFlags) config() (figureConfig, error) {
	c := figureConfig{logX: f.logX.v, logSet: f.logX.set, band: f.band, window: defaultWindow, windowSet: f.window.set}
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
