package definitions

import (
	"math"
	"os"
	"slices"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// readRun reads the hand-made records file: request a has a role-only first
// chunk (first event at 100 ms, first text at 150 ms, first answer text
// after its reasoning at 170 ms), multi-token chunks (text at 150, 170, 210,
// 220 ms carrying 1, 2, 4, 1 tokens; 8 tokens by usage, 9 by the tokenizer's
// audit; e2e 250 ms) and was scheduled 35 ms before it was sent; request b
// has one token per chunk (text at 80, 110, 140 ms; 3 tokens; e2e 150 ms);
// request c failed.
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

func within(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func sorted(xs ...float64) []float64 {
	slices.Sort(xs)
	return xs
}

// handComputed is each tool's formula, as its release computes it, worked by
// hand on requests a and b (ms).
var handComputed = map[Tool]map[string][]float64{
	// Ours: TTFT at the first text; ITL per token (a k-token gap is k
	// samples of gap/k: 20/2, 40/4, 10/1 → seven 10s; b's 30, 30); TPOT
	// (e2e − ttft)/(n − 1), rounded to the µs: 100/7 → 14.286, 70/2.
	Ours: {TTFT: sorted(150, 80), ITL: sorted(10, 10, 10, 10, 10, 10, 10, 30, 30), TPOT: sorted(14.286, 35), E2E: sorted(250, 150)},
	// vLLM: TTFT at the first chunk with choices (the role-only chunk at
	// 100); ITL every chunk gap after it, unsplit (150−100, 20, 40, 10;
	// 30, 30); TPOT (latency − ttft)/(n − 1), latency at the last chunk:
	// (220−100)/7, (140−80)/2; E2EL 220, 140; with the client queue (a was
	// scheduled 35 ms before its send) 255; b has no schedule.
	VLLM: {TTFT: sorted(100, 80), ITL: sorted(50, 20, 40, 10, 30, 30), TPOT: sorted(120.0/7, 30), E2E: sorted(220, 140), E2EQueue: {255}},
	// AIPerf 0.8.0: TTFT the first content (150, 80), TTFO the first answer
	// content (170; b has no reasoning: 80); ITL (request latency − ttft) /
	// (n − 1), request latency at the last content: 70/7, 60/2; ICL every
	// content gap; request latency 220, 140.
	AIPerf: {TTFT: sorted(150, 80), TTFO: sorted(170, 80), ITL: sorted(10, 30), ICL: sorted(20, 40, 10, 30, 30), E2E: sorted(220, 140)},
	// GuideLLM v0.7.3: ITL (last − first token)/(n − 1): 70/7, 60/2; TPOT
	// (last token − request start)/n: 220/8, 140/3; request latency = e2e.
	GuideLLM: {TTFT: sorted(150, 80), ITL: sorted(10, 30), TPOT: sorted(27.5, 140.0/3), E2E: sorted(250, 150)},
	// inference-perf v0.6.1: a's tokens at 150, 170 170, 210 210 210 210,
	// 220: ITL 20 0 40 0 0 0 10; b's 30 30; TPOT (last − first)/(n − 1) with
	// the tokenizer's n: 70/8, 60/2; NTPOT e2e/n: 250/9, 150/3.
	InferencePerf: {TTFT: sorted(150, 80), ITL: sorted(20, 0, 40, 0, 0, 0, 10, 30, 30), TPOT: sorted(8.75, 30), NTPOT: sorted(250.0/9, 50), E2E: sorted(250, 150)},
	// LLMPerf: ITL = the last content chunk over the tokenizer's count:
	// 220/9, 140/3.
	LLMPerf: {TTFT: sorted(150, 80), ITL: sorted(220.0/9, 140.0/3)},
	// SGLang: ITL the content chunks' gaps, unsplit; TPOT (e2e − ttft)/(n − 1).
	SGLang: {TTFT: sorted(150, 80), ITL: sorted(20, 40, 10, 30, 30), TPOT: sorted(100.0/7, 35)},
}

// sameFormula groups the rows whose tools define them by the same formula
// on what records hold: only rows of one group may be equal on the test
// records; a row in no group must differ from every other row.
var sameFormula = [][]string{
	// the first content (text or reasoning) chunk
	{"llmstream/ttft", "aiperf/ttft", "guidellm/ttft", "inference-perf/ttft", "llmperf/ttft", "sglang/ttft"},
	{"aiperf/itl", "guidellm/itl"},                          // (last − first content)/(N − 1)
	{"aiperf/icl", "sglang/itl"},                            // content-chunk gaps
	{"aiperf/e2e", "vllm/e2e"},                              // to the last content chunk (records hold no trailing chunk)
	{"llmstream/e2e", "guidellm/e2e", "inference-perf/e2e"}, // start to end
	{"llmstream/tpot", "sglang/tpot"},                       // (e2e − ttft)/(N − 1)
}

// TestEachToolsPublishedFormula: each tool's values are what a hand
// computation of its release's formula gives on the same two requests.
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
	for _, tool := range Tools {
		want := handComputed[tool]
		defs := Definitions(tool)
		if len(defs) != len(want) {
			t.Errorf("%s defines %d quantities, the hand computation %d", tool, len(defs), len(want))
		}
		for _, d := range defs {
			if got := pooled(c, tool, d.Quantity); !near(got, want[d.Quantity]) {
				t.Errorf("%s %s %v, want %v", tool, d.Quantity, got, want[d.Quantity])
			}
			if d.Source == "" || d.Text == "" {
				t.Errorf("%s %s: no definition or no source release", tool, d.Quantity)
			}
		}
	}
	for _, r := range rep.Rows {
		if r.Source == "" {
			t.Errorf("row %s/%s names no release", r.Tool, r.Quantity)
		}
		if r.Tool == VLLM && r.Quantity == TTFT && (r.P50 == nil || *r.P50 != 90) {
			t.Errorf("vLLM TTFT p50 %v, want 90 (k6's p(50) of 80, 100)", r.P50)
		}
	}
}

// TestEveryPairDiffers: on the test records, any two rows of the same
// quantity whose formulas differ give different values, so a test above
// that passes could not pass with one tool's formula in another's row.
func TestEveryPairDiffers(t *testing.T) {
	t.Parallel()
	c := readRun(t)
	same := map[[2]string]bool{}
	for _, g := range sameFormula {
		for _, x := range g {
			for _, y := range g {
				same[[2]string{x, y}] = true
			}
		}
	}
	type key struct {
		name string
		xs   []float64
	}
	byQuantity := map[string][]key{}
	for _, tool := range Tools {
		for _, d := range Definitions(tool) {
			q := d.Quantity
			switch q { // the per-token quantities are compared together
			case ITL, ICL, TPOT, NTPOT:
				q = "per-token"
			case TTFO:
				q = TTFT
			case E2EQueue:
				q = E2E
			}
			byQuantity[q] = append(byQuantity[q], key{string(tool) + "/" + d.Quantity, pooled(c, tool, d.Quantity)})
		}
	}
	for q, ks := range byQuantity {
		for i := range ks {
			for j := i + 1; j < len(ks); j++ {
				equal := within(ks[i].xs, ks[j].xs, 1e-3) // ours are rounded to the µs
				if pair := [2]string{ks[i].name, ks[j].name}; equal != same[pair] {
					t.Errorf("%s: %s %v and %s %v: equal %v, same formula %v", q, ks[i].name, ks[i].xs, ks[j].name, ks[j].xs, equal, same[pair])
				}
			}
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
	got, err := Parse("vllm, aiperf,guidellm,inference-perf,llmperf,sglang,vllm")
	if err != nil || !slices.Equal(got, Tools) {
		t.Errorf("Parse: %v, %v", got, err)
	}
	if _, err := Parse("vllm,genai-perf"); err == nil {
		t.Errorf("an unknown tool was accepted")
	}
}
