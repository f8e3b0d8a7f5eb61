package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// Request shapes (issue 25): the official SDKs (conformance/node, send mode
// of driver.mjs) and llmstream.js (under k6sim, through the real helper) send
// the same request for each dialect and feature to a capture server; the JSON
// key paths with value types of the feature's part of both bodies must match.

// shapeCapture is one request the capture server saw.
type shapeCapture struct {
	path string
	tag  string // the X-Shape-Case header (the module's requests)
	body map[string]any
}

// captureServer records each request's body and hands the request to the
// built-in mock, which answers in the dialect (streamed or not, as asked).
type captureServer struct {
	mu   sync.Mutex
	reqs []shapeCapture
	url  string
}

func startCapture(t *testing.T) *captureServer {
	t.Helper()
	m, err := mockllm.New(mockllm.Config{Seed: 5, Default: mockllm.ModelConfig{OutputTokens: mockllm.FixedCount(3)}})
	if err != nil {
		t.Fatal(err)
	}
	c := &captureServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("%s %s: the body is not a JSON object: %v", r.Method, r.URL.Path, err)
		}
		c.mu.Lock()
		c.reqs = append(c.reqs, shapeCapture{path: r.URL.Path, tag: r.Header.Get("X-Shape-Case"), body: body})
		c.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		m.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		_ = m.Close()
	})
	c.url = ts.URL
	return c
}

func (c *captureServer) requests() []shapeCapture {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]shapeCapture(nil), c.reqs...)
}

// shapeOf adds the key paths of v with their value types to out. Values are
// ignored except those of "type" keys (a discriminator: image_url and image
// are different shapes); an array's elements share one path segment, "[]",
// or "[type=…]" / "[role=…]" for elements that carry one, so a tool message
// and a user message are told apart.
func shapeOf(v any, path string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[path+": object"] = true
		}
		for k, e := range x {
			if s, ok := e.(string); ok && k == "type" {
				out[path+".type="+s] = true
				continue
			}
			shapeOf(e, path+"."+k, out)
		}
	case []any:
		if len(x) == 0 {
			out[path+": array"] = true
		}
		for _, e := range x {
			seg := "[]"
			if m, ok := e.(map[string]any); ok {
				var d []string
				for _, k := range []string{"role", "type"} {
					if s, ok := m[k].(string); ok {
						d = append(d, k+"="+s)
					}
				}
				if len(d) > 0 {
					seg = "[" + strings.Join(d, ",") + "]"
				}
			}
			shapeOf(e, path+seg, out)
		}
	case string:
		out[path+": string"] = true
	case float64:
		out[path+": number"] = true
	case bool:
		out[path+": bool"] = true
	case nil:
		out[path+": null"] = true
	default:
		out[path+fmt.Sprintf(": %T", v)] = true
	}
}

// shapeFeature is one feature of a dialect: the top-level body keys that
// hold it and the SDK's params (model aside) that ask for it.
type shapeFeature struct {
	name   string
	keys   []string
	params string
}

// shapeSDK is the SDK that speaks a dialect: driver.mjs's sdk/dialect.
var shapeSDK = map[string][2]string{
	"openai-chat": {"openai", "chat"}, "openai-responses": {"openai", "responses"},
	"anthropic-messages": {"anthropic", "messages"}, "gemini": {"genai", "gemini"},
	"cohere": {"cohere", "cohere"}, "ollama": {"ollama", "ollama"},
}

// shapeVersions are the SDKs' versions (conformance/node/package.json).
var shapeVersions = map[string]string{"openai": "openai@7.55.0", "anthropic": "@anthropic-ai/sdk@1.10.0",
	"genai": "@google/genai@3.1.0", "cohere": "cohere-ai@8.1.0", "ollama": "ollama@0.6.4"}

