package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// The page renders the results of package result, as the text, Markdown and
// JSON writers do: the functions here lay a summary's groups, warnings and
// check results out for it, and add nothing of their own.

// InputOf is an input's row: its counts, the times of its first and last kept
// sample, and a note when it was cut short or had corrupt lines skipped.
func InputOf(in result.Input, first, last time.Time) Input {
	row := Input{Label: in.Label, Path: in.Path, First: first, Last: last, Points: in.Points, Kept: in.Kept}
	if in.Damage != "" {
		row.Notes = append(row.Notes, fmt.Sprintf("%s; read up to the damage", in.Damage))
	}
	if in.Skipped > 0 {
		row.Notes = append(row.Notes, fmt.Sprintf("skipped %d corrupt line(s) (lines %s)", in.Skipped, rundata.LineList(in.SkippedLines, in.Skipped)))
	}
	return row
}

// SummaryWarnings are the summary's warnings the page shows near the top:
// its alerts (the failure rate's, and the load generator's when it fires on
// a selected llm_client_lag); the groups' other notes are shown under their
// tables, and the client health in the Run section.
func SummaryWarnings(s *result.Summary) []string {
	return s.Alerts
}

// TrendGroup is a Trend group's table row, with its notes as the summary
// words them (named after the metric and group: name is the metric's).
func TrendGroup(name string, g result.Group) Group {
	row := Group{Label: g.Label, Count: int(g.Count), Min: deref(g.Min), Mean: deref(g.Mean), Max: deref(g.Max)}
	for _, p := range g.Percentiles {
		lo, hi := math.Inf(-1), math.Inf(1)
		if p.CI.Low != nil {
			lo = *p.CI.Low
		}
		if p.CI.High != nil {
			hi = *p.CI.High
		}
		row.Percentiles = append(row.Percentiles, Percentile{Name: p.Name, Value: p.Value, Lo: lo, Hi: hi, TooFew: p.TooFew})
	}
	for _, n := range g.Notes {
		row.Notes = append(row.Notes, name+rundata.GroupSuffix(g.Label)+": "+n)
	}
	return row
}

// ValueOf is the line of a Rate, Counter or Gauge group: "2.31% (57 of
// 2,468 non-zero) — http_429: 40", "sum 1200 (20/s over 1m0s)", "last value 3".
// span is the time a Counter's per-second rate was taken over.
func ValueOf(typ string, g result.Group, span time.Duration) Value {
	var text string
	switch typ {
	case "rate":
		text = fmt.Sprintf("%s (%s of %s non-zero)", numfmt.Percent(deref(g.Rate)), numfmt.Thousands(derefInt(g.NonZero)), numfmt.Thousands(g.Count))
		if len(g.ErrorKinds) > 0 {
			text += " — " + kindsText(g.ErrorKinds)
		}
	case "counter":
		text = "sum " + output.Number(deref(g.Sum))
		if g.PerSecond != nil {
			text += fmt.Sprintf(" (%s/s over %s, from the first sample to the last, as k6's counter rate; the Throughput line's window is from the first request end to the last and counts the requests that ended after the first)",
				output.Number(*g.PerSecond), span.Round(time.Millisecond))
		}
	default:
		text = "last value " + output.Number(deref(g.Value))
	}
	return Value{Label: g.Label, Text: text}
}

