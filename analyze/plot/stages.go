package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// StageBar is one bar of a stacked-stage figure: its label and one value
// per stage, in the stages' order.
type StageBar struct {
	Label  string
	Values []float64
}

// stagesRoom is how far the value axis reaches past the longest bar, as a
// share of it: room for the totals and the legend, top right.
const stagesRoom = 0.4

// Stages draws each bar horizontally, top to bottom in the order given, as
// its stages' values stacked left to right in the order of stages, one
// colour per stage (named in the legend), with the bar's total written at its
// end. The value axis is in the figure's unit (default ms). A stage of value
// 0 is drawn with no width; a negative or non-finite value is an error.
func Stages(stages []string, bars []StageBar, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	if len(bars) == 0 || len(stages) == 0 {
		return nil, ErrNoData
	}
	longest, err := stageTotals(stages, bars)
	if err != nil {
		return nil, err
	}
	title := o.title
	if title == "" {
		title = "time per stage"
	}
	p := newPlot(title)
	p.X.Label.Text = "mean time per request"
	if o.unit != "" {
		p.X.Label.Text += " (" + o.unit + ")"
	}
	p.X.Min, p.X.Max = 0, longest*(1+stagesRoom)
	if longest == 0 {
		p.X.Max = 1
	}
	p.Y.Min, p.Y.Max = -0.5, float64(len(bars))-0.5
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil // the bars' centres: it would cross the totals
	p.Add(grid)
	p.X.Tick.Marker = roundTicks{maxN: min(maxLinearLabels, maxLabels(o.width))}
	f := newFigure(p, o)
	if err := addStageBars(f.panels[0], stages, bars, o); err != nil {
		return nil, err
	}
	names := make([]string, len(bars))
	for i, b := range bars {
		names[len(bars)-1-i] = b.Label // the first bar on top
	}
	p.NominalY(names...)
	return f, nil
}

// stageTotals checks the bars' values and returns the longest bar's total.
func stageTotals(stages []string, bars []StageBar) (float64, error) {
	longest := 0.0
	for _, b := range bars {
		if len(b.Values) != len(stages) {
			return 0, fmt.Errorf("plot: bar %q has %d values for %d stages", b.Label, len(b.Values), len(stages))
		}
		total := 0.0
		for s, v := range b.Values {
			if !(v >= 0) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("plot: bar %q, stage %s: value %v: want a finite value ≥ 0", b.Label, stages[s], v)
			}
			total += v
		}
		longest = math.Max(longest, total)
	}
	return longest, nil
}

// addStageBars adds one bar chart per stage, stacked on the one before, and
// the totals' labels.
func addStageBars(pn *panel, stages []string, bars []StageBar, o options) error {
	p := pn.plot
	n := len(bars)
	width := max(vg.Points(4), (o.height-vg.Points(90))/vg.Length(2*n))
	var below *plotter.BarChart
	for s, name := range stages {
		vals := make(plotter.Values, n)
		for i, b := range bars {
			vals[n-1-i] = b.Values[s]
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("plot: stage %s: %w", name, err)
		}
		bc.Horizontal = true
		bc.Color = palette[s%len(palette)]
		bc.LineStyle.Color, bc.LineStyle.Width = color.White, vg.Points(0.5)
		if below != nil {
			bc.StackOn(below)
		}
		p.Add(bc)
		pn.add(name, bc)
		below = bc
	}
	return addTotals(p, bars, o)
}

// addTotals writes each bar's total just after its end.
func addTotals(p *plot.Plot, bars []StageBar, o options) error {
	var xys plotter.XYLabels
	for i, b := range bars {
		total := 0.0
		for _, v := range b.Values {
			total += v
		}
		xys.XYs = append(xys.XYs, plotter.XY{X: total, Y: float64(len(bars) - 1 - i)})
		xys.Labels = append(xys.Labels, numfmt.Sig4Unit(total, o.unit))
	}
	labels, err := plotter.NewLabels(xys)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i] = text.Style{Font: font.From(sans, 10), Handler: p.TextHandler, XAlign: draw.XLeft, YAlign: draw.YCenter}
	}
	labels.Offset = vg.Point{X: vg.Points(4)}
	p.Add(labels)
	return nil
}
