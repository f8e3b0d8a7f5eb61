package workload

import (
	"strings"
	"testing"
)

func otlpLine(spans string) string {
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + spans + `]}]}]}` + "\n"
}

func chatSpan(trace, id string, start, end int64, in, out int) string {
	return `{"traceId":"` + trace + `","spanId":"` + id + `","name":"chat m","startTimeUnixNano":"` + itoa(start) + `","endTimeUnixNano":"` + itoa(end) +
		`","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"` +
		itoa(int64(in)) + `"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"` + itoa(int64(out)) + `"}}]}`
}

func itoa(v int64) string { return fmtInt(v) }

func fmtInt(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// TestReadAgentTraceLinks: a chain waits for its previous call with the
// recorded gap; two overlapping calls wait for the same parent and not for
// each other; a call after both waits for both (and not for their parent,
// which they are behind); sessions never wait on each other; tool spans are
// not calls.
func TestReadAgentTraceLinks(t *testing.T) {
	t.Parallel()
	const ms = int64(1e6)
	t0 := int64(1_750_000_000_000_000_000)
	in := otlpLine(chatSpan("A", "a1", t0, t0+100*ms, 10, 2)+","+
		chatSpan("A", "a2", t0+150*ms, t0+250*ms, 11, 2)+","+ // after a1, 50 ms
		chatSpan("A", "a3", t0+160*ms, t0+300*ms, 12, 2)+","+ // after a1, 60 ms; overlaps a2
		chatSpan("A", "a4", t0+320*ms, t0+400*ms, 13, 2)+","+ // after a2 (70) and a3 (20)
		`{"traceId":"A","spanId":"t","name":"execute_tool x","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}}]}`) +
		otlpLine(chatSpan("B", "b1", t0+200*ms, t0+210*ms, 14, 2))
	steps, err := ReadAgentTrace(strings.NewReader(in), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range steps {
		var deps []string
		for _, a := range s.After {
			deps = append(deps, a.ID+"+"+fmtInt(int64(a.DelayMS)))
		}
		got[s.SpanID] = strings.Join(deps, " ")
	}
	want := map[string]string{"a1": "", "a2": "a1+50", "a3": "a1+60", "a4": "a2+70 a3+20", "b1": ""}
	if len(steps) != 5 {
		t.Fatalf("%d steps, want 5", len(steps))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s waits for %q, want %q", id, got[id], w)
		}
	}
}

// TestReadAgentTraceErrors name the file and the line.
func TestReadAgentTraceErrors(t *testing.T) {
	t.Parallel()
	good := otlpLine(chatSpan("A", "a1", 5e18/5, 5e18/5+1, 10, 2))
	for _, c := range []struct{ in, want string }{
		{good + "{not json}\n", "t.jsonl:2: not an OTLP JSON"},
		{good + otlpLine(chatSpan("A", "a2", 1e18, 1e18+1, 0, 2)), "t.jsonl:2: span a2"},
		{good + otlpLine(chatSpan("A", "a2", 1e18+5, 1e18, 3, 2)), "end ≥ start"},
		{good + `{"resourceSpans": [` + "\n", "t.jsonl:2: the JSON object that starts here does not end"},
		{otlpLine(""), "t.jsonl: no GenAI model-call spans"},
	} {
		if _, err := ReadAgentTrace(strings.NewReader(c.in), "t.jsonl"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}
