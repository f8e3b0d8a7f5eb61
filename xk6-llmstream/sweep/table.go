package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// WriteTable writes the sweep's tables — throughput and verdict per level,
// then latency percentiles with their intervals — the reasons of every level
// that did not pass, and the answer line.
func WriteTable(w io.Writer, res *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "level\toffered %s\tachieved req/s\treq/s\toutput tok/s\tgoodput req/s\tfailed\tdropped\tverdict\n", res.Unit)
	for _, l := range res.Levels {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", l.Index, FormatLevel(l.Offered), fmtPtr(l.AchievedRPS),
			fmtPtr(l.RPS), fmtPtr(l.OutputTPS), fmtPtr(l.GoodputRPS), fmtShare(l.FailureRate, l.Failed), l.Dropped, l.Verdict)
	}
	fmt.Fprintf(tw, "\nlevel\toffered\tmetric (ms)\tcount\t%s\n", strings.Join(pctNames(), "\t"))
	for _, l := range res.Levels {
		for i, d := range l.Latency {
			lead := fmt.Sprintf("%d\t%s", l.Index, FormatLevel(l.Offered))
			if i > 0 {
				lead = "\t"
			}
			cells := make([]string, 0, len(LatencyPercentiles))
			for _, n := range pctNames() {
				cells = append(cells, fmtQuantileCI(&d, n))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", lead, d.Metric, d.Count, strings.Join(cells, "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "(%g%% confidence intervals in brackets)\n\n", res.Confidence*100)
	if err := writeServerTable(w, res); err != nil {
		return err
	}
	for _, l := range res.Levels {
		if why := reasons(l); len(why) > 0 {
			fmt.Fprintf(w, "level %d (%s %s) %s:\n  %s\n", l.Index, FormatLevel(l.Offered), res.Unit, l.Verdict, strings.Join(why, "\n  "))
		}
	}
	for _, l := range res.Levels {
		if l.LoadGenerator.Limited {
			fmt.Fprintf(w, "level %d (%s %s): warning: %s\n", l.Index, FormatLevel(l.Offered), res.Unit, headroom.Line(l.LoadGenerator.Why))
		}
	}
	if res.CacheWarning != "" {
		fmt.Fprintf(w, "\nWARNING: %s\n", res.CacheWarning)
	}
	_, err := fmt.Fprintf(w, "\n%s\nsweep ended: %s\n", Answer(res), res.Stopped)
	return err
}

// reasons says why a level did not pass.
func reasons(l Level) []string {
	var why []string
	if l.K6ExitCode != 0 && l.K6ExitCode != ExitThresholdsFailed {
		why = append(why, fmt.Sprintf("k6 exited with code %d", l.K6ExitCode))
	}
	why = append(why, l.Incomplete...)
	why = append(why, l.Saturation...)
	for _, lim := range l.Limits {
		if lim.Verdict == result.Pass {
			continue
		}
		s := fmt.Sprintf("%s: %s (observed %s over %d samples)", lim.Check, lim.Verdict, fmtPtr(lim.Observed), lim.Count)
		if lim.Reason != "" {
			s += ": " + lim.Reason
		}
		why = append(why, s)
	}
	return why
}

// Answer is the sweep's one-line answer: "highest rate meeting the SLO: 44
// req/s (achieved 43.9 req/s), 263 output tok/s, TTFT p99 52.3 ms". It
// agrees with the table: a level that passed above a lower level that did
// not is named, with why it is not the answer (such a pass is not trusted).
func Answer(res *Result) string {
	what := "rate"
	if res.Mode == VUs.String() {
		what = "concurrency"
	}
	untrusted := untrustedPass(res)
	if res.MaxPassing == nil {
		if untrusted != "" {
			return fmt.Sprintf("no highest %s meeting the SLO: %s", what, untrusted)
		}
		return fmt.Sprintf("no level met the SLO: no highest %s", what)
	}
	answer := fmt.Sprintf("highest %s meeting the SLO: %s %s", what, FormatLevel(*res.MaxPassing), res.Unit)
	for _, l := range res.Levels {
		if l.Offered == *res.MaxPassing && l.Pass {
			answer = fmt.Sprintf("highest %s meeting the SLO: %s %s (achieved %s req/s), %s output tok/s, TTFT p99 %s ms",
				what, FormatLevel(l.Offered), res.Unit, fmtPtr(l.AchievedRPS), fmtPtr(l.OutputTPS), fmtQuantile(l.dist(MetricTTFT), "p(99)"))
			break
		}
	}
	if untrusted != "" {
		answer += "; " + untrusted
	}
	for _, l := range res.Levels {
		if l.Offered == *res.MaxPassing && l.LoadGenerator.Limited {
			answer += "; at that level " + headroom.Warning
		}
	}
	return answer
}

// untrustedPass says which level passed above the answer (MaxPassing, or
// none) and which lower level did not pass, so is not the answer: "level 2
// (11 req/s) passed, but level 1 (6 req/s), lower, failed: ...". Empty when
// no level passed above the answer.
func untrustedPass(res *Result) string {
	var top *Level // the highest passing level above the answer
	for i := range res.Levels {
		l := &res.Levels[i]
		if l.Pass && (res.MaxPassing == nil || l.Offered > *res.MaxPassing) && (top == nil || l.Offered > top.Offered) {
			top = l
		}
	}
	if top == nil {
		return ""
	}
	var below *Level // the lowest level that did not pass
	for i := range res.Levels {
		l := &res.Levels[i]
		if !l.Pass && l.Offered < top.Offered && (below == nil || l.Offered < below.Offered) {
			below = l
		}
	}
	too := ""
	if res.MaxPassing != nil {
		too = " too"
	}
	if below == nil { // not reached: a pass above the answer has a non-pass below it
		return fmt.Sprintf("level %d (%s %s) passed%s", top.Index, FormatLevel(top.Offered), res.Unit, too)
	}
	return fmt.Sprintf("level %d (%s %s) passed%s, but level %d (%s %s), lower, %s: a pass above a level that did not pass is not trusted",
		top.Index, FormatLevel(top.Offered), res.Unit, too, below.Index, FormatLevel(below.Offered), res.Unit, verdictWords(below))
}

// verdictWords is a level's verdict in a sentence: "failed", "was
// inconclusive", "was saturated".
func verdictWords(l *Level) string {
	switch l.Verdict {
	case result.Fail:
		return "failed"
	case result.Inconclusive:
		return "was inconclusive"
	case result.Saturated:
		return "was saturated"
	}
	return fmt.Sprintf("did not pass (%s)", l.Verdict)
}

func pctNames() []string {
	out := make([]string, len(LatencyPercentiles))
	for i, p := range LatencyPercentiles {
		out[i] = fmt.Sprintf("p(%g)", p)
	}
	return out
}

// fmtPtr formats a figure with 4 significant digits; "-" when undefined.
func fmtPtr(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", *v)
}

func fmtShare(rate *float64, n int64) string {
	if rate == nil {
		return "-"
	}
	return fmt.Sprintf("%d (%.2g%%)", n, *rate*100)
}

func fmtQuantile(d *Dist, name string) string {
	if d == nil {
		return "-"
	}
	if q := d.quantile(name); q != nil {
		return fmtPtr(q.Value)
	}
	return "-"
}

// fmtQuantileCI is "52.1 [51.0, 53.2]"; an open end is ∞.
func fmtQuantileCI(d *Dist, name string) string {
	q := d.quantile(name)
	if q == nil || q.Value == nil {
		return "-"
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if q.CI.Low != nil {
		lo = *q.CI.Low
	}
	if q.CI.High != nil {
		hi = *q.CI.High
	}
	return fmt.Sprintf("%.4g [%s, %s]", *q.Value, fmtNum(lo), fmtNum(hi))
}
