package sweep

import (
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"strconv"

	"github.com/llmstream/xk6-llmstream/internal/k6json"
	"github.com/llmstream/xk6-llmstream/internal/thresholds"
)

// The metrics the sweep reads besides the SLO's.
const (
	MetricTTFT     = metrics.TTFT
	MetricTPOT     = metrics.TPOT
	MetricITL      = metrics.ITL
	MetricFailed   = metrics.RequestsFailed
	MetricOutput   = metrics.OutputTokens
	MetricDropped  = "dropped_iterations"
	DefaultMaxFail = 0.01 // --max-failure-rate
)

// knownTypes are the k6 types of llmstream.js's metrics (metrics.Builtin)
// and of k6's own the sweep reads, so an SLO that cannot apply is refused
// before any level runs.
var knownTypes = func() map[string]k6json.Type {
	out := map[string]k6json.Type{"dropped_iterations": k6json.Counter, "iterations": k6json.Counter}
	for _, m := range metrics.Builtin {
		t, err := k6json.ParseType(string(m.Type))
		if err != nil {
			panic(err) // metrics.Builtin names k6's types
		}
		out[m.Name] = t
	}
	return out
}()

// ParseSLO parses the --slo expressions ("llm_ttft: p(99)<2000", k6's
// threshold syntax, several expressions per metric allowed) and adds the
// failure-rate limit "llm_requests_failed: rate<maxFail" (none when maxFail
// is 1 or more). An expression on one of llmstream.js's metrics that k6 would
// refuse (p(99) of a Rate) is an error.
func ParseSLO(exprs []string, maxFail float64) ([]thresholds.Check, error) {
	var out []thresholds.Check
	for _, e := range exprs {
		cs, err := thresholds.Parse(e)
		if err != nil {
			return nil, fmt.Errorf("--slo: %w", err)
		}
		for _, c := range cs {
			if t, ok := knownTypes[c.Metric]; ok {
				if err := c.Validate(t); err != nil {
					return nil, fmt.Errorf("--slo: %w", err)
				}
			}
		}
		out = append(out, cs...)
	}
	if !(maxFail >= 0) {
		return nil, fmt.Errorf("--max-failure-rate %v: want a share from 0 to 1 (1 turns the limit off)", maxFail)
	}
	if maxFail < 1 {
		cs, err := thresholds.Parse(MetricFailed + ": rate<" + strconv.FormatFloat(maxFail, 'g', -1, 64))
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}
