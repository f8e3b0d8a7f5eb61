package workload

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

func buildTrace(t *testing.T, file string, format TraceFormat, block int) ([]Entry, []TraceSkip, Tokenizer) {
	t.Helper()
	tok, err := LoadTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/trace/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var skips []TraceSkip
	var out []Entry
	b := TraceBuilder{Tok: tok, Name: file, BlockTokens: block, Seed: 3}
	_, err = b.Build(context.Background(), func(emit func(TraceRequest) error) error {
		_, err := ReadTrace(f, file, format, emit, func(s TraceSkip) { skips = append(skips, s) })
		return err
	}, func(e Entry) error { out = append(out, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out, skips, tok
}

// checkExact: every entry's prompt has exactly its input tokens.
func checkExact(t *testing.T, tok Tokenizer, es []Entry) {
	t.Helper()
	for _, e := range es {
		if n, err := Count(context.Background(), tok, e.Messages[0].Content); err != nil || n != e.InputTokens {
			t.Errorf("%s: prompt of %d tokens, entry says %d", e.ID, n, e.InputTokens)
		}
		if e.MaxTokens != e.OutputTokens || e.AtMS == nil {
			t.Errorf("%s: max_tokens %d, output_tokens %d, at_ms %v", e.ID, e.MaxTokens, e.OutputTokens, e.AtMS)
		}
	}
}

func ats(es []Entry) []float64 {
	var out []float64
	for _, e := range es {
		out = append(out, *e.AtMS)
	}
	return out
}

func TestMooncakeTraceSharesPrefixesAsHashIDsSay(t *testing.T) {
	t.Parallel()
	es, skips, tok := buildTrace(t, "mooncake.jsonl", Mooncake, 512)
	if len(es) != 5 || len(skips) != 0 {
		t.Fatalf("%d entries, %d skipped", len(es), len(skips))
	}
	checkExact(t, tok, es)
	if got := ats(es); !slices.Equal(got, []float64{0, 250, 250, 1750, 2500}) {
		t.Errorf("at_ms %v", got)
	}
	ins := []int{1100, 700, 1300, 90, 1024}
	outs := []int{12, 4, 30, 7, 9}
	for i, e := range es {
		if e.InputTokens != ins[i] || e.OutputTokens != outs[i] {
			t.Errorf("%s: %d in, %d out; want %d, %d", e.ID, e.InputTokens, e.OutputTokens, ins[i], outs[i])
		}
	}
	toks := make([][]int, len(es))
	for i, e := range es {
		toks[i] = encode(t, tok, e.Messages[0].Content)
	}
	// shared(i, j) is how many leading tokens two prompts have in common.
	shared := func(i, j int) int {
		n := 0
		for n < len(toks[i]) && n < len(toks[j]) && toks[i][n] == toks[j][n] {
			n++
		}
		return n
	}
	// hash_ids [0 1 2], [0 3], [0 1 4], [5], [0 1]: blocks of 512 tokens; the
	// last, partial block is a request's own.
	for _, c := range []struct{ i, j, min, max int }{
		{0, 1, 512, 512 + 8},   // block 0 only (block 1 differs: 3 vs 1)
		{0, 2, 1024, 1024 + 8}, // blocks 0 and 1
		{0, 4, 1024, 1024},     // request 4 is exactly blocks 0 and 1
		{1, 2, 512, 512 + 8},
		{0, 3, 0, 8},
	} {
		if n := shared(c.i, c.j); n < c.min || n > c.max {
			t.Errorf("requests %d and %d share %d leading tokens, want %d…%d", c.i+1, c.j+1, n, c.min, c.max)
		}
	}
	if es[0].PrefixTokens != 1024 || es[1].PrefixTokens != 512 || es[3].PrefixTokens != 0 {
		t.Errorf("prefix_tokens %d %d %d", es[0].PrefixTokens, es[1].PrefixTokens, es[3].PrefixTokens)
	}
	// The same trace and seed give the same entries.
	again, _, _ := buildTrace(t, "mooncake.jsonl", Mooncake, 512)
	for i := range es {
		if es[i].Messages[0].Content != again[i].Messages[0].Content {
			t.Fatalf("entry %d differs between two builds", i+1)
		}
	}
}

func TestBailianTraceSessions(t *testing.T) {
	t.Parallel()
	es, _, tok := buildTrace(t, "bailian.jsonl", Bailian, 16)
	checkExact(t, tok, es)
	if got := ats(es); !slices.Equal(got, []float64{0, 350, 1200, 2050}) {
		t.Errorf("at_ms %v (seconds × 1000)", got)
	}
	want := []string{"10", "11", "10", "10"}
	for i, e := range es {
		if e.Tags["trace_session"] != want[i] {
			t.Errorf("%s: session %q, want %q", e.ID, e.Tags["trace_session"], want[i])
		}
	}
	// Turn 3 extends turn 2's five blocks: 80 shared tokens.
	a, b := encode(t, tok, es[2].Messages[0].Content), encode(t, tok, es[3].Messages[0].Content)
	if !slices.Equal(a[:64], b[:64]) || es[3].PrefixTokens != 80 {
		t.Errorf("turn 3 does not start with turn 2's blocks (prefix_tokens %d)", es[3].PrefixTokens)
	}
}

func TestBurstGPTTraceSkipsFailures(t *testing.T) {
	t.Parallel()
	es, skips, tok := buildTrace(t, "burstgpt.csv", BurstGPT, 0)
	checkExact(t, tok, es)
	if len(es) != 3 || len(skips) != 1 || skips[0].Line != 3 {
		t.Fatalf("%d entries, skipped %+v; want 3 and line 3 (0 response tokens)", len(es), skips)
	}
	if got := ats(es); !slices.Equal(got, []float64{0, 2250, 4000}) {
		t.Errorf("at_ms %v", got)
	}
	if es[1].Tags["trace_model"] != "ChatGPT" || es[1].Tags["log_type"] != "API log" || es[2].InputTokens != 512 || es[2].OutputTokens != 100 {
		t.Errorf("entry 2 tags %v, entry 3 %d/%d", es[1].Tags, es[2].InputTokens, es[2].OutputTokens)
	}
}

func TestAzureTrace(t *testing.T) {
	t.Parallel()
	es, _, tok := buildTrace(t, "azure.csv", Azure, 0)
	checkExact(t, tok, es)
	got := ats(es)
	if len(got) != 3 || got[0] != 0 || got[1] != 4314.579 || got[2] != 4319.41 {
		t.Errorf("at_ms %v, want [0 4314.579 4319.41]", got)
	}
	if es[2].InputTokens != 879 || es[2].OutputTokens != 29 {
		t.Errorf("entry 3: %d in, %d out", es[2].InputTokens, es[2].OutputTokens)
	}
}

func TestTraceErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format TraceFormat
		in     string
		want   string
	}{
		{Mooncake, "\n{\"timestamp\": 5, \"output_length\": 2}\n", `t:2: no "input_length"`},
		{Mooncake, "{\"timestamp\": 5,\n", "t:1: bad JSON"},
		{BurstGPT, "Timestamp,Model,Request tokens\n1,x,3\n", `no "Response tokens" column`},
		{BurstGPT, "Timestamp,Request tokens,Response tokens\n1,3,2\n2,3.5,2\n", `t:3: Request tokens "3.5" is not a whole number`},
		{Azure, "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,3,2\n", `t:2: TIMESTAMP "yesterday" is not a date`},
		{Azure, "TIMESTAMP,ContextTokens,GeneratedTokens\n0001-01-01 00:00:00,3,2\n9999-12-31 23:59:59,3,2\n", `t:3: TIMESTAMP "9999-12-31 23:59:59" is more than 292 years`},
		{Azure, "TIMESTAMP,ContextTokens,GeneratedTokens\n9999-12-31 23:59:59,3,2\n0001-01-01 00:00:00,3,2\n", `t:3: TIMESTAMP "0001-01-01 00:00:00" is more than 292 years`},
		{"sharegpt", "", "unknown trace format"},
	} {
		_, err := ReadTrace(strings.NewReader(c.in), "t", c.format, func(TraceRequest) error { return nil }, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want %q", c.format, c.in, err, c.want)
		}
	}
	// Equal hash ids must name equal prefixes.
	tok, _ := LoadTokenizer("cl100k_base")
	b := TraceBuilder{Tok: tok, Name: "t", BlockTokens: 16}
	in := "{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 2, \"hash_ids\": [1, 2, 3]}\n{\"timestamp\": 1, \"input_length\": 40, \"output_length\": 2, \"hash_ids\": [7, 2, 3]}\n"
	_, err := b.Build(context.Background(), func(emit func(TraceRequest) error) error {
		_, err := ReadTrace(strings.NewReader(in), "t", Mooncake, emit, nil)
		return err
	}, func(Entry) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "t:2: hash id 2 is block 2 here but was block 2 (after id 1)") {
		t.Errorf("inconsistent hash ids: %v", err)
	}
}

// encode is tok's ids of s; a failure fails the test.
func encode(t *testing.T, tok Tokenizer, s string) []int {
	t.Helper()
	ids, err := tok.Encode(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
