package sweep

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/check"
)

// CurveMetrics are the latency metrics drawn against throughput.
var CurveMetrics = []string{MetricTTFT, MetricTPOT}

// WriteCurves draws the curves serving teams draw, with analyze/plot, into
// dir as SVG and PNG: latency percentiles (TTFT, TPOT p50/p90/p99) against
// the achieved throughput, one panel per metric family so that each has its
// own y range, and goodput and the achieved rate against the
// offered load — the SLO limits on a drawn percentile dashed, the knee (the
// highest passing level) dotted. It returns the files written.
func WriteCurves(res *Result, dir string) ([]string, error) {
	lat, good := CapacityCurves(res)
	kneeTP, kneeOffered := math.NaN(), math.NaN()
	if res.MaxPassing != nil {
		kneeOffered = *res.MaxPassing
		for _, l := range res.Levels {
			if l.Offered == kneeOffered && l.AchievedRPS != nil {
				kneeTP = *l.AchievedRPS
			}
		}
	}
	var files []string
	figs := []struct {
		name string
		make func() (*plot.Figure, error)
	}{
		{"capacity-latency", func() (*plot.Figure, error) { return plot.LatencyVsThroughput(LatencyPanels(lat), kneeTP) }},
		{"capacity-goodput", func() (*plot.Figure, error) { return plot.GoodputVsOffered(good, kneeOffered, res.Unit) }},
	}
	for _, fg := range figs {
		f, err := fg.make()
		if errors.Is(err, plot.ErrNoData) {
			continue
		}
		if err != nil {
			return files, fmt.Errorf("%s: %w", fg.name, err)
		}
		for _, ext := range []string{".svg", ".png"} {
			path := filepath.Join(dir, fg.name+ext)
			if err := f.Save(path); err != nil {
				return files, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// CapacityCurves are the points of the two figures, one per level with a
// value: latency percentiles by achieved throughput (each with the SLO limit
// on that metric and percentile, NaN without one), and goodput, the achieved
// rate and the ideal by offered load.
func CapacityCurves(res *Result) (latency, goodput []plot.CapacityCurve) {
	limits := sloLimits(res.SLO)
	for _, m := range CurveMetrics {
		for _, name := range pctNames() {
			c := plot.CapacityCurve{Name: curveName(m, name), Limit: math.NaN()}
			if v, ok := limits[m+" "+name]; ok {
				c.Limit = v
			}
			for _, l := range res.Levels {
				d := l.dist(m)
				if d == nil || l.AchievedRPS == nil {
					continue
				}
				if q := d.quantile(name); q != nil && q.Value != nil {
					c.Points = append(c.Points, plot.XYs{{X: *l.AchievedRPS, Y: *q.Value}}...)
				}
			}
			latency = append(latency, c)
		}
	}
	g := plot.CapacityCurve{Name: "goodput", Limit: math.NaN()}
	a := plot.CapacityCurve{Name: "achieved", Limit: math.NaN()}
	top := 0.0
	for _, l := range res.Levels {
		top = math.Max(top, l.Offered)
		if l.GoodputRPS != nil {
			g.Points = append(g.Points, plot.XYs{{X: l.Offered, Y: *l.GoodputRPS}}...)
		}
		if l.AchievedRPS != nil {
			a.Points = append(a.Points, plot.XYs{{X: l.Offered, Y: *l.AchievedRPS}}...)
		}
	}
	goodput = []plot.CapacityCurve{g, a}
	if res.Mode == Rate.String() && top > 0 {
		goodput = append(goodput, plot.IdealLine(top))
	}
	return latency, goodput
}

// LatencyPanels groups the latency curves (CapacityCurves' order) into one
// panel per metric of CurveMetrics: TTFT in the thousands of ms and TPOT in
// the tens each get their own y range.
func LatencyPanels(latency []plot.CapacityCurve) []plot.CapacityPanel {
	per := len(pctNames())
	var out []plot.CapacityPanel
	for i, m := range CurveMetrics {
		if (i+1)*per > len(latency) {
			break
		}
		out = append(out, plot.CapacityPanel{Name: shortName(m), Curves: latency[i*per : (i+1)*per]})
	}
	return out
}

// sloLimits are the SLO's upper limits on a percentile, by "metric p(N)".
func sloLimits(slo []string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range slo {
		cs, err := check.Parse(s)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if len(c.Tags) == 0 && (c.Expr.Op == "<" || c.Expr.Op == "<=") {
				out[c.Metric+" "+c.Expr.Aggregate.String()] = c.Expr.Limit
			}
		}
	}
	return out
}

func curveName(metric, pct string) string {
	return shortName(metric) + " " + pct
}

// shortName is a latency metric's family as the figures name it.
func shortName(metric string) string {
	return map[string]string{MetricTTFT: "TTFT", MetricTPOT: "TPOT"}[metric]
}
