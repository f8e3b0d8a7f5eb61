package report

import (
	"fmt"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// SummaryCost is the summary's cost, one line per group and one for the
// whole run when there are several groups (none without llm_cost).
func SummaryCost(s *result.Summary) []string {
	c := s.Cost
	if c == nil {
		return nil
	}
	var out []string
	for _, g := range c.Groups {
		out = append(out, costLine(metrics.Cost+rundata.GroupSuffix(g.Label), g.Total, g.Requests, g.PerRequest))
	}
	if len(c.Groups) > 1 {
		out = append(out, costLine("run (all groups)", c.Total, c.Requests, c.PerRequest))
	}
	return out
}

func costLine(what string, total float64, n int64, per *float64) string {
	line := fmt.Sprintf("%s: %s in all over %s requests", what, numfmt.Sig4(total), numfmt.Thousands(n))
	if per != nil {
		line += ", " + numfmt.Sig4(*per) + " per request"
	}
	return line
}
