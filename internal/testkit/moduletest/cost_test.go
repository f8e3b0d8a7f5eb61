package moduletest

import (
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// costScript sends one long prompt three times (the mock's prefix cache serves
// its leading blocks from the second request on) and one short prompt, through
// a Client with prices, and one request through a Client without.
const costScript = `
const priced = new Client({ baseURL: __ENV.LLM_BASE_URL, model: 'm', timeout: '20s',
  prices: { input: 0.15, output: 0.6, cachedInput: 0.075 } });
const free = new Client({ baseURL: __ENV.LLM_BASE_URL, model: 'm', timeout: '20s' });
const long = Array.from({ length: 70 }, (_, i) => 'word' + i).join(' ');
export default function () {
  for (let i = 0; i < 3; i++) {
    const r = priced.chat({ messages: [{ role: 'user', content: long }], max_tokens: 6 });
    r.tag = 'long';
    emit(r);
  }
  const s = priced.chat('short prompt', {});
  s.tag = 'short';
  emit(s);
  const f = free.chat('unpriced', {});
  f.tag = 'free';
  emit(f);
}
`

// The Client's prices make one llm_cost sample per request, equal to the
// formula over the mock's usage report: uncached input at the input price,
// cached input at the cached price, output at the output price, per million.
func TestCostFromPricesAgainstMock(t *testing.T) {
	t.Parallel()
	mockURL := startMock(t, mockllm.Config{Seed: 3,
		PrefixCache: mockllm.PrefixCache{Blocks: 64, BlockTokens: 16},
		Models:      map[string]mockllm.ModelConfig{"m": fixedModel(time.Millisecond, time.Millisecond, 6)}})
	hs := startHelper(t)
	res := run(t, script(t, costScript), map[string]string{
		"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL,
	}, k6sim.Config{}, false)

	rs := results(t, res)
	if len(rs) != 5 {
		t.Fatalf("%d results, want 5", len(rs))
	}
	costs := map[string]k6sim.Sample{}
	for _, s := range llmSamples(res)["llm_cost"] {
		costs[s.Metadata["llm_request_id"]] = s
	}
	if len(costs) != 4 {
		t.Errorf("%d llm_cost samples, want 4 (one per priced request, none for the unpriced Client)", len(costs))
	}
	sawCached := false
	for _, r := range rs {
		if !r.OK || r.TokenSource != "usage" {
			t.Fatalf("%s: ok %v token source %q, want a complete stream with usage", r.Tag, r.OK, r.TokenSource)
		}
		in, cached, out := rawCount(r, "input_tokens"), rawCount(r, "cached_input_tokens"), rawCount(r, "output_tokens")
		s, has := costs[r.RequestID]
		if r.Tag == "free" {
			if has || r.Cost != nil {
				t.Errorf("the Client without prices has a cost: sample %v, result %v", has, r.Cost)
			}
			continue
		}
		if cached > 0 {
			sawCached = true
		}
		want := ((in-cached)*0.15 + cached*0.075 + out*0.6) / 1e6
		if !has || s.Value != want || s.Type != k6sim.Counter {
			t.Errorf("%s: llm_cost sample %v (%+v), want a Counter of %v (input %v, cached %v, output %v)", r.Tag, has, s, want, in, cached, out)
		}
		if r.Cost == nil || *r.Cost != want {
			t.Errorf("%s: result.cost %v, want %v", r.Tag, r.Cost, want)
		}
		if has && s.Tags["model"] != "m" {
			t.Errorf("%s: llm_cost tags %v, want model=m", r.Tag, s.Tags)
		}
	}
	if !sawCached {
		t.Error("no request reported cached input tokens: the cached price went untested")
	}
}

func rawCount(r jsResult, field string) float64 {
	v, _ := r.Raw[field].(float64)
	return v
}

// Bad prices are a TypeError naming the key.
func TestPricesOptionErrors(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, `
const cases = {
  notobject: { baseURL: 'http://h:1', prices: 0.15 },
  empty: { baseURL: 'http://h:1', prices: {} },
  unknown: { baseURL: 'http://h:1', prices: { input: 1, cached: 0.5 } },
  negative: { baseURL: 'http://h:1', prices: { input: 1, output: -2 } },
  infinite: { baseURL: 'http://h:1', prices: { cachedInput: Infinity } },
  nan: { baseURL: 'http://h:1', prices: { input: NaN } },
  string: { baseURL: 'http://h:1', prices: { input: '0.15' } },
  ok: { baseURL: 'http://h:1', prices: { input: 0, output: 0.6 } },
};
for (const name of Object.keys(cases)) {
  try {
    new Client(cases[name]);
    console.log('CASE ' + name + ' => no error');
  } catch (e) {
    console.log('CASE ' + name + ' => ' + e.name + ': ' + e.message);
  }
}
export default function () {}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	want := map[string]string{
		"notobject": "TypeError: llmstream: new Client: prices must be an object",
		"empty":     "TypeError: llmstream: new Client: prices has no price",
		"unknown":   `TypeError: llmstream: new Client: prices: unknown key "cached" (known: input, output, cachedInput)`,
		"negative":  "TypeError: llmstream: new Client: prices.output must be a finite number ≥ 0 (currency units per million tokens), got -2",
		"infinite":  "TypeError: llmstream: new Client: prices.cachedInput must be a finite number ≥ 0",
		"nan":       "TypeError: llmstream: new Client: prices.input must be a finite number ≥ 0",
		"string":    `prices.input must be a finite number ≥ 0 (currency units per million tokens), got "0.15"`,
		"ok":        "no error",
	}
	got := map[string]string{}
	for _, line := range res.Console {
		if i := strings.Index(line, "CASE "); i >= 0 {
			name, msg, _ := strings.Cut(line[i+5:], " => ")
			got[name] = msg
		}
	}
	for name, w := range want {
		if !strings.Contains(got[name], w) {
			t.Errorf("%s: %q, want it to contain %q", name, got[name], w)
		}
	}
}
