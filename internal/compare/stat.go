package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Stat names a statistic of a latency distribution: "p50" … "p99.9" (any
// pN with 0 < N < 100) or "avg".
type Stat string

// RateStat is the statistic of a k6 Rate: the share of non-zero samples. It
// names rate limits (rate=+1pp); Compare takes Trend statistics only.
const RateStat Stat = "rate"

// DefaultStats are the statistics compared unless told otherwise.
var DefaultStats = []Stat{"p50", "p90", "p95", "p99", "p99.9", "avg"}

// MinSamples is the fewest samples per run for any statistic to be compared.
const MinSamples = 20

// ParseStat reads a statistic name: pN or p(N) with 0 < N < 100, avg or mean,
// med (p50), or rate (a Rate's, RateStat); case-insensitive.
func ParseStat(s string) (Stat, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "rate":
		return RateStat, nil
	case "avg", "mean":
		return "avg", nil
	case "med", "median":
		return "p50", nil
	}
	if strings.HasPrefix(t, "p(") && strings.HasSuffix(t, ")") {
		t = "p" + t[2:len(t)-1]
	}
	if strings.HasPrefix(t, "p") {
		v, err := strconv.ParseFloat(t[1:], 64)
		if err == nil && v > 0 && v < 100 {
			return Stat("p" + strconv.FormatFloat(v, 'f', -1, 64)), nil
		}
	}
	return "", fmt.Errorf("unknown statistic %q: want p50, p90, p95, p99, p99.9 (any pN with 0<N<100), avg, or rate for a Rate", s)
}

// Percent returns N of a percentile pN (99.9 for p99.9) and true, or false
// for avg.
func (s Stat) Percent() (float64, bool) {
	if !strings.HasPrefix(string(s), "p") {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(s[1:]), 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// MinN is the fewest samples per run for the statistic to be compared: enough
// for two samples to lie above the percentile (stats.MinSamples: n ≥
// 2/(1−N/100)), and at least MinSamples.
func (s Stat) MinN() int {
	n, ok := s.Percent()
	if !ok {
		return MinSamples
	}
	return max(MinSamples, stats.MinSamples(n, 2))
}

// Label is the statistic as people write it: P99, P99.9, avg.
func (s Stat) Label() string {
	if _, ok := s.Percent(); ok {
		return "P" + string(s[1:])
	}
	return string(s)
}
