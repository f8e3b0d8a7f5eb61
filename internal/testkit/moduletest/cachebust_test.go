package moduletest

import (
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// firstText is the text a request's prompt starts with: the completions
// prompt, Anthropic's system, or the first message's content.
func (w wireRequest) firstText() string {
	if p, ok := w.Body["prompt"].(string); ok {
		return p
	}
	if s, ok := w.Body["system"].(string); ok {
		return s
	}
	msgs, _ := w.Body["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[0].(map[string]any)
	s, _ := m["content"].(string)
	return s
}

// TestCacheBustSaltsEveryPrompt: a Client with cacheBust puts the run's salt
// at the start of every prompt — a string, a dataset entry's first message,
// a completions prompt, Anthropic's system — and leaves the dataset's entry
// as it was; without the option it follows LLM_CACHE_BUST; cacheBust: false
// never salts; a salt that is not a word is refused.
func TestCacheBustSaltsEveryPrompt(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const chat = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm', cacheBust: true });
const comp = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm', api: 'openai-completions', cacheBust: 'own-salt' });
const anth = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm', api: 'anthropic-messages', cacheBust: true });
const dflt = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm' });
const off = new Client({ baseURL: 'http://127.0.0.1:1', model: 'm', cacheBust: false });
const entry = { v: 1, id: 'e', messages: [{ role: 'system', content: 'shared system' }, { role: 'user', content: 'q' }], max_tokens: 2 };
export default function () {
  chat.chat('plain');
  chat.chat(entry);
  comp.chat('completion');
  anth.chat(entry);
  dflt.chat('default');
  off.chat('off');
  console.log('ENTRY ' + entry.messages[0].content);
  let err = '';
  try { new Client({ baseURL: 'http://127.0.0.1:1', cacheBust: 'two words' }); } catch (e) { err = String(e); }
  console.log('BAD ' + err);
}
`)
	for _, bust := range []string{"1", "0"} {
		h.mu.Lock()
		h.reqs = nil
		h.mu.Unlock()
		res := run(t, path, env(h, "LLM_CACHE_SALT", "run42", "LLM_CACHE_BUST", bust), k6sim.Config{}, false)
		dflt := "default"
		if bust == "1" {
			dflt = "[cache-bust run42]\ndefault"
		}
		want := []string{"[cache-bust run42]\nplain", "[cache-bust run42]\nshared system", "[cache-bust own-salt]\ncompletion",
			"[cache-bust run42]\nshared system", dflt, "off"}
		reqs := h.requests()
		if len(reqs) != len(want) {
			t.Fatalf("LLM_CACHE_BUST=%s: %d requests, want %d", bust, len(reqs), len(want))
		}
		for i, r := range reqs {
			if got := r.firstText(); got != want[i] {
				t.Errorf("LLM_CACHE_BUST=%s: request %d starts %q, want %q", bust, i+1, got, want[i])
			}
		}
		out := strings.Join(res.Console, "\n")
		if !strings.Contains(out, "ENTRY shared system") {
			t.Errorf("the dataset entry was changed in place:\n%s", out)
		}
		if !strings.Contains(out, "must be 1 to 64 of A-Z a-z 0-9 _ -") {
			t.Errorf("a bad salt was not refused:\n%s", out)
		}
	}
}

// TestCacheBustWithoutSaltIsRefused: cacheBust: true with no run salt (plain
// k6, not xk6-llmstream run) is an error that says where a salt comes from.
func TestCacheBustWithoutSaltIsRefused(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
let err = '';
try { new Client({ baseURL: 'http://127.0.0.1:1', cacheBust: true }); } catch (e) { err = String(e); }
export default function () { console.log('ERR ' + err); }
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	if out := strings.Join(res.Console, "\n"); !strings.Contains(out, "cacheBust needs a salt") || !strings.Contains(out, "LLM_CACHE_SALT") {
		t.Errorf("no error naming LLM_CACHE_SALT:\n%s", out)
	}
}
