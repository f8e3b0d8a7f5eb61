package plot

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Step is a value that holds over one time window [Start, End), e.g. the P99
// of the samples in it. A NaN Value (an empty window) breaks the line.
type Step struct {
	Start, End time.Duration
	Value      float64
}

// DriftPercentile is one percentile of one group over the windows of a run.
type DriftPercentile struct {
	Name  string // e.g. "P99"
	Steps []Step // in time order
}

// DriftSeries is one group's percentiles over time: one colour per series, one
// line style per percentile (solid, dashed, dotted, …).
type DriftSeries struct {
	Name        string
	Percentiles []DriftPercentile
}

// Drift draws each series' percentiles per time window as step lines over the
// time since the start of the run (seconds), with one legend entry per line.
func Drift(series []DriftSeries, opts ...Option) (*Figure, error) {
	o := makeOptions(opts)
	title := o.title
	if title == "" {
		title = "percentiles per time window"
		if o.metric != "" {
			title = o.metric + " — " + title
		}
	}
	p := newPlot(title)
	p.X.Label.Text = "time since the start of the run (s)"
	p.Y.Label.Text = o.axisLabel()
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	f := newFigure(p, o)
	drawn := 0
	for i, s := range series {
		col, _ := seriesStyle(i)
		for j, pc := range s.Percentiles {
			var first *plotter.Line
			for _, run := range splitRuns(pc.Steps) {
				line, err := plotter.NewLine(run)
				if err != nil {
					return nil, fmt.Errorf("plot: %s %s: %w", s.Name, pc.Name, err)
				}
				line.StepStyle = plotter.PostStep
				line.Color = col
				line.Width = vg.Points(1.4)
				line.Dashes = driftDashes[j%len(driftDashes)]
				p.Add(line)
				if first == nil {
					first = line
				}
				drawn++
			}
			if first != nil {
				label := pc.Name
				if s.Name != "" {
					label = s.Name + " " + pc.Name
				}
				f.panels[0].add(label, first)
			}
		}
	}
	if drawn == 0 {
		return nil, ErrNoData
	}
	nx, ny := min(maxLinearLabels, maxLabels(o.width)), min(maxLinearLabels, maxLabels(o.height))
	p.X.Min, p.X.Max = widenRound(p.X.Min, p.X.Max, nx)
	p.Y.Min, p.Y.Max = widenRound(p.Y.Min, p.Y.Max, ny)
	p.X.Tick.Marker = roundTicks{maxN: nx}
	p.Y.Tick.Marker = roundTicks{maxN: ny}
	return f, nil
}

// driftDashes are the line styles of successive percentiles.
var driftDashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// splitRuns turns steps into post-step corner lists in seconds, one per run of
// windows with a value: each window contributes its start, and the last of a
// run also its end, so the final window is drawn to its end.
func splitRuns(steps []Step) []XYs {
	var runs []XYs
	var cur XYs
	flush := func(end time.Duration) {
		if len(cur) > 0 {
			cur = append(cur, plotter.XY{X: end.Seconds(), Y: cur[len(cur)-1].Y})
			runs = append(runs, cur)
			cur = nil
		}
	}
	for i, s := range steps {
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			if i > 0 {
				flush(steps[i-1].End)
			}
			continue
		}
		if len(cur) > 0 && s.Start != steps[i-1].End {
			flush(steps[i-1].End) // a gap in time
		}
		cur = append(cur, plotter.XY{X: s.Start.Seconds(), Y: s.Value})
	}
	if len(steps) > 0 {
		flush(steps[len(steps)-1].End)
	}
	return runs
}
