package moduletest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// fidelityScript uses asyncChat, warmup, slo, ITL thinning, Client and call
// tags, in all three dialects, with per-VU iterations so that every count is
// deterministic.
const fidelityScript = `
import exec from 'k6/execution';
const apis = ['openai-chat', 'openai-completions', 'anthropic-messages'];
const clients = apis.map((api) => new Client({
  baseURL: __ENV.LLM_BASE_URL, api: api, apiKey: __ENV.KEY, model: 'fid',
  warmup: 1, itl: 0.5, slo: { ttft: '10s', tpot: '1s' }, tags: { client: api },
}));
export const options = {
  scenarios: { fid: { executor: 'per-vu-iterations', vus: 2, iterations: 2 } },
  tags: { suite: 'fidelity' },
};
function params(api) {
  return api === 'openai-completions' ? { prompt: 'x', max_tokens: 8 } : { messages: [{ role: 'user', content: 'x' }], max_tokens: 8 };
}
export default async function () {
  const rs = await Promise.all(clients.map((c, i) => c.asyncChat(params(apis[i]), { tags: { call: 'async' } })));
  for (const r of rs) check(r, { ok: (x) => x.ok });
  clients[0].chat(params(apis[0]), { tags: { call: 'sync' } });
  exec.vu.metrics.tags.phase = 'after';
}
`

// TestModuleSameUnderRealK6AndK6Sim runs one script with real k6 and with
// k6sim against the same kind of mock, and compares what each produced: the
// number of samples per metric and the tag keys and values (except timings).
// It checks the module in real k6 and the simulator's fidelity at once.
func TestModuleSameUnderRealK6AndK6Sim(t *testing.T) {
	k6 := findK6(t)
	t.Parallel()
	mockURL := startMock(t, mockllm.Config{Seed: 5, Default: fixedModel(5*time.Millisecond, 2*time.Millisecond, 8)})
	hs := startHelper(t)
	path := script(t, fidelityScript)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}

	// Real k6.
	out := filepath.Join(t.TempDir(), "out.json")
	output := runRealK6(t, k6, path, env, out)
	if strings.Contains(output, testKey) {
		t.Error("the API key appears in k6's output")
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(testKey)) {
		t.Error("the API key appears in k6's JSON output")
	}
	real := summarize(t, readPoints(t, raw))

	// k6sim.
	res := run(t, path, env, k6sim.Config{VUs: 2, Iterations: 2}, false)
	var simPts []k6Point
	for _, s := range res.Samples {
		simPts = append(simPts, k6Point{Metric: s.Metric, Tags: s.Tags, Metadata: s.Metadata})
	}
	sim := summarize(t, simPts)

	// 2 VUs × 2 iterations × 4 requests, minus one warm-up request per Client per VU.
	if want := 2*2*4 - 2*3; real["llm_requests_failed"].count != want {
		t.Errorf("real k6: %d llm_requests_failed samples, want %d", real["llm_requests_failed"].count, want)
	}
	if real["llm_slo_met"].count != real["llm_requests_failed"].count {
		t.Errorf("real k6: %d llm_slo_met samples for %d requests", real["llm_slo_met"].count, real["llm_requests_failed"].count)
	}
	// 7 gaps per request, half of them kept: every 2nd gap from a start
	// drawn from the request's id (random per run), so 3 or 4 per request.
	n := real["llm_requests_failed"].count
	for _, c := range []struct {
		name  string
		count int
	}{{"real k6", real["llm_itl"].count}, {"k6sim", sim["llm_itl"].count}} {
		if c.count < 3*n || c.count > 4*n {
			t.Errorf("%s: %d llm_itl samples, want 3 or 4 of each request's 7 gaps (%d…%d)", c.name, c.count, 3*n, 4*n)
		}
	}
	if r, s := real["llm_itl"], sim["llm_itl"]; r.count != s.count { // compared above; the rest must be equal
		s.count = r.count
		sim["llm_itl"] = s
	}
	// llm_client_cpu_idle comes only with the requests that outlast a reading
	// of the helper's CPU sampler (100 ms): which do is the machine's timing,
	// not the module's, so only its bound is compared.
	for _, c := range []struct {
		name  string
		count int
	}{{"real k6", real["llm_client_cpu_idle"].count}, {"k6sim", sim["llm_client_cpu_idle"].count}} {
		if c.count > n {
			t.Errorf("%s: %d llm_client_cpu_idle samples for %d requests", c.name, c.count, n)
		}
	}
	delete(real, "llm_client_cpu_idle")
	delete(sim, "llm_client_cpu_idle")
	for _, m := range sortedKeys(real) {
		if !strings.HasPrefix(m, "llm_") && m != "checks" && m != "http_reqs" {
			continue
		}
		if !reflect.DeepEqual(real[m], sim[m]) {
			t.Errorf("%s differs:\n real k6: %+v\n k6sim:   %+v", m, real[m], sim[m])
		}
	}
	for _, m := range sortedKeys(sim) {
		if _, ok := real[m]; !ok && strings.HasPrefix(m, "llm_") {
			t.Errorf("k6sim produced %s, real k6 did not", m)
		}
	}
}

