package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
)

// rateColumns name the Rates shown beside a run's percentiles.
var rateColumns = []struct{ metric, title string }{
	{metrics.RequestsFailed, "failed"},
	{metrics.SLOMet, "goodput"},
}

// WriteHistory writes the report of a history in a format: text, markdown or
// json.
func WriteHistory(w io.Writer, format string, r *history.Report) error {
	switch format {
	case JSON:
		return writeJSON(w, r)
	case Text, Markdown:
		ew := &errWriter{w: w}
		historyTables(ew, format == Markdown, r)
		return ew.err
	}
	return fmt.Errorf("output: a history cannot be written as %q", format)
}

func historyTables(w *errWriter, md bool, r *history.Report) {
	if md {
		w.printf("## analyze history\n\n")
	}
	esc := escaper(md)
	w.printf("History: %s: %d runs in %d series; window %d runs, limits %s\n\n", esc(r.File), r.Records, len(r.Series), r.Window, esc(strings.Join(r.Limits, ", ")))
	for _, s := range r.Series {
		for _, m := range historyMetrics(s) {
			t := historyTable(s, m, r.Percentiles)
			if md {
				t.markdown(w)
			} else {
				t.text(w)
			}
			w.printf("\n")
		}
	}
	list := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		w.printf("%s\n", title)
		for _, l := range lines {
			w.printf("- %s\n", esc(l))
		}
		w.printf("\n")
	}
	var alerts, latest []string
	for _, v := range r.Alerts {
		alerts = append(alerts, VerdictLine(v))
	}
	for _, v := range r.Latest {
		latest = append(latest, VerdictLine(v))
	}
	list("Alerts:", alerts)
	list("Latest runs:", latest)
	if r.Damage != "" {
		list("Warnings:", []string{r.Damage})
	}
}

// historyMetrics lists the Trends recorded in a series, in the order of its
// runs' records.
func historyMetrics(s history.SeriesReport) []string {
	seen := map[string]bool{}
	var out []string
	for _, run := range s.Runs {
		for _, m := range run.Metrics {
			if !seen[m.Metric] {
				seen[m.Metric] = true
				out = append(out, m.Metric)
			}
		}
	}
	return out
}

// historyTable is one series' runs of one metric.
func historyTable(s history.SeriesReport, metric string, percents []float64) *table {
	t := &table{title: fmt.Sprintf("%s — %s", metric, s.Key), header: []string{"run", "label", "start (UTC)", "count"}, right: []bool{true, false, false, true}}
	for _, p := range percents {
		t.header = append(t.header, fmt.Sprintf("P%s [CI]", strconv.FormatFloat(p, 'f', -1, 64)))
		t.right = append(t.right, true)
	}
	for _, rc := range rateColumns {
		t.header = append(t.header, rc.title)
		t.right = append(t.right, true)
	}
	t.header = append(t.header, "status")
	t.right = append(t.right, false)
	for _, run := range s.Runs {
		var m *history.RunMetric
		for i := range run.Metrics {
			if run.Metrics[i].Metric == metric {
				m = &run.Metrics[i]
			}
		}
		if m == nil {
			continue
		}
		row := []string{fmt.Sprint(run.Run + 1), run.Label, run.Start.UTC().Format("2006-01-02 15:04"), numfmt.Thousands(m.Count)}
		for _, p := range m.Percentiles {
			row = append(row, percentileCell(p))
		}
		for _, rc := range rateColumns {
			row = append(row, rateCell(run.Rates, rc.metric))
		}
		t.add(append(row, run.Status)...)
	}
	return t
}

func percentileCell(p history.RunPercentile) string {
	if p.Value == nil {
		return "—"
	}
	lo, hi := "(…", "∞)"
	if p.Low != nil {
		lo = "[" + Number(*p.Low)
	}
	if p.High != nil {
		hi = Number(*p.High) + "]"
	}
	return Number(*p.Value) + " " + lo + ", " + hi
}

func rateCell(rates []history.Rate, metric string) string {
	for _, r := range rates {
		if r.Metric == metric && r.Rate != nil {
			return numfmt.Percent(*r.Rate)
		}
	}
	return "—"
}

// VerdictLine says a verdict in one line.
func VerdictLine(v history.Verdict) string {
	what := string(v.Status)
	if v.Kind != "" {
		what += " (" + string(v.Kind) + ")"
	}
	return fmt.Sprintf("%s %s%s run %d (%s, %s, line %d): %s — %s", v.Metric, v.Stat, seriesSuffix(v.Series), v.Run+1, v.Label,
		v.Time.UTC().Format("2006-01-02 15:04"), v.Line, what, v.Reason)
}

func seriesSuffix(key string) string {
	if key == "all" {
		return ""
	}
	return " [" + key + "]"
}
