package mockllm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The wire tests read the mock's answers with the tests' own SSE parser and
// check them with shape checkers that also run on the real recordings in
// testdata/sse: whatever the checker demands of the mock, real servers do.

const sseDir = "../../testdata/sse"

func readRecording(t *testing.T, name string) []sseEvent {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sseDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return parseSSE(b)
}

// openAISummary is what an OpenAI-compatible stream (chat or completions)
// said, and whether it had the shape of the real ones.
type openAISummary struct {
	object          string
	roleFirst       bool // chat: the first chunk has a role and no text
	text, reasoning string
	textEvents      int
	finish          string
	finishEmpty     bool // the chunk with finish_reason carries no text
	usage           map[string]any
	usageChoicesNil bool // the usage chunk has "choices": []
	usageNullBefore bool // every chunk before the usage chunk has "usage": null
	perChunkUsage   []float64
	done            bool // the stream ends with [DONE]
	stamps          []int64
}

func summarizeOpenAI(t *testing.T, evs []sseEvent) openAISummary {
	t.Helper()
	s := openAISummary{usageNullBefore: true}
	for i, e := range evs {
		if e.data == "[DONE]" {
			if i != len(evs)-1 {
				t.Fatalf("[DONE] is event %d of %d", i, len(evs))
			}
			s.done = true
			continue
		}
		m := e.obj(t)
		if ts, ok := m[GroundTruthField].(float64); ok {
			s.stamps = append(s.stamps, int64(ts))
		}
		if o, _ := m["object"].(string); s.object == "" {
			s.object = o
		}
		choices, _ := m["choices"].([]any)
		u, hasUsage := m["usage"]
		if um, ok := u.(map[string]any); ok {
			s.usage = um // the last usage seen is the final one
			if len(choices) == 0 {
				s.usageChoicesNil = true
				continue
			}
			if ct, ok := um["completion_tokens"].(float64); ok {
				s.perChunkUsage = append(s.perChunkUsage, ct)
			}
		} else if !hasUsage || u != nil {
			s.usageNullBefore = false
		}
		if len(choices) == 0 {
			continue
		}
		c := choices[0].(map[string]any)
		var text, reasoning string
		role := false
		if d, ok := c["delta"].(map[string]any); ok {
			text, _ = d["content"].(string)
			reasoning, _ = d["reasoning_content"].(string)
			if r, ok := d["reasoning"].(string); ok {
				reasoning += r
			}
			_, role = d["role"]
		} else {
			text, _ = c["text"].(string)
		}
		if i == 0 {
			s.roleFirst = role && text == "" && reasoning == ""
		}
		if text != "" || reasoning != "" {
			s.textEvents++
		}
		s.text += text
		s.reasoning += reasoning
		if f, ok := c["finish_reason"].(string); ok && f != "" && s.finish == "" {
			s.finish = f
			s.finishEmpty = text == "" && reasoning == ""
		}
	}
	return s
}

// anthropicSummary is what an Anthropic messages stream said.
type anthropicSummary struct {
	names                     []string
	text, thinking, signature string
	textEvents                int
	stopReason                string
	inputTokens, outputTokens float64
	blocks                    []string // content block types in order
	stamps                    []int64
	errorType                 string
}

// summarizeAnthropic checks the event grammar as it goes: every event is
// named, its data's type is its name, deltas fall inside their block, the
// message starts with message_start and ends with message_stop.
func summarizeAnthropic(t *testing.T, evs []sseEvent) anthropicSummary {
	t.Helper()
	var s anthropicSummary
	open := -1
	for i, e := range evs {
		m := e.obj(t)
		typ, _ := m["type"].(string)
		if e.name == "" || typ != e.name {
			t.Fatalf("event %d: name %q, data type %q", i, e.name, typ)
		}
		s.names = append(s.names, e.name)
		if ts, ok := m[GroundTruthField].(float64); ok {
			s.stamps = append(s.stamps, int64(ts))
		}
		idx, _ := m["index"].(float64)
		switch typ {
		case "message_start":
			if i != 0 {
				t.Fatalf("message_start is event %d", i)
			}
			u := m["message"].(map[string]any)["usage"].(map[string]any)
			s.inputTokens = u["input_tokens"].(float64)
		case "content_block_start":
			if open >= 0 {
				t.Fatalf("event %d: block %v starts while block %d is open", i, idx, open)
			}
			open = int(idx)
			s.blocks = append(s.blocks, m["content_block"].(map[string]any)["type"].(string))
		case "content_block_delta":
			if int(idx) != open {
				t.Fatalf("event %d: delta for block %v, open block %d", i, idx, open)
			}
			d := m["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				s.text += d["text"].(string)
				s.textEvents++
			case "thinking_delta":
				s.thinking += d["thinking"].(string)
				s.textEvents++
			case "signature_delta":
				s.signature += d["signature"].(string)
			default:
				t.Fatalf("event %d: delta type %v", i, d["type"])
			}
		case "content_block_stop":
			if int(idx) != open {
				t.Fatalf("event %d: stop of block %v, open block %d", i, idx, open)
			}
			open = -1
		case "message_delta":
			s.stopReason, _ = m["delta"].(map[string]any)["stop_reason"].(string)
			s.outputTokens = m["usage"].(map[string]any)["output_tokens"].(float64)
		case "message_stop":
			if i != len(evs)-1 {
				t.Fatalf("message_stop is event %d of %d", i, len(evs))
			}
		case "error":
			s.errorType, _ = m["error"].(map[string]any)["type"].(string)
		case "ping":
		default:
			t.Fatalf("event %d: unknown type %q", i, typ)
		}
	}
	return s
}

