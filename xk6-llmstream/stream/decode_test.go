package stream

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenRecord is what the golden files hold of a decoded Record (a recording
// has no timing, so no durations).
type goldenRecord struct {
	Dialect         Dialect     `json:"dialect"`
	Model           string      `json:"model"`
	Events          int         `json:"events"`
	TextEvents      int         `json:"text_events"`
	Text            string      `json:"text"`
	Reasoning       string      `json:"reasoning"`
	ToolCalls       int         `json:"tool_calls"`
	OutputTokens    int         `json:"output_tokens"`
	InputTokens     int         `json:"input_tokens"`
	ReasoningTokens int         `json:"reasoning_tokens"`
	CachedInput     int         `json:"cached_input_tokens,omitempty"`
	CacheCreation   int         `json:"cache_creation_input_tokens,omitempty"`
	TokenSource     TokenSource `json:"token_source"`
	FinishReason    string      `json:"finish_reason"`
	HasReasoning    bool        `json:"has_reasoning"`
	HasTTFTAnswer   bool        `json:"has_ttft_answer"`
	ITLGaps         int         `json:"itl_gaps"`
	ITLTokens       []int       `json:"itl_tokens"`
	// Timeline marks each event: "T" text-bearing, "." other; a digit suffix
	// "T3" when the event carried that many tokens by the server's count.
	Timeline      []string       `json:"timeline"`
	ServerNS      []int64        `json:"server_ns,omitempty"`
	ServerTimings *ServerTimings `json:"server_timings,omitempty"`
	Bytes         int64          `json:"bytes"`
	Error         *Error         `json:"error"`
}

func summarize(r *Record) goldenRecord {
	g := goldenRecord{
		Dialect: r.Dialect, Model: r.Model, Events: r.Events, TextEvents: r.TextEvents,
		Text: r.Text, Reasoning: r.Reasoning, ToolCalls: r.ToolCalls,
		OutputTokens: r.OutputTokens, InputTokens: r.InputTokens, ReasoningTokens: r.ReasoningTokens,
		TokenSource: r.TokenSource, FinishReason: r.FinishReason, HasReasoning: r.HasReasoning,
		HasTTFTAnswer: r.HasTTFTAnswer, ITLGaps: len(r.ITL), ITLTokens: r.ITLTokens, Bytes: r.Bytes, Error: r.Err,
		CachedInput: r.CachedInputTokens, CacheCreation: r.CacheCreationInputTokens, ServerTimings: r.ServerTimings,
	}
	for _, e := range r.Timeline {
		m := "."
		if e.Text {
			m = "T"
		}
		if e.Tokens != 0 {
			m += strconv.Itoa(e.Tokens)
		}
		g.Timeline = append(g.Timeline, m)
		if e.ServerNS != 0 {
			g.ServerNS = append(g.ServerNS, e.ServerNS)
		}
	}
	return g
}

// TestDecodeGolden decodes every recording and every hand-written case, as a
// whole and in 1-byte and 7-byte reads (which must not change anything), and
// compares with testdata/golden/<name>.json. Run with -update to rewrite.
func TestDecodeGolden(t *testing.T) {
	t.Parallel()
	for _, path := range sseFiles(t) {
		base := filepath.Base(path)
		name := strings.TrimSuffix(base, filepath.Ext(base))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := Decode(bytes.NewReader(data), DialectAuto)
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 7} {
				rec2, err := Decode(&chunkReader{data: data, sizes: []int{size}}, DialectAuto)
				if err != nil {
					t.Fatal(err)
				}
				if !sameDecode(rec, rec2) {
					t.Fatalf("%d-byte reads decode differently:\n%+v\n%+v", size, rec, rec2)
				}
			}
			checkInvariants(t, rec)
			got, err := json.MarshalIndent(summarize(rec), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("decode of %s differs from %s:\n--- got\n%s\n--- want\n%s", path, golden, got, want)
			}
		})
	}
}

// sameDecode compares two decodes of the same bytes read in different pieces.
// Only Bytes may differ, when decoding stopped before the end (an error or the
// terminal event): it counts what had been read by then.
func sameDecode(a, b *Record) bool {
	x, y := *a, *b
	x.Bytes, y.Bytes = 0, 0
	return reflect.DeepEqual(&x, &y)
}

