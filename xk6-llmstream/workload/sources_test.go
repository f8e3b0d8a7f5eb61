package workload

import (
	"context"
	"strings"
	"testing"
)

func collect(t *testing.T, read func(func(Prompt) error) error) ([]Prompt, error) {
	t.Helper()
	var out []Prompt
	err := read(func(p Prompt) error { out = append(out, p); return nil })
	return out, err
}

const shareGPTSample = `[
  {
    "id": "a1",
    "conversations": [
      {"from": "human", "value": "What is a goroutine?"},
      {"from": "gpt", "value": "A goroutine is a lightweight thread managed by the Go runtime."},
      {"from": "human", "value": "And a channel?"},
      {"from": "gpt", "value": "A typed conduit."}
    ]
  },
  {"id": "short", "conversations": [{"from": "human", "value": "hi"}]},
  {"id": "sys", "conversations": [
    {"from": "system", "value": "be brief"},
    {"from": "human", "value": "Name a prime."},
    {"from": "gpt", "value": "Seven."}
  ]}
]
`

func TestShareGPT(t *testing.T) {
	t.Parallel()
	s := &ShareGPT{R: strings.NewReader(shareGPTSample), Name: "sg.json"}
	ps, err := collect(t, s.Read)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || s.Skipped != 1 {
		t.Fatalf("got %d prompts, %d skipped; want 2 and 1", len(ps), s.Skipped)
	}
	answer := "A goroutine is a lightweight thread managed by the Go runtime."
	if ps[0].ID != "a1" || ps[0].Text != "What is a goroutine?" || ps[0].Answer == nil || *ps[0].Answer != answer || ps[0].Line != 2 {
		t.Errorf("first prompt %+v", ps[0])
	}
	if ps[1].Text != "Name a prime." || ps[1].Answer == nil || *ps[1].Answer != "Seven." || ps[1].Line != 12 {
		t.Errorf("second prompt %+v", ps[1])
	}
}

func TestShareGPTErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"not an array", `{"conversations": []}`, "sg.json:1: not a ShareGPT file"},
		{"missing conversations", "[\n {\"id\": \"x\", \"conversations\": [{\"from\": \"human\", \"value\": \"q\"}, {\"from\": \"gpt\", \"value\": \"a\"}]},\n\n {\"id\": \"y\"}\n]", "sg.json:4: conversation 2: no \"conversations\" field"},
		{"missing value", "[\n\n{\"conversations\": [{\"from\": \"human\"}]}]", "sg.json:3: conversation 1: turn 1 has no \"value\" field"},
		{"value not a string", "[\n{\"conversations\": [{\"from\": \"human\", \"value\": 3}]}]", "sg.json:2: conversation 1: not a conversation object"},
		{"syntax error", "[\n{\"conversations\": []},\n{\"conversations\": [}\n]", "sg.json:3: bad JSON"},
		{"truncated", "[\n{\"conversations\": []},\n{\"conv", "unexpected end of file"},
	} {
		s := &ShareGPT{R: strings.NewReader(c.in), Name: "sg.json"}
		if _, err := collect(t, s.Read); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestReadJSONL(t *testing.T) {
	t.Parallel()
	in := `{"prompt": "Tell me a joke.", "output_tokens": 50, "tags": {"kind": "joke"}}

{"id": "m", "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Hi"}], "max_tokens": 9}
`
	ps, err := collect(t, func(emit func(Prompt) error) error { return ReadJSONL(strings.NewReader(in), "p.jsonl", emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Text != "Tell me a joke." || ps[0].OutputTokens != 50 || ps[0].Tags["kind"] != "joke" || ps[0].Line != 1 {
		t.Fatalf("first %+v", ps)
	}
	if ps[1].ID != "m" || len(ps[1].Messages) != 2 || ps[1].OutputTokens != 9 || ps[1].Line != 3 {
		t.Fatalf("second %+v", ps[1])
	}
	for _, c := range []struct{ name, in, want string }{
		{"bad JSON", "{\"prompt\": \"a\"}\n{\"prompt\": \n", "p.jsonl:2: bad JSON line"},
		{"missing field", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"text\": \"c\"}\n", `p.jsonl:3: no "prompt" or "messages" field`},
		{"both", `{"prompt": "a", "messages": [{"role": "user", "content": "b"}]}`, "p.jsonl:1: both"},
		{"no role", "\n{\"messages\": [{\"content\": \"b\"}]}", "p.jsonl:2: message 1 has no \"role\""},
		{"empty prompt", `{"prompt": ""}`, `p.jsonl:1: empty "prompt"`},
		{"tags not strings", `{"prompt": "a", "tags": {"n": 3}}`, "p.jsonl:1: bad JSON line"},
	} {
		_, err := collect(t, func(emit func(Prompt) error) error { return ReadJSONL(strings.NewReader(c.in), "p.jsonl", emit) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	in := "id,prompt,output_tokens,lang\nq1,\"Say hi, politely\",12,en\nq2,\"Two\nlines\",,de\nq3,Third,7,fr\n"
	ps, err := collect(t, func(emit func(Prompt) error) error { return ReadCSV(strings.NewReader(in), "p.csv", emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[0].ID != "q1" || ps[0].Text != "Say hi, politely" || ps[0].OutputTokens != 12 || ps[0].Tags["lang"] != "en" || len(ps[0].Tags) != 1 {
		t.Fatalf("first %+v", ps)
	}
	if ps[1].Text != "Two\nlines" || ps[1].OutputTokens != 0 || ps[1].Line != 3 || ps[2].Line != 5 {
		t.Fatalf("lines: %+v", ps)
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty file", "", "p.csv:1: no CSV header row"},
		{"no prompt column", "text,n\na,1\n", `p.csv:1: the header has no "prompt" column`},
		{"bad number", "prompt,output_tokens\na,1\nb,many\n", `p.csv:3: output_tokens "many" is not a positive number`},
		{"wrong field count", "prompt,lang\na,en\nb\n", "p.csv:3: bad CSV row"},
		{"bad quote", "prompt\n\"a\"\n\"b\"x\n", "p.csv:3: bad CSV row"},
		{"empty prompt", "prompt,lang\na,en\n,de\n", "p.csv:3: empty prompt"},
	} {
		_, err := collect(t, func(emit func(Prompt) error) error { return ReadCSV(strings.NewReader(c.in), "p.csv", emit) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestBuilder(t *testing.T) {
	t.Parallel()
	tok := loadT(t, "o200k_base")
	in := "{\"prompt\": \"one two three\", \"output_tokens\": 5}\n{\"prompt\": \"four\", \"tags\": {\"a\": \"file\", \"b\": \"file\"}}\n{\"prompt\": \"five\"}\n"
	b := Builder{Tok: tok, Name: "p.jsonl", Output: FixedDist(33), Requests: 2, Tags: map[string]string{"b": "flag"}}
	var got []Entry
	st, err := b.Build(context.Background(), func(emit func(Prompt) error) error { return ReadJSONL(strings.NewReader(in), "p.jsonl", emit) },
		func(e Entry) error { got = append(got, e); return nil })
	if n := st.Entries; err != nil || n != 2 || len(got) != 2 {
		t.Fatalf("built %d (%d), %v", n, len(got), err)
	}
	if e := got[0]; e.V != 1 || e.ID != "000001" || e.InputTokens != countT(t, tok, "one two three") || e.OutputTokens != 5 || e.MaxTokens != 5 ||
		e.Messages[0].Role != "user" || e.InputTokensTarget != 0 || e.Tokenizer != "o200k_base" {
		t.Errorf("first entry %+v", e)
	}
	if e := got[1]; e.OutputTokens != 33 || e.Tags["a"] != "file" || e.Tags["b"] != "flag" {
		t.Errorf("second entry %+v", e)
	}
	b.AsPrompt = true
	multi := `{"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "y"}]}`
	_, err = b.Build(context.Background(), func(emit func(Prompt) error) error { return ReadJSONL(strings.NewReader(multi), "p.jsonl", emit) },
		func(Entry) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "p.jsonl:1: 2 messages") {
		t.Errorf("messages as a prompt: %v", err)
	}
}
