package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/llmstream/xk6-llmstream/analyze/result"
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
// req/s (achieved 43.9 req/s), 263 output tok/s, TTFT p99 52.3 ms".
func Answer(res *Result) string {
	what := "rate"
	if res.Mode == VUs.String() {
		what = "concurrency"
	}
	if res.MaxPassing == nil {
		return fmt.Sprintf("no level met the SLO: no highest %s", what)
	}
	for _, l := range res.Levels {
		if l.Offered == *res.MaxPassing && l.Pass {
			return fmt.Sprintf("highest %s meeting the SLO: %s %s (achieved %s req/s), %s output tok/s, TTFT p99 %s ms",
				what, FormatLevel(l.Offered), res.Unit, fmtPtr(l.AchievedRPS), fmtPtr(l.OutputTPS), fmtQuantile(l.dist(MetricTTFT), "p(99)"))
		}
	}
	return fmt.Sprintf("highest %s meeting the SLO: %s %s", what, FormatLevel(*res.MaxPassing), res.Unit)
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
