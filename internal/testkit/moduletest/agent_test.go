package moduletest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// agentAPIs are the dialects with tool calls.
var agentAPIs = []string{"openai-chat", "openai-responses", "anthropic-messages", "gemini", "cohere", "ollama"}

// agentScript runs one 3-step task per dialect (the mock calls a tool twice,
// then answers): the first task's tool results come from a function, the
// others' from canned results.
const agentScript = `
import { Agent } from 'file://` + "MODULE" + `';
const apis = __ENV.APIS.split(',');
const tools = [
  { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
  { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { tz: { type: 'string', enum: ['UTC', 'CET'] } } } },
];
const agents = apis.map((api, i) => new Agent(
  new Client({ baseURL: __ENV.LLM_BASE_URL, api: api, apiKey: __ENV.KEY, model: 'agent', timeout: '20s' }),
  i === 0 ? { tools: tools, maxSteps: 5, run: (c) => ({ tool: c.name, args: c.args }) }
          : { tools: tools, maxSteps: 5, results: { get_weather: 'sunny', get_time: { time: '12:00' } }, tags: { agent: 'canned' } }));
export const options = { scenarios: { agent: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } } };
// schemaOK: the arguments follow the called tool's schema.
function schemaOK(c) {
  const a = c.args;
  if (a === null) return false;
  if (c.name === 'get_weather') return typeof a.city === 'string' && Number.isInteger(a.days) && Object.keys(a).length === 2;
  return c.name === 'get_time' && (a.tz === 'UTC' || a.tz === 'CET') && Object.keys(a).length === 1;
}
export default function () {
  for (let i = 0; i < apis.length; i++) {
    const task = agents[i].run('What should I wear in Paris?');
    check(task, {
      completed: (t) => t.completed,
      'arguments parsed': (t) => t.steps.length === 3 && t.steps.slice(0, 2).every((s) => s.toolCalls.length === 1 &&
        s.toolCalls[0].parseError === '' && schemaOK(s.toolCalls[0])),
    });
    emit({ api: apis[i], completed: task.completed, e2e: task.e2e,
      steps: task.steps.map((s) => ({ step: s.step, ok: s.ok, id: s.requestId, tools: s.toolCalls, error: s.error })) });
  }
}
`

// TestAgentStepAndTaskMetricsEqualGroundTruth runs 3-step agent tasks in
// every dialect with tool calls, under k6sim and (when present) real k6, and
// holds the per-step and per-task metrics to the mock's ground truth: the
// tool the mock called and its arguments, when it wrote the first argument
// piece, and how many requests each task made.
func TestAgentStepAndTaskMetricsEqualGroundTruth(t *testing.T) {
	runners := map[string]k6Runner{"k6sim": simRunner(k6sim.Config{VUs: 1, Iterations: 1})}
	k6 := os.Getenv("K6_BIN")
	if k6 == "" {
		k6, _ = exec.LookPath("k6")
	}
	if k6 != "" {
		runners["real k6"] = realRunner(k6)
	} else {
		t.Log("real k6 part skipped: no k6 (set K6_BIN=/path/to/k6 or put k6 on PATH to run the agent script in real k6 too)")
	}
	for name, runK6 := range runners {
		t.Run(name, func(t *testing.T) { checkAgentRun(t, runK6) })
	}
}

