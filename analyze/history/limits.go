package history

import (
	"fmt"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/compare"
)

// ParseLimits reads the regression limits a history tests: STAT=MAX as
// compare reads it, or a bare MAX for each of P50, P90 and P99; none:
// DefaultLimits. what names the input in errors (--max-regression).
func ParseLimits(what string, specs []string) ([]compare.RegressionLimit, error) {
	if len(specs) == 0 {
		return DefaultLimits, nil
	}
	var out []compare.RegressionLimit
	for _, s := range specs {
		if !strings.Contains(s, "=") {
			for _, st := range []string{"p50", "p90", "p99"} {
				l, err := compare.ParseLimit(st + "=" + s)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", what, err)
				}
				out = append(out, l)
			}
			continue
		}
		l, err := compare.ParseLimit(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", what, err)
		}
		if _, ok := l.Stat.Percent(); !ok && !l.IsRate() {
			return nil, fmt.Errorf("%s %q: a history tests percentiles (p99=10%%) and rates (rate=+1pp), not %s", what, s, l.Stat)
		}
		out = append(out, l)
	}
	return out, nil
}
