package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/endpoints"
	"github.com/llmstream/xk6-llmstream/internal/escape"
	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/stats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// ProbeConfig is a short probe of the real endpoint, to shape the mock like
// it: a few streamed requests, one after the other.
type ProbeConfig struct {
	// BaseURL is the API's base URL, with or without /v1 (LLM_BASE_URL).
	BaseURL string
	// APIKey is sent as the dialect's key header; it never appears in any
	// output or error.
	APIKey string
	// Model and API (openai-chat, openai-completions or anthropic-messages;
	// "" is openai-chat) are the requests'; MaxTokens caps each answer.
	Model, API string
	MaxTokens  int
	// Requests is how many requests to send (at least 1).
	Requests int
	// Prompt is the user message (the prompt for openai-completions).
	Prompt string
	// Timeout bounds each request, headers to the end of the answer
	// (0: DefaultProbeTimeout; calibrate's --probe-timeout).
	Timeout time.Duration
	// Client streams the requests (nil: the helper's client,
	// helper.NewUpstreamClient, allowing the base URL's host only: a
	// redirect elsewhere is refused, and one to another origin of an
	// allowed host carries no key).
	Client *stream.Client
}

// DefaultProbeTimeout bounds one probe request when ProbeConfig.Timeout is
// 0 (calibrate --probe-timeout): a probe asks for a short answer, so a
// request still running after this long is a stuck endpoint, not a shape.
// The probe as a whole takes at most Requests × this.
const DefaultProbeTimeout = 2 * time.Minute

// ProbePrompt is the probe's user message.
const ProbePrompt = "Explain in three sentences why time to first token matters for chat."

// Probed is what a probe measured: the medians (k6's p(50)) the mock takes,
// over Requests answers from URL (redacted).
type Probed struct {
	TTFT         time.Duration // median TTFT
	ITL          time.Duration // median of every gap of every answer
	OutputTokens int           // median answer length
	Requests     int
	URL          string
}

func (p Probed) String() string {
	return fmt.Sprintf("probe of %s: %d requests, TTFT p50 %.2f ms, ITL p50 %.2f ms, %d output tokens p50",
		p.URL, p.Requests, ms64(p.TTFT), ms64(p.ITL), p.OutputTokens)
}