// checkStamps demands one increasing ground-truth stamp per JSON event, close
// to now.
func checkStamps(t *testing.T, stamps []int64, jsonEvents int) {
	t.Helper()
	if len(stamps) != jsonEvents {
		t.Fatalf("%d stamped events, want %d (every JSON event)", len(stamps), jsonEvents)
	}
	now := time.Now().UnixNano()
	for i, ts := range stamps {
		if i > 0 && ts < stamps[i-1] {
			t.Errorf("stamp %d (%d) before stamp %d (%d)", i, ts, i-1, stamps[i-1])
		}
		if ts > now || ts < now-int64(time.Minute) {
			t.Errorf("stamp %d = %d, not within the last minute of %d", i, ts, now)
		}
	}
}

func jsonEvents(evs []sseEvent) int {
	n := 0
	for _, e := range evs {
		if e.data != "[DONE]" {
			n++
		}
	}
	return n
}

func TestRecordingsHaveTheCheckedShapes(t *testing.T) {
	chat := summarizeOpenAI(t, readRecording(t, "openai_chat_role_first_usage_chunk.sse"))
	if !chat.roleFirst || !chat.finishEmpty || !chat.usageChoicesNil || !chat.usageNullBefore || !chat.done {
		t.Errorf("OpenAI chat recording: %+v", chat)
	}
	if chat.text != "The capital of the UK is London." || chat.finish != "stop" || chat.usage["completion_tokens"] != 9.0 {
		t.Errorf("OpenAI chat recording: text %q finish %q usage %v", chat.text, chat.finish, chat.usage)
	}

	ds := summarizeOpenAI(t, readRecording(t, "deepseek_reasoner_reasoning_content_usage.sse"))
	if !ds.roleFirst || !ds.done || ds.reasoning == "" || ds.text == "" || ds.finish != "stop" {
		t.Errorf("DeepSeek recording: %+v", ds)
	}
	if d := ds.usage["completion_tokens_details"].(map[string]any); d["reasoning_tokens"] != 198.0 {
		t.Errorf("DeepSeek recording usage: %v", ds.usage)
	}

	cmp := summarizeOpenAI(t, readRecording(t, "openai_legacy_completions_logprobs_leading_blank_line.sse"))
	if cmp.object != "text_completion" || !cmp.done || cmp.finish != "length" || cmp.text == "" {
		t.Errorf("completions recording: %+v", cmp)
	}

	an := summarizeAnthropic(t, readRecording(t, "anthropic_messages_ping_padded_json.sse"))
	if an.stopReason != "end_turn" || an.text == "" || an.inputTokens != 17 || an.outputTokens != 10 {
		t.Errorf("Anthropic recording: %+v", an)
	}
	th := summarizeAnthropic(t, readRecording(t, "anthropic_messages_thinking_signature.sse"))
	if strings.Join(th.blocks, ",") != "thinking,text" || th.thinking == "" || th.signature == "" || th.text != "Scoop and Beaky" {
		t.Errorf("Anthropic thinking recording: %+v", th)
	}
}

func TestOpenAIChatStream(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Seed: 3})
	for _, tc := range []struct {
		name      string
		extra     string
		maxTokens int
		usage     bool
	}{
		{"usage", `"stream_options":{"include_usage":true}`, 12, true},
		{"no usage", ``, 5, false},
		{"max_completion_tokens", `"max_completion_tokens":7,"stream_options":{"include_usage":true}`, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, url+"/v1/chat/completions", chatBody("gpt-mock", tc.maxTokens, tc.extra))
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || r.readErr != nil {
				t.Fatalf("status %d, content type %q, read error %v", r.status, r.header.Get("Content-Type"), r.readErr)
			}
			evs := parseSSE(r.body)
			s := summarizeOpenAI(t, evs)
			n := tc.maxTokens
			if n == 0 {
				n = 7
			}
			if !s.roleFirst || !s.finishEmpty || !s.done || s.object != "chat.completion.chunk" {
				t.Errorf("shape: %+v", s)
			}
			if s.text != FillerText(n) || s.textEvents != n || s.finish != "length" {
				t.Errorf("text %q (%d events), finish %q; want %q (%d), length", s.text, s.textEvents, s.finish, FillerText(n), n)
			}
			if tc.usage {
				if !s.usageChoicesNil || !s.usageNullBefore {
					t.Errorf("usage shape: %+v", s)
				}
				if s.usage["completion_tokens"] != float64(n) || s.usage["prompt_tokens"] != 2.0 || s.usage["total_tokens"] != float64(n+2) {
					t.Errorf("usage %v, want %d completion and 2 prompt tokens", s.usage, n)
				}
			} else if s.usage != nil || strings.Contains(string(r.body), `"usage"`) {
				t.Errorf("usage sent without include_usage")
			}
			checkStamps(t, s.stamps, jsonEvents(evs))
		})
	}
}

