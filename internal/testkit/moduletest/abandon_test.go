package moduletest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// abandonScript: client a abandons 30 % of its requests after 5 tokens
// (seed 7); client b abandons every request 60 ms after its start. Each
// request names its model after its VU, iteration and client, so that the
// mock's log line of each request is found by its model.
const abandonScript = `
const a = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, abandon: { afterTokens: 5, share: 0.3, seed: 7 },
  slo: { ttft: '10s' } });
const b = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY });
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 10 } } };
export default function () {
  const m = 'm-' + __VU + '-' + __ITER;
  const r = a.chat({ model: m + '-a', messages: [{ role: 'user', content: 'hi' }] });
  emit({ model: r.model, ok: r.ok, abandoned: r.abandoned, start: r.raw.start_unix_ns, out: r.outputTokens, e2e: r.e2e, tpot: r.tpot, slo: r.sloMet });
  if (__ITER < 2) {
    const q = b.chat({ model: m + '-b', messages: [{ role: 'user', content: 'hi' }] }, { abandon: { afterMs: 60 } });
    emit({ model: q.model, ok: q.ok, abandoned: q.abandoned, start: q.raw.start_unix_ns, out: q.outputTokens, e2e: q.e2e, tpot: q.tpot });
  }
}
`

type abandonResult struct {
	Model     string `json:"model"`
	OK        bool   `json:"ok"`
	Abandoned *struct {
		AtMS   float64 `json:"atMs"`
		Tokens int     `json:"tokens"`
	} `json:"abandoned"`
	Start int64    `json:"start"`
	Out   int      `json:"out"`
	E2E   *float64 `json:"e2e"`
	TPOT  *float64 `json:"tpot"`
	SLO   *bool    `json:"slo"`
}

func abandonResults(t *testing.T, res *k6sim.Result) map[string]abandonResult {
	t.Helper()
	out := map[string]abandonResult{}
	for _, line := range res.Console {
		i := strings.Index(line, "RESULT ")
		if i < 0 {
			continue
		}
		s := line[i+len("RESULT "):]
		var r abandonResult
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			t.Fatal(err)
		}
		out[r.Model] = r
	}
	return out
}

// TestAbandonAgainstMockGroundTruth: the helper abandons the requests the
// module picked, and the mock's log is the ground truth. Per request: an
// abandoned one has ok (not failed), no llm_e2e and no TPOT, and is not
// good (llm_slo_met 0); the mock logged a disconnect for it (client_gone,
// gone_ns) and for no other; the tokens the module received are the tokens
// the mock sent, ±1, for the afterTokens client (those of every event read up to the limit and of the
// events that came in the same read: a mock running late writes overdue
// events together; its 40 ms ITL leaves it time to see the client go before
// its next token). Times, per request, by causality (which cannot flake):
// the helper's moment of leaving (start + at_ms) is not before the mock
// wrote the token that reached the limit (or before the time limit), and
// not after the mock saw the connection go (± clockStep). Over the run, the
// median of gone_ns − the helper's moment is within 5 ms (a per-request
// bound in ms would be a speed margin: one stall of the busy machine's
// scheduler breaks it). The count of llm_requests_abandoned samples at 1 is
// the mock's disconnect count, and a second run with the same seed abandons
// the same requests.
func TestAbandonAgainstMockGroundTruth(t *testing.T) {
	t.Parallel()
	log := &logLines{}
	mockURL, stop := startStoppableMock(t, mockllm.Config{Seed: 2, APIKey: testKey, Log: log,
		Default: fixedModel(5*time.Millisecond, 40*time.Millisecond, 8)})
	hs := startHelper(t)
	path := script(t, abandonScript)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}
	res := run(t, path, env, k6sim.Config{VUs: 2, Iterations: 10}, false)
	again := run(t, path, env, k6sim.Config{VUs: 2, Iterations: 10}, false)
	stop()

	results := abandonResults(t, res)
	lines := map[string][]mockllm.RequestLog{}
	for _, l := range log.entries(t) {
		lines[l.Model] = append(lines[l.Model], l)
	}
	if len(results) != 24 {
		t.Fatalf("%d results, want 24", len(results))
	}
	abandonedA, gone := 0, 0
	for _, l := range log.entries(t) {
		if l.Outcome == "client_gone" && l.GoneNS > 0 {
			gone++
		}
	}
	var apart []float64 // gone_ns − the helper's moment, ns
	for model, r := range results {
		gt := lines[model][0] // the first run's line
		if d, ok := checkAbandoned(t, model, r, gt); ok {
			apart = append(apart, float64(d))
		}
		if r.Abandoned != nil && strings.HasSuffix(model, "-a") {
			abandonedA++
		}
		if r2 := abandonResults(t, again)[model]; (r2.Abandoned != nil) != (r.Abandoned != nil) {
			t.Errorf("%s: abandoned %v in one run, %v in the other with the same seed", model, r.Abandoned != nil, r2.Abandoned != nil)
		}
	}
	var abandonedSamples, samples float64
	for _, s := range res.Samples {
		if s.Metric == metrics.RequestsAbandoned {
			abandonedSamples += s.Value
			samples++
		}
	}
	// Every request of client a has the sample, and each of b's abandoned ones.
	if samples != 24 || int(abandonedSamples) != abandonedA+4 || int(abandonedSamples) != gone/2 {
		t.Errorf("llm_requests_abandoned: %v samples, %v at 1; %d of a's requests and 4 of b's abandoned; the mock logged %d disconnects over two runs",
			samples, abandonedSamples, abandonedA, gone)
	}
	slices.Sort(apart)
	median, ok := stats.Percentile(apart, 50)
	if !ok || time.Duration(median) > 5*time.Millisecond {
		t.Errorf("the mock saw the abandoned requests go %v ns after the helper left them (sorted); want a median ≤ 5 ms", apart)
	}
	if ok {
		t.Logf("the mock saw them go after the helper left: median %v, max %v", time.Duration(median), time.Duration(apart[len(apart)-1]))
	}
	if abandonedA < 2 || abandonedA > 12 {
		t.Errorf("%d of 20 requests abandoned at share 0.3", abandonedA)
	}
	t.Logf("%d of 20 abandoned (share 0.3), 4 of 4 after 60 ms; %d disconnects in the mock's log over two runs", abandonedA, gone)
}

