package figures

import (
	"strconv"

	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
)

// HistoryTrend draws a metric's trend from a history's series (package
// history computes them and draws nothing): the percentiles
// (history.DefaultPercents when nil)
// of every series per run over calendar time with their intervals, a ring on
// each run a verdict flagged as a regression, and the run labels at change
// points (where a series' label differs from its previous run's).
func HistoryTrend(series []*history.Series, metric string, percents []float64, verdicts []history.Verdict, opts ...plot.Option) (*plot.Figure, error) {
	if percents == nil {
		percents = history.DefaultPercents
	}
	flagged := map[string]bool{}
	for _, v := range verdicts {
		if v.Status == history.Regression && v.Metric == metric {
			flagged[v.Series+"\x00"+v.Stat+"\x00"+strconv.Itoa(v.Run)] = true
		}
	}
	var ts []plot.TrendSeries
	var marks []plot.TrendMark
	seen := map[string]bool{}
	for _, s := range series {
		name := s.Key
		if len(series) == 1 && name == "all" {
			name = ""
		}
		t := plot.TrendSeries{Name: name}
		for _, n := range percents {
			stat := "P" + strconv.FormatFloat(n, 'f', -1, 64)
			line := plot.TrendLine{Name: stat}
			for _, pt := range s.Points(metric, n) {
				line.Points = append(line.Points, plot.TrendPoint{Time: pt.Time, Value: pt.Value, Lo: pt.Lo, Hi: pt.Hi,
					Alert: flagged[s.Key+"\x00"+stat+"\x00"+strconv.Itoa(pt.Run)]})
			}
			t.Lines = append(t.Lines, line)
		}
		ts = append(ts, t)
		for i := 1; i < len(s.Runs); i++ {
			r := s.Runs[i].Record
			if r.Label != s.Runs[i-1].Record.Label {
				if k := r.Start.String() + "\x00" + r.Label; !seen[k] {
					seen[k] = true
					marks = append(marks, plot.TrendMark{Time: r.Start, Label: r.Label})
				}
			}
		}
	}
	opts = append([]plot.Option{plot.Metric(metric), plot.Unit(history.Unit(series, metric))}, opts...)
	return plot.Trend(ts, marks, opts...)
}
