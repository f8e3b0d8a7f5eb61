package e2e

import (
	"context"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// TestOllamaEngine runs the streaming engine (stream.Client) against ollama's
// /v1/chat/completions: sequential requests compared with an independent
// decoding of the same answer, then LLMSTREAM_OLLAMA_STREAMS streams at once.
func TestOllamaEngine(t *testing.T) {
	tg := ollama(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c := stream.NewClient(stream.WithTimeout(requestTimeout))
	defer c.CloseIdleConnections()
	body := mustJSON(t, tg.chatBody())
	do := func(keep bool) *stream.Record {
		return c.Do(ctx, &stream.Request{URL: tg.chatURL(), Body: body, KeepText: keep, KeepTimeline: keep})
	}

	t.Run("sequential", func(t *testing.T) {
		raw := fetchRaw(ctx, t, tg)
		t.Logf("independent decoding: %d events, %d with text, usage %d+%d tokens, finish %q",
			raw.events, raw.textEvents, raw.promptTokens, raw.outputTokens, raw.finish)
		for i := range 3 {
			t.Run(describe("request", i), func(t *testing.T) {
				rec := do(true)
				checkRecord(t, tg, rec)
				checkTimeline(t, rec)
				// Greedy decoding: the same answer as the independent request,
				// decoded alike.
				if rec.Text != raw.text {
					t.Errorf("text %q,\nthe independent decoding of the same request has %q", rec.Text, raw.text)
				}
				if rec.Events != raw.events || rec.TextEvents != raw.textEvents {
					t.Errorf("%d events, %d with text; independently: %d and %d", rec.Events, rec.TextEvents, raw.events, raw.textEvents)
				}
				if rec.InputTokens != raw.promptTokens || rec.OutputTokens != raw.outputTokens {
					t.Errorf("tokens in %d out %d; usage read independently: %d and %d", rec.InputTokens, rec.OutputTokens, raw.promptTokens, raw.outputTokens)
				}
				if rec.FinishReason != raw.finish || rec.Model != raw.model {
					t.Errorf("finish %q model %q; independently: %q and %q", rec.FinishReason, rec.Model, raw.finish, raw.model)
				}
				t.Logf("TTFT %v, TPOT %v, E2E %v, %d text events", rec.TTFT, rec.TPOT, rec.E2E, rec.TextEvents)
			})
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		recs := make([]*stream.Record, tg.streams)
		concurrently(tg.streams, func(i int) { recs[i] = do(i == 0) })
		for i, rec := range recs {
			t.Run(describe("stream", i), func(t *testing.T) {
				checkRecord(t, tg, rec)
				if rec.Timeline != nil {
					checkTimeline(t, rec)
				}
				t.Logf("TTFT %v, TPOT %v, E2E %v", rec.TTFT, rec.TPOT, rec.E2E)
			})
		}
	})
}

// checkRecord applies checkAnswer to an engine record.
func checkRecord(t *testing.T, tg target, rec *stream.Record) {
	t.Helper()
	o := outcome{
		status: rec.Status, api: string(rec.Dialect), model: rec.Model,
		tokenSource: string(rec.TokenSource), outputTokens: rec.OutputTokens, inputTokens: rec.InputTokens,
		textEvents: rec.TextEvents, finish: rec.FinishReason,
	}
	if rec.Err != nil {
		o.failure = rec.Err.Error()
	}
	checkAnswer(t, tg, o, timings{
		headers: rec.Headers, firstEvent: rec.FirstEvent,
		ttft: rec.TTFT, hasTTFT: rec.HasTTFT, e2e: rec.E2E, tpot: rec.TPOT, hasTPOT: rec.HasTPOT, itl: rec.ITL,
	}, 0)
	if rec.Bytes <= 0 {
		t.Errorf("%d body bytes read", rec.Bytes)
	}
}

// checkTimeline holds the record's summary figures to its per-event timeline:
// events in order, TTFT at the first text event, each ITL gap between two
// consecutive text events, E2E at the last event ([DONE]).
func checkTimeline(t *testing.T, rec *stream.Record) {
	t.Helper()
	tl := rec.Timeline
	if len(tl) != rec.Events || len(tl) == 0 {
		t.Fatalf("timeline of %d entries for %d events", len(tl), rec.Events)
	}
	if tl[0].At != rec.FirstEvent || rec.FirstEvent < rec.Headers {
		t.Errorf("first event at %v, FirstEvent %v, headers %v", tl[0].At, rec.FirstEvent, rec.Headers)
	}
	var text []int
	for i, e := range tl {
		if i > 0 && e.At < tl[i-1].At {
			t.Errorf("event %d at %v, before event %d at %v", i, e.At, i-1, tl[i-1].At)
		}
		if e.Text {
			text = append(text, i)
		}
	}
	if len(text) != rec.TextEvents || len(text) == 0 {
		t.Fatalf("%d text events on the timeline, record says %d", len(text), rec.TextEvents)
	}
	if tl[text[0]].At != rec.TTFT {
		t.Errorf("TTFT %v, first text event at %v", rec.TTFT, tl[text[0]].At)
	}
	for k := 1; k < len(text); k++ {
		if gap := tl[text[k]].At - tl[text[k-1]].At; k-1 >= len(rec.ITL) || rec.ITL[k-1] != gap {
			t.Errorf("ITL gap %d: timeline says %v, record %v", k-1, gap, rec.ITL[min(k-1, len(rec.ITL)-1)])
		}
	}
	if last := tl[len(tl)-1].At; last != rec.E2E {
		t.Errorf("E2E %v, last event at %v", rec.E2E, last)
	}
}
