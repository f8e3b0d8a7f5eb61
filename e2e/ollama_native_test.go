package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// nativeScript streams from ollama's native /api/chat (NDJSON) with
// api: 'ollama' and prints each result.
const nativeScript = `
import { Client } from 'MODULE';
const llm = new Client({ baseURL: __ENV.LLM_BASE_URL, model: __ENV.LLM_MODEL, api: 'ollama', timeout: __ENV.TIMEOUT });
export default function () {
  const r = llm.chat({ messages: [{ role: 'user', content: __ENV.PROMPT }], max_tokens: Number(__ENV.MAX_TOKENS),
                       options: { temperature: 0, seed: 42 } });
  console.log('RESULT ' + JSON.stringify(r));
}
`

// nativeResult is the part of the module's result this test reads.
type nativeResult struct {
	OK           bool     `json:"ok"`
	ErrorKind    string   `json:"errorKind"`
	TPOT         *float64 `json:"tpot"`
	OutputTokens int      `json:"outputTokens"`
	ServerTimes  *struct {
		Prefill      *float64 `json:"prefill"`
		TPOT         *float64 `json:"tpot"`
		OutputTokens int      `json:"outputTokens"`
	} `json:"serverTimings"`
}

// TestOllamaNativeTPOTAgainstServer compares, per request, our TPOT ((e2e −
// ttft) / (tokens − 1), measured at the client) with ollama's own
// eval_duration / eval_count (llm_server_tpot), and prints the distribution of
// the difference: the network, the helper and the first token's share. It
// asserts no timing, only that every request reported both.
func TestOllamaNativeTPOTAgainstServer(t *testing.T) {
	tg := ollama(t)
	modulePath, err := filepath.Abs("../xk6-llmstream/js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "native.js")
	src := strings.Replace(nativeScript, "MODULE", "file://"+filepath.ToSlash(modulePath), 1)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	hs, err := helper.Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("helper.Start: %v", err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer scancel()
		if err := hs.Shutdown(sctx); err != nil {
			t.Errorf("helper shutdown: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	iterations := 4 * tg.streams
	res, err := k6sim.Run(ctx, k6sim.Config{
		Script: script,
		Env: map[string]string{
			"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": tg.base, "LLM_MODEL": tg.model,
			"MAX_TOKENS": strconv.Itoa(tg.maxTokens), "PROMPT": prompt,
			"TIMEOUT": strconv.Itoa(int(requestTimeout/time.Millisecond)) + "ms",
		},
		VUs: 1, Iterations: iterations, // one stream at a time: no queueing in the difference
	})
	if err != nil {
		t.Fatalf("k6sim.Run: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	var diffs []float64
	for _, line := range res.Console {
		_, js, ok := strings.Cut(line, "RESULT ")
		if !ok {
			continue
		}
		var r nativeResult
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("bad RESULT line: %v: %s", err, line)
		}
		if !r.OK || r.TPOT == nil || r.ServerTimes == nil || r.ServerTimes.TPOT == nil || r.ServerTimes.OutputTokens != r.OutputTokens {
			t.Errorf("result %s: want ok with our TPOT and ollama's eval_duration / eval_count over the same tokens", js)
			continue
		}
		diffs = append(diffs, *r.TPOT-*r.ServerTimes.TPOT)
	}
	if len(diffs) != iterations || len(res.Of("llm_server_tpot")) != iterations || len(res.Of("llm_server_prefill")) != iterations {
		t.Fatalf("%d comparable requests, %d llm_server_tpot and %d llm_server_prefill samples; want %d each",
			len(diffs), len(res.Of("llm_server_tpot")), len(res.Of("llm_server_prefill")), iterations)
	}
	sort.Float64s(diffs)
	q := func(p float64) float64 { return diffs[int(p*float64(len(diffs)-1)+0.5)] }
	t.Logf("our TPOT − ollama's eval_duration/eval_count over %d requests (ms): min %.3f p50 %.3f p90 %.3f max %.3f",
		len(diffs), diffs[0], q(0.5), q(0.9), diffs[len(diffs)-1])
}
