package moduletest

import (
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// probesScript: LOAD_VUS closed-loop VUs stream 30-token answers for 4 s;
// probeScenario starts 2 probes a second from 1 s to 3 s on VUs of its own.
// The probes ask for model "probe", so the mock's log tells them apart.
const probesScript = `
const load = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: 'load' });
const p = new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: 'probe' });
export const options = { scenarios: {
  load: { executor: 'constant-vus', vus: Number(__ENV.LOAD_VUS), duration: '4s', exec: 'loadFn' },
  probes: llmstream.probeScenario({ rate: 2, duration: '2s', startTime: '1s' }),
} };
export function loadFn() { load.chat({ messages: [{ role: 'user', content: 'work' }], max_tokens: 30 }); }
export function probe() {
  const r = llmstream.probe(p);
  if (!r.ok || r.outputTokens !== 1) throw new Error('probe: ' + JSON.stringify([r.ok, r.errorKind, r.outputTokens]));
}
`

// probeDecode is a load request's decode time on the mock below: 29 gaps
// of 10 ms after its first token.
const probeDecode = 29 * 10 * time.Millisecond

// probeRun runs the script with real k6 beside loadVUs load VUs against a
// mock with 2 slots, and returns the probes' queue waits from the mock's
// log and their llm_ttft samples (ms) from k6's output, both sorted.
func probeRun(t *testing.T, k6 string, loadVUs string) (waits, ttfts []float64) {
	t.Helper()
	log := &logLines{}
	mockURL, stop := startStoppableMock(t, mockllm.Config{Seed: 4, APIKey: testKey, Log: log, Slots: 2,
		Default: fixedModel(5*time.Millisecond, 10*time.Millisecond, 30)})
	hs := startHelper(t)
	out := filepath.Join(t.TempDir(), "k6.json")
	runRealK6(t, k6, script(t, probesScript), map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL,
		"KEY": testKey, "LOAD_VUS": loadVUs}, out)
	stop()
	for _, l := range log.entries(t) {
		if l.Model == "probe" {
			waits = append(waits, float64(l.QueueWaitNS))
		}
	}
	for _, p := range readPointsFile(t, out, func(m string) bool { return m == metrics.TTFT }) {
		isProbe := p.Tags["probe"] == "true"
		if isProbe != (p.Tags["scenario"] == "probes") {
			t.Errorf("llm_ttft tagged probe=%q in scenario %q", p.Tags["probe"], p.Tags["scenario"])
		}
		if isProbe {
			ttfts = append(ttfts, p.Value)
		}
	}
	slices.Sort(waits)
	slices.Sort(ttfts)
	if len(waits) < 3 || len(ttfts) != len(waits) {
		t.Fatalf("%d probes in the mock's log, %d probe llm_ttft samples; want the same, at least 3 (2/s for 2 s)", len(waits), len(ttfts))
	}
	return waits, ttfts
}

// TestProbesFeelTheLoad: probes at 2/s beside a saturating load (8 VUs on 2
// slots: about 6 requests always wait) and beside a light one (1 VU: a slot
// is always free). Ground truth, from the mock's slot model: beside the
// saturating load a probe waits in the FIFO queue behind the requests that
// arrived before it, at least one load request's decode time (290 ms) at
// the median, since a slot frees only when a 30-token answer ends; beside
// the light load it gets a slot at once (every wait under half of that).
// The module's probe TTFT follows: its median beside the saturating load is
// above the light one's by more than half a decode time (TTFT ≥ queue wait
// + prefill, by causality). The probes run on the probe scenario's own VUs,
// tagged probe=true; no load sample is.
func TestProbesFeelTheLoad(t *testing.T) {
	t.Parallel()
	k6 := findK6(t)
	satWaits, satTTFT := probeRun(t, k6, "8")
	lightWaits, lightTTFT := probeRun(t, k6, "1")
	med := func(xs []float64) float64 { v, _ := stats.Percentile(xs, 50); return v }
	if time.Duration(med(satWaits)) < probeDecode {
		t.Errorf("beside the saturating load, the probes' median queue wait is %v, want ≥ one decode time %v (waits %v ns)", time.Duration(med(satWaits)), probeDecode, satWaits)
	}
	if time.Duration(lightWaits[len(lightWaits)-1]) >= probeDecode/2 {
		t.Errorf("beside the light load, a probe waited %v for a slot (waits %v ns)", time.Duration(lightWaits[len(lightWaits)-1]), lightWaits)
	}
	gap := med(satTTFT) - med(lightTTFT)
	if gap < float64(probeDecode/2)/1e6 {
		t.Errorf("probe TTFT median %v ms beside the saturating load, %v ms beside the light one: want more than %v apart", med(satTTFT), med(lightTTFT), probeDecode/2)
	}
	t.Logf("probe queue wait median: %v saturated, %v light; probe TTFT median: %.1f ms saturated, %.1f ms light",
		time.Duration(med(satWaits)), time.Duration(med(lightWaits)), med(satTTFT), med(lightTTFT))
}

// TestProbeScenarioShape: probeScenario turns a rate into k6's whole
// iterations per timeUnit, runs the probe function on a constant-arrival-rate
// scenario tagged probe=true, and refuses what k6 could not run, naming it.
func TestProbeScenarioShape(t *testing.T) {
	t.Parallel()
	path := script(t, `
export default function () {
  emit([llmstream.probeScenario({ rate: 2, duration: '30s' }), llmstream.probeScenario({ rate: 0.5, duration: 60000, startTime: '5s', exec: 'p' })]);
  for (const bad of [{ duration: '1s', rate: 0 }, { rate: 1 }, { duration: '1s', vus: 2 }]) {
    try { llmstream.probeScenario(bad); emit('accepted ' + JSON.stringify(bad)); } catch (e) { console.log('REFUSED ' + e.message); }
  }
}
`)
	res := run(t, path, map[string]string{"LLMSTREAM_HELPER": "http://127.0.0.1:1"}, k6sim.Config{}, false)
	var got string
	refused := 0
	for _, l := range res.Console {
		if i := strings.Index(l, "RESULT "); i >= 0 {
			got = l[i+len("RESULT "):]
		}
		if strings.Contains(l, "REFUSED llmstream: probeScenario: ") {
			refused++
		}
	}
	want := `[{"executor":"constant-arrival-rate","rate":2,"timeUnit":"1000ms","duration":"30s","preAllocatedVUs":2,"maxVUs":20,"exec":"probe","tags":{"probe":"true"}},` +
		`{"executor":"constant-arrival-rate","rate":5,"timeUnit":"10000ms","duration":"60000ms","preAllocatedVUs":1,"maxVUs":10,"exec":"p","tags":{"probe":"true"},"startTime":"5s"}]`
	if got != want || refused != 3 {
		t.Errorf("got %s\nwant %s\n%d refused, want 3: %v", got, want, refused, res.Console)
	}
}
