package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/figures"
	"github.com/llmstream/xk6-llmstream/analyze/plot"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// Build lays out the summary of every metric read — tables, values,
// diagnosis, warnings — with its figures drawn as c says (title empty: "Load
// test report" and the inputs). No metric read is an input error.
func Build(d *rundata.Data, sum *result.Summary, title string, c figures.Config) (*Report, error) {
	rep := &Report{Title: title, Generated: time.Now().UTC(), Selection: d.Reader.Selection().String(), Confidence: sum.Confidence}
	if rep.Title == "" {
		labels := make([]string, len(sum.Inputs))
		for i, in := range sum.Inputs {
			labels[i] = in.Label
		}
		rep.Title = "Load test report: " + strings.Join(labels, ", ")
	}
	for i, in := range sum.Inputs {
		first, last := d.FileSpan(i)
		row := InputOf(in, first, last)
		for _, n := range row.Notes {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s", in.Path, n))
		}
		rep.Inputs = append(rep.Inputs, row)
	}
	rep.Warnings = append(rep.Warnings, SummaryWarnings(sum)...)
	rep.Health = SummaryHealth(sum)
	rep.Throughput = SummaryThroughput(sum)
	rep.Cost = SummaryCost(sum)
	opts := []plot.Option{c.Size, plot.DPI(figures.DPI)}
	for _, sm := range sum.Metrics {
		m := Metric{Name: sm.Name, Kind: sm.Type, Unit: sm.Unit}
		if sm.Type != "trend" {
			for _, g := range sm.Groups {
				m.Values = append(m.Values, ValueOf(sm.Type, g, d.Span()))
			}
		} else if err := trendSection(&m, d, sm, c, append(slices.Clone(opts), plot.Metric(sm.Name), plot.Unit(m.Unit))); err != nil {
			return nil, err
		}
		rep.Metrics = append(rep.Metrics, m)
	}
	if len(rep.Metrics) == 0 {
		return nil, rundata.Errorf("no samples selected for the report (metrics in the inputs: %s)", strings.Join(d.Reader.MetricNames(), ", "))
	}
	return rep, nil
}

// trendSection fills a Trend's table and diagnosis from the summary, and
// draws its figures.
func trendSection(m *Metric, d *rundata.Data, sm result.Metric, c figures.Config, opts []plot.Option) error {
	var series []plot.Series
	// The summary's groups are the series, in the same (group) order.
	for i, s := range d.Series(m.Name) {
		g := sm.Groups[i]
		m.Groups = append(m.Groups, TrendGroup(m.Name, g))
		m.Diagnosis = append(m.Diagnosis, g.Tail.Sentence)
		series = append(series, figures.Series(s.Group, s.Trend.Sorted(), c.Marks))
	}
	fc := c
	long, ratio := figures.LongTail(d, m.Name)
	autoLog := !fc.LogSet && long
	fc.LogX = fc.LogX || autoLog
	ecdf, err := plot.ECDF(series, fc.ECDFOptions(opts)...)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Name, err)
	}
	m.Notes = append(m.Notes, ecdf.Notes...)
	caption := fmt.Sprintf("ECDF of %s", m.Name)
	if len(series) > 1 {
		caption += ", one curve per group"
	}
	if autoLog {
		caption += fmt.Sprintf("; log value axis, as the tail is long (max is %.0f× P50, over %d×; --log=false draws it linear)", ratio, figures.LongTailRatio)
	}
	m.Figures = append(m.Figures, Figure{File: figures.File(m.Name, "ecdf"), Caption: caption, Fig: ecdf})

	width := c.WindowFor(d.Span())
	drift, sentences, windows, err := figures.Drift(d, m.Name, width, opts...)
	if err != nil {
		return err
	}
	m.Drift = sentences
	caption = fmt.Sprintf("P50 and P99 of %s per %s window over the run", m.Name, width)
	if width != c.Window {
		caption += fmt.Sprintf(" (chosen from the run's %s, shorter than %d × %s; --window sets it)", d.Span().Round(time.Millisecond), figures.MinWindows, c.Window)
	}
	m.Figures = append(m.Figures, Figure{File: figures.File(m.Name, "drift"), Caption: caption, Fig: drift})
	for _, g := range sm.Groups {
		for _, w := range windows[g.Label] {
			if w.N == 0 {
				continue
			}
			m.Windows = append(m.Windows, WindowRow{Group: g.Label, Start: w.Start, End: w.End, N: w.N,
				P50: w.P50, P90: w.P90, P99: w.P99, TooFewForP99: w.TooFewForP99})
		}
	}
	return nil
}

// TailSection attributes the TTFT tail of the records inputs (P99, 95%
// intervals), nil when there are none. An attribution that cannot run is a
// line in the section, never an error of the report; the records' damage
// and failed requests are reported by the main read already.
func TailSection(paths []string, fc figures.Config) *Tail {
	var recs []string
	for _, p := range paths {
		if rundata.RecordsFile(p) {
			recs = append(recs, p)
		}
	}
	if len(recs) == 0 {
		return nil
	}
	reqs, err := tail.Read(recs, io.Discard)
	if err != nil {
		return TailNotAttributed(err)
	}
	res, err := tail.Analyze(reqs, tail.DefaultOptions())
	if err != nil {
		return TailNotAttributed(fmt.Errorf("%s: %w", strings.Join(recs, ", "), err))
	}
	fig, err := figures.TailStages(res, fc.Size, plot.DPI(figures.DPI))
	if err != nil {
		return TailNotAttributed(err)
	}
	caption := fmt.Sprintf("Mean time per stage of the median requests (TTFT p%g–p%g) and of the tail requests (TTFT above p%g): each bar is as long as its group's mean TTFT",
		res.Profile.BandLo, res.Profile.BandHi, res.Tail)
	return TailOf(res, Figure{File: figures.TailStagesFile, Caption: caption, Fig: fig})
}
