package serverstats

import (
	"strings"
	"testing"
)

// TestParsePrefixCounters: vLLM's prefix_cache counters (summed over
// engines), SGLang's prompt and cached tokens, and a page with only one of
// a pair, or more hits than queries, give no counters (the last is counted
// as rejected).
func TestParsePrefixCounters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, page string
		q, h       float64
		none       bool
		rejected   int
	}{
		{"vllm", "# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{engine=\"0\"} 1000\nvllm:prefix_cache_queries_total{engine=\"1\"} 500\n" +
			"# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{engine=\"0\"} 250\nvllm:prefix_cache_hits_total{engine=\"1\"} 50\n", 1500, 300, false, 0},
		{"sglang", "sglang:prompt_tokens_total{model_name=\"m\"} 800\nsglang:cached_tokens_total{model_name=\"m\"} 600\nsglang:cache_hit_rate{model_name=\"m\"} 0.9\n", 800, 600, false, 0},
		{"one of a pair", "vllm:prefix_cache_queries_total 10\nsglang:cached_tokens_total 5\n", 0, 0, true, 0},
		{"hits over queries", "vllm:prefix_cache_queries_total 10\nvllm:prefix_cache_hits_total 11\n", 0, 0, true, 1},
	} {
		s, err := Parse(strings.NewReader(c.page))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.none {
			if s.PrefixQueries != nil || s.PrefixHits != nil || s.Rejected != c.rejected {
				t.Errorf("%s: %v %v, rejected %d; want none, %d rejected", c.name, s.PrefixQueries, s.PrefixHits, s.Rejected, c.rejected)
			}
			continue
		}
		if s.PrefixQueries == nil || s.PrefixHits == nil || *s.PrefixQueries != c.q || *s.PrefixHits != c.h {
			t.Errorf("%s: queries %v hits %v, want %v %v", c.name, s.PrefixQueries, s.PrefixHits, c.q, c.h)
		}
	}
}
