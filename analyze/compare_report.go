package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/llmstream/xk6-llmstream/analyze/compare"
	"github.com/llmstream/xk6-llmstream/analyze/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/analyze/output"
)

// compareReport is the result of compare, and its JSON schema (documented in
// docs/plots.md).
type compareReport struct {
	Schema string `json:"schema"`
	// Baseline and Candidate describe each side's inputs as one (paths
	// joined, counts summed); BaselineFiles and CandidateFiles list them.
	Baseline       output.Input     `json:"baseline"`
	Candidate      output.Input     `json:"candidate"`
	BaselineFiles  []output.Input   `json:"baseline_files"`
	CandidateFiles []output.Input   `json:"candidate_files"`
	Selection      output.Selection `json:"selection"`
	Confidence     float64          `json:"confidence"`
	Resamples      int              `json:"resamples"`
	Seed           uint64           `json:"seed"`
	Metrics        []compareMetric  `json:"metrics"` // the Trends
	Rates          []compareRate    `json:"rates"`
	Limits         []limitResult    `json:"limits"`
	Warnings       []string         `json:"warnings"`
	OK             bool             `json:"ok"` // no limit broken
}

type compareMetric struct {
	Name   string         `json:"name"`
	Unit   string         `json:"unit"`
	Groups []compareGroup `json:"groups"`
}

type compareGroup struct {
	Label     string            `json:"label"`
	Labels    map[string]string `json:"labels"`
	Baseline  int               `json:"baseline_count"`
	Candidate int               `json:"candidate_count"`
	KSD       *float64          `json:"ks_d"`
	KSP       *float64          `json:"ks_p"`
	Verdict   string            `json:"verdict"`
	Changes   []compareChange   `json:"changes"`
}

type compareChange struct {
	Stat      string   `json:"stat"`
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Delta     *float64 `json:"delta"`
	DeltaLow  *float64 `json:"delta_low"`
	DeltaHigh *float64 `json:"delta_high"`
	Rel       *float64 `json:"rel"` // (candidate − baseline)/baseline
	RelLow    *float64 `json:"rel_low"`
	RelHigh   *float64 `json:"rel_high"`
	Verdict   string   `json:"verdict"`
}

// compareRate is one Rate metric's comparison.
type compareRate struct {
	Name string `json:"name"`
	// LowerIsBetter: a failure rate (a name with "fail" or "error"); else
	// the rate counts successes and higher is better.
	LowerIsBetter bool               `json:"lower_is_better"`
	Groups        []compareRateGroup `json:"groups"`
}

type compareRateGroup struct {
	Label     string            `json:"label"`
	Labels    map[string]string `json:"labels"`
	Baseline  rateSide          `json:"baseline"`
	Candidate rateSide          `json:"candidate"`
	// Delta is the candidate's rate − the baseline's, a difference of
	// shares (0.01 is one percentage point); DeltaLow and DeltaHigh its
	// Newcombe interval at the confidence level.
	Delta     float64 `json:"delta"`
	DeltaLow  float64 `json:"delta_low"`
	DeltaHigh float64 `json:"delta_high"`
	Verdict   string  `json:"verdict"`
}

// rateSide is a Rate's samples in one run.
type rateSide struct {
	Count   int64   `json:"count"`
	NonZero int64   `json:"non_zero"`
	Rate    float64 `json:"rate"`
}

type limitResult struct {
	Limit  string `json:"limit"` // as ParseLimit reads it
	Metric string `json:"metric"`
	Group  string `json:"group"`
	Stat   string `json:"stat"`
	// Change is relative or absolute, as the limit is (for a rate: a
	// difference of shares); Low and High bound it.
	Change   *float64 `json:"change"`
	Low      *float64 `json:"low"`
	High     *float64 `json:"high"`
	Broken   bool     `json:"broken"`             // worse than the limit with confidence
	Untested string   `json:"untested,omitempty"` // why it could not be tested
	limit    compare.Limit
}

