package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
)

// helperAnswer is a POST /v1/stream answer (helper.Answer) with the checks
// of these tests.
type helperAnswer struct{ helper.Answer }

// text is the answer's text ("" without keep_text).
func (a *helperAnswer) text() string {
	if a.Text == nil {
		return ""
	}
	return *a.Text
}

// msOf converts an optional millisecond field.
func msOf(v *float64) (time.Duration, bool) {
	if v == nil {
		return 0, false
	}
	return ms(*v), true
}

// sampleOf is an answer's one sample of a metric, as a duration.
func sampleOf(a *helper.Answer, metric string) (time.Duration, bool) {
	v, ok := a.Value(metric)
	return ms(v), ok
}

// check applies checkAnswer to a helper answer.
func (a *helperAnswer) check(t *testing.T, tg target) {
	t.Helper()
	o := outcome{
		status: a.Status, api: a.API, model: a.Model, tokenSource: a.TokenSource,
		outputTokens: a.OutputTokens, inputTokens: a.InputTokens, textEvents: a.TextEvents,
	}
	if a.FinishReason != nil {
		o.finish = *a.FinishReason
	}
	if a.Error != nil {
		o.failure = a.Error.Kind + ": " + a.Error.Message
	} else if !a.OK {
		o.failure = "ok is false with no error"
	}
	var tm timings
	tm.headers, _ = msOf(a.HeadersMS)
	tm.firstEvent, _ = msOf(a.FirstEventMS)
	tm.ttft, tm.hasTTFT = sampleOf(&a.Answer, metrics.TTFT)
	tm.tpot, tm.hasTPOT = sampleOf(&a.Answer, metrics.TPOT)
	tm.e2e, _ = sampleOf(&a.Answer, metrics.E2E)
	tm.itl = msList(a.Values(metrics.ITL))
	// The helper writes milliseconds rounded to the microsecond.
	checkAnswer(t, tg, o, tm, time.Microsecond)
}

// postStream sends one request through the helper. It returns an error instead
// of failing the test, so that it may run in any goroutine.
func postStream(ctx context.Context, helperURL string, req helper.StreamRequest) (*helperAnswer, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, helperURL+helper.StreamPath, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", helper.StreamPath, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the helper's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the helper answered %d: %s", resp.StatusCode, raw)
	}
	var a helperAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("the helper's answer is not JSON: %v: %s", err, raw)
	}
	return &a, nil
}

// TestOllamaHelper runs the helper (helper.Start, POST /v1/stream) in front of
// ollama, as llmstream.js uses it: sequential requests compared with an
// independent decoding, then LLMSTREAM_OLLAMA_STREAMS requests at once.
func TestOllamaHelper(t *testing.T) {
	tg := ollama(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	hs, err := helper.Start("127.0.0.1:0") // loopback upstreams need no allow-list
	if err != nil {
		t.Fatalf("helper.Start: %v", err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer scancel()
		if err := hs.Shutdown(sctx); err != nil {
			t.Errorf("helper shutdown: %v", err)
		}
	}()
	timeoutMS := float64(requestTimeout / time.Millisecond)
	req := helper.StreamRequest{
		URL: tg.chatURL(), API: "openai-chat", Body: mustJSON(t, tg.chatBody()),
		TimeoutMS: &timeoutMS, KeepText: true,
	}

	t.Run("sequential", func(t *testing.T) {
		raw := fetchRaw(ctx, t, tg)
		for i := range 3 {
			t.Run(describe("request", i), func(t *testing.T) {
				a, err := postStream(ctx, hs.URL(), req)
				if err != nil {
					t.Fatal(err)
				}
				a.check(t, tg)
				if a.text() != raw.text || a.Events != raw.events || a.TextEvents != raw.textEvents || a.InputTokens != raw.promptTokens {
					t.Errorf("text %q, %d events, %d with text, %d input tokens;\nindependently: %q, %d, %d, %d",
						a.text(), a.Events, a.TextEvents, a.InputTokens, raw.text, raw.events, raw.textEvents, raw.promptTokens)
				}
				t.Logf("samples %v", a.Samples)
			})
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		answers := make([]*helperAnswer, tg.streams)
		errs := make([]error, tg.streams)
		concurrently(tg.streams, func(i int) { answers[i], errs[i] = postStream(ctx, hs.URL(), req) })
		for i := range answers {
			t.Run(describe("stream", i), func(t *testing.T) {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				answers[i].check(t, tg)
				t.Logf("samples %v", answers[i].Samples)
			})
		}
	})

	// Every stream reached its end through the helper, none failed or was cut.
	st := hs.Handler().Stats()
	if want := int64(3 + tg.streams); st.Streams != want || st.Failed != 0 || st.Canceled != 0 || st.Refused != 0 || st.Active != 0 {
		t.Errorf("helper stats %+v, want %d streams and nothing failed, canceled, refused or active", st, want)
	}
}
