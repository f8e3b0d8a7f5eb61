package moduletest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/internal/version"
)

// TestWirePayloadIsTheWire: the wire the module builds as JSON text (the
// request's fields, then the Client's made once) is one valid JSON object
// with every field, strings with quotes, backslashes, U+2028 and non-ASCII
// intact, and the same whether the Client's part is the one made once (the
// first request) or made for the call (call options: the second).
func TestWirePayloadIsTheWire(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	res := run(t, script(t, `
const c = new Client({ baseURL: 'http://127.0.0.1:9', model: 'm"é\u2028', apiKey: 'k"\\', tags: { suite: 'q"\\\u2028é' },
  warmup: 1, idleTimeout: '2s', itl: 'records' });
const body = { messages: [{ role: 'user', content: 'P' }], stop: ['"\\\n\u2028</script>'] };
export default function () {
  c.chat(body);
  c.chat(body, { headers: {}, tags: {}, scheduledAt: 1764430000000.5 });
}
`), env(h), k6sim.Config{}, false)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	reqs := h.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var first, second map[string]any
	if err := json.Unmarshal(reqs[0].Raw, &first); err != nil {
		t.Fatalf("first payload is not JSON: %v\n%s", err, reqs[0].Raw)
	}
	if err := json.Unmarshal(reqs[1].Raw, &second); err != nil {
		t.Fatalf("second payload is not JSON: %v\n%s", err, reqs[1].Raw)
	}
	want := map[string]any{
		"url": "http://127.0.0.1:9/v1/chat/completions", "api": "openai-chat",
		"headers": map[string]any{"Authorization": `Bearer k"\`},
		"body": map[string]any{"model": "m\"é\u2028", "messages": []any{map[string]any{"role": "user", "content": "P"}},
			"stop": []any{"\"\\\n\u2028</script>"}},
		"include_usage": true, "timeout_ms": float64(120000), "idle_timeout_ms": float64(2000),
		"keep_text": false, "keep_timeline": false, "samples": map[string]any{"itl": "records"},
		"module_version": version.Version, "tags": map[string]any{"suite": "q\"\\\u2028é"},
	}
	if first["warmup"] != true || second["scheduled_unix_ns"] != float64(1764430000000500000) {
		t.Errorf("warmup %v, scheduled_unix_ns %v; want true, 1764430000000500000", first["warmup"], second["scheduled_unix_ns"])
	}
	for i, m := range []map[string]any{first, second} {
		if id, _ := m["id"].(string); id != reqs[i].ID || id == "" {
			t.Errorf("request %d: id %v", i+1, m["id"])
		}
		delete(m, "id")
		delete(m, "warmup")
		delete(m, "scheduled_unix_ns")
		if !reflect.DeepEqual(m, want) {
			t.Errorf("request %d: wire\n%v\nwant\n%v", i+1, m, want)
		}
	}
}

// TestModuleRefusesOtherAnswerVersions: an answer of another version (2,
// with its array of samples; 4) is a failed request of the module's own
// kind naming both versions, with the samples of an unanswered request, not
// the answer's.
func TestModuleRefusesOtherAnswerVersions(t *testing.T) {
	t.Parallel()
	v2 := `{"version":2,"ok":true,"status":200,"id":"x","tags":{"model":"m","api":"openai-chat","status":"200","error":"","token_source":"usage"},` +
		`"samples":[{"metric":"llm_ttft","values":[20]}]}`
	v4 := `{"version":4,"ok":true,"status":200,"id":"x","samples":{"llm_ttft":20}}`
	h := newFakeHelper(t, map[string]answer{"v2": {status: 200, body: v2}, "v4": {status: 200, body: v4}})
	res := run(t, script(t, `
const c = new Client({ baseURL: 'http://127.0.0.1:9' });
export default function () {
  for (const p of ['v2', 'v4']) console.log('RESULT ' + JSON.stringify(c.chat(p)));
}
`), env(h), k6sim.Config{}, false)
	rs := results(t, res)
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	for i, v := range []string{"2", "4"} {
		r := rs[i]
		if r.OK || r.ErrorKind != "helper" || r.Error == nil || !strings.Contains(r.Error.Message, "version "+v) || !strings.Contains(r.Error.Message, "version 3") || r.TTFT != nil {
			t.Errorf("answer version %s: ok %v, kind %q, error %+v, ttft %v; want a helper failure naming versions %s and 3", v, r.OK, r.ErrorKind, r.Error, r.TTFT, v)
		}
	}
	failed := 0
	for _, s := range res.Samples {
		switch s.Metric {
		case "llm_ttft":
			t.Errorf("an answer of another version added llm_ttft %v", s.Value)
		case "llm_requests_failed":
			if s.Value == 1 {
				failed++
			}
		}
	}
	if failed != 2 {
		t.Errorf("%d failed requests, want 2", failed)
	}
}
