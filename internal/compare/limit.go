package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RegressionLimit is a regression limit for a CI gate: the candidate fails when a
// statistic got worse by more than Max with confidence, i.e. when the lower
// bound of its change's confidence interval is above Max.
type RegressionLimit struct {
	// Metric restricts the limit to one metric; empty applies it to every
	// metric compared.
	Metric string
	Stat   Stat
	// Max is the largest tolerated worsening: a fraction of the baseline
	// (0.10 for 10%) when Relative; for the Stat RateStat, a difference of
	// rates (0.01 for one percentage point, written 1pp); else in the
	// metric's unit (ms for k6 time Trends).
	Max      float64
	Relative bool
}

// IsRate tells whether the limit is on a Rate metric's rate (STAT is "rate").
func (l RegressionLimit) IsRate() bool { return l.Stat == RateStat }

// ParseLimit reads a limit written STAT=MAX or METRIC:STAT=MAX. For a Trend
// statistic MAX is a percentage of the baseline ("10%") or a duration in the
// metric's unit, milliseconds ("50ms", "0.2s", "800us" are converted to ms);
// for a Rate's "rate" it is a change in percentage points ("1pp", absolute:
// 2% to 3% is +1pp). A leading "+" is allowed:
//
//	p99=10%   llm_ttft:p95=50ms   avg=5%   llm_requests_failed:rate=+1pp
func ParseLimit(s string) (RegressionLimit, error) {
	var l RegressionLimit
	lhs, rhs, ok := strings.Cut(s, "=")
	if !ok {
		return l, fmt.Errorf("regression limit %q: want STAT=MAX, e.g. p99=10%% or p95=50ms", s)
	}
	lhs = strings.TrimSpace(lhs)
	if i := strings.LastIndex(lhs, ":"); i >= 0 {
		l.Metric = strings.TrimSpace(lhs[:i])
		lhs = lhs[i+1:]
		if l.Metric == "" {
			return l, fmt.Errorf("regression limit %q: empty metric name before ':'", s)
		}
		if strings.ContainsAny(l.Metric, "{} ") {
			return l, fmt.Errorf("regression limit %q: %q is not a metric name (group with --by, filter with --where)", s, l.Metric)
		}
	}
	st, err := ParseStat(lhs)
	if err != nil {
		return l, fmt.Errorf("regression limit %q: %w", s, err)
	}
	l.Stat = st
	rhs = strings.TrimPrefix(strings.TrimSpace(rhs), "+")
	num, scale := rhs, 1.0
	switch {
	case l.IsRate() && !strings.HasSuffix(rhs, "pp"):
		return l, fmt.Errorf("regression limit %q: a rate's limit is a change in percentage points, e.g. rate=+1pp", s)
	case strings.HasSuffix(rhs, "pp"):
		if !l.IsRate() {
			return l, fmt.Errorf("regression limit %q: percentage points (pp) apply to a Rate's rate; %s takes %% or a time", s, st)
		}
		num, scale = rhs[:len(rhs)-2], 0.01
	case strings.HasSuffix(rhs, "%"):
		num, scale, l.Relative = rhs[:len(rhs)-1], 0.01, true
	case strings.HasSuffix(rhs, "ms"):
		num = rhs[:len(rhs)-2]
	case strings.HasSuffix(rhs, "us"), strings.HasSuffix(rhs, "µs"):
		num, scale = strings.TrimSuffix(strings.TrimSuffix(rhs, "us"), "µs"), 0.001
	case strings.HasSuffix(rhs, "s"):
		num, scale = rhs[:len(rhs)-1], 1000
	default:
		return l, fmt.Errorf("regression limit %q: %q needs a unit: %% of the baseline, or ms, s, us (pp for a rate)", s, rhs)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return l, fmt.Errorf("regression limit %q: %q is not a number", s, num)
	}
	if v < 0 {
		return l, fmt.Errorf("regression limit %q: the tolerated increase must not be negative", s)
	}
	l.Max = v * scale
	return l, nil
}

// String writes the limit back in ParseLimit's form.
func (l RegressionLimit) String() string {
	var b strings.Builder
	if l.Metric != "" {
		b.WriteString(l.Metric + ":")
	}
	b.WriteString(string(l.Stat) + "=")
	switch {
	case l.IsRate():
		b.WriteString(strconv.FormatFloat(100*l.Max, 'f', -1, 64) + "pp")
	case l.Relative:
		b.WriteString(strconv.FormatFloat(100*l.Max, 'f', -1, 64) + "%")
	default:
		b.WriteString(strconv.FormatFloat(l.Max, 'f', -1, 64) + "ms")
	}
	return b.String()
}

// Applies tells whether the limit concerns metric.
func (l RegressionLimit) Applies(metric string) bool { return l.Metric == "" || l.Metric == metric }

// ExceededRate tells whether c breaks a rate limit: the candidate's rate is
// worse than the baseline's by more than Max with confidence (the lower bound
// of the worsening, RateChange.Worsening, is above Max).
func (l RegressionLimit) ExceededRate(c RateChange) bool {
	return l.IsRate() && c.Worsening() > l.Max
}

// Exceeded tells whether c breaks the limit: the lower bound of the change's
// interval (relative or absolute, as the limit is) is above Max. A change
// that could not be assessed (too few samples) does not break it; callers
// report it as untested.
func (l RegressionLimit) Exceeded(c Change) bool {
	if c.Stat != l.Stat || c.Verdict == TooFew {
		return false
	}
	lo := c.Lo
	if l.Relative {
		lo = c.RelLo
	}
	return lo > l.Max
}