// Over is the mock's shape from the probe, but with the flags' figures
// where the user set them.
func (p Probed) Over(flags MockShape, ttftSet, itlSet, tokensSet bool) MockShape {
	out := MockShape{TTFT: p.TTFT, ITL: p.ITL, OutputTokens: p.OutputTokens, From: p.String()}
	if ttftSet {
		out.TTFT = flags.TTFT
	}
	if itlSet {
		out.ITL = flags.ITL
	}
	if tokensSet {
		out.OutputTokens = flags.OutputTokens
	}
	if ttftSet || itlSet || tokensSet {
		out.From += " (and flags)"
	}
	return out
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// probeAPIs are the dialects a probe can shape a body for.
var probeAPIs = []string{"openai-chat", "openai-completions", "anthropic-messages"}

// Probe sends the probe's requests and returns the target's shape. A failed
// request fails the probe, with its kind and (redacted) message: a shape from
// the requests that happened to succeed would not be the target's.
func Probe(ctx context.Context, pc ProbeConfig) (Probed, error) {
	api := pc.API
	if api == "" {
		api = "openai-chat"
	}
	if !slices.Contains(probeAPIs, api) {
		return Probed{}, fmt.Errorf("probe: API %q: want one of %s", api, strings.Join(probeAPIs, ", "))
	}
	if pc.Requests < 1 || pc.MaxTokens < 1 {
		return Probed{}, fmt.Errorf("probe: want at least 1 request and max tokens ≥ 1, got %d and %d", pc.Requests, pc.MaxTokens)
	}
	target, err := probeURL(pc.BaseURL, api)
	if err != nil {
		return Probed{}, err
	}
	shown := redact.URL(target)
	body, err := probeBody(api, pc)
	if err != nil {
		return Probed{}, err
	}
	header := http.Header{"Content-Type": {"application/json"}}
	if pc.APIKey != "" {
		if api == "anthropic-messages" {
			header.Set("x-api-key", pc.APIKey)
		} else {
			header.Set("Authorization", "Bearer "+pc.APIKey)
		}
	}
	if api == "anthropic-messages" {
		header.Set("anthropic-version", endpoints.AnthropicVersion)
	}
	c := pc.Client
	if c == nil {
		if c, err = probeClient(target); err != nil {
			return Probed{}, err
		}
	}
	timeout := pc.Timeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	recs := make([]*stream.Record, 0, pc.Requests)
	for i := range pc.Requests {
		rec := c.Do(ctx, &stream.Request{URL: target, Dialect: stream.Dialect(api), Header: header, Body: body, Timeout: timeout})
		if ctx.Err() != nil {
			return Probed{}, interrupted(recs, pc.Requests, shown)
		}
		if rec.Err != nil {
			return Probed{}, fmt.Errorf("probe: request %d of %d to %s failed (%s): %s%s", i+1, pc.Requests, shown, rec.Err.Kind, escape.Line(rec.Err.Message),
				timeoutHint(rec.Err.Kind, timeout))
		}
		recs = append(recs, rec)
	}
	return probedOf(recs, shown)
}

// ErrProbeInterrupted is the error of a probe whose context ended (calibrate:
// a signal) before its last request finished.
var ErrProbeInterrupted = errors.New("probe interrupted")

// interrupted is the error of a probe stopped after the requests of recs
// finished: it says what they measured, when they measure anything.
func interrupted(recs []*stream.Record, n int, url string) error {
	have := "nothing measured"
	if p, err := probedOf(recs, url); len(recs) > 0 && err == nil {
		have = "what they measured: " + p.String()
	}
	return fmt.Errorf("%w after %d of %d requests to %s (%s)", ErrProbeInterrupted, len(recs), n, url, have)
}

// timeoutHint names the bound a timed-out request hit.
func timeoutHint(kind stream.ErrorKind, timeout time.Duration) string {
	if kind != stream.KindTimeout && kind != stream.KindTimeoutMidstream {
		return ""
	}
	return fmt.Sprintf(" (each probe request may take at most %v: calibrate --probe-timeout)", timeout)
}

// probeClient is the helper's client (one rule for a client that carries
// the user's key) allowing target's host as run allows LLM_BASE_URL's.
func probeClient(target string) (*stream.Client, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	allow, err := helper.ParseAllowList(runner.AllowEntry(u))
	if err != nil {
		return nil, fmt.Errorf("probe: LLM_BASE_URL %s: %v", redact.URL(target), err)
	}
	return helper.NewUpstreamClient(helper.WithAllowList(allow)), nil
}

// probedOf is the shape of the probe's answers from url: the median TTFT,
// the median of every gap of every answer and the median length.
func probedOf(recs []*stream.Record, url string) (Probed, error) {
	var ttfts, gaps []time.Duration
	var lengths []int
	for i, rec := range recs {
		if rec.OutputTokens < 1 {
			return Probed{}, fmt.Errorf("probe: request %d of %d to %s streamed no text", i+1, len(recs), url)
		}
		ttfts = append(ttfts, rec.TTFT)
		gaps = append(gaps, rec.ITL...)
		lengths = append(lengths, rec.OutputTokens)
	}
	if len(gaps) == 0 {
		return Probed{}, fmt.Errorf("probe: the answers from %s had one text event each: no inter-token gap to measure (raise max tokens)", url)
	}
	p := Probed{TTFT: median(ttfts), ITL: median(gaps), OutputTokens: median(lengths), Requests: len(recs), URL: url}
	if p.ITL <= 0 {
		return Probed{}, fmt.Errorf("probe: the median gap between text events from %s was 0 (answers arrive in one read): no ITL to shape the mock with", url)
	}
	return p, nil
}

// probeURL is the dialect's endpoint under base, which may end in /v1.
func probeURL(base, api string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("probe: LLM_BASE_URL %s: want an http or https URL", redact.URL(base))
	}
	ep, _ := endpoints.Of(api)
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1") + ep.Path, nil
}

// probeBody is the request body of the probe's API.
func probeBody(api string, pc ProbeConfig) ([]byte, error) {
	b := map[string]any{"max_tokens": pc.MaxTokens}
	if pc.Model != "" {
		b["model"] = pc.Model
	}
	if api == "openai-completions" {
		b["prompt"] = pc.Prompt
	} else {
		b["messages"] = []map[string]string{{"role": "user", "content": pc.Prompt}}
	}
	return json.Marshal(b)
}

// median is k6's p(50) of xs (the project's one percentile, stats.Percentile),
// rounded to a whole T.
func median[T int | time.Duration](xs []T) T {
	s := make([]float64, len(xs))
	for i, x := range xs {
		s[i] = float64(x)
	}
	slices.Sort(s)
	v, _ := stats.Percentile(s, 50)
	return T(math.Round(v))
}
