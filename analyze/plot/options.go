package plot

import "gonum.org/v1/plot/vg"

// DefaultUnit is the unit of k6 Trend values, written on the value axis.
const DefaultUnit = "ms"

// DefaultBandLevel is the confidence level of the DKW band when Band is asked
// for without a level.
const DefaultBandLevel = 0.95

// Option changes how a figure is drawn.
type Option func(*options)

type options struct {
	title         string
	unit          string
	metric        string
	logX          bool
	band          float64
	points        int
	width, height vg.Length
	sized         bool // Size was given
	dpi           int
}

func makeOptions(opts []Option) options {
	o := options{unit: DefaultUnit, width: DefaultWidth, height: DefaultHeight, dpi: DefaultDPI, points: DefaultPoints}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Title sets the figure's title (default: the metric name and the kind of figure).
func Title(s string) Option { return func(o *options) { o.title = s } }

// Metric names the metric drawn: it goes into the default title and the
// value axis label, e.g. "llm_ttft (ms)".
func Metric(name string) Option { return func(o *options) { o.metric = name } }

// Unit sets the unit of the values (default [DefaultUnit]); empty for none.
func Unit(u string) Option { return func(o *options) { o.unit = u } }

// LogX draws the value axis of an ECDF on a log scale. Values ≤ 0 cannot be
// shown there: the curve starts at the smallest positive value, at the height
// of the share of values ≤ 0, and Figure.Notes says so.
func LogX(on bool) Option { return func(o *options) { o.logX = on } }

// Band draws the Dvoretzky–Kiefer–Wolfowitz confidence band of each ECDF at the
// given level (e.g. 0.95): with n samples the true CDF lies within
// ε = √(ln(2/(1−level))/(2n)) of the ECDF everywhere, with that probability.
// 0 draws no band.
func Band(level float64) Option { return func(o *options) { o.band = level } }

// Points sets k, the rank-grid size of [ReduceECDF] (default [DefaultPoints]).
func Points(k int) Option { return func(o *options) { o.points = k } }

// Size sets the figure's width and height.
func Size(w, h vg.Length) Option {
	return func(o *options) { o.width, o.height, o.sized = w, h, true }
}

// DPI sets the resolution of PNG output (default [DefaultDPI]).
func DPI(dpi int) Option { return func(o *options) { o.dpi = dpi } }

// axisLabel is "metric (unit)", or whichever part is known.
func (o options) axisLabel() string {
	switch {
	case o.metric != "" && o.unit != "":
		return o.metric + " (" + o.unit + ")"
	case o.metric != "":
		return o.metric
	case o.unit != "":
		return "value (" + o.unit + ")"
	}
	return "value"
}
