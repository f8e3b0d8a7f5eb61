package moduletest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// recordsScript runs two Clients (sync and async, one with tokens in usage
// on every chunk, so that some gaps close with k > 1 tokens) with warm-up
// and tags; ITL mode from the environment.
const recordsScript = `
const mk = (extra) => new Client(Object.assign({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: 'rec',
  warmup: 1, itl: __ENV.ITL, tags: { client: 'c' } }, extra));
const a = mk({});
const b = mk({ body: { stream_options: { include_usage: true, continuous_usage_stats: true } } });
export const options = { scenarios: { rec: { executor: 'per-vu-iterations', vus: 3, iterations: 4 } }, tags: { suite: 'records' } };
export default async function () {
  const p = { messages: [{ role: 'user', content: 'x' }], max_tokens: 12 };
  const rs = await Promise.all([a.asyncChat(p, { tags: { call: 'async' } }), b.asyncChat(p)]);
  for (const r of rs) check(r, { ok: (x) => x.ok });
  a.chat(p);
}
`

// k6Runner runs a script with the given environment and writes k6's JSON
// output of the run to out.
type k6Runner func(t *testing.T, path string, env map[string]string, out string)

// simRunner runs the script under k6sim with the config and writes k6's JSON
// from k6sim's samples, the way k6 --out json writes them.
func simRunner(cfg k6sim.Config) k6Runner {
	return func(t *testing.T, path string, env map[string]string, out string) {
		t.Helper()
		writeK6JSON(t, out, run(t, path, env, cfg, false).Samples)
	}
}

// realRunner runs the script with the real k6 binary (findK6).
func realRunner(k6 string) k6Runner {
	return func(t *testing.T, path string, env map[string]string, out string) {
		t.Helper()
		runRealK6(t, k6, path, env, out)
	}
}

// recordsSim runs recordsScript under k6sim (3 VUs × 4 iterations, as its
// options say).
var recordsSim = simRunner(k6sim.Config{VUs: 3, Iterations: 4})

// runWithRecords runs recordsScript with the runner through a helper writing
// records, and returns k6's JSON file and the records file.
func runWithRecords(t *testing.T, runK6 k6Runner, itl string) (k6File, recFile string) {
	t.Helper()
	mockCfg := mockllm.Config{Seed: 9, Default: fixedModel(3*time.Millisecond, time.Millisecond, 12)}
	mockCfg.Default.TokensPerEvent = mockllm.TokensPerEvent{Min: 1, Max: 3}
	mockURL := startMock(t, mockCfg)
	dir := t.TempDir()
	recFile = filepath.Join(dir, "records.jsonl.gz")
	rw, err := helper.CreateRecords(recFile)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := helper.Start("127.0.0.1:0", helper.WithRecords(rw))
	if err != nil {
		t.Fatal(err)
	}
	path := script(t, recordsScript)
	env := map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey, "ITL": itl}
	k6File = filepath.Join(dir, "k6.json")
	runK6(t, path, env, k6File)
	if err := hs.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := helper.CloseRecords(rw); err != nil {
		t.Fatal(err)
	}
	return k6File, recFile
}