// checkInvariants asserts what must hold for any Record.
func checkInvariants(t testing.TB, r *Record) {
	t.Helper()
	if (r.Dialect == DialectAuto || r.Dialect == "") && (r.Status != 0 || r.Events > 0) {
		t.Errorf("dialect left as %q after a response", r.Dialect)
	}
	if r.TextEvents > r.Events {
		t.Errorf("%d text events > %d events", r.TextEvents, r.Events)
	}
	wantGaps := r.TextEvents - 1
	if wantGaps < 0 {
		wantGaps = 0
	}
	if len(r.ITL) != wantGaps {
		t.Errorf("%d ITL gaps for %d text events", len(r.ITL), r.TextEvents)
	}
	if r.ITLTokens != nil && len(r.ITLTokens) != len(r.ITL) {
		t.Errorf("%d ITLTokens for %d gaps", len(r.ITLTokens), len(r.ITL))
	}
	if r.HasTTFT != (r.TextEvents > 0) {
		t.Errorf("HasTTFT %v with %d text events", r.HasTTFT, r.TextEvents)
	}
	if r.HasTTFTAnswer && !r.HasReasoning {
		t.Errorf("TTFTAnswer set without reasoning")
	}
	if r.Timeline != nil && len(r.Timeline) != r.Events {
		t.Errorf("timeline has %d entries for %d events", len(r.Timeline), r.Events)
	}
	if r.TokenSource != TokensFromUsage && r.TokenSource != TokensFromEvents {
		t.Errorf("token source %q", r.TokenSource)
	}
	if r.TokenSource == TokensFromEvents && r.OutputTokens != r.TextEvents {
		t.Errorf("counted %d output tokens for %d text events", r.OutputTokens, r.TextEvents)
	}
	if r.HasTPOT && (r.Err != nil || r.OutputTokens < 2) {
		t.Errorf("TPOT set for a failed request or fewer than 2 tokens")
	}
	if r.Err != nil {
		if !knownKind(r.Err.Kind) {
			t.Errorf("unknown error kind %q", r.Err.Kind)
		}
		if len(r.Err.Message) > maxMessage {
			t.Errorf("message of %d bytes", len(r.Err.Message))
		}
		if r.Err.Message == "" {
			t.Errorf("empty error message")
		}
	}
}

func knownKind(k ErrorKind) bool {
	switch k {
	case KindConnect, KindTimeout, KindTimeoutMidstream, KindResetMidstream, KindNotStreamed,
		KindStreamError, KindMalformed, KindEmptyOutput, KindCanceled, KindInvalidRequest, KindHTTP5xx:
		return true
	}
	return strings.HasPrefix(string(k), "http_")
}

// decodeOne decodes a single event's data with d's decoder.
func decodeOne(t *testing.T, d Dialect, typ, data string) delta {
	t.Helper()
	var out delta
	ev := &Event{Type: []byte(typ), Data: []byte(data)}
	if err := newDecoder(d).decode(ev, &out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return out
}

// TestTextBearing pins down which events count as generated text.
func TestTextBearing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		d         Dialect
		typ, data string
		answer    string
		reasoning string
		tool      bool
	}{
		{"role only", OpenAIChat, "", `{"choices":[{"delta":{"role":"assistant"}}]}`, "", "", false},
		{"role with empty content", OpenAIChat, "", `{"choices":[{"delta":{"role":"assistant","content":""}}]}`, "", "", false},
		{"null content", OpenAIChat, "", `{"choices":[{"delta":{"content":null,"reasoning_content":null}}]}`, "", "", false},
		{"empty reasoning", OpenAIChat, "", `{"choices":[{"delta":{"content":null,"reasoning_content":""}}]}`, "", "", false},
		{"content", OpenAIChat, "", `{"choices":[{"delta":{"content":"hi"}}]}`, "hi", "", false},
		{"reasoning_content", OpenAIChat, "", `{"choices":[{"delta":{"reasoning_content":"hm"}}]}`, "", "hm", false},
		{"reasoning", OpenAIChat, "", `{"choices":[{"delta":{"reasoning":"hm"}}]}`, "", "hm", false},
		{"refusal is answer text", OpenAIChat, "", `{"choices":[{"delta":{"refusal":"no"}}]}`, "no", "", false},
		{"content parts", OpenAIChat, "", `{"choices":[{"delta":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`, "ab", "", false},
		{"usage only", OpenAIChat, "", `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, "", "", false},
		{"tool name", OpenAIChat, "", `{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":""}}]}}]}`, "", "", true},
		{"tool arguments", OpenAIChat, "", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}}]}`, "", "", true},
		{"empty tool fragment", OpenAIChat, "", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]}`, "", "", false},
		{"finish only", OpenAIChat, "", `{"choices":[{"delta":{},"finish_reason":"stop"}]}`, "", "", false},
		{"completions text", OpenAICompletions, "", `{"choices":[{"text":"x"}]}`, "x", "", false},
		{"completions empty text", OpenAICompletions, "", `{"choices":[{"text":"","finish_reason":"length"}]}`, "", "", false},
		{"anthropic text", AnthropicMessages, "content_block_delta", `{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`, "x", "", false},
		{"anthropic thinking", AnthropicMessages, "", `{"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"t"}}`, "", "t", false},
		{"anthropic signature", AnthropicMessages, "", `{"type":"content_block_delta","delta":{"type":"signature_delta","signature":"abc"}}`, "", "", false},
		{"anthropic json", AnthropicMessages, "", `{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{"}}`, "", "", true},
		{"anthropic empty json", AnthropicMessages, "", `{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":""}}`, "", "", false},
		{"anthropic tool start", AnthropicMessages, "", `{"type":"content_block_start","content_block":{"type":"tool_use","name":"f","input":{}}}`, "", "", true},
		{"anthropic empty text block", AnthropicMessages, "", `{"type":"content_block_start","content_block":{"type":"text","text":""}}`, "", "", false},
		{"anthropic ping", AnthropicMessages, "ping", `{"type": "ping"}`, "", "", false},
		{"anthropic type from the event name", AnthropicMessages, "content_block_delta", `{"delta":{"type":"text_delta","text":"y"}}`, "y", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := decodeOne(t, tt.d, tt.typ, tt.data)
			if string(d.answer) != tt.answer || string(d.reasoning) != tt.reasoning || d.toolText != tt.tool {
				t.Errorf("got answer %q reasoning %q tool %v; want %q %q %v", d.answer, d.reasoning, d.toolText, tt.answer, tt.reasoning, tt.tool)
			}
		})
	}
}

