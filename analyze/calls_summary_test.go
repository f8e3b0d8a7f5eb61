package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummaryGroupsCalls: embeddings and rerank metrics are summarized
// under their own heading, after every generation metric, in text and
// markdown; their figures are the samples' (p(50) of the durations, the
// token counter's sum, the failure rate).
func TestSummaryGroupsCalls(t *testing.T) {
	t.Parallel()
	var lines []string
	decl := func(name, typ, contains string) {
		lines = append(lines, fmt.Sprintf(`{"type":"Metric","data":{"name":%q,"type":%q,"contains":%q},"metric":%q}`, name, typ, contains, name))
	}
	point := func(name string, i int, v float64, api string) {
		lines = append(lines, fmt.Sprintf(`{"metric":%q,"type":"Point","data":{"time":"2026-01-02T03:04:%02dZ","value":%g,"tags":{"api":%q},"metadata":{"llm_request_id":"r%d"}}}`, name, 5+i, v, api, i))
	}
	decl("llm_ttft", "trend", "time")
	decl("llm_embed_duration", "trend", "time")
	decl("llm_embed_input_tokens", "counter", "default")
	decl("llm_embed_failed", "rate", "default")
	decl("llm_rerank_duration", "trend", "time")
	for i := range 4 {
		point("llm_ttft", i, 100, "openai-chat")
		point("llm_embed_duration", 10+i, float64(10*(i+1)), "openai-embeddings")
		point("llm_embed_input_tokens", 10+i, 25, "openai-embeddings")
		point("llm_embed_failed", 10+i, 0, "openai-embeddings")
		point("llm_rerank_duration", 20+i, 7, "rerank")
	}
	file := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, heading string }{
		{"text", "Embeddings and rerank (their own metrics"}, {"markdown", "### Embeddings and rerank\n"},
	} {
		code, out, errs := run(t, nil, "summary", "--format", tc.format, file)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.format, code, errs)
		}
		h := strings.Index(out, tc.heading)
		ttft, embed, rerank := strings.Index(out, "llm_ttft ("), strings.Index(out, "llm_embed_duration ("), strings.Index(out, "llm_rerank_duration (")
		if h < 0 || ttft < 0 || ttft > h || embed < h || rerank < h {
			t.Errorf("%s: heading at %d, llm_ttft at %d, llm_embed_duration at %d, llm_rerank_duration at %d:\n%s", tc.format, h, ttft, embed, rerank, out)
		}
	}
	s := summaryJSON(t, file)
	if g := findGroup(t, s, "llm_embed_input_tokens", "all"); g.Sum == nil || *g.Sum != 100 {
		t.Errorf("llm_embed_input_tokens sum %v, want 100", g.Sum)
	}
	if g := findGroup(t, s, "llm_embed_duration", "all"); g.Count != 4 {
		t.Errorf("llm_embed_duration count %d, want 4", g.Count)
	}
}
