package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ReportSchema identifies the JSON output of `analyze history`.
const ReportSchema = "xk6-llmstream/analyze-history-report/v1"

// Report is what `analyze history` says of a history file: the runs of
// each series and the verdicts of the alert rules.
type Report struct {
	Schema  string  `json:"schema"`
	File    string  `json:"file"`
	Records int     `json:"records"`
	Damage  string  `json:"damage,omitempty"`
	Skipped []int64 `json:"skipped_lines,omitempty"`
	// Window, Limits and Level are the alert rules' settings.
	Window      int            `json:"window"`
	Limits      []string       `json:"limits"`
	Level       float64        `json:"level"`
	Percentiles []float64      `json:"percentiles"`
	Series      []SeriesReport `json:"series"`
	// Alerts are the regressions and inconclusive verdicts of every run.
	Alerts []Verdict `json:"alerts"`
	// Latest are the verdicts on each series' last run, which the gate
	// (--fail-on regression) decides on; OK is true when none fails it
	// (Verdict.Failing) and there is at least one.
	Latest []Verdict `json:"latest"`
	OK     bool      `json:"ok"`
}

// SeriesReport is one series' runs.
type SeriesReport struct {
	Key    string            `json:"key"`
	Labels map[string]string `json:"labels"`
	Runs   []RunRow          `json:"runs"`
}

// RunRow is one run of a series.
type RunRow struct {
	Run     int         `json:"run"`
	Line    int64       `json:"line"`
	Label   string      `json:"label"`
	Start   time.Time   `json:"start"`
	End     time.Time   `json:"end"`
	Metrics []RunMetric `json:"metrics"`
	Rates   []Rate      `json:"rates"`
	// Status is the worst verdict on the run: "regression (step: P99)",
	// "inconclusive (P99)", "ok", "no baseline", or "" when untested.
	Status string `json:"status"`
}

// RunMetric is a Trend's percentiles in one run.
type RunMetric struct {
	Metric      string          `json:"metric"`
	Unit        string          `json:"unit"`
	Count       int64           `json:"count"`
	Percentiles []RunPercentile `json:"percentiles"`
}

// RunPercentile is one percentile with its interval (null where unbounded).
type RunPercentile struct {
	Name   string   `json:"name"` // P99
	P      float64  `json:"p"`
	Value  *float64 `json:"value"`
	Low    *float64 `json:"low"`
	High   *float64 `json:"high"`
	TooFew bool     `json:"too_few"`
}

// ReportOptions say what a report shows.
type ReportOptions struct {
	Metrics           []string  // Trends shown (all recorded when empty)
	Percents          []float64 // DefaultPercents when nil
	Options           Options   // the alert rules' settings
	AllowInconclusive bool      // an inconclusive last run does not fail the gate
}

// NewReport makes the report of a history.
func NewReport(f *File, series []*Series, verdicts []Verdict, o ReportOptions) *Report {
	if o.Percents == nil {
		o.Percents = DefaultPercents
	}
	if len(o.Metrics) == 0 {
		o.Metrics = Metrics(series)
	}
	rep := &Report{Schema: ReportSchema, File: f.Name, Records: len(f.Records), Damage: f.Damage, Skipped: f.Skipped,
		Window: o.Options.Window, Level: o.Options.Level, Percentiles: o.Percents,
		Series: []SeriesReport{}, Alerts: []Verdict{}, Latest: []Verdict{}, OK: true}
	for _, l := range o.Options.Limits {
		rep.Limits = append(rep.Limits, l.String())
	}
	status := map[string][]Verdict{}
	for _, v := range verdicts {
		status[v.Series+"\x00"+strconv.Itoa(v.Run)] = append(status[v.Series+"\x00"+strconv.Itoa(v.Run)], v)
		if v.Status == Regression || v.Status == Inconclusive {
			rep.Alerts = append(rep.Alerts, v)
		}
	}
	for _, v := range Latest(series, verdicts) {
		rep.Latest = append(rep.Latest, v)
		if v.Failing(o.AllowInconclusive) {
			rep.OK = false
		}
	}
	if len(rep.Latest) == 0 && !o.AllowInconclusive {
		rep.OK = false // no limit was tested: the gate cannot decide
	}
	for _, s := range series {
		sr := SeriesReport{Key: s.Key, Labels: s.Labels}
		for i, r := range s.Runs {
			row := RunRow{Run: i, Line: r.Line, Label: r.Record.Label, Start: r.Record.Start, End: r.Record.End,
				Rates: r.Group.Rates, Status: runStatus(status[s.Key+"\x00"+strconv.Itoa(i)])}
			for _, m := range o.Metrics {
				if t := r.Group.Trend(m); t != nil {
					row.Metrics = append(row.Metrics, runMetric(t, o.Percents))
				}
			}
			sr.Runs = append(sr.Runs, row)
		}
		rep.Series = append(rep.Series, sr)
	}
	return rep
}