func TestOpenAIChatReasoningAndContinuousUsage(t *testing.T) {
	t.Parallel()
	cfg := Config{
		Default: ModelConfig{OutputTokens: FixedCount(6), ReasoningTokens: FixedCount(4), TokensPerEvent: TokensPerEvent{Min: 1, Max: 3}},
		Models:  map[string]ModelConfig{"vllm-style": {OutputTokens: FixedCount(5), ReasoningTokens: FixedCount(3), ReasoningField: "reasoning"}},
	}
	_, url := startServer(t, cfg)
	r := post(t, url+"/v1/chat/completions", chatBody("r1", 100, `"stream_options":{"include_usage":true,"continuous_usage_stats":true}`))
	evs := parseSSE(r.body)
	s := summarizeOpenAI(t, evs)
	if s.reasoning != FillerText(4) || s.text != FillerText(6) || s.finish != "stop" || !s.roleFirst || !s.done {
		t.Fatalf("reasoning %q, text %q, finish %q: %+v", s.reasoning, s.text, s.finish, s)
	}
	if d := s.usage["completion_tokens_details"].(map[string]any); d["reasoning_tokens"] != 4.0 || s.usage["completion_tokens"] != 10.0 {
		t.Errorf("usage %v", s.usage)
	}
	// Continuous usage: cumulative completion tokens on every chunk, rising by
	// the tokens each event carried (1 to 3), ending at the total.
	if len(s.perChunkUsage) != len(evs)-2 || s.perChunkUsage[0] != 0 || s.perChunkUsage[len(s.perChunkUsage)-1] != 10 {
		t.Fatalf("per-chunk usage %v over %d events", s.perChunkUsage, len(evs))
	}
	for i := 1; i < len(s.perChunkUsage); i++ {
		if d := s.perChunkUsage[i] - s.perChunkUsage[i-1]; d < 0 || d > 3 {
			t.Errorf("usage step %v at chunk %d", d, i)
		}
	}
	if s.textEvents >= 10 {
		t.Errorf("%d text events for 10 tokens at 1-3 per event", s.textEvents)
	}
	checkStamps(t, s.stamps, jsonEvents(evs))

	r = post(t, url+"/v1/chat/completions", chatBody("vllm-style", 100, ""))
	v := summarizeOpenAI(t, parseSSE(r.body))
	if v.reasoning != FillerText(3) || v.text != FillerText(5) || !strings.Contains(string(r.body), `"reasoning":"The"`) {
		t.Errorf("reasoning field: %s", r.body)
	}
}

func TestOpenAICompletionsStream(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Default: ModelConfig{OutputTokens: FixedCount(9)}})
	body := `{"model":"instruct","stream":true,"max_tokens":50,"prompt":"one two three","stream_options":{"include_usage":true}}`
	r := post(t, url+"/v1/completions", body)
	evs := parseSSE(r.body)
	s := summarizeOpenAI(t, evs)
	if s.object != "text_completion" || s.text != FillerText(9) || s.textEvents != 9 || s.finish != "stop" || !s.finishEmpty || !s.done {
		t.Fatalf("%+v", s)
	}
	if s.usage["prompt_tokens"] != 3.0 || s.usage["completion_tokens"] != 9.0 {
		t.Errorf("usage %v", s.usage)
	}
	checkStamps(t, s.stamps, jsonEvents(evs))
}

