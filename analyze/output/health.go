package output

import (
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// healthTables writes the client health and the cache-hit share, when the
// summary has them.
func healthTables(w *errWriter, md bool, s *result.Summary, render func(*table)) {
	if len(s.Health) > 0 {
		title := "Client health (llm_client_lag, llm_client_cpu_idle, llm_itl_zero_gaps)"
		if md {
			title = "### " + title
		}
		t := &table{title: title, header: []string{"group", "lag p50", "lag p99", "CPU idle p50", "zero gaps", "ITL p50", "verdict"}, right: []bool{false, true, true, true, true, true, false}}
		for _, h := range s.Health {
			verdict := "ok"
			switch {
			case h.Limited:
				verdict = "LIMITED by the load generator"
			case h.NoVerdict != "":
				verdict = h.NoVerdict
			}
			t.add(h.Label, msOrDash(h.LagP50), msOrDash(h.LagP99), shareOrDash(h.CPUIdleP50), shareOrDash(h.ZeroGapShare), msOrDash(h.ITLP50), verdict)
		}
		render(t)
	}
	if len(s.CacheHits) > 0 {
		title := "Prompt cache (llm_cached_input_tokens / llm_input_tokens)"
		if md {
			title = "### " + title
		}
		t := &table{title: title, header: []string{"group", "cached", "input", "cache-hit share"}, right: []bool{false, true, true, true}}
		for _, c := range s.CacheHits {
			t.add(c.Label, Number(c.Cached), Number(c.Input), shareOrDash(c.Share))
		}
		render(t)
	}
}

func msOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return Number(*v) + " ms"
}

func shareOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return numfmt.Percent(*v)
}