// The values both sides send: a tool, its call and result, a 1×1 PNG, a schema.
const (
	shapeSchema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	shapePNG    = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	shapeURL    = "https://images.invalid/cat.png"
	shapeOut    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`
)

// shapeFeatures are each dialect's features with the SDK params, written in
// each SDK's own parameter types (openai, @anthropic-ai/sdk and ollama send
// them as they are; cohere-ai and @google/genai serialise their own
// camelCase types into the wire shape).
func shapeFeatures(dialect string) []shapeFeature {
	r := strings.NewReplacer("@SCHEMA", shapeSchema, "@PNG", shapePNG, "@URL", shapeURL, "@OUT", shapeOut)
	f := func(name string, keys []string, params string) shapeFeature {
		return shapeFeature{name, keys, r.Replace(params)}
	}
	openAITools := `"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather of a city","parameters":@SCHEMA}}]`
	switch dialect {
	case "openai-chat":
		msgs := []string{"messages"}
		return []shapeFeature{
			f("tools", []string{"tools"}, `{"messages":[{"role":"user","content":"Q"}],`+openAITools+`}`),
			f("tool-turns", msgs, `{"messages":[{"role":"user","content":"Q"},
				{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
				{"role":"tool","tool_call_id":"call_1","content":"sunny"}],`+openAITools+`}`),
			f("image-data", msgs, `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe"},{"type":"image_url","image_url":{"url":"data:image/png;base64,@PNG"}}]}]}`),
			f("image-url", msgs, `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe"},{"type":"image_url","image_url":{"url":"@URL"}}]}]}`),
			f("structured", []string{"response_format"}, `{"messages":[{"role":"user","content":"Q"}],"response_format":{"type":"json_schema","json_schema":{"name":"person","schema":@OUT,"strict":true}}}`),
		}
	case "openai-responses":
		in := []string{"input"}
		tools := `"tools":[{"type":"function","name":"get_weather","description":"Weather of a city","parameters":@SCHEMA,"strict":false}]`
		return []shapeFeature{
			f("tools", []string{"tools"}, `{"input":[{"role":"user","content":"Q"}],`+tools+`}`),
			f("tool-turns", in, `{"input":[{"role":"user","content":"Q"},
				{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
				{"type":"function_call_output","call_id":"call_1","output":"sunny"}],`+tools+`}`),
			f("image-data", in, `{"input":[{"role":"user","content":[{"type":"input_text","text":"Describe"},{"type":"input_image","image_url":"data:image/png;base64,@PNG","detail":"auto"}]}]}`),
			f("image-url", in, `{"input":[{"role":"user","content":[{"type":"input_text","text":"Describe"},{"type":"input_image","image_url":"@URL","detail":"auto"}]}]}`),
			f("structured", []string{"text"}, `{"input":[{"role":"user","content":"Q"}],"text":{"format":{"type":"json_schema","name":"person","schema":@OUT,"strict":true}}}`),
		}
	case "anthropic-messages":
		msgs := []string{"messages"}
		tools := `"tools":[{"name":"get_weather","description":"Weather of a city","input_schema":@SCHEMA}]`
		return []shapeFeature{
			f("tools", []string{"tools"}, `{"max_tokens":64,"messages":[{"role":"user","content":"Q"}],`+tools+`}`),
			f("tool-turns", msgs, `{"max_tokens":64,"messages":[{"role":"user","content":"Q"},
				{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny"}]}],`+tools+`}`),
			f("image-data", msgs, `{"max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"Describe"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"@PNG"}}]}]}`),
			f("image-url", msgs, `{"max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"Describe"},{"type":"image","source":{"type":"url","url":"@URL"}}]}]}`),
			f("structured", []string{"output_config"}, `{"max_tokens":64,"messages":[{"role":"user","content":"Q"}],"output_config":{"format":{"type":"json_schema","schema":@OUT}}}`),
		}
	case "gemini":
		ct := []string{"contents"}
		// A tool's parameters are a JSON schema: the SDK's field for one is
		// parametersJsonSchema, sent as it is; its parameters field is the
		// API's own Schema type, which the SDK rewrites (type "object"
		// becomes "OBJECT") and which takes only a subset of JSON Schema.
		tools := `"config":{"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather of a city","parametersJsonSchema":@SCHEMA}]}]}`
		return []shapeFeature{
			f("tools", []string{"tools"}, `{"contents":[{"role":"user","parts":[{"text":"Q"}]}],`+tools+`}`),
			f("tool-turns", ct, `{"contents":[{"role":"user","parts":[{"text":"Q"}]},
				{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},
				{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"result":"sunny"}}}]}],`+tools+`}`),
			f("image-data", ct, `{"contents":[{"role":"user","parts":[{"text":"Describe"},{"inlineData":{"mimeType":"image/png","data":"@PNG"}}]}]}`),
			f("image-url", ct, `{"contents":[{"role":"user","parts":[{"text":"Describe"},{"fileData":{"mimeType":"image/png","fileUri":"@URL"}}]}]}`),
			f("structured", []string{"generationConfig"}, `{"contents":[{"role":"user","parts":[{"text":"Q"}]}],"config":{"responseMimeType":"application/json","responseJsonSchema":@OUT}}`),
		}
	case "cohere":
		msgs := []string{"messages"}
		return []shapeFeature{
			f("tools", []string{"tools"}, `{"messages":[{"role":"user","content":"Q"}],`+openAITools+`}`),
			f("tool-turns", msgs, `{"messages":[{"role":"user","content":"Q"},
				{"role":"assistant","toolCalls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
				{"role":"tool","toolCallId":"call_1","content":"sunny"}],`+openAITools+`}`),
			f("image-data", msgs, `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe"},{"type":"image_url","imageUrl":{"url":"data:image/png;base64,@PNG"}}]}]}`),
			f("image-url", msgs, `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe"},{"type":"image_url","imageUrl":{"url":"@URL"}}]}]}`),
			f("structured", []string{"response_format"}, `{"messages":[{"role":"user","content":"Q"}],"responseFormat":{"type":"json_object","jsonSchema":@OUT}}`),
		}
	case "ollama":
		msgs := []string{"messages"}
		return []shapeFeature{
			f("tools", []string{"tools"}, `{"messages":[{"role":"user","content":"Q"}],`+openAITools+`}`),
			f("tool-turns", msgs, `{"messages":[{"role":"user","content":"Q"},
				{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},
				{"role":"tool","tool_name":"get_weather","content":"sunny"}],`+openAITools+`}`),
			// ollama takes images as base64 only (no URLs).
			f("image-data", msgs, `{"messages":[{"role":"user","content":"Describe","images":["@PNG"]}]}`),
			f("structured", []string{"format"}, `{"messages":[{"role":"user","content":"Q"}],"format":@OUT}`),
		}
	}
	return nil
}

