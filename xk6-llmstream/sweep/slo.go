package sweep

import (
	"fmt"
	"strconv"

	"github.com/llmstream/xk6-llmstream/analyze/check"
	"github.com/llmstream/xk6-llmstream/analyze/k6json"
)

// The metrics the sweep reads besides the SLO's.
const (
	MetricTTFT     = "llm_ttft"
	MetricTPOT     = "llm_tpot"
	MetricITL      = "llm_itl"
	MetricFailed   = "llm_requests_failed"
	MetricOutput   = "llm_output_tokens"
	MetricDropped  = "dropped_iterations"
	RequestIDKey   = "llm_request_id" // the metadata key llmstream.js sets
	DefaultMaxFail = 0.01             // --max-failure-rate
)

// knownTypes are the k6 types of llmstream.js's metrics, so an SLO that
// cannot apply is refused before any level runs.
var knownTypes = map[string]k6json.Type{
	"llm_ttft": k6json.Trend, "llm_ttft_answer": k6json.Trend, "llm_tpot": k6json.Trend,
	"llm_itl": k6json.Trend, "llm_e2e": k6json.Trend,
	"llm_output_tokens": k6json.Counter, "llm_input_tokens": k6json.Counter,
	"llm_requests_failed": k6json.Rate, "llm_slo_met": k6json.Rate,
	"dropped_iterations": k6json.Counter, "iterations": k6json.Counter,
}

// ParseSLO parses the --slo expressions ("llm_ttft: p(99)<2000", k6's
// threshold syntax, several expressions per metric allowed) and adds the
// failure-rate limit "llm_requests_failed: rate<maxFail" (none when maxFail
// is 1 or more). An expression on one of llmstream.js's metrics that k6 would
// refuse (p(99) of a Rate) is an error.
func ParseSLO(exprs []string, maxFail float64) ([]check.Check, error) {
	var out []check.Check
	for _, e := range exprs {
		cs, err := check.Parse(e)
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
		cs, err := check.Parse(MetricFailed + ": rate<" + strconv.FormatFloat(maxFail, 'g', -1, 64))
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}
