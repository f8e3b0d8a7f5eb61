package moduletest

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestMockLogsEveryCall runs scripts/embeddings.js (2 VUs × 5 iterations,
// a batch of 4: embed and rerank each iteration) plus one call with a wrong
// key against the real helper and the mock: the mock's --log holds a line
// per call, and the module's llm_embed_input_tokens and
// llm_rerank_input_tokens are, call for call, the input tokens the log
// counted (the same multiset, so the same sum).
func TestMockLogsEveryCall(t *testing.T) {
	t.Parallel()
	log := &logLines{}
	mockURL, stop := startStoppableMock(t, mockllm.Config{Seed: 5, APIKey: testKey, Log: log})
	hs := startHelper(t)
	path, err := filepath.Abs("../../../scripts/embeddings.js")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "LLM_API_KEY": testKey,
		"LLM_BATCH": "4", "LLM_VUS": "2", "LLM_ITERATIONS": "5"}
	res := run(t, path, env, k6sim.Config{VUs: 2, Iterations: 5}, false)
	run(t, script(t, `
const c = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: 'wrong', model: 'emb' });
export default function () { const r = c.embed({ input: 'x' }); if (r.ok) throw new Error('a wrong key passed'); }
`), env, k6sim.Config{}, false)
	stop()

	var embedMetric, rerankMetric []float64
	for _, s := range res.Samples {
		switch s.Metric {
		case metrics.EmbedInputTokens:
			embedMetric = append(embedMetric, s.Value)
		case metrics.RerankInputTokens:
			rerankMetric = append(rerankMetric, s.Value)
		}
	}
	var embedLog, rerankLog []float64
	rejected := 0
	for _, l := range log.entries(t) {
		switch {
		case l.Kind == "embed" && l.Outcome == "ok":
			embedLog = append(embedLog, float64(l.InputTokens))
			if l.Batch != 4 || l.Status != 200 || l.CallWriteNS < l.ArrivalNS+l.CallDelayNS {
				t.Errorf("embed line %d: batch %d, status %d, written at %d before arrival %d + delay %d", l.Seq, l.Batch, l.Status, l.CallWriteNS, l.ArrivalNS, l.CallDelayNS)
			}
		case l.Kind == "rerank" && l.Outcome == "ok":
			rerankLog = append(rerankLog, float64(l.InputTokens))
		case l.Kind == "embed" && l.Outcome == "rejected" && l.Status == 401:
			rejected++
		default:
			t.Errorf("unexpected log line: %+v", l)
		}
	}
	if len(embedLog) != 10 || len(rerankLog) != 10 || rejected != 1 {
		t.Fatalf("log: %d embed, %d rerank, %d rejected lines; want 10, 10, 1", len(embedLog), len(rerankLog), rejected)
	}
	for _, c := range []struct {
		name        string
		metric, log []float64
	}{{metrics.EmbedInputTokens, embedMetric, embedLog}, {metrics.RerankInputTokens, rerankMetric, rerankLog}} {
		slices.Sort(c.metric)
		slices.Sort(c.log)
		if !slices.Equal(c.metric, c.log) {
			t.Errorf("%s = %v, the mock's log counted %v", c.name, c.metric, c.log)
		}
		t.Logf("%s: %v (sum %v), the log's: %v", c.name, c.metric, sum(c.metric), c.log)
	}
}

func sum(xs []float64) (s float64) {
	for _, x := range xs {
		s += x
	}
	return s
}