func (r *compareReport) broken() int {
	n := 0
	for _, l := range r.Limits {
		if l.Broken {
			n++
		}
	}
	return n
}

// writeCompare writes the report as text, Markdown or JSON.
func writeCompare(w io.Writer, format string, r *compareReport) error {
	if format == output.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	md := format == output.Markdown
	ew := &errorWriter{w: w}
	if md {
		ew.printf("## Baseline vs candidate\n\n")
		ew.printf("- baseline: %s (%s samples of the selected metrics)\n- candidate: %s (%s samples)\n",
			codeList(r.BaselineFiles), numfmt.Thousands(r.Baseline.Kept), codeList(r.CandidateFiles), numfmt.Thousands(r.Candidate.Kept))
		ew.printf("- %s intervals, bootstrap of %d resamples (seed %d); Trends: lower is better\n", pctLevel(r.Confidence), r.Resamples, r.Seed)
	} else {
		ew.printf("baseline:  %s (%s samples of the selected metrics)\ncandidate: %s (%s samples)\n",
			r.Baseline.Path, numfmt.Thousands(r.Baseline.Kept), r.Candidate.Path, numfmt.Thousands(r.Candidate.Kept))
		ew.printf("%s intervals, bootstrap of %d resamples (seed %d); Trends: lower is better\n", pctLevel(r.Confidence), r.Resamples, r.Seed)
	}
	for _, m := range r.Metrics {
		for _, g := range m.Groups {
			head := fmt.Sprintf("%s%s — %s", m.Name, groupLabel(g.Label), g.Verdict)
			facts := fmt.Sprintf("baseline n=%s, candidate n=%s, Kolmogorov–Smirnov D=%s p=%s",
				numfmt.Thousands(int64(g.Baseline)), numfmt.Thousands(int64(g.Candidate)), numOrDash(g.KSD), pValue(g.KSP))
			if md {
				ew.printf("\n### %s\n\n%s\n\n| stat | baseline | candidate | change%s | %s CI | change %% | %s CI | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n",
					head, facts, unitSuffix(m.Unit), pctLevel(r.Confidence), pctLevel(r.Confidence))
				for _, c := range g.Changes {
					ew.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", statLabel(c.Stat), withUnitText(c.Baseline, m.Unit), withUnitText(c.Candidate, m.Unit),
						signed(c.Delta), interval(c.DeltaLow, c.DeltaHigh, signed), signedPct(c.Rel), interval(c.RelLow, c.RelHigh, signedPct), c.Verdict)
				}
				continue
			}
			ew.printf("\n%s\n  %s\n", head, facts)
			tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "  stat\tbaseline\tcandidate\tchange%s\t%s CI\tchange %%\t%s CI\t verdict\n", unitSuffix(m.Unit), pctLevel(r.Confidence), pctLevel(r.Confidence))
			for _, c := range g.Changes {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t %s\n", statLabel(c.Stat), withUnitText(c.Baseline, m.Unit), withUnitText(c.Candidate, m.Unit),
					signed(c.Delta), interval(c.DeltaLow, c.DeltaHigh, signed), signedPct(c.Rel), interval(c.RelLow, c.RelHigh, signedPct), c.Verdict)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	if err := writeRates(ew, md, r); err != nil {
		return err
	}
	if len(r.Limits) > 0 {
		if md {
			ew.printf("\n### Regression limits\n\n| limit | metric | change | %s CI | result |\n|---|---|--:|--:|---|\n", pctLevel(r.Confidence))
		} else {
			ew.printf("\nregression limits (broken when the candidate is worse by more than the limit with confidence):\n")
		}
		for _, l := range r.Limits {
			format := signed
			switch {
			case l.limit.IsRate():
				format = signedPP
			case l.limit.Relative:
				format = signedPct
			}
			result := "pass"
			switch {
			case l.Broken:
				result = "BROKEN"
			case l.Untested != "":
				result = "not tested: " + l.Untested
			}
			if md {
				ew.printf("| `%s` | %s | %s | %s | %s |\n", l.Limit, l.Metric+groupLabel(l.Group), format(l.Change), interval(l.Low, l.High, format), result)
			} else {
				ew.printf("  %-20s %-32s %s (CI %s): %s\n", l.Limit, l.Metric+groupLabel(l.Group), format(l.Change), interval(l.Low, l.High, format), result)
			}
		}
	}
	if len(r.Warnings) > 0 && md {
		ew.printf("\n")
		for _, w := range r.Warnings {
			ew.printf("> warning: %s\n", w)
		}
	}
	return ew.err
}