// shapeAllowed are differences that are legitimate, by dialect/feature and
// path: "+" the module sends the path and the SDK does not, "-" the reverse.
var shapeAllowed = map[string]string{
	// The module's assistant turn sets content null beside its tool calls; the
	// SDK's type allows it (content?: string | parts | null, "required unless
	// tool_calls is given") and the example above leaves it out.
	"openai-chat/tool-turns + messages[role=assistant].content: null": "content null is the type's own value",
}

// shapeScript runs every feature per dialect through llmstream.js; each
// request carries its case in the X-Shape-Case header. The Agent's first
// request offers the tools, its second carries the tool call and result.
const shapeScript = `
import { Client, Agent, image } from 'file://@MODULE';
const apis = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini', 'cohere', 'ollama'];
const tools = [{ name: 'get_weather', description: 'Weather of a city', parameters: @SCHEMA }];
const q = [{ role: 'user', content: 'Q' }];
export default function () {
  for (const api of apis) {
    const c = (f) => new Client({ baseURL: __ENV.BASE, api: api, apiKey: 'sk-conformance', model: 'm', timeout: '20s',
      headers: { 'X-Shape-Case': api + '/' + f } });
    const max = api === 'anthropic-messages' ? { max_tokens: 64 } : {};
    const task = new Agent(c('tools'), { tools: tools, maxSteps: 2, results: { get_weather: 'sunny' } }).run('Q');
    if (task.steps.length !== 2) throw new Error(api + ': the agent sent ' + task.steps.length + ' requests, want 2');
    const img = (url) => [{ role: 'user', content: [{ type: 'text', text: 'Describe' }, image(url)] }];
    c('image-data').chat(Object.assign({ messages: img('data:image/png;base64,@PNG') }, max));
    if (api !== 'ollama') c('image-url').chat(Object.assign({ messages: img('@URL') }, max));
    c('structured').chat(Object.assign({ messages: q, response_format: { type: 'json_schema', json_schema: { name: 'person', schema: @OUT, strict: true } } }, max));
  }
}
`

// moduleShapes runs shapeScript and returns the module's bodies by
// dialect/feature ("tools" is the Agent's first request, "tool-turns" its second).
func moduleShapes(t *testing.T) map[string]map[string]any {
	cap := startCapture(t)
	hs, err := helper.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	})
	mod, err := filepath.Abs("../xk6-llmstream/js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer("@MODULE", filepath.ToSlash(mod), "@SCHEMA", shapeSchema, "@PNG", shapePNG, "@URL", shapeURL, "@OUT", shapeOut).Replace(shapeScript)
	path := filepath.Join(t.TempDir(), "shapes.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := k6sim.Run(ctx, k6sim.Config{Script: path, Sleep: func(time.Duration) {},
		Env: map[string]string{"LLMSTREAM_HELPER": hs.URL(), "BASE": cap.url}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("the shapes script: %v\n%s", err, strings.Join(res.Console, "\n"))
	}
	out := map[string]map[string]any{}
	for _, r := range cap.requests() {
		name := r.tag
		if strings.HasSuffix(name, "/tools") && out[name] != nil {
			name = strings.TrimSuffix(name, "/tools") + "/tool-turns"
		}
		if out[name] != nil {
			t.Fatalf("two module requests for %s", name)
		}
		out[name] = r.body
	}
	return out
}

// shapeCaseID finds a driver request's case: its model is case-N (in the
// URL for Gemini).
var shapeCaseID = regexp.MustCompile(`case-(\d+)`)

