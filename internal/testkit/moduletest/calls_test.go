package moduletest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// callsScript embeds and reranks in every API the module knows (OpenAI and
// Cohere embeddings; Cohere, vLLM and TEI rerank), and makes one embed call
// with a wrong key.
const callsScript = `
const c = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: 'emb', tags: { suite: 'calls' } });
const bad = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'wrong', model: 'emb' });
export const options = { scenarios: { calls: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } } };
const docs = ['a', 'b c', 'd'];
export default function () {
  const rs = [
    c.embed({ input: ['alpha beta', 'gamma'] }),
    c.embed('one two three', { api: 'cohere-embed' }),
    c.rerank({ query: 'q w', documents: docs, topN: 2 }, { api: 'cohere-rerank' }),
    c.rerank({ query: 'q w', documents: docs }),
    c.rerank({ query: 'q w', documents: docs }, { tei: true }),
  ];
  for (const r of rs) {
    if (!r.ok) throw new Error('call failed: ' + JSON.stringify(r.error));
  }
  console.log('RESULTS ' + JSON.stringify(rs.map((r) => [r.kind, r.api, r.batch, r.results, r.inputTokens])));
  const f = bad.embed({ input: 'x' });
  console.log('FAILED ' + JSON.stringify([f.ok, f.errorKind]));
}
`

// callPoint is one llm_embed_*/llm_rerank_* sample.
type callPoint struct {
	metric string
	value  float64
	tags   map[string]string
}

// checkCallPoints holds a run's call samples to the mock's ground truth:
// per call, the input tokens it counted (words; the query once per
// document for rerank; Cohere's rerank and TEI report none), the batch and
// documents sent, and a duration of at least its modeled latency (base +
// per token); one failure, tagged http_401; no generation metric.
func checkCallPoints(t *testing.T, who string, pts []callPoint, base, perToken time.Duration) {
	t.Helper()
	by := map[string][]float64{}
	for _, p := range pts {
		if strings.HasPrefix(p.metric, "llm_") {
			by[p.metric] = append(by[p.metric], p.value)
		}
		if p.metric == "llm_embed_failed" && p.value == 1 && p.tags["error"] != "http_401" {
			t.Errorf("%s: failed call tagged error=%q", who, p.tags["error"])
		}
		if p.metric == "llm_embed_duration" && p.value > 0 && p.tags["suite"] == "calls" && p.tags["api"] == "" {
			t.Errorf("%s: no api tag: %v", who, p.tags)
		}
	}
	for m := range by {
		slices.Sort(by[m])
	}
	want := map[string][]float64{
		"llm_embed_input_tokens":  {3, 3},
		"llm_embed_batch_size":    {1, 1, 2},
		"llm_embed_failed":        {0, 0, 1},
		"llm_rerank_input_tokens": {10},
		"llm_rerank_documents":    {3, 3, 3},
		"llm_rerank_failed":       {0, 0, 0},
	}
	for m, w := range want {
		if !slices.Equal(by[m], w) {
			t.Errorf("%s: %s = %v, want %v", who, m, by[m], w)
		}
	}
	embedModel := float64((base + 3*perToken).Microseconds()) / 1000
	rerankModel := float64((base + 10*perToken).Microseconds()) / 1000
	if d := by["llm_embed_duration"]; len(d) != 3 || d[1] < embedModel {
		t.Errorf("%s: llm_embed_duration %v, want 3 with the 2 successful ones ≥ the modeled %v ms", who, d, embedModel)
	}
	if d := by["llm_rerank_duration"]; len(d) != 3 || d[0] < rerankModel {
		t.Errorf("%s: llm_rerank_duration %v, want 3 ≥ the modeled %v ms", who, d, rerankModel)
	}
	for _, m := range []string{"llm_ttft", "llm_e2e", "llm_requests_failed", "llm_output_tokens", "llm_input_tokens"} {
		if len(by[m]) > 0 {
			t.Errorf("%s: a call made %s samples", who, m)
		}
	}
}

// TestCallsUnderK6SimAndRealK6: embed() and rerank() against the real
// helper and the mock, under k6sim and (when present) real k6.
func TestCallsUnderK6SimAndRealK6(t *testing.T) {
	t.Parallel()
	const base, perToken = 20 * time.Millisecond, time.Millisecond
	mockURL := startMock(t, mockllm.Config{Seed: 3, APIKey: testKey, Calls: mockllm.CallLatency{Base: base, PerToken: perToken}})
	hs := startHelper(t)
	path := script(t, callsScript)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}
	wantResults := `[["embed","openai-embeddings",2,2,3],["embed","cohere-embed",1,1,3],["rerank","cohere-rerank",3,2,0],["rerank","rerank",3,3,10],["rerank","rerank",3,3,0]]`

	res := run(t, path, env, k6sim.Config{VUs: 1, Iterations: 1}, false)
	var pts []callPoint
	for _, s := range res.Samples {
		pts = append(pts, callPoint{s.Metric, s.Value, s.Tags})
	}
	checkCallPoints(t, "k6sim", pts, base, perToken)
	console := strings.Join(res.Console, "\n")
	if !strings.Contains(console, "RESULTS "+wantResults) || !strings.Contains(console, `FAILED [false,"http_401"]`) {
		t.Errorf("k6sim console:\n%s", console)
	}

	t.Run("real k6", func(t *testing.T) {
		k6 := findK6(t)
		out := filepath.Join(t.TempDir(), "out.json")
		output := runRealK6(t, k6, path, env, out)
		// k6's console log quotes the message: its quotes come escaped.
		if !strings.Contains(output, strings.ReplaceAll(wantResults, `"`, `\"`)) || strings.Contains(output, testKey) {
			t.Errorf("k6 printed:\n%s", output)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(testKey)) {
			t.Error("the API key appears in k6's JSON output")
		}
		var pts []callPoint
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Type   string `json:"type"`
				Metric string `json:"metric"`
				Data   struct {
					Value float64           `json:"value"`
					Tags  map[string]string `json:"tags"`
				} `json:"data"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if line.Type == "Point" {
				pts = append(pts, callPoint{line.Metric, line.Data.Value, line.Data.Tags})
			}
		}
		checkCallPoints(t, "real k6", pts, base, perToken)
	})
}