// writeRates writes the Rates' table: per metric, one row per group.
func writeRates(ew *errorWriter, md bool, r *compareReport) error {
	level := pctLevel(r.Confidence)
	for _, m := range r.Rates {
		better := "higher is better"
		if m.LowerIsBetter {
			better = "lower is better"
		}
		head := fmt.Sprintf("%s (rate, %s; change in percentage points, %s Newcombe interval)", m.Name, better, level)
		if md {
			ew.printf("\n### %s\n\n| group | baseline | candidate | change | %s CI | verdict |\n|---|--:|--:|--:|--:|---|\n", head, level)
			for _, g := range m.Groups {
				ew.printf("| %s | %s | %s | %s | %s | %s |\n", g.Label, rateText(g.Baseline), rateText(g.Candidate),
					signedPP(&g.Delta), interval(&g.DeltaLow, &g.DeltaHigh, signedPP), g.Verdict)
			}
			continue
		}
		ew.printf("\n%s\n", head)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  group\tbaseline\tcandidate\tchange\t%s CI\t verdict\n", level)
		for _, g := range m.Groups {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t %s\n", g.Label, rateText(g.Baseline), rateText(g.Candidate),
				signedPP(&g.Delta), interval(&g.DeltaLow, &g.DeltaHigh, signedPP), g.Verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// rateText is "3.29% (21 of 638)".
func rateText(s rateSide) string {
	return fmt.Sprintf("%s%% (%s of %s)", strconv.FormatFloat(100*s.Rate, 'f', 2, 64), numfmt.Thousands(s.NonZero), numfmt.Thousands(s.Count))
}

// signedPP writes a difference of shares in percentage points: "+0.24pp".
func signedPP(v *float64) string {
	if v == nil {
		return "—"
	}
	s := strconv.FormatFloat(100**v, 'f', 2, 64) + "pp"
	if *v > 0 {
		s = "+" + s
	}
	return s
}

// codeList writes the inputs' paths as Markdown code, comma-separated.
func codeList(files []output.Input) string {
	s := ""
	for i, f := range files {
		if i > 0 {
			s += ", "
		}
		s += "`" + f.Path + "`"
	}
	return s
}

// errorWriter keeps the first write error.
type errorWriter struct {
	w   io.Writer
	err error
}

func (e *errorWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errorWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// unitSuffix is " (ms)", or "" without a unit.
func unitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " (" + unit + ")"
}

func statLabel(s string) string { return compare.Stat(s).Label() }

func numOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return output.Number(*v)
}

func withUnitText(v *float64, unit string) string {
	if v == nil {
		return "—"
	}
	if unit == "" {
		return output.Number(*v)
	}
	return output.Number(*v) + " " + unit
}

func signed(v *float64) string {
	if v == nil {
		return "—"
	}
	s := output.Number(*v)
	if *v > 0 {
		s = "+" + s
	}
	return s
}

func signedPct(v *float64) string {
	if v == nil {
		return "—"
	}
	s := strconv.FormatFloat(100**v, 'f', 1, 64) + "%"
	if *v > 0 {
		s = "+" + s
	}
	return s
}

func interval(lo, hi *float64, f func(*float64) string) string {
	if lo == nil || hi == nil {
		return "—"
	}
	return f(lo) + " … " + f(hi)
}

func pValue(p *float64) string {
	switch {
	case p == nil:
		return "—"
	case *p < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

func pctLevel(l float64) string { return strconv.FormatFloat(100*l, 'f', -1, 64) + "%" }