// writeK6JSON writes samples as k6's JSON output does: a Metric line before
// each metric's first Point.
func writeK6JSON(t *testing.T, path string, samples []k6sim.Sample) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	declared := map[string]bool{}
	for _, s := range samples {
		if !declared[s.Metric] {
			declared[s.Metric] = true
			contains := "default"
			if s.IsTime {
				contains = "time"
			}
			decl, _ := json.Marshal(map[string]any{"type": "Metric", "metric": s.Metric,
				"data": map[string]any{"name": s.Metric, "type": string(s.Type), "contains": contains, "thresholds": []string{}}})
			bw.Write(append(decl, '\n'))
		}
		pt, _ := json.Marshal(map[string]any{"type": "Point", "metric": s.Metric,
			"data": map[string]any{"time": s.Time.Format(time.RFC3339Nano), "value": s.Value, "tags": s.Tags, "metadata": s.Metadata}})
		bw.Write(append(pt, '\n'))
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// collect reads the inputs with analyze's model, grouped by the given tags,
// and returns each Trend's sorted values and each Counter's and Rate's
// figures, by "metric group".
func collect(t *testing.T, by []string, paths ...string) map[string][]float64 {
	t.Helper()
	var ins []rundata.Input
	for _, p := range paths {
		ins = append(ins, rundata.Input{Path: p, Label: p})
	}
	r := rundata.NewReader(rundata.Selection{By: by, MissingOK: true}, ins, rundata.Options{})
	d, err := rundata.Collect(r, rundata.CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, m := range d.Metrics() {
		for _, s := range d.Series(m) {
			k := m + " " + s.Group.Key
			switch {
			case s.Trend != nil:
				out[k] = s.Trend.Sorted()
			case s.Counter != nil:
				out[k] = []float64{float64(s.Counter.N), s.Counter.Sum}
			case s.Rate != nil:
				out[k] = []float64{float64(s.Rate.N), float64(s.Rate.NonZero)}
			}
		}
	}
	return out
}

func compareCollected(t *testing.T, what string, got, want map[string][]float64, metrics ...string) {
	t.Helper()
	for _, k := range sortedKeys(want) {
		m := k[:len(k)-len(" all")]
		if len(metrics) > 0 && !slices.Contains(metrics, m) {
			continue
		}
		if !slices.Equal(got[k], want[k]) {
			t.Errorf("%s: %s differs: %d values vs %d (first %v vs %v)", what, k, len(got[k]), len(want[k]), head(got[k]), head(want[k]))
		}
	}
}

func head(v []float64) []float64 { return v[:min(len(v), 5)] }

// TestRecordsEqualK6JSON: the records of a run and k6's JSON of the same run
// give analyze the same samples — every value of llm_ttft, llm_tpot, llm_e2e
// and llm_itl (k-token rule included), the token counters and the failure
// rate — read alone, and read together (joined by id, nothing counted twice).
func TestRecordsEqualK6JSON(t *testing.T) {
	t.Parallel()
	checkRecordsEqualK6JSON(t, recordsSim)
}

// TestRecordsEqualRealK6JSON is TestRecordsEqualK6JSON with real k6 writing
// its JSON.
func TestRecordsEqualRealK6JSON(t *testing.T) {
	k6 := findK6(t)
	t.Parallel()
	checkRecordsEqualK6JSON(t, realRunner(k6))
}

func checkRecordsEqualK6JSON(t *testing.T, runK6 k6Runner) {
	t.Helper()
	k6File, recFile := runWithRecords(t, runK6, "all")
	fromK6 := collect(t, nil, k6File)
	fromRecords := collect(t, nil, recFile)
	if n := len(fromK6["llm_itl all"]); n == 0 || len(fromK6["llm_ttft all"]) != 3*4*3-3*2 {
		t.Fatalf("k6 JSON: %d ITL samples, %d TTFT samples", n, len(fromK6["llm_ttft all"]))
	}
	metrics := []string{"llm_ttft", "llm_tpot", "llm_e2e", "llm_itl", "llm_output_tokens", "llm_input_tokens", "llm_requests_failed"}
	compareCollected(t, "records alone", fromRecords, fromK6, metrics...)
	compareCollected(t, "k6 and records joined", collect(t, nil, k6File, recFile), fromK6)
}

// TestRecordsModeJoinsITLWithK6Tags: with itl: 'records' k6 has no llm_itl;
// joined with the records, analyze has the same ITL as the records alone,
// under k6's tags (the scenario's and the script's), grouped like the k6
// metrics.
func TestRecordsModeJoinsITLWithK6Tags(t *testing.T) {
	t.Parallel()
	checkRecordsModeJoinsITL(t, recordsSim)
}

// TestRecordsModeJoinsITLWithRealK6Tags is TestRecordsModeJoinsITLWithK6Tags
// with real k6 writing its JSON (and so its own tags).
func TestRecordsModeJoinsITLWithRealK6Tags(t *testing.T) {
	k6 := findK6(t)
	t.Parallel()
	checkRecordsModeJoinsITL(t, realRunner(k6))
}

func checkRecordsModeJoinsITL(t *testing.T, runK6 k6Runner) {
	t.Helper()
	k6File, recFile := runWithRecords(t, runK6, "records")
	if _, ok := collect(t, nil, k6File)["llm_itl all"]; ok {
		t.Fatal("k6 has llm_itl samples with itl: 'records'")
	}
	alone := collect(t, nil, recFile)["llm_itl all"]
	joined := collect(t, []string{"scenario", "suite"}, k6File, recFile)
	got := joined["llm_itl scenario=rec,suite=records"]
	if len(alone) == 0 || !slices.Equal(got, alone) {
		t.Fatalf("joined ITL under k6's tags: %d samples, records alone %d; groups %v", len(got), len(alone), sortedKeys(joined))
	}
	if n := len(joined["llm_ttft scenario=rec,suite=records"]); n != 3*4*3-3*2 {
		t.Fatalf("joined: %d TTFT samples, want them from k6 only (%d)", n, 3*4*3-3*2)
	}
}
