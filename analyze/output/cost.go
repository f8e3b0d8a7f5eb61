package output

import (
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// costTable writes the cost per request and in all, per group and for the
// whole run, when the summary has llm_cost.
func costTable(w *errWriter, md bool, s *result.Summary, render func(*table)) {
	c := s.Cost
	if c == nil {
		return
	}
	title := "Cost (llm_cost, in the currency of the Client's prices)"
	if md {
		title = "### " + title
	}
	t := &table{title: title, header: []string{"group", "requests", "per request", "total"}, right: []bool{false, true, true, true}}
	for _, g := range c.Groups {
		t.add(g.Label, numfmt.Thousands(g.Requests), costOrDash(g.PerRequest), numfmt.Sig4(g.Total))
	}
	if len(c.Groups) > 1 {
		t.add("run (all groups)", numfmt.Thousands(c.Requests), costOrDash(c.PerRequest), numfmt.Sig4(c.Total))
	}
	render(t)
}

func costOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return numfmt.Sig4(*v)
}
