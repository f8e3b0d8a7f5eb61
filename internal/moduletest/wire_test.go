package moduletest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/k6sim"
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
