package helper

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

func TestAppendMS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{time.Nanosecond, "0"},
		{499 * time.Nanosecond, "0"},
		{500 * time.Nanosecond, "0.001"},
		{time.Microsecond, "0.001"},
		{4 * time.Microsecond, "0.004"},
		{20*time.Millisecond + 512345*time.Nanosecond, "20.512"},
		{20*time.Millisecond + 500*time.Microsecond, "20.5"},
		{21 * time.Millisecond, "21"},
		{8003 * time.Microsecond, "8.003"},
		{10 * time.Minute, "600000"},
		{-1500 * time.Microsecond, "-1.5"},
		{time.Duration(math.MaxInt64), "9223372036854.775"},
	}
	for _, tt := range tests {
		if got := MS(tt.d); got != tt.want {
			t.Errorf("MS(%d) = %q, want %q", tt.d, got, tt.want)
		}
		var f float64
		if err := json.Unmarshal([]byte(MS(tt.d)), &f); err != nil {
			t.Errorf("MS(%d) = %q is not a JSON number: %v", tt.d, MS(tt.d), err)
		}
	}
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "line\nbreak\r\ttab", "\x00\x01\x1f\x7f",
		"héllo wörld — 日本語 🙂", "\u2028\u2029", "<script>&amp;</script>",
	} {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("appendString(%q) = %s: not JSON: %v", s, b, err)
			continue
		}
		if got != s {
			t.Errorf("appendString(%q) round-trips to %q", s, got)
		}
	}
	if got := string(appendString(nil, "\u2028")); got != `"\u2028"` {
		t.Errorf("U+2028 should be escaped for JavaScript, got %s", got)
	}
	if got := string(appendString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8 should become U+FFFD, got %s", got)
	}
}

// FuzzAppendString checks that any string encodes to valid JSON that decodes to
// the same text, with each invalid byte replaced by U+FFFD.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\n\r\t\x00", "日本", "\xff\xfe", "\u2028", "\xe6\x97"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		if !json.Valid(b) {
			t.Fatalf("appendString(%q) = %s is not valid JSON", s, b)
		}
		if !utf8.Valid(b) {
			t.Fatalf("appendString(%q) = %q is not valid UTF-8", s, b)
		}
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if want := string([]rune(s)); got != want {
			t.Fatalf("appendString(%q) decodes to %q, want %q", s, got, want)
		}
	})
}

// fullRecord is a successful record with every field set.
func fullRecord() *stream.Record {
	start := time.Unix(1764430000, 123456789)
	return &stream.Record{
		Dialect:           stream.OpenAIChat,
		Model:             "gpt-4o-mini",
		Status:            200,
		Start:             start,
		Headers:           1234 * time.Microsecond,
		FirstEvent:        20500 * time.Microsecond,
		TTFT:              20512345 * time.Nanosecond,
		HasTTFT:           true,
		TPOT:              8003 * time.Microsecond,
		HasTPOT:           true,
		E2E:               532100 * time.Microsecond,
		ITL:               []time.Duration{8100 * time.Microsecond, 7900 * time.Microsecond, 1},
		ITLTokens:         []int{1, 2, 1},
		OutputTokens:      64,
		InputTokens:       12,
		ReasoningTokens:   3,
		TokenSource:       stream.TokensFromUsage,
		Events:            67,
		TextEvents:        4,
		Bytes:             12345,
		FinishReason:      "length",
		ToolCalls:         1,
		HasReasoning:      true,
		CachedInputTokens: 8,
		ServerTimings: &stream.ServerTimings{Prefill: 15 * time.Millisecond, Decode: 504 * time.Millisecond,
			PromptTokens: 4, OutputTokens: 63},
		Text:      "Hello \"world\"\n",
		Reasoning: "thinking…",
		Timeline: []stream.EventTime{
			{At: 20500123, Text: true, Tokens: 1, ServerNS: 1764430000143000000},
			{At: 28600000, Text: false},
		},
	}
}

func decodeAnswer(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v\n%s", err, b)
	}
	return m
}

