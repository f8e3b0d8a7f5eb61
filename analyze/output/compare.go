package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/llmstream/xk6-llmstream/internal/compare"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// WriteCompare writes a comparison as text, Markdown or JSON.
func WriteCompare(w io.Writer, format string, r *result.Comparison) error {
	if format == JSON {
		// Unlike the summary's and the checks' JSON, HTML characters are
		// escaped, as compare has always written them.
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	md := format == Markdown
	esc := escaper(md)
	ew := &errWriter{w: w}
	if md {
		ew.printf("## Baseline vs candidate\n\n")
		ew.printf("- baseline: %s (%s samples of the selected metrics)\n- candidate: %s (%s samples)\n",
			codeList(r.BaselineFiles), numfmt.Thousands(r.Baseline.Kept), codeList(r.CandidateFiles), numfmt.Thousands(r.Candidate.Kept))
		ew.printf("- %s intervals, bootstrap of %d resamples (seed %d); Trends: lower is better\n", pctLevel(r.Confidence), r.Resamples, r.Seed)
	} else {
		ew.printf("baseline:  %s (%s samples of the selected metrics)\ncandidate: %s (%s samples)\n",
			esc(r.Baseline.Path), numfmt.Thousands(r.Baseline.Kept), esc(r.Candidate.Path), numfmt.Thousands(r.Candidate.Kept))
		ew.printf("%s intervals, bootstrap of %d resamples (seed %d); Trends: lower is better\n", pctLevel(r.Confidence), r.Resamples, r.Seed)
	}
	if err := writeTrends(ew, md, r); err != nil {
		return err
	}
	if err := writeRates(ew, md, r); err != nil {
		return err
	}
	writeLimits(ew, md, r)
	if len(r.Warnings) > 0 && md {
		ew.printf("\n")
		for _, w := range r.Warnings {
			ew.printf("> warning: %s\n", esc(w))
		}
	}
	return ew.err
}

// writeTrends writes the Trends' tables: per metric and group, one row per
// statistic.
func writeTrends(ew *errWriter, md bool, r *result.Comparison) error {
	esc := escaper(md)
	for _, m := range r.Metrics {
		for _, g := range m.Groups {
			head := esc(fmt.Sprintf("%s%s — %s", m.Name, rundata.GroupSuffix(g.Label), g.Verdict))
			facts := fmt.Sprintf("baseline n=%s, candidate n=%s, Kolmogorov–Smirnov D=%s p=%s",
				numfmt.Thousands(int64(g.Baseline)), numfmt.Thousands(int64(g.Candidate)), numOrDash(g.KSD), pValue(g.KSP))
			if md {
				ew.printf("\n### %s\n\n%s\n\n| stat | baseline | candidate | change%s | %s CI | change %% | %s CI | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n",
					head, facts, esc(unitSuffix(m.Unit)), pctLevel(r.Confidence), pctLevel(r.Confidence))
				for _, c := range g.Changes {
					ew.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", esc(statLabel(c.Stat)), withUnitText(c.Baseline, esc(m.Unit)), withUnitText(c.Candidate, esc(m.Unit)),
						signed(c.Delta), interval(c.DeltaLow, c.DeltaHigh, signed), signedPct(c.Rel), interval(c.RelLow, c.RelHigh, signedPct), esc(c.Verdict))
				}
				continue
			}
			ew.printf("\n%s\n  %s\n", head, facts)
			tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "  stat\tbaseline\tcandidate\tchange%s\t%s CI\tchange %%\t%s CI\t verdict\n", esc(unitSuffix(m.Unit)), pctLevel(r.Confidence), pctLevel(r.Confidence))
			for _, c := range g.Changes {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t %s\n", esc(statLabel(c.Stat)), withUnitText(c.Baseline, esc(m.Unit)), withUnitText(c.Candidate, esc(m.Unit)),
					signed(c.Delta), interval(c.DeltaLow, c.DeltaHigh, signed), signedPct(c.Rel), interval(c.RelLow, c.RelHigh, signedPct), esc(c.Verdict))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeLimits writes the regression limits' results.
func writeLimits(ew *errWriter, md bool, r *result.Comparison) {
	if len(r.Limits) == 0 {
		return
	}
	esc := escaper(md)
	if md {
		ew.printf("\n### Regression limits\n\n| limit | metric | change | %s CI | result |\n|---|---|--:|--:|---|\n", pctLevel(r.Confidence))
	} else {
		ew.printf("\nregression limits (broken when the candidate is worse by more than the limit with confidence):\n")
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	if !md {
		fmt.Fprintf(tw, "  limit\tmetric\tchange\t%s CI\tresult\n", pctLevel(r.Confidence))
	}
	for _, l := range r.Limits {
		format := signed
		switch {
		case l.Rule.IsRate():
			format = signedPP
		case l.Rule.Relative:
			format = signedPct
		}
		verdict := "pass"
		switch {
		case l.Broken:
			verdict = "BROKEN"
		case l.Verdict == result.Inconclusive:
			verdict = "INCONCLUSIVE: " + strings.TrimPrefix(l.Reason, "inconclusive: ")
			if r.AllowInconclusive {
				verdict += " (accepted: --allow-inconclusive)"
			}
		}
		if md {
			ew.printf("| %s | %s | %s | %s | %s |\n", mdCode(l.Limit, true), esc(l.Metric+rundata.GroupSuffix(l.Group)), format(l.Change), interval(l.Low, l.High, format), esc(verdict))
		} else {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", esc(l.Limit), esc(l.Metric+rundata.GroupSuffix(l.Group)), format(l.Change), interval(l.Low, l.High, format), esc(verdict))
		}
	}
	if err := tw.Flush(); err != nil && ew.err == nil {
		ew.err = err
	}
}

// writeRates writes the Rates' table: per metric, one row per group.
func writeRates(ew *errWriter, md bool, r *result.Comparison) error {
	level := pctLevel(r.Confidence)
	esc := escaper(md)
	for _, m := range r.Rates {
		better := "higher is better"
		if m.LowerIsBetter {
			better = "lower is better"
		}
		head := fmt.Sprintf("%s (rate, %s; change in percentage points, %s Newcombe interval)", esc(m.Name), better, level)
		if md {
			ew.printf("\n### %s\n\n| group | baseline | candidate | change | %s CI | verdict |\n|---|--:|--:|--:|--:|---|\n", head, level)
			for _, g := range m.Groups {
				ew.printf("| %s | %s | %s | %s | %s | %s |\n", esc(g.Label), rateText(g.Baseline), rateText(g.Candidate),
					signedPP(&g.Delta), interval(&g.DeltaLow, &g.DeltaHigh, signedPP), esc(g.Verdict))
			}
			continue
		}
		ew.printf("\n%s\n", head)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  group\tbaseline\tcandidate\tchange\t%s CI\t verdict\n", level)
		for _, g := range m.Groups {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t %s\n", esc(g.Label), rateText(g.Baseline), rateText(g.Candidate),
				signedPP(&g.Delta), interval(&g.DeltaLow, &g.DeltaHigh, signedPP), esc(g.Verdict))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// rateText is "3.29% (21 of 638)".
func rateText(s result.RateSide) string {
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
func codeList(files []result.Input) string {
	s := ""
	for i, f := range files {
		if i > 0 {
			s += ", "
		}
		s += mdCode(f.Path, false)
	}
	return s
}

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
	return Number(*v)
}

func withUnitText(v *float64, unit string) string {
	if v == nil {
		return "—"
	}
	if unit == "" {
		return Number(*v)
	}
	return Number(*v) + " " + unit
}

func signed(v *float64) string {
	if v == nil {
		return "—"
	}
	s := Number(*v)
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
