package mockllm

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

// OpenAI's worked examples of its image cost rule ("Calculating costs").
func TestImageTokensFollowOpenAIsTileRule(t *testing.T) {
	for _, c := range []struct {
		w, h   int
		detail string
		want   int
	}{
		{1024, 1024, "high", 765},  // → 768×768, 4 tiles
		{2048, 4096, "high", 1105}, // → 1024×2048 → 768×1536, 6 tiles
		{4096, 8192, "low", 85},
		{512, 512, "", 255},     // one tile
		{513, 512, "auto", 425}, // two tiles
		{100, 100, "high", 255}, // never scaled up
	} {
		if got := ImageTokens(c.w, c.h, c.detail); got != c.want {
			t.Errorf("ImageTokens(%d, %d, %q) = %d, want %d", c.w, c.h, c.detail, got, c.want)
		}
	}
}

// imageBody is a streaming request of dialect d: a one-word text and one
// inline PNG image of w×h (0×0: no image).
func imageBody(t *testing.T, d dialect, w, h int) (path, body string) {
	t.Helper()
	text := `"hello"`
	if w == 0 {
		return imageBodyOf(d, text, "", "")
	}
	u, err := workload.PNGDataURL(w, h, 7)
	if err != nil {
		t.Fatal(err)
	}
	return imageBodyOf(d, text, u, strings.TrimPrefix(u, "data:image/png;base64,"))
}

func imageBodyOf(d dialect, text, url, b64 string) (string, string) {
	var part string
	switch d {
	case openAIChat, cohere:
		part = fmt.Sprintf(`,{"type":"image_url","image_url":{"url":%q}}`, url)
	case openAIResponses:
		part = fmt.Sprintf(`,{"type":"input_image","image_url":%q}`, url)
	case anthropicMessages:
		part = fmt.Sprintf(`,{"type":"image","source":{"type":"base64","media_type":"image/png","data":%q}}`, b64)
	case gemini:
		part = fmt.Sprintf(`,{"inline_data":{"mime_type":"image/png","data":%q}}`, b64)
	}
	if url == "" {
		part = ""
	}
	switch d {
	case openAIResponses:
		return "/v1/responses", `{"model":"m","stream":true,"input":[{"role":"user","content":[{"type":"input_text","text":` + text + `}` + part + `]}]}`
	case anthropicMessages:
		return "/v1/messages", `{"model":"m","stream":true,"max_tokens":4,"messages":[{"role":"user","content":[{"type":"text","text":` + text + `}` + part + `]}]}`
	case gemini:
		return "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":` + text + `}` + part + `]}]}`
	case cohere:
		return "/v2/chat", `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":` + text + `}` + part + `]}]}`
	case ollama:
		images := ""
		if b64 != "" {
			images = fmt.Sprintf(`,"images":[%q]`, b64)
		}
		return "/api/chat", `{"model":"m","messages":[{"role":"user","content":` + text + images + `}]}`
	}
	return "/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":` + text + `}` + part + `]}]}`
}

// In every dialect an image adds ImageTokens to the prompt: the ground-truth
// log's input tokens and its prefill (Base + PerInputToken × input) grow
// exactly as the rule says.
func TestImagesRaiseInputTokensAndPrefill(t *testing.T) {
	t.Parallel()
	const base, per = time.Millisecond, 10 * time.Microsecond
	sizes := []struct{ w, h int }{{0, 0}, {256, 256}, {1024, 1024}, {2048, 4096}}
	for _, d := range []dialect{openAIChat, openAIResponses, anthropicMessages, gemini, cohere, ollama} {
		t.Run(string(d), func(t *testing.T) {
			log := &logBuffer{}
			srv, url := startServer(t, Config{Log: log, Default: ModelConfig{
				Prefill: Prefill{Base: base, PerInputToken: per}, OutputTokens: FixedCount(2)}})
			for _, s := range sizes {
				path, body := imageBody(t, d, s.w, s.h)
				if r := post(t, url+path, body); r.status != 200 {
					t.Fatalf("%dx%d: status %d: %s", s.w, s.h, r.status, r.body)
				}
			}
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			recs := log.records(t)
			text := recs[0].InputTokens
			for i, s := range sizes {
				want := 0
				if s.w > 0 {
					want = ImageTokens(s.w, s.h, "")
				}
				r := recs[uint64(i)]
				if r.ImageTokens != want || r.InputTokens != text+want {
					t.Errorf("%dx%d: image_tokens %d, input_tokens %d; want %d and %d", s.w, s.h, r.ImageTokens, r.InputTokens, want, text+want)
				}
				if got, wantP := time.Duration(r.PrefillNS), base+time.Duration(text+want)*per; got != wantP {
					t.Errorf("%dx%d: prefill %v, want %v", s.w, s.h, got, wantP)
				}
			}
		})
	}
}

// Images by http(s) URL are not fetched: they cost detail low's 85 tokens;
// a part whose data is no image is refused with the part named.
func TestImageURLAndBadImage(t *testing.T) {
	t.Parallel()
	log := &logBuffer{}
	srv, url := startServer(t, Config{Log: log, Default: ModelConfig{OutputTokens: FixedCount(1)}})
	_, body := imageBodyOf(openAIChat, `"hi"`, "https://example.invalid/cat.png", "")
	if r := post(t, url+"/v1/chat/completions", body); r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	_, body = imageBodyOf(anthropicMessages, `"hi"`, "x", "bm90IGFuIGltYWdl")
	r := post(t, url+"/v1/messages", body)
	if r.status != 400 || !strings.Contains(string(r.body), "messages[0].content image 0") || !strings.Contains(string(r.body), "not a PNG, JPEG or GIF") {
		t.Errorf("bad image: status %d, body %s", r.status, r.body)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if got := log.records(t)[0].ImageTokens; got != ImageBaseTokens {
		t.Errorf("image by URL: %d image tokens, want %d", got, ImageBaseTokens)
	}
}

const testSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0,"maximum":120},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","age","tags"],"additionalProperties":false}`

