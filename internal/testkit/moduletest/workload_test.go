package moduletest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
)

// writeJSONL writes lines to name in dir and returns the path.
func writeJSONL(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func entryLine(i int, extra string) string {
	return fmt.Sprintf(`{"v":1,"id":"e%d","messages":[{"role":"user","content":"q%d"}],"max_tokens":%d,"output_tokens":%d,"input_tokens":2,"tokenizer":"cl100k_base","tags":{"suite":"s%d"}%s}`, i, i, 10+i, 10+i, i%2, extra)
}

func TestFixedOutputTokensSetsEachDialectsKnobs(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil) // every answer has 5 output tokens
	path := script(t, `
const chat = new Client({ baseURL: 'http://h:1', fixedOutputTokens: true });
const strict = new Client({ baseURL: 'http://h:1', fixedOutputTokens: true, vllmExtras: false });
const cmpl = new Client({ baseURL: 'http://h:1', api: 'openai-completions', fixedOutputTokens: 7 });
const anth = new Client({ baseURL: 'http://h:1', api: 'anthropic-messages', fixedOutputTokens: true });
const plain = new Client({ baseURL: 'http://h:1' });
export default function () {
  emit(chat.chat({ messages: [{ role: 'user', content: 'chat8' }], max_tokens: 8 }));
  emit(chat.chat({ messages: [{ role: 'user', content: 'chat5' }], max_completion_tokens: 5 }));
  emit(chat.chat({ messages: [{ role: 'user', content: 'chatnone' }] }));
  strict.chat({ messages: [{ role: 'user', content: 'strict' }], max_tokens: 9 });
  cmpl.chat('cmpl');
  anth.chat({ messages: [{ role: 'user', content: 'anth' }], max_tokens: 6 });
  plain.chat({ messages: [{ role: 'user', content: 'plain' }], max_tokens: 4 });
}
`)
	res := run(t, path, env(h), k6sim.Config{}, false)
	body := map[string]map[string]any{}
	for _, w := range h.requests() {
		body[w.prompt()] = w.Body
	}
	for prompt, want := range map[string]map[string]any{
		"chat8":    {"max_tokens": 8.0, "ignore_eos": true, "min_tokens": 8.0},
		"chat5":    {"max_completion_tokens": 5.0, "max_tokens": nil, "ignore_eos": true, "min_tokens": 5.0},
		"chatnone": {"max_tokens": nil, "ignore_eos": nil, "min_tokens": nil},
		"strict":   {"max_tokens": 9.0, "ignore_eos": nil, "min_tokens": nil},
		"cmpl":     {"max_tokens": 7.0, "ignore_eos": true, "min_tokens": 7.0},
		"anth":     {"max_tokens": 6.0, "ignore_eos": nil, "min_tokens": nil},
		"plain":    {"max_tokens": 4.0, "ignore_eos": nil, "min_tokens": nil},
	} {
		for k, v := range want {
			if got := body[prompt][k]; fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("%s: body.%s = %v, want %v (body %v)", prompt, k, got, v, body[prompt])
			}
		}
	}
	rs := results(t, res)
	if len(rs) != 3 || rs[0].Raw == nil {
		t.Fatalf("results %+v", rs)
	}
	var mism []string
	for _, s := range res.Of("llm_output_length_mismatch") {
		mism = append(mism, s.Metadata["llm_request_id"])
	}
	// 5 tokens arrived each time: asked 8 (chat8), 9 (strict), 7 (cmpl) and 6 (anth) differ.
	if len(mism) != 4 {
		t.Errorf("%d llm_output_length_mismatch samples, want 4 (asked 8, 9, 7, 6; got 5)", len(mism))
	}
	h2 := newFakeHelper(t, nil)
	bad := script(t, `new Client({ baseURL: 'http://h:1', fixedOutputTokens: 'many' });
export default function () {}`)
	if _, err := k6sim.Run(context.Background(), k6sim.Config{Script: bad, Env: env(h2)}); err == nil || !strings.Contains(err.Error(), "fixedOutputTokens") {
		t.Errorf("bad fixedOutputTokens: err %v", err)
	}
}

func TestDatasetErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, nil)
	dir := t.TempDir()
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{entryLine(1, ""), "", `{"v":2,"id":"x","prompt":"p"}`}, `bad.jsonl:3: "v" is 2, want 1`},
		{[]string{`{"v":1,"id":"x"}`}, `bad.jsonl:1: want exactly one of "messages" and "prompt"`},
		{[]string{`{"v":1,"id":"x","messages":[{"role":"user"}]}`}, `bad.jsonl:1: messages[0] must be`},
		{[]string{entryLine(1, ""), `{"v":1,`}, `bad.jsonl:2: not a JSON line`},
		{[]string{entryLine(1, `,"session":"s1","turn":1`), entryLine(2, `,"session":"s1","turn":3`)}, `bad.jsonl:2: session "s1" turn 3 follows turn 1`},
		{[]string{entryLine(1, `,"max_tokens":-1`)}, `bad.jsonl:1: "max_tokens" must be a whole number`},
		{[]string{""}, `bad.jsonl: no entries`},
	} {
		p := writeJSONL(t, dir, "bad.jsonl", c.lines...)
		s := script(t, fmt.Sprintf(`const d = new llmstream.Dataset(%q);
export default function () {}`, p))
		_, err := k6sim.Run(context.Background(), k6sim.Config{Script: s, Env: env(h)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.lines, err, c.want)
		}
	}
	s := script(t, fmt.Sprintf(`export default function () { new llmstream.Dataset(%q); }`, writeJSONL(t, dir, "ok.jsonl", entryLine(1, ""))))
	res := run(t, s, env(h), k6sim.Config{}, true)
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Err, "init context") {
		t.Errorf("Dataset outside the init context: %v", res.Errors)
	}
}