func checkAgentRun(t *testing.T, runK6 k6Runner) {
	model := fixedModel(4*time.Millisecond, time.Millisecond, 6)
	model.ToolRounds = 2
	log := &syncBuffer{}
	mockURL, stopMock := startStoppableMock(t, mockllm.Config{Seed: 11, APIKey: testKey, Log: log, Default: model})
	dir := t.TempDir()
	recFile := filepath.Join(dir, "records.jsonl")
	rw, err := helper.CreateRecords(recFile)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := helper.Start("127.0.0.1:0", helper.WithRecords(rw))
	if err != nil {
		t.Fatal(err)
	}
	path := script(t, strings.Replace(agentScript, "MODULE", filepath.ToSlash(modulePath), 1))
	k6File := filepath.Join(dir, "k6.json")
	runK6(t, path, map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey,
		"APIS": strings.Join(agentAPIs, ",")}, k6File)
	if err := hs.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := helper.CloseRecords(rw); err != nil {
		t.Fatal(err)
	}
	stopMock()

	// The mock's log, per dialect in arrival order.
	gts := map[string][]mockllm.RequestLog{}
	log.mu.Lock()
	for _, line := range bytes.Split(bytes.TrimSpace(log.buf.Bytes()), []byte("\n")) {
		var l mockllm.RequestLog
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("mock log line %s: %v", line, err)
		}
		gts[l.Dialect] = append(gts[l.Dialect], l)
	}
	log.mu.Unlock()
	// The helper's records by request id.
	recs := map[string]*records.Record{}
	f, err := os.Open(recFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := records.Scan(f, func(r *records.Record) error { c := *r; recs[r.ID] = &c; return nil }); err != nil {
		t.Fatal(err)
	}
	pts := readPointsFile(t, k6File, func(m string) bool { return strings.HasPrefix(m, "llm_") || m == "checks" })
	// The script checked each task: completed, and each call's arguments
	// parsed (a records file keeps no arguments; TestToolCallAnswers holds
	// the engine's arguments to the mock's).
	checks := 0
	for _, p := range pts {
		if p.Metric == "checks" {
			checks++
			if p.Value != 1 {
				t.Errorf("check %v failed", p.Tags)
			}
		}
	}
	if checks != 2*len(agentAPIs) {
		t.Errorf("%d checks, want %d", checks, 2*len(agentAPIs))
	}
	raw, _ := os.ReadFile(k6File)
	if bytes.Contains(raw, []byte(testKey)) {
		t.Error("the API key appears in k6's JSON output")
	}

	for _, api := range agentAPIs {
		t.Run(api, func(t *testing.T) {
			gt := gts[api]
			sort.Slice(gt, func(i, j int) bool { return gt[i].ArrivalNS < gt[j].ArrivalNS })
			if len(gt) != 3 {
				t.Fatalf("the mock served %d requests of the task, want 3", len(gt))
			}
			// Per step: the step's samples, its record, the mock's answer.
			steps := map[string]*records.Record{}
			firstArg := map[string]float64{}
			for _, p := range pts {
				if p.Tags["api"] != api || p.Tags["step"] == "" {
					continue
				}
				if p.Tags["model"] != "agent" || p.Tags["status"] != "200" || p.Tags["error"] != "" {
					t.Errorf("%s tags %v", p.Metric, p.Tags)
				}
				id := p.Metadata[metrics.RequestIDMetadata]
				rec := recs[id]
				if rec == nil {
					t.Fatalf("%s sample of request %q: no record", p.Metric, id)
				}
				steps[p.Tags["step"]] = rec
				switch p.Metric {
				case metrics.ToolCallFirstArg:
					firstArg[p.Tags["step"]] = p.Value
				case metrics.TTFT:
					if want := metrics.MS(*rec.TTFTNS); p.Value != want {
						t.Errorf("step %s llm_ttft %v, record %v", p.Tags["step"], p.Value, want)
					}
				case metrics.E2E:
					if want := metrics.MS(rec.E2ENS); p.Value != want {
						t.Errorf("step %s llm_e2e %v, record %v", p.Tags["step"], p.Value, want)
					}
				case metrics.ToolCallParseFailures:
					t.Errorf("step %s: parse failure %v", p.Tags["step"], p.Tags)
				}
			}
			if len(steps) != 3 {
				t.Fatalf("samples of steps %v, want 1, 2, 3", steps)
			}
			var lastEnd int64
			for i, g := range gt {
				step := string(rune('1' + i))
				rec := steps[step]
				checkAgentStep(t, step, rec, g, firstArg[step], i < 2)
				lastEnd = rec.StartNS + rec.E2ENS
			}
			// Per task: steps, completion, e2e from the first step's start to
			// the last step's end, which holds the mock's whole task.
			var e2e, nSteps, completed []float64
			for _, p := range pts {
				if p.Tags["api"] != api {
					continue
				}
				switch p.Metric {
				case metrics.AgentTaskE2E:
					e2e = append(e2e, p.Value)
				case metrics.AgentTaskSteps:
					nSteps = append(nSteps, p.Value)
				case metrics.AgentTaskCompleted:
					completed = append(completed, p.Value)
				}
			}
			if len(nSteps) != 1 || nSteps[0] != float64(len(gt)) || len(completed) != 1 || completed[0] != 1 {
				t.Errorf("task steps %v completed %v; the mock served %d requests", nSteps, completed, len(gt))
			}
			first := steps["1"]
			want := float64(lastEnd-first.StartNS) / 1e6
			if len(e2e) != 1 || math.Abs(e2e[0]-want) > 0.002 {
				t.Fatalf("task e2e %v, the steps' records say %.3f ms", e2e, want)
			}
			span := float64(gt[2].EventWriteNS[len(gt[2].EventWriteNS)-1]-gt[0].ArrivalNS) / 1e6
			if e2e[0] < span-float64(clockStep)/1e6 {
				t.Errorf("task e2e %v ms is shorter than the mock's task, %v ms from the first arrival to the last write", e2e[0], span)
			}
			wantTag := "canned" // the Agent's tags are on its steps
			if api == "openai-chat" {
				wantTag = ""
			}
			for s, rec := range steps {
				if rec.Tags["agent"] != wantTag {
					t.Errorf("step %s tags %v, want agent=%q", s, rec.Tags, wantTag)
				}
			}
		})
	}
}

