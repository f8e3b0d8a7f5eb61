package moduletest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// Images in prompts and structured output (issue 25, items 2 and 4).

const (
	testImageData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	testImageURL  = "https://example.com/cat.png"
)

// TestImagesAndFormatsInEachDialect: chat() with a data-URL image, a URL
// image and response_format sends each API's own shapes. The expected
// bodies follow the providers' documented request examples: OpenAI chat
// "Images and vision" (image_url {url, detail}) and "Structured Outputs"
// (response_format json_schema); OpenAI Responses (input_text, input_image
// {image_url, detail}; text.format {type json_schema, name, schema,
// strict}); Anthropic "Vision" (image source base64 {media_type, data} or
// url) and "Structured outputs" (output_config.format {type json_schema,
// schema}); Gemini "Image understanding" (inlineData {mimeType, data},
// fileData {mimeType, fileUri}, as @google/genai sends them) and "Structured output"
// (generationConfig responseMimeType + responseJsonSchema); Cohere v2 chat
// (image_url parts; response_format {type json_object, json_schema});
// ollama /api/chat (images: base64 strings; format: a schema).
func TestImagesAndFormatsInEachDialect(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	path := script(t, fmt.Sprintf(`
const DATA = 'data:image/png;base64,%s';
const URL = %q;
const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const rf = { type: 'json_schema', json_schema: { name: 'person', schema: schema, strict: true } };
const apis = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'cohere', 'ollama'];
export default function () {
  for (const api of apis) {
    const c = new Client({ baseURL: 'http://h:1', api: api, model: 'm' });
    const images = [llmstream.image(DATA, { detail: 'low' })];
    if (api !== 'ollama') images.push(llmstream.image(URL));
    c.chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }].concat(images) }], response_format: rf });
  }
  const o = new Client({ baseURL: 'http://h:1', api: 'ollama', model: 'm' });
  try {
    o.chat({ messages: [{ role: 'user', content: [llmstream.image(URL)] }] });
  } catch (e) {
    console.log('OLLAMA ' + e);
  }
  try {
    llmstream.image('file:///etc/passwd');
  } catch (e) {
    console.log('BADURL ' + e);
  }
}
`, testImageData, testImageURL))
	res := run(t, path, env(h), k6sim.Config{}, false)
	var schema map[string]any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`), &schema)
	dataURL := "data:image/png;base64," + testImageData
	text := map[string]any{"type": "text", "text": "describe"}
	chatImages := []any{text,
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL, "detail": "low"}},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": testImageURL}}}
	user := func(content any) []any { return []any{map[string]any{"role": "user", "content": content}} }
	want := []map[string]any{
		{"model": "m", "messages": user(chatImages),
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "person", "schema": schema, "strict": true}}},
		{"model": "m", "input": user([]any{map[string]any{"type": "input_text", "text": "describe"},
			map[string]any{"type": "input_image", "image_url": dataURL, "detail": "low"},
			map[string]any{"type": "input_image", "image_url": testImageURL, "detail": "auto"}}),
			"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "person", "schema": schema, "strict": true}}},
		{"model": "m", "max_tokens": float64(1024), "messages": user([]any{text,
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": testImageData}},
			map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": testImageURL}}}),
			"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}}},
		{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "describe"},
			map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": testImageData}},
			map[string]any{"fileData": map[string]any{"mimeType": "image/png", "fileUri": testImageURL}}}}},
			"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": schema}},
		{"model": "m", "messages": user(chatImages), "response_format": map[string]any{"type": "json_object", "json_schema": schema}},
		{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "describe", "images": []any{testImageData}}}, "format": schema},
	}
	reqs := h.requests()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests reached the helper, want %d", len(reqs), len(want))
	}
	for i, w := range want {
		if !reflect.DeepEqual(reqs[i].Body, w) {
			got, _ := json.Marshal(reqs[i].Body)
			exp, _ := json.Marshal(w)
			t.Errorf("%s body:\n got  %s\n want %s", reqs[i].API, got, exp)
		}
	}
	console := strings.Join(res.Console, "\n")
	if !strings.Contains(console, "OLLAMA TypeError: llmstream: chat: messages[0]: ollama takes images as base64 only") {
		t.Errorf("ollama with an image URL: %s", console)
	}
	if !strings.Contains(console, "BADURL TypeError: llmstream: image(url): want a data URL") {
		t.Errorf("image() with a file URL: %s", console)
	}
}

const structuredScript = `
const c = new Client({ baseURL: __ENV.LLM_BASE_URL, api: __ENV.API, model: 'm' });
const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 120 } },
  required: ['name', 'age'], additionalProperties: false };