// TestDatasetOrderAndEntries: sequential order gives VUs disjoint entries
// (stride = the test's VUs), random order is the same run after run; an entry
// sent through chat() carries its messages, max_tokens, tags and id.
func TestDatasetOrderAndEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for i := range 10 {
		lines = append(lines, entryLine(i, ""))
	}
	data := writeJSONL(t, dir, "ten.jsonl", lines...)
	pick := func(order string) map[int][]string {
		h := newFakeHelper(t, nil)
		s := script(t, fmt.Sprintf(`import exec from 'k6/execution';
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } } };
const d = new llmstream.Dataset(%q, { order: %q, seed: 1 });
const llm = new Client({ baseURL: 'http://h:1' });
export default function () {
  const e = d.next();
  console.log('PICK ' + exec.vu.idInTest + ' ' + e.id);
  llm.chat(e);
}`, data, order))
		res := run(t, s, env(h), k6sim.Config{VUs: 2, Iterations: 3}, false)
		out := map[int][]string{}
		for _, l := range res.Console {
			var vu int
			var id string
			if i := strings.Index(l, "PICK "); i >= 0 {
				fmt.Sscanf(l[i:], "PICK %d %s", &vu, &id)
				out[vu] = append(out[vu], id)
			}
		}
		if order == "sequential" {
			for _, w := range h.requests() {
				if w.Body["max_tokens"] == nil || len(w.Body["messages"].([]any)) != 1 {
					t.Errorf("entry body %v", w.Body)
				}
			}
			for _, smp := range res.Of("llm_ttft") {
				id := smp.Metadata["llm_entry_id"]
				var i int
				fmt.Sscanf(id, "e%d", &i)
				if id == "" || smp.Tags["suite"] != fmt.Sprintf("s%d", i%2) {
					t.Errorf("sample of entry %q tagged suite=%q", id, smp.Tags["suite"])
				}
			}
		}
		return out
	}
	seq := pick("sequential")
	if strings.Join(seq[1], ",") != "e1,e3,e5" || strings.Join(seq[2], ",") != "e2,e4,e6" {
		t.Errorf("sequential picks %v, want VU 1 e1,e3,e5 and VU 2 e2,e4,e6", seq)
	}
	r1, r2 := pick("random"), pick("random")
	if fmt.Sprint(r1) != fmt.Sprint(r2) || len(r1[1]) != 3 {
		t.Errorf("random picks differ between runs: %v, %v", r1, r2)
	}
}

// TestSessionKeepsHistoryAndTagsTurns: each turn sends the whole history,
// the answer is appended, requests are tagged turn=1,2,3, a failed turn
// leaves the history as it was, and run() stops there.
func TestSessionKeepsHistoryAndTagsTurns(t *testing.T) {
	t.Parallel()
	h := newFakeHelper(t, map[string]answer{
		"q2": {status: 200, body: recordJSON(with(failedRecord("http_5xx", 503)))},
	})
	dir := t.TempDir()
	data := writeJSONL(t, dir, "chat.jsonl",
		entryLine(0, `,"session":"a","turn":1`), entryLine(1, `,"session":"a","turn":2`), entryLine(5, `,"session":"a","turn":3`),
		entryLine(2, `,"session":"b","turn":1`), entryLine(3, `,"session":"b","turn":2`))
	s := script(t, fmt.Sprintf(`
import { Session } from 'file://%s';
const d = new llmstream.Dataset(%q);
const llm = new Client({ baseURL: 'http://h:1' });
export default function () {
  const a = new Session(llm, { system: 'be brief', thinkTime: ['1ms', '2ms'] });
  const ra = a.run([d.at(0), d.at(1), d.at(2)]);
  console.log('A ' + ra.length + ' ' + a.turn + ' ' + JSON.stringify(a.history));
  const b = new Session(llm);
  const rb = b.run([d.at(3), d.at(4)]);
  console.log('B ' + rb.map((r) => r.ok + ':' + r.turn).join(',') + ' ' + b.history.length);
  console.log('SESSIONS ' + d.sessionCount);
}`, filepath.ToSlash(modulePath), data))
	res := run(t, s, env(h), k6sim.Config{}, false)
	var lens []int
	for _, w := range h.requests() {
		lens = append(lens, len(w.Body["messages"].([]any)))
		if !w.KeepText {
			t.Errorf("a Session request without keep_text")
		}
	}
	// a: system + q0 (2), + answer + q1 (4), + answer + q5 (6); b: q2 (1), which fails, so run() stops
	if fmt.Sprint(lens) != "[2 4 6 1]" {
		t.Errorf("messages per request %v, want [2 4 6 1]", lens)
	}
	var turns []string
	for _, smp := range res.Of("llm_requests_failed") {
		turns = append(turns, smp.Tags["turn"])
	}
	if strings.Join(turns, ",") != "1,2,3,1" {
		t.Errorf("turn tags %v, want 1,2,3,1", turns)
	}
	want := map[string]string{"A ": `A 3 3 [{"role":"system","content":"be brief"},{"role":"user","content":"q0"},{"role":"assistant","content":""}`, "B ": "B false:1 0", "SESSIONS ": "SESSIONS 2"}
	for prefix, w := range want {
		found := false
		for _, l := range res.Console {
			if i := strings.Index(l, prefix); i >= 0 && strings.HasPrefix(l[i:], w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no console line starting %q in %v", w, res.Console)
		}
	}
}
