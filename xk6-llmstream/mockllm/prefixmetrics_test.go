package mockllm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestPrefixCacheCounters: /metrics serves vLLM's prefix-cache counters
// (vllm:prefix_cache_queries_total, _hits_total), and they are the sums of
// the request log's input_tokens and cached_tokens (the ground truth); a
// mock without a prefix cache serves neither.
func TestPrefixCacheCounters(t *testing.T) {
	t.Parallel()
	log := &lockedBuffer{}
	srv, url := startServer(t, Config{Tokenizer: "cl100k_base", Log: log, PrefixCache: PrefixCache{Blocks: 1024, BlockTokens: 4}})
	shared := strings.Repeat("the same long system prompt ", 10)
	for i := range 6 {
		body := fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":2,"messages":[{"role":"user","content":%q}]}`,
			shared+fmt.Sprint(" question number ", i%3))
		if r := post(t, url+"/v1/chat/completions", body); r.status != 200 {
			t.Fatalf("status %d", r.status)
		}
	}
	m := scrapeCounters(t, url)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	var in, cached float64
	for _, line := range strings.Split(strings.TrimSpace(log.b.String()), "\n") {
		var l RequestLog
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		in, cached = in+float64(l.InputTokens), cached+float64(l.CachedTokens)
	}
	q, h := m[PromPrefixQueries+"_total"], m[PromPrefixHits+"_total"]
	if q != in || h != cached || h == 0 || h >= q {
		t.Errorf("queries %v, hits %v; the log: %v input, %v cached tokens", q, h, in, cached)
	}
	_, plain := startServer(t, Config{})
	if m := scrapeCounters(t, plain); len(m) != 0 {
		t.Errorf("no prefix cache, yet %v", m)
	}
}

// scrapeCounters reads the counters of /metrics.
func scrapeCounters(t *testing.T, url string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for name, v := range scrapeMetrics(t, url) {
		if strings.HasPrefix(name, "vllm:prefix_cache_") {
			out[name] = v
		}
	}
	return out
}