export const options = { scenarios: { s: { executor: 'shared-iterations', vus: 4, iterations: Number(__ENV.N) } } };
export default function () {
  const r = c.chat({ messages: [{ role: 'user', content: 'a person' }], max_tokens: 64,
    response_format: { type: 'json_schema', json_schema: { name: 'person', schema: schema } } });
  check(r, { ok: (x) => x.ok, checked: (x) => x.outputInvalid !== null });
}
`

// TestStructuredInvalidRateInRealK6: with the mock making 10 % of its
// structured answers invalid, real k6's llm_output_invalid is 10 % within
// the binomial interval (stats.IntervalRanks at 99.9 %), and every request's
// sample and reason are the mock's ground truth.
func TestStructuredInvalidRateInRealK6(t *testing.T) {
	k6 := findK6(t)
	t.Parallel()
	const n, rate = 400, 0.1
	log := &logLines{}
	url, stop := startStoppableMock(t, mockllm.Config{Seed: 9, Log: log, Default: mockllm.ModelConfig{
		InvalidJSON: rate, ITL: mockllm.ITL{Base: 100 * time.Microsecond}}})
	hs := startHelper(t)
	path := script(t, structuredScript)
	out := filepath.Join(t.TempDir(), "out.json")
	runRealK6(t, k6, path, map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": url, "API": "openai-chat", "N": fmt.Sprint(n)}, out)
	stop()

	truth := map[string]int{}
	for _, l := range log.entries(t) {
		truth[l.OutputInvalid]++
	}
	got := map[string]int{}
	count := 0
	for _, s := range readPointsFile(t, out, llmMetric) {
		if s.Metric != metrics.OutputInvalid {
			continue
		}
		count++
		switch {
		case s.Value == 0:
			got["valid"]++
		case s.Value == 1 && s.Tags[metrics.TagReason] != "":
			got[s.Tags[metrics.TagReason]]++
		default:
			t.Errorf("sample %+v", s)
		}
	}
	if count != n {
		t.Fatalf("%d llm_output_invalid samples, want %d", count, n)
	}
	if !reflect.DeepEqual(got, truth) {
		t.Errorf("k6's llm_output_invalid by reason %v, the mock's ground truth %v", got, truth)
	}
	invalid := got["not_json"] + got["schema"]
	lo, hi, cov := stats.IntervalRanks(n, rate, 0.999)
	if invalid < lo || invalid > hi-1 {
		t.Errorf("%d of %d invalid (%.3f): outside the %.4f binomial interval [%d, %d] of rate %.2f", invalid, n, float64(invalid)/n, cov, lo, hi-1, rate)
	}
	t.Logf("invalid %d/%d = %.3f (binomial interval for 10%%: [%d, %d], coverage %.4f); by reason %v", invalid, n, float64(invalid)/n, lo, hi-1, cov, got)
}

// TestImagePromptsRaiseTTFTInRealK6: a dataset of image prompts
// (workload.Synthetic with ImageSizes, as xk6-llmstream dataset
// --image-sizes writes it) through real k6: the mock counts each image by
// its rule (mockllm.ImageTokens), its prefill grows by PerInputToken per
// image token, k6's llm_input_tokens is the mock's count, and every llm_ttft
// is at least the mock's prefill and its first text's write time.
func TestImagePromptsRaiseTTFTInRealK6(t *testing.T) {
	k6 := findK6(t)
	t.Parallel()
	sizes := []workload.ImageSize{{W: 256, H: 256}, {W: 1024, H: 1024}, {W: 2048, H: 4096}}
	const n = 6
	dir := t.TempDir()
	ds := filepath.Join(dir, "images.jsonl")
	f, err := os.Create(ds)
	if err != nil {
		t.Fatal(err)
	}
	w := workload.NewWriter(f)
	tok, err := workload.LoadTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	syn := workload.Synthetic{Requests: n, Input: workload.FixedDist(20), Output: workload.FixedDist(4),
		ImageSizes: sizes, Seed: 1}
	if err := syn.Generate(tok, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	const base, per = 2 * time.Millisecond, 20 * time.Microsecond
	log := &logLines{}
	url, stop := startStoppableMock(t, mockllm.Config{Seed: 1, Log: log, Tokenizer: "cl100k_base", Default: mockllm.ModelConfig{
		Prefill: mockllm.Prefill{Base: base, PerInputToken: per}, ITL: mockllm.ITL{Base: time.Millisecond}}})
	hs := startHelper(t)
	path := script(t, fmt.Sprintf(`
