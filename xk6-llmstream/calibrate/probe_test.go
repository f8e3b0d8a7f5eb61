package calibrate

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

const probeKey = "sk-probe-test-0123456789abcdef"

// probeMock serves a mock with a fixed shape that requires probeKey.
func probeMock(t *testing.T, ttft, itl time.Duration, tokens int) string {
	t.Helper()
	cfg := MockConfig(ttft, itl, tokens)
	cfg.APIKey = probeKey
	m, err := mockllm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m) // 127.0.0.1
	t.Cleanup(func() { srv.Close(); m.Close() })
	return srv.URL
}

// The probe shapes the mock like the endpoint: the answer length exactly, a
// TTFT no shorter than the endpoint's prefill (the mock never writes early)
// and a gap measured, for every dialect the probe speaks, with the base URL
// given with or without /v1. (Which gap is the median: TestProbedOf.)
func TestProbeShapesLikeTheEndpoint(t *testing.T) {
	const ttft, itl, tokens = 30 * time.Millisecond, 4 * time.Millisecond, 12
	url := probeMock(t, ttft, itl, tokens)
	for _, c := range []struct{ api, base string }{
		{"", url + "/v1"}, {"openai-chat", url}, {"openai-completions", url + "/v1/"}, {"anthropic-messages", url},
	} {
		p, err := Probe(context.Background(), ProbeConfig{BaseURL: c.base, APIKey: probeKey, Model: "m", API: c.api,
			MaxTokens: 64, Requests: 3, Prompt: ProbePrompt})
		if err != nil {
			t.Fatalf("%s at %s: %v", c.api, c.base, err)
		}
		if p.OutputTokens != tokens || p.Requests != 3 || p.TTFT < ttft || p.ITL <= 0 {
			t.Errorf("%s: probed %+v, want %d tokens, TTFT ≥ %v, an ITL", c.api, p, tokens, ttft)
		}
		s := p.Over(MockShape{TTFT: time.Second, ITL: time.Second, OutputTokens: 7}, false, true, false)
		if s.TTFT != p.TTFT || s.ITL != time.Second || s.OutputTokens != tokens || !strings.Contains(s.From, "(and flags)") {
			t.Errorf("%s: a flag set wins over the probe's figure, the others are the probe's: %+v", c.api, s)
		}
	}
}

// A probe that cannot shape the mock says why, and never shows the key.
func TestProbeErrors(t *testing.T) {
	url := probeMock(t, 0, time.Millisecond, 4)
	for _, c := range []struct {
		pc   ProbeConfig
		want string
	}{
		{ProbeConfig{BaseURL: url, APIKey: "sk-wrong-" + probeKey, Requests: 2, MaxTokens: 8}, "request 1 of 2 to http://127.0.0.1:"},
		{ProbeConfig{BaseURL: url, APIKey: probeKey, API: "gemini", Requests: 1, MaxTokens: 8}, `API "gemini": want one of`},
		{ProbeConfig{BaseURL: "127.0.0.1:9?key=" + probeKey, Requests: 1, MaxTokens: 8}, "want an http or https URL"},
		{ProbeConfig{BaseURL: url, APIKey: probeKey, Requests: 0, MaxTokens: 8}, "at least 1 request"},
		{ProbeConfig{BaseURL: url, APIKey: probeKey, Requests: 1, MaxTokens: 1}, "one text event each"},
	} {
		_, err := Probe(context.Background(), c.pc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.pc.BaseURL, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), probeKey) {
			t.Errorf("the key is in the error: %v", err)
		}
	}
}

// The probe's figures are the medians: TTFT over requests, ITL over every
// gap of every answer (so a long answer weighs by its gaps), length over
// requests.
func TestProbedOf(t *testing.T) {
	ms := time.Millisecond
	recs := []*stream.Record{
		{TTFT: 100 * ms, ITL: []time.Duration{10 * ms, 10 * ms, 50 * ms}, OutputTokens: 4},
		{TTFT: 300 * ms, ITL: []time.Duration{20 * ms}, OutputTokens: 2},
		{TTFT: 200 * ms, ITL: []time.Duration{30 * ms, 40 * ms}, OutputTokens: 3},
	}
	p, err := probedOf(recs, "u")
	if err != nil {
		t.Fatal(err)
	}
	// gaps sorted: 10 10 20 30 40 50 → k6's p(50) between 20 and 30, 25.
	if p.TTFT != 200*ms || p.ITL != 25*ms || p.OutputTokens != 3 || p.Requests != 3 {
		t.Errorf("probed %+v", p)
	}
	if _, err := probedOf([]*stream.Record{{TTFT: ms, OutputTokens: 0}}, "u"); err == nil || !strings.Contains(err.Error(), "streamed no text") {
		t.Errorf("an empty answer: %v", err)
	}
	if _, err := probedOf([]*stream.Record{{TTFT: ms, ITL: []time.Duration{0, 0, 1}, OutputTokens: 4}}, "u"); err == nil || !strings.Contains(err.Error(), "median gap") {
		t.Errorf("gaps of 0: %v", err)
	}
}