// The decoders reuse their chunk structs: nothing of one event may leak into
// the next (encoding/json does not zero reused slice elements).
func TestDecoderNoLeakBetweenEvents(t *testing.T) {
	t.Parallel()
	dec := newDecoder(OpenAIChat)
	var d delta
	first := &Event{Data: []byte(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"completion_tokens":3}}`)}
	second := &Event{Data: []byte(`{"choices":[{"index":0,"delta":{}}]}`)}
	if err := dec.decode(first, &d); err != nil {
		t.Fatal(err)
	}
	d.reset()
	if err := dec.decode(second, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.answer) != 0 || d.finish != "" || d.hasOutput || d.end {
		t.Fatalf("state leaked from the previous event: %+v", d)
	}
}

func TestDecodeDialectMismatch(t *testing.T) {
	t.Parallel()
	anth, err := os.ReadFile("../../testdata/sse/anthropic_messages_ping_padded_json.sse")
	if err != nil {
		t.Fatal(err)
	}
	chat, err := os.ReadFile("../../testdata/sse/openai_chat_role_first_usage_chunk.sse")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		data []byte
		d    Dialect
		want string
	}{
		{anth, OpenAIChat, "not an OpenAI chat or completions chunk (for an Anthropic stream"},
		{chat, AnthropicMessages, "looks like an OpenAI stream"},
	} {
		rec, err := Decode(bytes.NewReader(tt.data), tt.d)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Err == nil || rec.Err.Kind != KindMalformed || !strings.Contains(rec.Err.Message, tt.want) {
			t.Errorf("decoding as %s: got %v, want malformed saying %q", tt.d, rec.Err, tt.want)
		}
	}
}

// A failing source is returned as Decode's error, with what came before kept.
func TestDecodeReadError(t *testing.T) {
	t.Parallel()
	boom := io.ErrUnexpectedEOF
	rec, err := Decode(&errReader{data: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"), err: boom}, DialectAuto)
	if err != boom {
		t.Fatalf("err = %v", err)
	}
	if rec.TextEvents != 1 || rec.Text != "a" {
		t.Fatalf("lost the event before the error: %+v", rec)
	}
}

func TestDialectFromPath(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]Dialect{
		"/v1/chat/completions":                   OpenAIChat,
		"/v1/chat/completions/":                  OpenAIChat,
		"/openai/deployments/x/chat/completions": OpenAIChat,
		"/v1/completions":                        OpenAICompletions,
		"/v1/messages":                           AnthropicMessages,
		"/generate":                              "",
		"":                                       "",
	} {
		if got := DialectFromPath(path); got != want {
			t.Errorf("DialectFromPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func fuzzDecoder(f *testing.F, d Dialect, seeds ...string) {
	for _, path := range sseFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Decode(bytes.NewReader(data), d)
		if err != nil {
			t.Fatalf("in-memory decode returned a read error: %v", err)
		}
		checkInvariants(t, rec)
		if rec.Dialect != d {
			t.Fatalf("dialect %q became %q", d, rec.Dialect)
		}
		// How the bytes are cut into reads never matters.
		rec2, err := Decode(&chunkReader{data: data, sizes: []int{1, 5, 2}}, d)
		if err != nil {
			t.Fatal(err)
		}
		if !sameDecode(rec, rec2) {
			t.Fatalf("chunked reads decode differently:\n%+v\n%+v", rec, rec2)
		}
	})
}

func FuzzOpenAIChat(f *testing.F) {
	fuzzDecoder(f, OpenAIChat,
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"x\",\"function\":{\"name\":\"f\",\"arguments\":{}}}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":[{\"text\":\"a\"}]}}],\"usage\":{\"completion_tokens\":-1}}\n\ndata: [DONE]\n\n")
}

func FuzzOpenAICompletions(f *testing.F) {
	fuzzDecoder(f, OpenAICompletions,
		"data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
}

func FuzzAnthropic(f *testing.F) {
	fuzzDecoder(f, AnthropicMessages,
		"event: error\ndata: not json\n\n",
		"data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":2,\"input_tokens\":1}}\n\n")
}
