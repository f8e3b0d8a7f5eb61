package moduletest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// TestUnknownRequestFieldsWarn: a chat() body field that no API the module
// speaks takes gets one warning per key per VU, naming it and the near miss;
// the request is still sent, as given. Known fields of every dialect warn
// not.
func TestUnknownRequestFieldsWarn(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const llm = new Client({ baseURL: 'http://127.0.0.1:1/v1', body: { temprature: 0.5 } });
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } } };
export default function () {
  llm.chat({ messages: [{ role: 'user', content: 'hi' }], max_token: 8, top_k: 4, stream_options: {}, stop: ['x'] });
  llm.chat({ messages: [{ role: 'user', content: 'hi' }], max_token: 8, zzqqx: 1, max_tokens: 3 });
}
`)
	res := run(t, path, env(h), k6sim.Config{VUs: 2, Iterations: 3}, false)
	count := map[string]int{}
	field := regexp.MustCompile(`unknown request field (\w+)[ :]`)
	for _, line := range res.Console {
		if m := field.FindStringSubmatch(line); m != nil {
			count[m[1]]++
		}
	}
	// once per key per VU: 2 VUs
	for k, want := range map[string]int{"max_token": 2, "temprature": 2, "zzqqx": 2} {
		if count[k] != want {
			t.Errorf("warnings for %s: %d, want %d (console %q)", k, count[k], want, res.Console)
		}
	}
	for _, k := range []string{"top_k", "stream_options", "stop", "max_tokens", "messages"} {
		if count[k] != 0 {
			t.Errorf("a known field %s warned", k)
		}
	}
	joined := strings.Join(res.Console, "\n")
	if !strings.Contains(joined, "unknown request field max_token (did you mean max_tokens?)") ||
		!strings.Contains(joined, "unknown request field temprature (did you mean temperature?)") {
		t.Errorf("no near-miss hint:\n%s", joined)
	}
	reqs := h.requests()
	if len(reqs) != 12 {
		t.Fatalf("%d requests sent, want 12", len(reqs))
	}
	if v, _ := reqs[0].Body["max_token"].(float64); v != 8 {
		t.Errorf("the field was not sent as given: %v", reqs[0].Body)
	}
}

// TestBaseURLWithEndpointPath: a baseURL that already ends in an API's
// endpoint path is refused, naming the base URL to give.
func TestBaseURLWithEndpointPath(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const cases = {
  chat: { baseURL: 'http://127.0.0.1:8000/v1/chat/completions' },
  messages: { baseURL: 'https://api.anthropic.com/v1/messages/', api: 'anthropic-messages' },
  ollama: { baseURL: 'http://127.0.0.1:11434/api/chat', api: 'ollama' },
  ok: { baseURL: 'http://127.0.0.1:8000/v1' },
};
for (const name of Object.keys(cases)) {
  try {
    new Client(cases[name]);
    console.log('CASE ' + name + ' => no error');
  } catch (e) {
    console.log('CASE ' + name + ' => ' + e.message);
  }
}
export default function () {}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	got := map[string]string{}
	for _, line := range res.Console {
		if i := strings.Index(line, "CASE "); i >= 0 {
			name, msg, _ := strings.Cut(line[i+5:], " => ")
			got[name] = msg
		}
	}
	for name, want := range map[string]string{
		"chat":     "baseURL http://127.0.0.1:8000/v1/chat/completions ends in the endpoint path /chat/completions: give the base URL, http://127.0.0.1:8000/v1",
		"messages": "give the base URL, https://api.anthropic.com/v1",
		"ollama":   "give the base URL, http://127.0.0.1:11434",
		"ok":       "no error",
	} {
		if !strings.Contains(got[name], want) {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
}