// The structured answers: JSON from the schema, invalid at the set rate (its
// binomial interval), each as the log says: not_json does not parse, schema
// and valid parse.
func TestStructuredAnswersAtTheInvalidRate(t *testing.T) {
	t.Parallel()
	const n, rate = 400, 0.1
	log := &logBuffer{}
	srv, url := startServer(t, Config{Seed: 3, Log: log, Default: ModelConfig{InvalidJSON: rate}})
	texts := make([]string, n)
	for i := range n {
		body := `{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"p","schema":` + testSchema + `}}}`
		r := post(t, url+"/v1/chat/completions", body)
		var resp struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(r.body, &resp); err != nil || len(resp.Choices) == 0 {
			t.Fatalf("answer %d: %v %s", i, err, r.body)
		}
		texts[i] = resp.Choices[0].Message.Content
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	recs := log.records(t)
	invalid := 0
	for i, text := range texts {
		reason := recs[uint64(i)].OutputInvalid
		var v map[string]any
		err := json.Unmarshal([]byte(text), &v)
		switch reason {
		case "valid":
			_, isString := v["name"].(string)
			if err != nil || !isString || len(v) != 3 {
				t.Errorf("answer %d is logged valid: %q", i, text)
			}
		case invalidNotJSON:
			invalid++
			if err == nil {
				t.Errorf("answer %d is logged not_json but parses: %q", i, text)
			}
		case invalidSchema:
			invalid++
			if err != nil {
				t.Errorf("answer %d is logged schema but does not parse: %q", i, text)
			}
		default:
			t.Fatalf("answer %d: output_invalid %q", i, reason)
		}
	}
	// 99.9 % normal interval of a binomial share.
	half := 3.29 * math.Sqrt(rate*(1-rate)/n)
	if got := float64(invalid) / n; math.Abs(got-rate) > half {
		t.Errorf("invalid share %.3f, want %.2f ± %.3f", got, rate, half)
	}
}
