package workload

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// readAll reads in with the reader of format and returns the prompts.
func readFormat(t *testing.T, format, in string) ([]Prompt, error) {
	t.Helper()
	r := strings.NewReader(in)
	switch format {
	case "sharegpt":
		s := &ShareGPT{R: r, Name: "in.json"}
		return collect(t, s.Read)
	case "jsonl":
		return collect(t, func(emit func(Prompt) error) error { return ReadJSONL(r, "in.jsonl", emit) })
	default:
		return collect(t, func(emit func(Prompt) error) error { return ReadCSV(r, "in.csv", emit) })
	}
}

var sampleInputs = map[string]string{
	"sharegpt": "[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"héllo\"}, {\"from\": \"gpt\", \"value\": \"hi\"}]}\n]\n",
	"jsonl":    "{\"prompt\": \"héllo\"}\n",
	"csv":      "prompt,output_tokens\nhéllo,5\n",
}

// A UTF-8 byte order mark at the start of a file is allowed in every format.
func TestInputBOM(t *testing.T) {
	t.Parallel()
	for format, in := range sampleInputs {
		ps, err := readFormat(t, format, "\xEF\xBB\xBF"+in)
		if err != nil || len(ps) != 1 || ps[0].Text != "héllo" {
			t.Errorf("%s with a BOM: %+v, %v", format, ps, err)
		}
	}
}

// Invalid UTF-8 is an error naming the line, not silently replaced.
func TestInputInvalidUTF8(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"sharegpt": "[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"ok\"}, {\"from\": \"gpt\", \"value\": \"hi\"}]},\n{\"conversations\": [{\"from\": \"human\", \"value\": \"b\xffd\"}, {\"from\": \"gpt\", \"value\": \"hi\"}]}\n]\n",
		"jsonl":    "{\"prompt\": \"ok\"}\n{\"prompt\": \"b\xffd\"}\n",
		"csv":      "prompt\nok\nb\xffd\n",
	}
	want := map[string]string{"sharegpt": "in.json:3: invalid UTF-8", "jsonl": "in.jsonl:2: invalid UTF-8", "csv": "in.csv:3: invalid UTF-8"}
	for format, in := range bad {
		if _, err := readFormat(t, format, in); err == nil || !strings.Contains(err.Error(), want[format]) {
			t.Errorf("%s: got %v, want %q", format, err, want[format])
		}
	}
	// A multi-byte character split across reads is not invalid.
	in := "{\"prompt\": \"" + strings.Repeat("é", 70000) + "\"}\n"
	if ps, err := readFormat(t, "jsonl", in); err != nil || len(ps) != 1 {
		t.Errorf("long valid line: %d prompts, %v", len(ps), err)
	}
}

// An entry longer than MaxEntryBytes stops the read with its line and the
// limit, before it is held in memory whole.
func TestInputEntryLimit(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("w", int(MaxEntryBytes)+1)
	limit := fmt.Sprintf("limit of %d bytes", MaxEntryBytes)
	for format, c := range map[string]struct{ in, want string }{
		"sharegpt": {"[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"q\"}, {\"from\": \"gpt\", \"value\": \"a\"}]},\n\n{\"conversations\": [{\"from\": \"human\", \"value\": \"q\"}, {\"from\": \"gpt\", \"value\": \"" + big + "\"}]}\n]\n", "in.json:4: conversation 2: an entry longer than the " + limit},
		"jsonl":    {"{\"prompt\": \"q\"}\n{\"prompt\": \"" + big + "\"}\n", "in.jsonl:2: line longer than the " + limit},
		"csv":      {"prompt\nq\n\"" + big + "\"\n", "in.csv:3: an entry longer than the " + limit},
	} {
		ps, err := readFormat(t, format, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", format, err, c.want)
		}
		if len(ps) != 1 {
			t.Errorf("%s: %d prompts before the long one, want 1", format, len(ps))
		}
	}
}

