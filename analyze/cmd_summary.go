package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
	"github.com/llmstream/xk6-llmstream/analyze/output"
	"github.com/llmstream/xk6-llmstream/analyze/stats"
	"github.com/llmstream/xk6-llmstream/analyze/tail"
)

const summaryExamples = `  analyze summary results.json
  analyze summary --by model --from 30s results.json.gz
  analyze summary --metric llm_ttft,llm_tpot --where scenario=ramp --format markdown run1.json run2.json
  analyze summary --by file --labels baseline,candidate base.json cand.json
  analyze summary --format json -o summary.json results.json
`

// summaryOptions are the statistical choices of a summary.
type summaryOptions struct {
	stats          stats.Options
	maxFailureRate float64
}

func runSummary(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("summary", "summary [flags] FILE...", summaryExamples, stderr)
	var (
		in   inputFlags
		out  outputFlags
		pcts listFlag
		opts = summaryOptions{stats: stats.DefaultOptions()}
	)
	in.register(fs)
	out.register(fs, output.Text, output.Markdown, output.JSON)
	fs.Var(&pcts, "percentiles", "`percentiles` to report, comma-separated (default 50,90,95,99,99.9,99.99)")
	fs.Float64Var(&opts.stats.Confidence, "confidence", stats.DefaultConfidence, "confidence level of the percentile intervals, between 0 and 1")
	fs.Float64Var(&opts.stats.MaxRelWidth, "max-ci-width", 0.20, "flag a percentile whose confidence interval is wider than this share of its value")
	fs.Float64Var(&opts.maxFailureRate, "max-failure-rate", 0.05, "warn when the share of failed requests (llm_requests_failed) is above this")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
		return err
	}
	if c := opts.stats.Confidence; !(c > 0 && c < 1) {
		return usagef("--confidence %v: want a level between 0 and 1, e.g. 0.95", c)
	}
	if len(pcts) > 0 {
		opts.stats.Percentiles = nil
		for _, p := range pcts {
			v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(p, "p("), ")"), "p"), 64)
			if err != nil || !(v >= 0 && v <= 100) {
				return usagef("--percentiles: %q is not a percentile between 0 and 100", p)
			}
			opts.stats.Percentiles = append(opts.stats.Percentiles, v)
		}
	}
	r, err := in.open(paths, stdin, stderr)
	if err != nil {
		return err
	}
	r.sel.also = []string{"llm_requests_failed"}
	ds, err := collect(r)
	if err != nil {
		return err
	}
	rep := buildSummary(ds, opts)
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, "llm_requests_failed") {
			fmt.Fprintf(stderr, "analyze: warning: %s\n", w)
		}
	}
	return out.write(stdout, func(w io.Writer) error { return output.WriteSummary(w, out.format, rep) })
}

// metricOrder is the order of the llm_* metrics in a report; others follow by name.
var metricOrder = []string{"llm_ttft", "llm_ttft_answer", "llm_tpot", "llm_itl", "llm_e2e",
	"llm_output_tokens", "llm_input_tokens", "llm_requests_failed"}