func runMetric(t *Trend, percents []float64) RunMetric {
	rm := RunMetric{Metric: t.Metric, Unit: t.Unit, Count: t.Count}
	for _, n := range percents {
		rp := RunPercentile{Name: "P" + strconv.FormatFloat(n, 'f', -1, 64), P: n}
		if p := t.Percentile(n); p != nil {
			rp.Value, rp.Low, rp.High, rp.TooFew = f64(p.Value), p.CI.Low, p.CI.High, p.TooFew
		}
		rm.Percentiles = append(rm.Percentiles, rp)
	}
	return rm
}

// runStatus is the worst of a run's verdicts, naming the statistics.
func runStatus(vs []Verdict) string {
	var reg, inc []string
	kinds := map[Kind]bool{}
	base := ""
	for _, v := range vs {
		switch v.Status {
		case Regression:
			reg = append(reg, v.Metric+" "+v.Stat)
			kinds[v.Kind] = true
		case Inconclusive:
			inc = append(inc, v.Metric+" "+v.Stat)
		case OK:
			base = string(OK)
		case NoBaseline:
			if base == "" {
				base = string(NoBaseline)
			}
		}
	}
	switch {
	case len(reg) > 0:
		var ks []string
		for _, k := range []Kind{Step, Creep} {
			if kinds[k] {
				ks = append(ks, string(k))
			}
		}
		return "regression (" + strings.Join(ks, "+") + ": " + strings.Join(reg, ", ") + ")"
	case len(inc) > 0:
		return "inconclusive (" + strings.Join(inc, ", ") + ")"
	}
	return base
}

// GateFailures says why the gate fails, one sentence per cause: the
// regressions and inconclusive verdicts on last runs, each series whose last
// run has no baseline (its run count and the count needed), and a history
// where no limit could be tested. It is empty when r.OK.
func (r *Report) GateFailures(allowInconclusive bool) []string {
	if r.OK {
		return nil
	}
	if len(r.Latest) == 0 {
		return []string{"no limit could be tested on the last run of any series (are the limits' metrics recorded?): the gate cannot decide; --allow-inconclusive accepts this"}
	}
	var out []string
	regressions, inconclusive := 0, 0
	noBase := map[string]int{} // series → its runs
	var order []string
	for _, v := range r.Latest {
		if !v.Failing(allowInconclusive) {
			continue
		}
		switch v.Status {
		case Regression:
			regressions++
		case Inconclusive:
			inconclusive++
		case NoBaseline:
			if _, ok := noBase[v.Series]; !ok {
				order = append(order, v.Series)
			}
			noBase[v.Series] = v.Run + 1
		}
	}
	if regressions > 0 {
		out = append(out, fmt.Sprintf("%d verdicts on the last runs are regressions", regressions))
	}
	if inconclusive > 0 {
		out = append(out, fmt.Sprintf("%d verdicts on the last runs are inconclusive (too few samples; see \"needed\"); --allow-inconclusive accepts them", inconclusive))
	}
	for _, s := range order {
		out = append(out, fmt.Sprintf("series %s has no baseline: %d runs, the gate needs %d (the last run and %d earlier ones to compare it with); --allow-inconclusive accepts it",
			s, noBase[s], MinBaseline+1, MinBaseline))
	}
	return out
}