// sdkShapes has each SDK send its params and returns the bodies by
// dialect/feature, and the SDK's error (if any) by the same name.
func sdkShapes(t *testing.T, dir string) (map[string]map[string]any, map[string]string) {
	cap := startCapture(t)
	type sendCase struct {
		ID      int             `json:"id"`
		SDK     string          `json:"sdk"`
		Dialect string          `json:"dialect"`
		Params  json.RawMessage `json:"params"`
	}
	var cases []sendCase
	var names []string
	for _, d := range sortedDialects() {
		for _, f := range shapeFeatures(d) {
			var p map[string]any
			if err := json.Unmarshal([]byte(f.params), &p); err != nil {
				t.Fatalf("%s/%s params: %v", d, f.name, err)
			}
			p["model"] = fmt.Sprintf("case-%d", len(cases))
			b, _ := json.Marshal(p)
			cases = append(cases, sendCase{ID: len(cases), SDK: shapeSDK[d][0], Dialect: shapeSDK[d][1], Params: b})
			names = append(names, d+"/"+f.name)
		}
	}
	in, _ := json.Marshal(cases)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "driver.mjs", cap.url, "send")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("node driver.mjs send: %v\n%s", err, stderr.String())
	}
	var results []struct {
		ID    int     `json:"id"`
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(raw, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("driver.mjs answered %d results for %d cases (%v):\n%s", len(results), len(cases), err, raw)
	}
	errs := map[string]string{}
	for i, r := range results {
		if r.Error != nil {
			errs[names[i]] = *r.Error
		}
	}
	out := map[string]map[string]any{}
	for _, r := range cap.requests() {
		m := shapeCaseID.FindStringSubmatch(r.path)
		if mv, ok := r.body["model"].(string); ok && m == nil {
			m = shapeCaseID.FindStringSubmatch(mv)
		}
		var id int
		if m == nil || func() bool { _, err := fmt.Sscan(m[1], &id); return err != nil }() || id >= len(names) {
			t.Fatalf("an SDK request to %s names no case", r.path)
		}
		out[names[id]] = r.body
	}
	return out, errs
}

func sortedDialects() []string {
	var ds []string
	for d := range shapeSDK {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return ds
}

// shapeDiff is the paths of the feature's keys one body has and the other
// lacks: "+ path" only the module's, "- path" only the SDK's.
func shapeDiff(keys []string, module, sdk map[string]any) []string {
	mine, theirs := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		if v, ok := module[k]; ok {
			shapeOf(v, k, mine)
		}
		if v, ok := sdk[k]; ok {
			shapeOf(v, k, theirs)
		}
	}
	var d []string
	for p := range mine {
		if !theirs[p] {
			d = append(d, "+ "+p)
		}
	}
	for p := range theirs {
		if !mine[p] {
			d = append(d, "- "+p)
		}
	}
	sort.Strings(d)
	return d
}

func TestRequestShapesMatchOfficialSDKs(t *testing.T) {
	dir, why := nodeDir()
	if dir == "" {
		t.Skip("skipping the request shape comparison with the node SDKs: " + why)
	}
	sdk, sdkErrs := sdkShapes(t, dir)
	mod := moduleShapes(t)
	for _, d := range sortedDialects() {
		for _, f := range shapeFeatures(d) {
			name := d + "/" + f.name
			t.Run(name, func(t *testing.T) {
				s, m := sdk[name], mod[name]
				if s == nil {
					t.Fatalf("%s sent no request (error: %s)", shapeVersions[shapeSDK[d][0]], sdkErrs[name])
				}
				if m == nil {
					t.Fatal("llmstream.js sent no request")
				}
				if e, ok := sdkErrs[name]; ok && os.Getenv("CONFORMANCE_DUMP") != "" {
					t.Logf("the SDK's call failed after sending (the answer is not checked here): %s", e)
				}
				if os.Getenv("CONFORMANCE_DUMP") != "" {
					for _, k := range f.keys {
						a, _ := json.Marshal(m[k])
						b, _ := json.Marshal(s[k])
						t.Logf("%s\n module %s\n sdk    %s", k, a, b)
					}
				}
				for _, k := range f.keys {
					if s[k] == nil || m[k] == nil {
						t.Fatalf("%s: the SDK's body has %v, the module's %v: both must send it", k, s[k] != nil, m[k] != nil)
					}
				}
				var bad []string
				for _, p := range shapeDiff(f.keys, m, s) {
					if _, ok := shapeAllowed[name+" "+p]; !ok {
						bad = append(bad, p)
					}
				}
				if len(bad) > 0 {
					t.Errorf("the module's %s body differs from %s's (+ only the module's, - only the SDK's):\n  %s",
						strings.Join(f.keys, ", "), shapeVersions[shapeSDK[d][0]], strings.Join(bad, "\n  "))
				}
			})
		}
	}
}