// checkAgentStep holds one step to the mock's answer: a tool call (the same
// name and id; the first argument piece read no earlier than the
// mock wrote it, and the sample equal to the record) or, at the last step,
// text.
func checkAgentStep(t *testing.T, step string, rec *records.Record, gt mockllm.RequestLog, firstArg float64, wantTool bool) {
	t.Helper()
	if rec.Error != nil || rec.Tags["step"] != step {
		t.Fatalf("step %s: error %+v tags %v", step, rec.Error, rec.Tags)
	}
	if !wantTool {
		if gt.ToolCall != nil || len(rec.Tools) != 0 || firstArg != 0 {
			t.Errorf("step %s: the last step called %+v (mock %+v), want a text answer", step, rec.Tools, gt.ToolCall)
		}
		return
	}
	if gt.ToolCall == nil || len(rec.Tools) != 1 {
		t.Fatalf("step %s: tools %+v, the mock's call %+v", step, rec.Tools, gt.ToolCall)
	}
	tc := rec.Tools[0]
	if tc.Name != gt.ToolCall.Name || tc.ID != gt.ToolCall.ID || tc.ParseError != "" {
		t.Errorf("step %s: call %+v, the mock sent %+v", step, tc, gt.ToolCall)
	}
	var argWrite int64
	for i, k := range gt.EventKinds {
		if k == "tool_args" {
			argWrite = gt.EventWriteNS[i]
			break
		}
	}
	if tc.FirstArgNS == nil || argWrite == 0 {
		t.Fatalf("step %s: first argument at %v, the mock's first argument write %d", step, tc.FirstArgNS, argWrite)
	}
	if firstArg != metrics.MS(*tc.FirstArgNS) {
		t.Errorf("step %s: llm_tool_call_first_arg %v, the record's %v", step, firstArg, metrics.MS(*tc.FirstArgNS))
	}
	// Read after the mock wrote it (one process, one wall clock: up to a
	// clock step apart), and the request started before the mock saw it.
	if read := rec.StartNS + *tc.FirstArgNS; read < argWrite-int64(clockStep) || rec.StartNS > gt.ArrivalNS+int64(clockStep) {
		t.Errorf("step %s: first argument read at %d, the mock wrote it at %d (request start %d, arrival %d)", step, read, argWrite, rec.StartNS, gt.ArrivalNS)
	}
	if got := *tc.FirstArgNS; rec.TTFTNS == nil || got < *rec.TTFTNS {
		t.Errorf("step %s: first argument %d before TTFT %v", step, got, rec.TTFTNS)
	}
}