// findK6 returns the k6 binary (K6_BIN, else k6 on PATH), or skips the test.
func findK6(t *testing.T) string {
	t.Helper()
	if k6 := os.Getenv("K6_BIN"); k6 != "" {
		return k6
	}
	if p, err := exec.LookPath("k6"); err == nil {
		return p
	}
	t.Skip("no k6: set K6_BIN=/path/to/k6 or put k6 on PATH to run the module with real k6")
	return ""
}

// runRealK6 runs a script with real k6 and the given environment, writing
// k6's JSON output to out; it fails the test when k6 fails, and returns what
// k6 printed.
func runRealK6(t *testing.T, k6, path string, env map[string]string, out string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, k6, "run", "--quiet", "--no-usage-report", "--out", "json="+out, path)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("k6 exited %d:\n%s", ee.ExitCode(), output.String())
		}
		t.Fatal(err)
	}
	return output.String()
}

// k6Point is one sample ("type": "Point") of k6's JSON output.
type k6Point struct {
	Metric   string
	Value    float64
	Tags     map[string]string
	Metadata map[string]string
}

// readPointsFile reads the points of the metrics keep accepts from a k6 JSON
// output file.
func readPointsFile(t *testing.T, path string, keep func(metric string) bool) []k6Point {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []k6Point
	for _, p := range readPoints(t, raw) {
		if keep(p.Metric) {
			out = append(out, p)
		}
	}
	return out
}

func readPoints(t *testing.T, raw []byte) []k6Point {
	t.Helper()
	var pts []k6Point
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Value    float64           `json:"value"`
				Tags     map[string]string `json:"tags"`
				Metadata map[string]string `json:"metadata"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Type == "Point" {
			pts = append(pts, k6Point{Metric: line.Metric, Value: line.Data.Value, Tags: line.Data.Tags, Metadata: line.Data.Metadata})
		}
	}
	return pts
}

// metricSummary is what must match between real k6 and k6sim: how many
// samples, and the set of tag=value pairs (timing-free tags only) and
// metadata keys seen.
type metricSummary struct {
	count    int
	tags     string
	metadata string
}

func summarize(t *testing.T, pts []k6Point) map[string]metricSummary {
	t.Helper()
	counts := map[string]int{}
	tags := map[string]map[string]bool{}
	meta := map[string]map[string]bool{}
	for _, p := range pts {
		counts[p.Metric]++
		if tags[p.Metric] == nil {
			tags[p.Metric], meta[p.Metric] = map[string]bool{}, map[string]bool{}
		}
		for k, v := range p.Tags {
			switch k {
			case "proto", "url": // k6 adds proto; url equals name here
				continue
			}
			tags[p.Metric][k+"="+v] = true
		}
		for k := range p.Metadata {
			meta[p.Metric][k] = true
		}
	}
	out := map[string]metricSummary{}
	for m, n := range counts {
		out[m] = metricSummary{count: n, tags: setString(tags[m]), metadata: setString(meta[m])}
	}
	return out
}

func setString(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Sprint(keys)
}
