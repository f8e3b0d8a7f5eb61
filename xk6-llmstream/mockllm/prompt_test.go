package mockllm

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// TestPromptTokensEqualDatasetCounts: for a synthetic dataset built by the
// workload package, the mock's prompt_tokens (non-streamed chat usage,
// completions usage, Anthropic input + cache reads) equal each entry's
// input_tokens, under both built-in encodings.
func TestPromptTokensEqualDatasetCounts(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		tok, err := workload.LoadTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		_, url := startServer(t, Config{Tokenizer: enc, PrefixCache: PrefixCache{Blocks: 1024},
			Default: ModelConfig{OutputTokens: FixedCount(1)}})
		in, err := workload.ParseDist("uniform:min=1,max=600")
		if err != nil {
			t.Fatal(err)
		}
		syn := workload.Synthetic{Requests: 40, Input: in, Output: workload.FixedDist(1), PrefixGroups: 2, PrefixTokens: 40, Seed: 3}
		n := 0
		err = syn.Generate(tok, func(e workload.Entry) error {
			n++
			msgs, _ := json.Marshal(e.Messages)
			usage := usageOf(t, post(t, url+"/v1/chat/completions", fmt.Sprintf(`{"model":"m","messages":%s}`, msgs)).body)
			if usage["prompt_tokens"] != float64(e.InputTokens) {
				return fmt.Errorf("%s %s: chat prompt_tokens %v, dataset input_tokens %d", enc, e.ID, usage["prompt_tokens"], e.InputTokens)
			}
			prompt, _ := json.Marshal(e.Messages[0].Content)
			usage = usageOf(t, post(t, url+"/v1/completions", fmt.Sprintf(`{"model":"m","prompt":%s}`, prompt)).body)
			if usage["prompt_tokens"] != float64(e.InputTokens) {
				return fmt.Errorf("%s %s: completions prompt_tokens %v, want %d", enc, e.ID, usage["prompt_tokens"], e.InputTokens)
			}
			usage = usageOf(t, post(t, url+"/v1/messages", fmt.Sprintf(`{"model":"m","max_tokens":4,"messages":%s}`, msgs)).body)
			if got := usage["input_tokens"] + usage["cache_read_input_tokens"]; got != float64(e.InputTokens) {
				return fmt.Errorf("%s %s: anthropic input+cache_read %v, want %d", enc, e.ID, got, e.InputTokens)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 40 {
			t.Fatalf("%d entries", n)
		}
	}
}

// usageOf returns the usage object of a non-streamed answer, with
// prompt_tokens_details.cached_tokens as "cached_tokens".
func usageOf(t *testing.T, body []byte) map[string]float64 {
	t.Helper()
	var a struct {
		Usage map[string]any `json:"usage"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	out := map[string]float64{}
	for k, v := range a.Usage {
		switch x := v.(type) {
		case float64:
			out[k] = x
		case map[string]any:
			if c, ok := x["cached_tokens"].(float64); ok {
				out["cached_tokens"] = c
			}
		}
	}
	return out
}

// TestPrefixCache: a prompt sharing 40 words with an earlier one gets the
// whole 16-word blocks of the shared part as cached tokens, in every
// dialect's usage and in the log, and its prefill is computed from the
// uncached tokens only.
func TestPrefixCache(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	srv, url := startServer(t, Config{Log: log, PrefixCache: PrefixCache{Blocks: 64, BlockTokens: 16},
		Default: ModelConfig{OutputTokens: FixedCount(1),
			Prefill: Prefill{Base: time.Millisecond, PerInputToken: 100 * time.Microsecond, PerCachedToken: 10 * time.Microsecond}}})
	words := func(prefix string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return strings.Join(w, " ")
	}
	shared := words("shared", 40)
	type call struct {
		path, body, cachedField string
		want                    float64
	}
	msgs := func(model, s string) string {
		return fmt.Sprintf(`{"model":%q,"max_tokens":4,"messages":[{"role":"user","content":%q}]}`, model, s)
	}
	chat := func(s string) string { return msgs("m", s) }
	for i, c := range []call{
		{"/v1/chat/completions", chat(shared + " " + words("a", 10)), "cached_tokens", 0},  // 50 words, cold
		{"/v1/chat/completions", chat(shared + " " + words("b", 10)), "cached_tokens", 32}, // 2 whole blocks shared
		{"/v1/chat/completions", chat(shared + " " + words("a", 10)), "cached_tokens", 48}, // blocks before the last token
		{"/v1/completions", fmt.Sprintf(`{"model":"m","prompt":%q}`, shared+" "+words("c", 5)), "cached_tokens", 32},
		{"/v1/messages", chat(shared + " " + words("d", 5)), "cache_read_input_tokens", 32},
		{"/v1/chat/completions", msgs("other", shared+" "+words("a", 10)), "cached_tokens", 0}, // another model
	} {
		u := usageOf(t, post(t, url+c.path, c.body).body)
		if u[c.cachedField] != c.want {
			t.Errorf("request %d (%s): %s %v, want %v (usage %v)", i, c.path, c.cachedField, u[c.cachedField], c.want, u)
		}
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for seq, r := range log.records(t) {
		want := time.Millisecond + time.Duration(r.InputTokens-r.CachedTokens)*100*time.Microsecond + time.Duration(r.CachedTokens)*10*time.Microsecond
		if time.Duration(r.PrefillNS) != want {
			t.Errorf("seq %d: prefill %v, want %v (input %d, cached %d)", seq, time.Duration(r.PrefillNS), want, r.InputTokens, r.CachedTokens)
		}
		if seq == 2 && (r.InputTokens != 50 || r.CachedTokens != 48) {
			t.Errorf("seq 2 logged input %d cached %d, want 50, 48", r.InputTokens, r.CachedTokens)
		}
	}
}

// TestPrefixCacheEvictsLeastRecentlyUsed: with room for 4 blocks, a prompt of
// 4 blocks pushes out an older one entirely.
func TestPrefixCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newPrefixCache(PrefixCache{Blocks: 4, BlockTokens: 2})
	seq := func(from, n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = uint64(from + i)
		}
		return out
	}
	if got := c.serve("m", seq(0, 5)); got != 0 {
		t.Fatalf("cold: %d cached", got)
	}
	if got := c.serve("m", seq(0, 5)); got != 4 {
		t.Fatalf("warm: %d cached, want 4", got)
	}
	if got := c.serve("m", seq(100, 9)); got != 0 {
		t.Fatalf("other prompt: %d cached", got)
	}
	if got := c.serve("m", seq(0, 5)); got != 0 {
		t.Fatalf("after eviction: %d cached, want 0", got)
	}
	if got := c.serve("m", seq(0, 1)); got != 0 {
		t.Fatalf("one token: %d cached, want 0 (the last token is computed)", got)
	}
}

// TestMinTokensAndIgnoreEOS: min_tokens lengthens a shorter answer (capped by
// max_tokens); ignore_eos makes the answer exactly max_tokens long.
func TestMinTokensAndIgnoreEOS(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Default: ModelConfig{OutputTokens: FixedCount(3)}})
	for _, c := range []struct {
		extra string
		want  float64
	}{
		{`"max_tokens":20`, 3},
		{`"max_tokens":20,"min_tokens":10`, 10},
		{`"max_tokens":8,"min_tokens":10`, 8},
		{`"min_tokens":10`, 10},
		{`"max_tokens":20,"ignore_eos":true`, 20},
	} {
		u := usageOf(t, post(t, url+"/v1/chat/completions", `{"model":"m",`+c.extra+`,"messages":[{"role":"user","content":"hi"}]}`).body)
		if u["completion_tokens"] != c.want {
			t.Errorf("%s: %v completion tokens, want %v", c.extra, u["completion_tokens"], c.want)
		}
	}
	if r := post(t, url+"/v1/chat/completions", `{"model":"m","min_tokens":-1,"messages":[]}`); r.status != 400 || !strings.Contains(string(r.body), "min_tokens") {
		t.Errorf("negative min_tokens: %d %s", r.status, r.body)
	}
}

func TestBadTokenizerNamed(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Tokenizer: "no-such-encoding"}); err == nil || !strings.Contains(err.Error(), "no-such-encoding") {
		t.Errorf("err %v, want one naming the tokenizer", err)
	}
	if _, err := New(Config{PrefixCache: PrefixCache{Blocks: -1}}); err == nil || !strings.Contains(err.Error(), "prefix_cache.blocks") {
		t.Errorf("err %v, want one naming prefix_cache.blocks", err)
	}
}