func kindsText(k map[string]int64) string {
	keys := make([]string, 0, len(k))
	for key := range k {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if k[a] != k[b] {
			return int(k[b] - k[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, key := range keys {
		parts[i] = fmt.Sprintf("%s: %s", key, numfmt.Thousands(k[key]))
	}
	return strings.Join(parts, ", ")
}

// ChecksOf is the checks' table.
func ChecksOf(cr *result.CheckReport) *Checks {
	c := &Checks{Passed: cr.Passed, Failed: cr.Failed, Inconclusive: cr.Inconclusive, AllowInconclusive: cr.AllowInconclusive, Total: len(cr.Checks)}
	for _, r := range cr.Checks {
		row := CheckRow{Check: r.Check, Passed: r.Passed, Inconclusive: r.Verdict == result.Inconclusive, Reason: r.Reason}
		if r.Observed != nil {
			row.Observed = output.Number(*r.Observed)
			if r.Unit != "" {
				row.Observed += " " + r.Unit
			}
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// SummaryHealth is the summary's client health and cache-hit share, one
// line per group.
func SummaryHealth(s *result.Summary) []string {
	var out []string
	for _, h := range s.Health {
		line := metrics.ClientLag + rundata.GroupSuffix(h.Label) + ":"
		if h.LagP99 != nil {
			line += " lag p99 " + numfmt.Sig4(*h.LagP99) + " ms"
		}
		if h.ZeroGapShare != nil {
			line += fmt.Sprintf(", %s of %s ITL gaps exactly 0", numfmt.Percent(*h.ZeroGapShare), numfmt.Thousands(h.Gaps))
		}
		switch {
		case h.Limited:
			line += " — " + h.Warning
		case h.NoVerdict != "":
			line += " — " + h.NoVerdict
		}
		out = append(out, line)
	}
	for _, c := range s.CacheHits {
		if c.Share != nil {
			out = append(out, fmt.Sprintf("prompt cache%s: %s of %s input tokens cached", rundata.GroupSuffix(c.Label),
				numfmt.Percent(*c.Share), numfmt.Thousands(int64(c.Input))))
		}
	}
	return out
}

// SummaryThroughput is the summary's throughput and goodput, one line per
// group, with the intervals analyze summary prints.
func SummaryThroughput(s *result.Summary) []string {
	var out []string
	for _, g := range s.Throughput {
		line := fmt.Sprintf("%s: %s requests in %s s from the first request end to the last: %s req/s (achieved %s), output %s tok/s, total %s tok/s",
			g.Label, numfmt.Thousands(g.Requests), numfmt.Sig4(g.WindowS), output.RateText(g.RPS), output.RateText(g.AchievedRPS),
			output.RateText(g.OutputTPS), output.RateText(g.TotalTPS))
		if g.GoodputSource != "" {
			line += fmt.Sprintf(", goodput %s req/s (by %s)", output.RateText(g.GoodputRPS), g.GoodputSource)
		}
		out = append(out, line)
	}
	return out
}

// TailOf is the section of a tail's attribution, with its stacked-stage
// figure: the findings, the stage table (share of the excess, mean time in
// the median and the tail requests, the TTFT last) and the attributes that
// set the tail apart.
func TailOf(res *tail.Result, fig Figure) *Tail {
	p := res.Profile
	t := &Tail{Heading: res.Heading(), Findings: res.Findings, Percentile: res.Tail, Confidence: res.Confidence,
		BandLo: p.BandLo, BandHi: p.BandHi, MedianN: p.Median.Requests, TailN: p.Tail.Requests, Figure: &fig}
	for i, s := range res.Stages {
		t.Stages = append(t.Stages, TailStage{Name: s.Name, Share: s.Share, Lo: s.ShareLo, Hi: s.ShareHi,
			MedianMS: p.Median.StageMeanMS[i], TailMS: p.Tail.StageMeanMS[i]})
	}
	t.Stages = append(t.Stages, TailStage{Name: "TTFT", Share: 1, Lo: 1, Hi: 1, MedianMS: p.Median.TTFTMeanMS, TailMS: p.Tail.TTFTMeanMS, Total: true})
	for _, a := range res.Apart() {
		t.Apart = append(t.Apart, TailAttribute{Name: a.Name, Effect: a.Effect, Lo: a.EffectLo, Hi: a.EffectHi, Where: a.Contrast()})
	}
	return t
}

// TailNotAttributed is the section when the attribution could not run: why,
// in one line.
func TailNotAttributed(why error) *Tail {
	return &Tail{Why: "Not attributed: " + why.Error() + "."}
}