// Anything after the ShareGPT array, or after a JSONL line's object, is an
// error; whitespace is not.
func TestInputTrailingData(t *testing.T) {
	t.Parallel()
	sg := sampleInputs["sharegpt"]
	if _, err := readFormat(t, "sharegpt", sg+"\n\n  \n"); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
	for _, tail := range []string{"x", "[]", "{}", "]"} {
		_, err := readFormat(t, "sharegpt", sg+tail)
		if err == nil || !strings.Contains(err.Error(), "in.json:4:") {
			t.Errorf("ShareGPT followed by %q: %v", tail, err)
		}
	}
	if _, err := readFormat(t, "jsonl", "{\"prompt\": \"a\"} x\n"); err == nil || !strings.Contains(err.Error(), "in.jsonl:1: bad JSON line") {
		t.Errorf("JSONL trailing data: %v", err)
	}
}

// A line break inside a quoted CSV field is read as "\n", also where the
// file has "\r\n" (Go's encoding/csv; docs/dataset.md says so).
func TestCSVQuotedLineBreak(t *testing.T) {
	t.Parallel()
	ps, err := readFormat(t, "csv", "prompt,id\r\n\"one\r\ntwo\nthree\",a\r\n")
	if err != nil || len(ps) != 1 || ps[0].Text != "one\ntwo\nthree" || ps[0].ID != "a" {
		t.Fatalf("%+v, %v", ps, err)
	}
}

// The builder counts on several goroutines but emits in input order, stops
// after Requests entries, and reports the first error in input order.
func TestBuilderOrderAndErrors(t *testing.T) {
	t.Parallel()
	tok := loadT(t, "cl100k_base")
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, "{\"id\": \"p%d\", \"prompt\": %q}\n", i, strings.Repeat(" word", i%37+1))
	}
	read := func(s string) func(func(Prompt) error) error {
		return func(emit func(Prompt) error) error { return ReadJSONL(strings.NewReader(s), "p.jsonl", emit) }
	}
	for _, workers := range []int{1, 2, 7} {
		var got []Entry
		b := Builder{Tok: tok, Name: "p.jsonl", Output: FixedDist(3), Workers: workers}
		st, err := b.Build(context.Background(), read(in.String()), func(e Entry) error { got = append(got, e); return nil })
		if err != nil || st.Entries != 300 || len(got) != 300 {
			t.Fatalf("%d workers: %d entries, %v", workers, st.Entries, err)
		}
		for i, e := range got {
			if e.ID != fmt.Sprintf("p%d", i) || e.InputTokens != i%37+1 {
				t.Fatalf("%d workers: entry %d is %s with %d tokens", workers, i, e.ID, e.InputTokens)
			}
		}
		b.Requests = 5
		got = got[:0]
		if st, err := b.Build(context.Background(), read(in.String()), func(e Entry) error { got = append(got, e); return nil }); err != nil || st.Entries != 5 || len(got) != 5 || got[4].ID != "p4" {
			t.Fatalf("%d workers, 5 requests: %d entries, %v", workers, st.Entries, err)
		}
	}
	bad := "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{nope\n"
	var n int
	_, err := Builder{Tok: tok, Name: "p.jsonl", Output: FixedDist(3)}.Build(context.Background(), read(bad), func(Entry) error { n++; return nil })
	if err == nil || !strings.Contains(err.Error(), "p.jsonl:3: bad JSON line") || n != 2 {
		t.Errorf("bad third line: %d entries, %v", n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Builder{Tok: tok, Name: "p.jsonl", Output: FixedDist(3)}).Build(ctx, read(in.String()), func(Entry) error { return nil }); err != context.Canceled {
		t.Errorf("canceled build: %v", err)
	}
	// ShareGPT answers with no tokens are skipped and counted.
	sg := "[{\"conversations\": [{\"from\": \"human\", \"value\": \"q\"}, {\"from\": \"gpt\", \"value\": \"\"}]}, {\"conversations\": [{\"from\": \"human\", \"value\": \"q\"}, {\"from\": \"gpt\", \"value\": \"a b\"}]}]"
	s := &ShareGPT{R: strings.NewReader(sg), Name: "sg.json"}
	st, err := Builder{Tok: tok, Name: "sg.json"}.Build(context.Background(), s.Read, func(e Entry) error {
		if e.OutputTokens != 2 {
			t.Errorf("output tokens %d, want 2", e.OutputTokens)
		}
		return nil
	})
	if err != nil || st.Entries != 1 || st.Skipped != 1 {
		t.Errorf("ShareGPT with an empty answer: %+v, %v", st, err)
	}
}
