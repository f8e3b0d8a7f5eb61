package main

import (
	"flag"
	"github.com/llmstream/xk6-llmstream/analyze/cli"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
)

// figureFlags are the drawing choices plot and report share.
type figureFlags struct {
	logX   cli.Bool
	band   bool
	marks  cli.List
	size   string
	window cli.Duration
}

func (f *figureFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.logX, "log", "draw the value axis of the ECDF on a log scale (report: default on when a group's max is over 10× its P50; --log=false keeps it linear)")
	fs.BoolVar(&f.band, "band", false, "shade each ECDF's 95% Dvoretzky–Kiefer–Wolfowitz confidence band")
	fs.Var(&f.marks, "marks", "percentiles to mark on each ECDF, comma-separated (default 50,90,99)")
	fs.StringVar(&f.size, "size", "1080x660", "figure size `WxH` in pixels (PNG at 120 dpi; SVG the same size in points ×0.6)")
	fs.Var(&f.window, "window", "time window of the drift view, e.g. 10s (default 10s; a run shorter than 60s gets a window giving 10 or more)")
}

// config validates the flags.
func (f *figureFlags) config() (figures.Config, error) {
	c := figures.Config{LogX: f.logX.V, LogSet: f.logX.Given, Band: f.band, Window: figures.DefaultWindow, WindowSet: f.window.Given, Marks: []float64{50, 90, 99}}
	if f.window.Given {
		if f.window.D <= 0 {
			return c, usagef("--window %s: want a positive duration such as 10s", f.window.D)
		}
		c.Window = f.window.D
	}
	var err error
	if len(f.marks) > 0 {
		if c.Marks, err = figures.ParsePercents("--marks", f.marks); err != nil {
			return c, usageError{Err: err}
		}
	}
	if c.Size, err = figures.ParseSize("--size", f.size); err != nil {
		return c, usageError{Err: err}
	}
	return c, nil
}
