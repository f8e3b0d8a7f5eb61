package scripts

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/workload"
)

var updateAgentTrace = flag.Bool("update-agent-trace", false, "rewrite scripts/data/agent-trace.otlp.jsonl and agent-trace.jsonl")

const agentOTLP = "data/agent-trace.otlp.jsonl"

// agentTraceSample is a made-up agent trace of 24 sessions as OpenTelemetry
// GenAI spans in OTLP JSON, one ExportTraceServiceRequest (one session) a
// line: an invoke_agent span, then model calls (chat) separated by tool
// calls (execute_tool); every third session fans out to two sub-agents whose
// chat calls overlap, and a last chat waits for both. Every call's input
// length is unique (the mock's log names its entry by it).
func agentTraceSample() []byte {
	rng := rand.New(rand.NewPCG(38, 4))
	var out bytes.Buffer
	k := 0
	t0 := int64(1_750_000_000_000_000_000)
	for s := range 24 {
		trace := fmt.Sprintf("%032x", 0xa9e47000+s)
		var spans []map[string]any
		span := func(id, name, op string, start, end int64, tokens bool) {
			attrs := []map[string]any{{"key": "gen_ai.operation.name", "value": map[string]any{"stringValue": op}}}
			if tokens {
				attrs = append(attrs,
					map[string]any{"key": "gen_ai.request.model", "value": map[string]any{"stringValue": "mock"}},
					map[string]any{"key": "gen_ai.usage.input_tokens", "value": map[string]any{"intValue": fmt.Sprint(40 + 3*k)}},
					map[string]any{"key": "gen_ai.usage.output_tokens", "value": map[string]any{"intValue": fmt.Sprint(3 + k%5)}})
				k++
			}
			spans = append(spans, map[string]any{"traceId": trace, "spanId": id, "name": name, "kind": 3,
				"startTimeUnixNano": fmt.Sprint(start), "endTimeUnixNano": fmt.Sprint(end), "attributes": attrs})
		}
		ms := func(v int) int64 { return int64(v) * int64(time.Millisecond) }
		at := t0 + ms(150*s)
		root := at
		steps := 2 + rng.IntN(3)
		for j := range steps {
			d := ms(60 + rng.IntN(80))
			span(fmt.Sprintf("%08x%08x", s, j+1), "chat mock", "chat", at, at+d, true)
			at += d
			if j == steps-1 {
				break
			}
			tool := ms(20 + rng.IntN(100))
			span(fmt.Sprintf("%08x%08x", s, 100+j), "execute_tool search", "execute_tool", at, at+tool, false)
			at += tool
		}
		if s%3 == 0 { // two sub-agents at once, then a call that waits for both
			a, b := ms(70+rng.IntN(40)), ms(50+rng.IntN(40))
			span(fmt.Sprintf("%08x%08x", s, 201), "chat mock", "chat", at+ms(5), at+ms(5)+a, true)
			span(fmt.Sprintf("%08x%08x", s, 202), "chat mock", "chat", at+ms(8), at+ms(8)+b, true)
			at += ms(5) + max(a, b+ms(3)) + ms(30)
			span(fmt.Sprintf("%08x%08x", s, 203), "chat mock", "chat", at, at+ms(60), true)
			at += ms(60)
		}
		spans = append([]map[string]any{{"traceId": trace, "spanId": fmt.Sprintf("%08x%08x", s, 0), "name": "invoke_agent coder", "kind": 1,
			"startTimeUnixNano": fmt.Sprint(root), "endTimeUnixNano": fmt.Sprint(at),
			"attributes": []map[string]any{{"key": "gen_ai.operation.name", "value": map[string]any{"stringValue": "invoke_agent"}}}}}, spans...)
		line, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
			"resource":   map[string]any{"attributes": []any{map[string]any{"key": "service.name", "value": map[string]any{"stringValue": "agent-sample"}}}},
			"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "agent-sample"}, "spans": spans}}}}})
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// buildAgentDataset builds the OTLP sample's dataset (dataset --format
// otlp-genai) into path.
func buildAgentDataset(t *testing.T, raw []byte, path string) []workload.Entry {
	t.Helper()
	steps, err := workload.ReadAgentTrace(bytes.NewReader(raw), agentOTLP)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := workload.LoadTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := workload.NewWriter(&buf)
	var entries []workload.Entry
	err = workload.AgentBuilder{Tok: tok, Seed: 1}.Build(context.Background(), steps, func(e workload.Entry) error {
		entries = append(entries, e)
		return w.Write(e)
	})
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestAgentTraceSample: the OTLP sample and its built dataset are what the
// generator and the builder make (-update-agent-trace rewrites them).
func TestAgentTraceSample(t *testing.T) {
	raw := agentTraceSample()
	built := filepath.Join(t.TempDir(), "agent-trace.jsonl")
	if *updateAgentTrace {
		if err := os.WriteFile(agentOTLP, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		built = "data/agent-trace.jsonl"
	}
	if have, err := os.ReadFile(agentOTLP); err != nil || !bytes.Equal(have, raw) {
		t.Fatalf("%s is not the generator's (go test ./scripts -run TestAgentTraceSample -update-agent-trace): %v", agentOTLP, err)
	}
	entries := buildAgentDataset(t, raw, built)
	want, _ := os.ReadFile(built)
	if have, err := os.ReadFile("data/agent-trace.jsonl"); err != nil || !bytes.Equal(have, want) {
		t.Errorf("data/agent-trace.jsonl is not the build of %s: %v", agentOTLP, err)
	}
	sessions, waits := map[string]bool{}, 0
	for _, e := range entries {
		sessions[e.Tags["agent_session"]] = true
		waits += len(e.After)
	}
	if len(sessions) != 24 || waits == 0 {
		t.Errorf("%d sessions, %d dependencies", len(sessions), waits)
	}
}

// TestAgentReplayWithRealK6: scripts/agent-replay.js replays the 24-session
// agent trace in real k6 against the mock, and the mock's log shows every
// dependency honoured: no call reached the mock before each call it waits
// for had ended there (end_ns) plus the recorded delay; every call was sent
// once.
func TestAgentReplayWithRealK6(t *testing.T) {
	k6 := k6Binary(t)
	path := filepath.Join(t.TempDir(), "agent-trace.jsonl")
	entries := buildAgentDataset(t, agentTraceSample(), path)
	log := &syncBuffer{}
	m, err := mockllm.New(mockllm.Config{Seed: 1, Tokenizer: "cl100k_base", Log: log,
		// Calls take longer here (150 ms prefill) than recorded (50-140 ms):
		// a replay that sent each call at its recorded time would send it
		// before its parents ended.
		Default: mockllm.ModelConfig{Prefill: mockllm.Prefill{Base: 150 * time.Millisecond}, ITL: mockllm.ITL{Base: 5 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(m)
	defer ts.Close()
	var stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	code, err := runner.Run(ctx, runner.Config{Args: []string{"--no-usage-report", "-e", "LLM_DATASET=" + path, "agent-replay.js"},
		Stdout: &stderr, Stderr: &stderr, Env: append(os.Environ(), "K6_BIN="+k6, "LLM_BASE_URL="+ts.URL, "K6_NO_USAGE_REPORT=true")})
	if err != nil || code != 0 {
		t.Fatalf("run: code %d, %v\n%s", code, err, tail(stderr.String(), 4000))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	byInput := map[int]mockllm.RequestLog{}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var l mockllm.RequestLog
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("mock log: %v", err)
		}
		if _, dup := byInput[l.InputTokens]; dup {
			t.Errorf("two requests of %d input tokens", l.InputTokens)
		}
		byInput[l.InputTokens] = l
	}
	if len(byInput) != len(entries) {
		t.Fatalf("the mock saw %d requests, want %d\n%s", len(byInput), len(entries), tail(stderr.String(), 2000))
	}
	byID := map[string]workload.Entry{}
	deps, minSlack := 0, time.Duration(1<<62)
	for _, e := range entries {
		byID[e.ID] = e
		child, ok := byInput[e.InputTokens]
		if !ok {
			t.Fatalf("%s (%d input tokens) never reached the mock", e.ID, e.InputTokens)
		}
		for _, a := range e.After {
			parent := byInput[byID[a.ID].InputTokens]
			earliest := parent.EndNS + int64(a.DelayMS*1e6)
			slack := time.Duration(child.ArrivalNS - earliest)
			minSlack = min(minSlack, slack)
			deps++
			if slack < 0 {
				t.Errorf("%s reached the mock %v before %s ended + %.1f ms", e.ID, -slack, a.ID, a.DelayMS)
			}
		}
	}
	t.Logf("%d calls, %d dependencies honoured; least slack after parent end + delay %v", len(entries), deps, minSlack)
	if !strings.Contains(stderr.String(), "sessions 24 failed 0") {
		t.Errorf("no summary of 24 sessions:\n%s", tail(stderr.String(), 2000))
	}
}