// checkAbandoned holds one request's result to its mock log line; for an
// abandoned request it returns the mock's gone_ns − the helper's moment of
// leaving.
func checkAbandoned(t *testing.T, model string, r abandonResult, gt mockllm.RequestLog) (time.Duration, bool) {
	t.Helper()
	if !r.OK {
		t.Errorf("%s: failed", model)
		return 0, false
	}
	if r.Abandoned == nil {
		if gt.Outcome != "ok" || gt.GoneNS != 0 || r.Out != 8 || r.E2E == nil {
			t.Errorf("%s: not abandoned, but the mock's outcome is %q (gone_ns %d), %d tokens received, e2e %v", model, gt.Outcome, gt.GoneNS, r.Out, r.E2E)
		}
		return 0, false
	}
	if gt.Outcome != "client_gone" || gt.GoneNS == 0 {
		t.Errorf("%s: abandoned, but the mock logged outcome %q, gone_ns %d", model, gt.Outcome, gt.GoneNS)
		return 0, false
	}
	// Client a leaves right after a read: the mock, 40 ms from its next
	// token, sees it go first, so the two counts agree within one token.
	// Client b leaves on a timer while the read waits: a mock starved of
	// CPU may write a late token in that moment (its writes are its own
	// account), so only causality holds: no more received than sent.
	if d := r.Abandoned.Tokens - gt.SentTokens; d > 0 || d < -1 && strings.HasSuffix(model, "-a") {
		t.Errorf("%s: %d tokens received, the mock sent %d", model, r.Abandoned.Tokens, gt.SentTokens)
	}
	if r.E2E != nil || r.TPOT != nil || (r.SLO != nil && *r.SLO) {
		t.Errorf("%s: abandoned with e2e %v, tpot %v, slo met %v", model, r.E2E, r.TPOT, r.SLO)
	}
	left := r.Start + int64(r.Abandoned.AtMS*1e6)
	apart := time.Duration(gt.GoneNS - left)
	if apart < -clockStep {
		t.Errorf("%s: the mock saw the client go at %d, %v before the helper left at %d", model, gt.GoneNS, -apart, left)
	}
	if strings.HasSuffix(model, "-a") {
		if r.Abandoned.Tokens < 5 {
			t.Errorf("%s: abandoned after %d tokens, want at least 5", model, r.Abandoned.Tokens)
		}
		sent := 0
		for i, n := range gt.EventTokens {
			if sent += n; sent >= 5 {
				if left < gt.EventWriteNS[i]-int64(clockStep) {
					t.Errorf("%s: the helper left at %d, before the mock wrote the 5th token at %d", model, left, gt.EventWriteNS[i])
				}
				break
			}
		}
		return apart, true
	}
	if r.Abandoned.AtMS < 60 {
		t.Errorf("%s: left at %v ms, want ≥ 60", model, r.Abandoned.AtMS)
	}
	return apart, true
}