func TestAnthropicMessagesStream(t *testing.T) {
	t.Parallel()
	cfg := Config{Models: map[string]ModelConfig{
		"claude-think": {ReasoningTokens: FixedCount(5), OutputTokens: FixedCount(4)},
	}}
	_, url := startServer(t, cfg)
	for _, tc := range []struct {
		model, blocks, stop string
		thinking, text      string
		out                 float64
		maxTokens           int
	}{
		{"claude-mock", "text", "max_tokens", "", FillerText(8), 8, 8},
		{"claude-think", "thinking,text", "end_turn", FillerText(5), FillerText(4), 9, 1024},
		{"claude-think", "thinking", "max_tokens", FillerText(3), "", 3, 3},
	} {
		body := `{"model":"` + tc.model + `","stream":true,"max_tokens":` + strconv.Itoa(tc.maxTokens) +
			`,"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"hello there"}]}]}`
		r := post(t, url+"/v1/messages", body, "anthropic-version", "2023-06-01")
		if r.status != 200 || r.readErr != nil {
			t.Fatalf("%s: status %d, %v", tc.model, r.status, r.readErr)
		}
		evs := parseSSE(r.body)
		s := summarizeAnthropic(t, evs)
		if got := strings.Join(s.blocks, ","); got != tc.blocks {
			t.Errorf("%s: blocks %s, want %s", tc.model, got, tc.blocks)
		}
		if s.thinking != tc.thinking || s.text != tc.text || s.stopReason != tc.stop || s.outputTokens != tc.out || s.inputTokens != 4 {
			t.Errorf("%s: %+v", tc.model, s)
		}
		if tc.thinking != "" && s.signature == "" {
			t.Errorf("%s: no signature_delta", tc.model)
		}
		if s.names[0] != "message_start" || s.names[1] != "content_block_start" || s.names[2] != "ping" {
			t.Errorf("%s: events begin %v", tc.model, s.names[:3])
		}
		checkStamps(t, s.stamps, len(evs))
	}
}

func TestNonStreamAnswersAreValidJSON(t *testing.T) {
	t.Parallel()
	cfg := Config{Default: ModelConfig{OutputTokens: FixedCount(5), ReasoningTokens: FixedCount(2)}}
	_, url := startServer(t, cfg)

	r := post(t, url+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var chat struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role, Content    string
				ReasoningContent string `json:"reasoning_content"`
			}
			FinishReason string `json:"finish_reason"`
		}
		UsageRaw map[string]any `json:"usage"`
		TS       int64          `json:"x_mock_ts_ns"`
	}
	decodeStrict(t, r, &chat)
	if chat.Object != "chat.completion" || chat.Choices[0].Message.Content != FillerText(5) ||
		chat.Choices[0].Message.ReasoningContent != FillerText(2) || chat.Choices[0].FinishReason != "stop" ||
		chat.UsageRaw["completion_tokens"] != 7.0 || chat.TS == 0 {
		t.Errorf("chat: %+v", chat)
	}

	r = post(t, url+"/v1/completions", `{"model":"m","prompt":["a b","c"],"max_tokens":3}`)
	var cmp struct {
		Object  string `json:"object"`
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		}
		Usage map[string]any `json:"usage"`
	}
	decodeStrict(t, r, &cmp)
	if cmp.Object != "text_completion" || cmp.Choices[0].Text != FillerText(3) || cmp.Choices[0].FinishReason != "length" || cmp.Usage["prompt_tokens"] != 3.0 {
		t.Errorf("completions: %+v", cmp)
	}

	r = post(t, url+"/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`)
	var msg struct {
		Type    string `json:"type"`
		Content []struct {
			Type, Text, Thinking, Signature string
		}
		StopReason string         `json:"stop_reason"`
		Usage      map[string]any `json:"usage"`
	}
	decodeStrict(t, r, &msg)
	if msg.Type != "message" || len(msg.Content) != 2 || msg.Content[0].Thinking != FillerText(2) || msg.Content[1].Text != FillerText(5) ||
		msg.StopReason != "end_turn" || msg.Usage["output_tokens"] != 7.0 {
		t.Errorf("messages: %+v", msg)
	}
}

func decodeStrict(t *testing.T, r result, v any) {
	t.Helper()
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q: %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if !json.Valid(r.body) {
		t.Fatalf("not valid JSON: %s", r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
}

func TestEchoAndIgnoreEOS(t *testing.T) {
	t.Parallel()
	_, url := startServer(t, Config{Default: ModelConfig{Echo: true, OutputTokens: FixedCount(3)}})
	body := `{"model":"m","stream":true,"max_tokens":5,"ignore_eos":true,"messages":[{"role":"system","content":"ignored"},{"role":"user","content":"echo \"me\" back"}]}`
	s := summarizeOpenAI(t, parseSSE(post(t, url+"/v1/chat/completions", body).body))
	if want := `echo "me" back echo "me"`; s.text != want || s.finish != "length" {
		t.Errorf("echo with ignore_eos: %q, finish %q; want %q, length", s.text, s.finish, want)
	}
	body = `{"model":"m","stream":true,"max_tokens":50,"messages":[{"role":"user","content":"only two"}]}`
	s = summarizeOpenAI(t, parseSSE(post(t, url+"/v1/chat/completions", body).body))
	if s.text != "only two only" || s.finish != "stop" {
		t.Errorf("echo: %q, finish %q", s.text, s.finish)
	}
}