func TestAppendRecordFull(t *testing.T) {
	t.Parallel()
	b := appendRecord(nil, fullRecord(), &encodeOptions{itl: true, keepText: true, keepTimeline: true, maxText: 1 << 20})
	m := decodeAnswer(t, b)
	want := map[string]any{
		"version": 1.0, "ok": true, "api": "openai-chat", "model": "gpt-4o-mini", "status": 200.0, "error": nil,
		"start_unix_ns": 1764430000123456789.0,
		"headers_ms":    1.234, "first_event_ms": 20.5, "ttft_ms": 20.512, "ttft_answer_ms": nil,
		"tpot_ms": 8.003, "e2e_ms": 532.1,
		"output_tokens": 64.0, "input_tokens": 12.0, "reasoning_tokens": 3.0, "token_source": "usage",
		"events": 67.0, "text_events": 4.0, "bytes": 12345.0, "finish_reason": "length",
		"tool_calls": 1.0, "has_reasoning": true,
		"text": "Hello \"world\"\n", "reasoning": "thinking…", "text_truncated": false,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %#v (present %v), want %#v", k, got, ok, v)
		}
	}
	// start_unix_ns must be exact: decode it as an integer.
	var exact Answer
	if err := json.Unmarshal(b, &exact); err != nil {
		t.Fatal(err)
	}
	if exact.StartUnixNS == nil || *exact.StartUnixNS != 1764430000123456789 {
		t.Errorf("start_unix_ns = %v", exact.StartUnixNS)
	}
	if len(exact.ITLMS) != 3 || exact.ITLMS[0] != 8.1 || exact.ITLMS[1] != 7.9 || exact.ITLMS[2] != 0 {
		t.Errorf("itl_ms = %v", exact.ITLMS)
	}
	if len(exact.ITLTokens) != 3 || exact.ITLTokens[1] != 2 {
		t.Errorf("itl_tokens = %v", exact.ITLTokens)
	}
	if len(exact.Timeline) != 2 || exact.Timeline[0].AtNS != 20500123 || exact.Timeline[0].AtMS != 20.5 ||
		!exact.Timeline[0].Text || exact.Timeline[0].Tokens != 1 || exact.Timeline[0].ServerNS != 1764430000143000000 ||
		exact.Timeline[1].Text {
		t.Errorf("timeline = %+v", exact.Timeline)
	}
}

func TestAppendRecordNullsAndOmissions(t *testing.T) {
	t.Parallel()
	// A connect failure: nothing happened except the start and the failure.
	rec := &stream.Record{
		Start: time.Unix(1, 0),
		E2E:   3 * time.Millisecond,
		Err:   &stream.Error{Kind: stream.KindConnect, Message: "dial tcp 127.0.0.1:1: connection refused"},
	}
	b := appendRecord(nil, rec, &encodeOptions{api: stream.AnthropicMessages, itl: true})
	m := decodeAnswer(t, b)
	for _, k := range []string{"headers_ms", "first_event_ms", "ttft_ms", "ttft_answer_ms", "tpot_ms", "itl_tokens", "finish_reason"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %#v (present %v), want null", k, v, ok)
		}
	}
	if m["ok"] != false || m["api"] != "anthropic-messages" || m["e2e_ms"] != 3.0 || m["status"] != 0.0 {
		t.Errorf("ok/api/e2e/status = %v %v %v %v", m["ok"], m["api"], m["e2e_ms"], m["status"])
	}
	if itl, ok := m["itl_ms"].([]any); !ok || len(itl) != 0 {
		t.Errorf("itl_ms = %#v, want []", m["itl_ms"])
	}
	e, _ := m["error"].(map[string]any)
	if e["kind"] != "connect" || !strings.Contains(e["message"].(string), "connection refused") {
		t.Errorf("error = %#v", m["error"])
	}
	for _, k := range []string{"text", "reasoning", "text_truncated", "timeline"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s present without keep_text/keep_timeline", k)
		}
	}

	// Never started: no start time, no e2e.
	m = decodeAnswer(t, appendRecord(nil, &stream.Record{Err: &stream.Error{Kind: stream.KindInvalidRequest, Message: "x"}}, &encodeOptions{itl: false}))
	for _, k := range []string{"start_unix_ns", "e2e_ms", "itl_ms", "itl_tokens"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("never started: %s = %#v (present %v), want null", k, v, ok)
		}
	}

	// itl:false hides the per-gap lists of a full record.
	m = decodeAnswer(t, appendRecord(nil, fullRecord(), &encodeOptions{itl: false}))
	if m["itl_ms"] != nil || m["itl_tokens"] != nil {
		t.Errorf("itl:false: itl_ms=%v itl_tokens=%v, want null", m["itl_ms"], m["itl_tokens"])
	}
}

func TestAppendRecordTruncatesText(t *testing.T) {
	t.Parallel()
	rec := fullRecord()
	rec.Text = strings.Repeat("日", 10) // 30 bytes
	m := decodeAnswer(t, appendRecord(nil, rec, &encodeOptions{keepText: true, maxText: 10}))
	if got := m["text"]; got != "日日日" {
		t.Errorf("text = %q, want 3 whole characters", got)
	}
	if m["text_truncated"] != true {
		t.Errorf("text_truncated = %v, want true", m["text_truncated"])
	}
}

func TestAppendHelperError(t *testing.T) {
	t.Parallel()
	var v Refusal
	b := appendHelperError(nil, KindForbidden, `host "x" not "allowed"`)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.Error.Kind != KindForbidden || v.Error.Message != `host "x" not "allowed"` {
		t.Errorf("got %+v", v)
	}
}

func BenchmarkAppendRecord(b *testing.B) {
	rec := fullRecord()
	rec.ITL = make([]time.Duration, 1000)
	for i := range rec.ITL {
		rec.ITL[i] = time.Duration(8_000_000 + i*1013)
	}
	rec.ITLTokens = nil
	o := &encodeOptions{itl: true}
	buf := appendRecord(nil, rec, o)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendRecord(buf[:0], rec, o)
	}
	b.ReportMetric(float64(len(buf)), "bytes/answer")
}
