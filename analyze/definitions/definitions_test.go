package definitions

import (
	"math"
	"os"
	"slices"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// readRun reads the hand-made records file: request a has a role-only first
// chunk (first event at 100 ms, first text at 150 ms) and multi-token chunks
// (text at 150, 170, 210, 220 ms carrying 1, 2, 4, 1 tokens; 8 tokens by
// usage; e2e 250 ms); request b has one token per chunk (text at 80, 110,
// 140 ms; 3 tokens; e2e 150 ms); request c failed.
func readRun(t *testing.T) *Collector {
	t.Helper()
	f, err := os.Open("testdata/run.records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := New(Tools)
	if _, err := records.ScanWith(f, records.ScanOptions{}, func(r *records.Record) error {
		c.Add(r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// pooled returns every value the collector gathered for a tool's quantity.
func pooled(c *Collector, tool Tool, q string) []float64 {
	xs := slices.Clone(c.vals[tool][q])
	slices.Sort(xs)
	return xs
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func sorted(xs ...float64) []float64 {
	slices.Sort(xs)
	return xs
}

// TestEachToolsPublishedFormula: each tool's values are what a hand
// computation of its published formula gives on the same two requests.
func TestEachToolsPublishedFormula(t *testing.T) {
	t.Parallel()
	c := readRun(t)
	rep := c.Report()
	if rep.Requests != 2 || rep.Skipped != 1 || rep.FirstEventBeforeText != 1 {
		t.Fatalf("requests %d, skipped %d, role-first %d; want 2, 1, 1", rep.Requests, rep.Skipped, rep.FirstEventBeforeText)
	}
	// 7 text events carried 11 tokens.
	if rep.TextEventsPerToken == nil || math.Abs(*rep.TextEventsPerToken-7.0/11) > 1e-12 {
		t.Errorf("text events per token %v, want 7/11", rep.TextEventsPerToken)
	}
	for _, tt := range []struct {
		tool            Tool
		ttft, itl, tpot []float64
	}{
		// Ours: TTFT at the first text; ITL per token (a k-token gap is k
		// samples of gap/k: 20/2, 40/4, 10/1 → seven 10s; b's 30, 30); TPOT
		// (e2e − ttft)/(n − 1), rounded to the µs: 100/7 → 14.286, 70/2.
		{Ours, sorted(150, 80), sorted(10, 10, 10, 10, 10, 10, 10, 30, 30), sorted(14.286, 35)},
		// vLLM: TTFT at the first chunk with choices (the role-only chunk at
		// 100); ITL every chunk gap after it, unsplit (150−100, 20, 40, 10;
		// 30, 30); TPOT (last chunk − ttft)/(n − 1): (220−100)/7, (140−80)/2.
		{VLLM, sorted(100, 80), sorted(50, 20, 40, 10, 30, 30), sorted(120.0/7, 30)},
		// AIPerf: ITL (e2e − ttft)/(n − 1) per request: 100/7, 70/2; no TPOT.
		{AIPerf, sorted(150, 80), sorted(100.0/7, 35), nil},
		// GuideLLM: ITL (last − first token)/(n − 1): 70/7, 60/2; TPOT
		// (last − first)/n: 70/8, 60/3.
		{GuideLLM, sorted(150, 80), sorted(10, 30), sorted(8.75, 20)},
		// LLMPerf: ITL = the sum of the content chunks' gaps from the start
		// (= the last content chunk) over the tokenizer's count: 220/8, 140/3.
		{LLMPerf, sorted(150, 80), sorted(27.5, 140.0/3), nil},
		// SGLang: ITL the content chunks' gaps, unsplit; TPOT (e2e − ttft)/(n − 1).
		{SGLang, sorted(150, 80), sorted(20, 40, 10, 30, 30), sorted(100.0/7, 35)},
	} {
		if got := pooled(c, tt.tool, TTFT); !near(got, tt.ttft) {
			t.Errorf("%s TTFT %v, want %v", tt.tool, got, tt.ttft)
		}
		if got := pooled(c, tt.tool, ITL); !near(got, tt.itl) {
			t.Errorf("%s ITL %v, want %v", tt.tool, got, tt.itl)
		}
		if got := pooled(c, tt.tool, TPOT); !near(got, tt.tpot) {
			t.Errorf("%s TPOT %v, want %v", tt.tool, got, tt.tpot)
		}
	}
	// The report's rows: a tool without a TPOT has no TPOT row.
	for _, r := range rep.Rows {
		if (r.Tool == AIPerf || r.Tool == LLMPerf) && r.Quantity == TPOT {
			t.Errorf("a TPOT row for %s, which defines none", r.Tool)
		}
		if r.Tool == VLLM && r.Quantity == TTFT && (r.P50 == nil || *r.P50 != 90) {
			t.Errorf("vLLM TTFT p50 %v, want 90 (k6's p(50) of 80, 100)", r.P50)
		}
	}
}

// TestAuditSums: the audit section counts judged requests and flags a
// request whose usage is 10 % over the tokenizer's count.
func TestAuditSums(t *testing.T) {
	t.Parallel()
	c := New([]Tool{Ours})
	ttft := int64(1e6)
	for i, usage := range []int{100, 110, 100} {
		counted := 100
		rec := &records.Record{ID: string(rune('a' + i)), Status: 200, TTFTNS: &ttft, TextNS: []int64{ttft}, OutputTokens: usage,
			TokenSource: "usage", TokenAudit: &records.TokenAudit{Tokenizer: "cl100k_base", Counted: counted, Tolerance: 0.05}}
		if i == 2 {
			rec.TokenAudit = &records.TokenAudit{Tokenizer: "cl100k_base", Tolerance: 0.05, Error: "the text has 2000000 bytes, over the audit's limit of 1048576"}
		}
		c.Add(rec)
	}
	a := c.Audit()
	if a == nil || a.Audited != 3 || a.Judged != 2 || a.Mismatched != 1 || a.Reported != 210 || a.Counted != 200 {
		t.Fatalf("audit %+v", a)
	}
	if !slices.Equal(a.MismatchedIDs, []string{"b"}) || len(a.NotCounted) != 1 {
		t.Errorf("mismatched %v, not counted %v", a.MismatchedIDs, a.NotCounted)
	}
	if New(nil).Audit() != nil {
		t.Errorf("an audit section without audits")
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	got, err := Parse("vllm, aiperf,guidellm,llmperf,sglang,vllm")
	if err != nil || !slices.Equal(got, Tools) {
		t.Errorf("Parse: %v, %v", got, err)
	}
	if _, err := Parse("vllm,genai-perf"); err == nil {
		t.Errorf("an unknown tool was accepted")
	}
}