const ds = new llmstream.Dataset(%q);
const c = new Client({ baseURL: __ENV.LLM_BASE_URL, model: 'm' });
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 1, iterations: %d } } };
export default function () {
  const e = ds.next();
  const im = e.messages[0].images[0];
  console.log('SIZE ' + im.width + 'x' + im.height);
  const r = c.chat(e);
  check(r, { ok: (x) => x.ok });
}
`, ds, n))
	out := filepath.Join(dir, "out.json")
	output := runRealK6(t, k6, path, map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": url}, out)
	stop()
	var sent []workload.ImageSize // the image size of each request, in order
	for _, line := range strings.Split(output, "\n") {
		if _, s, ok := strings.Cut(line, "SIZE "); ok {
			var size workload.ImageSize
			if _, err := fmt.Sscanf(s, "%dx%d", &size.W, &size.H); err != nil {
				t.Fatalf("console line %q: %v", line, err)
			}
			sent = append(sent, size)
		}
	}
	if len(sent) != n {
		t.Fatalf("%d SIZE lines in k6's output, want %d:\n%s", len(sent), n, output)
	}

	logs := log.entries(t)
	if len(logs) != n {
		t.Fatalf("the mock served %d requests, want %d", len(logs), n)
	}
	var ttft, input []float64
	for _, s := range readPointsFile(t, out, llmMetric) {
		switch s.Metric {
		case metrics.TTFT:
			ttft = append(ttft, s.Value)
		case metrics.InputTokens:
			input = append(input, s.Value)
		}
	}
	if len(ttft) != n || len(input) != n {
		t.Fatalf("%d llm_ttft and %d llm_input_tokens samples, want %d each", len(ttft), len(input), n)
	}
	seen := map[workload.ImageSize]bool{}
	for _, s := range sent {
		seen[s] = true
	}
	if len(seen) != len(sizes) {
		t.Errorf("the requests carried images of %v, want every one of %v", sent, sizes)
	}
	for i, l := range logs { // one VU: k6's samples are in the mock's arrival order
		size := sent[i]
		img := mockllm.ImageTokens(size.W, size.H, "")
		if l.ImageTokens != img {
			t.Errorf("request %d (%v): the mock counted %d image tokens, the rule says %d", i, size, l.ImageTokens, img)
		}
		if want := base + time.Duration(l.InputTokens)*per; time.Duration(l.PrefillNS) != want {
			t.Errorf("request %d: prefill %v, want %v for %d input tokens", i, time.Duration(l.PrefillNS), want, l.InputTokens)
		}
		if l.InputTokens-l.ImageTokens != logs[0].InputTokens-logs[0].ImageTokens {
			t.Errorf("request %d: %d text tokens, request 0 has %d", i, l.InputTokens-l.ImageTokens, logs[0].InputTokens-logs[0].ImageTokens)
		}
		if input[i] != float64(l.InputTokens) {
			t.Errorf("request %d: llm_input_tokens %v, the mock's input tokens %d", i, input[i], l.InputTokens)
		}
		firstText := int64(0)
		for k, kind := range l.EventKinds {
			if kind == "text" {
				firstText = l.EventWriteNS[k] - l.ArrivalNS
				break
			}
		}
		if ttft[i]*1e6 < float64(l.PrefillNS) || ttft[i]*1e6 < float64(firstText)-1e3 {
			t.Errorf("request %d: llm_ttft %.3f ms below the mock's prefill %v or its first text at %v", i, ttft[i], time.Duration(l.PrefillNS), time.Duration(firstText))
		}
		t.Logf("request %d: %v image, %d image tokens, prefill %v, llm_ttft %.3f ms", i, size, l.ImageTokens, time.Duration(l.PrefillNS), ttft[i])
	}
}

// logLines is a mock Config.Log whose lines the test reads in order.
type logLines struct{ syncBuffer }

func (l *logLines) entries(t *testing.T) []mockllm.RequestLog {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []mockllm.RequestLog
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r mockllm.RequestLog
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b mockllm.RequestLog) int { return int(a.Seq) - int(b.Seq) })
	return out
}

func llmMetric(m string) bool { return strings.HasPrefix(m, "llm_") }