func orderMetrics(names, asked []string) []string {
	rank := func(n string) int {
		if i := slices.Index(asked, n); i >= 0 {
			return i
		}
		if i := slices.Index(metricOrder, n); i >= 0 {
			return len(asked) + i
		}
		return len(asked) + len(metricOrder)
	}
	out := slices.Clone(names)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// buildSummary computes the statistics of every series.
func buildSummary(ds *dataset, o summaryOptions) *output.Summary {
	r := ds.r
	rep := &output.Summary{
		Schema:     output.SummarySchema,
		Inputs:     reportInputs(r),
		Selection:  reportSelection(r.sel),
		Confidence: o.stats.Confidence,
		Metrics:    []output.Metric{},
		Warnings:   []string{},
	}
	for _, name := range orderMetrics(ds.metrics(), r.sel.metrics) {
		typ, contains := r.metricType(name)
		m := output.Metric{Name: name, Type: typ.String(), Contains: contains.String(), Unit: contains.Unit()}
		for _, s := range ds.ordered(name) {
			g := output.Group{Label: s.group.key, Labels: map[string]string{}, Count: s.count}
			for _, l := range s.group.labels {
				g.Labels[l.Key] = l.Value
			}
			switch typ {
			case k6json.Trend:
				trendGroup(&g, s, contains.Unit(), o.stats)
			case k6json.Rate:
				rate := float64(s.nonZero) / float64(g.Count)
				g.Rate, g.NonZero, g.ErrorKinds = &rate, &s.nonZero, s.kinds
				if name == "llm_requests_failed" && rate > o.maxFailureRate {
					where := groupLabel(s.group.key)
					g.Notes = append(g.Notes, fmt.Sprintf("%s of requests failed, above %s", numfmt.Percent(rate), numfmt.Percent(o.maxFailureRate)))
					rep.Warnings = append(rep.Warnings, fmt.Sprintf(
						"llm_requests_failed%s: %s of %d requests failed (above %s): the latency figures describe only the requests that succeeded",
						where, numfmt.Percent(rate), g.Count, numfmt.Percent(o.maxFailureRate)))
				}
			case k6json.Counter:
				g.Sum = f64(s.sum)
				if span := ds.span(); span > 0 {
					g.PerSecond = f64(s.sum / span)
				}
			case k6json.Gauge:
				g.Value, g.Min, g.Max = f64(s.last), f64(s.min), f64(s.max)
			}
			for _, n := range g.Notes {
				if name != "llm_requests_failed" {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s%s: %s", name, groupLabel(s.group.key), n))
				}
			}
			m.Groups = append(m.Groups, g)
		}
		rep.Metrics = append(rep.Metrics, m)
	}
	return rep
}

func trendGroup(g *output.Group, s *series, unit string, o stats.Options) {
	sorted := s.values.Sorted()
	sum := stats.Summarize(sorted, o)
	g.Min, g.Mean, g.Max = f64(sum.Min), f64(sum.Mean), f64(sum.Max)
	g.Tail = tailOf(tail.Diagnose(s.label(), sorted, tail.Unit(unit)))
	var few, wide, open []string
	need := 0
	for _, p := range sum.Percentiles {
		op := output.Percentile{
			Name: p.Name, P: p.P, Value: p.Value, NearestRank: p.NearestRank, Rank: p.Rank,
			CI: output.CI{Low: f64(p.CI.Lo), High: f64(p.CI.Hi), LowRank: p.CI.LoRank, HighRank: p.CI.HiRank,
				Coverage: p.CI.Coverage},
			MinSamples: p.MinSamples, TooFew: p.TooFew, RelWidth: f64(p.RelWidth), Wide: p.Wide,
		}
		g.Percentiles = append(g.Percentiles, op)
		switch {
		case p.TooFew:
			few = append(few, p.Name)
			need = max(need, p.MinSamples)
		case !p.CI.Bounded():
			open = append(open, p.Name)
		case p.Wide:
			wide = append(wide, fmt.Sprintf("%s %.0f%%", p.Name, 100*p.RelWidth))
		}
	}
	if len(few) > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%s rest on fewer than %d samples above them (%d samples; %s needs %d)",
			strings.Join(few, ", "), o.MinAbove, sum.Count, few[len(few)-1], need))
	}
	if len(open) > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("%s: too few samples for a %g%% confidence interval", strings.Join(open, ", "), 100*o.Confidence))
	}
	if len(wide) > 0 {
		g.Notes = append(g.Notes, fmt.Sprintf("confidence intervals wider than %.0f%% of the value: %s", 100*o.MaxRelWidth, strings.Join(wide, ", ")))
	}
}

// tailOf is a diagnosis in the summary's JSON schema.
func tailOf(d tail.Diagnosis) *output.Tail {
	t := &output.Tail{Shape: string(d.Shape), LongTail: d.LongTail, P99P50: f64(d.RatioP99P50), P999P99: f64(d.RatioP999P99),
		LongTailRatio: d.LongTailRatio, ExtremeRatio: d.ExtremeRatio, Sentence: d.Sentence}
	if w := d.Wall; w != nil {
		t.Cliff = &output.Cliff{At: w.At, Low: w.Lo, High: w.Hi, Share: w.Share, Above: w.Above}
	}
	if g := d.Gap; g != nil {
		t.Gap = &output.Gap{Low: g.Lo, High: g.Hi, Below: g.Below, Above: g.Above}
	}
	return t
}

func reportInputs(r *reader) []output.Input {
	out := make([]output.Input, len(r.files))
	for i, f := range r.files {
		in := output.Input{Label: r.inputs[i].label, Path: r.inputs[i].path, Lines: f.Lines, Points: f.Points,
			Kept: f.Kept, Skipped: f.Skipped, SkippedLines: f.SkippedLines, Damage: f.Damage}
		if !f.Start.IsZero() {
			in.Start = f.Start.Format(time.RFC3339Nano)
		}
		out[i] = in
	}
	return out
}

func reportSelection(s selection) output.Selection {
	sel := output.Selection{Metrics: s.metrics, Where: []string{}, By: s.by}
	if sel.Metrics == nil {
		sel.Metrics = []string{}
	}
	if sel.By == nil {
		sel.By = []string{}
	}
	for _, w := range s.where {
		sel.Where = append(sel.Where, w.key+"="+w.value)
	}
	if s.from.set {
		sel.From = s.from.d.String()
	}
	if s.to.set {
		sel.To = s.to.d.String()
	}
	return sel
}

// f64 returns a pointer to v, or nil for ±Inf and NaN (null in JSON).
func f64(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}
