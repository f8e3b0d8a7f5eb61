package moduletest

import (
	"github.com/llmstream/xk6-llmstream/internal/input"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/definitions"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/testkit/k6sim"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/helper"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/mockllm"
)

// TestTokenAuditOverReportingMock: a mock that over-reports usage by 10 % is
// flagged per request (each request's llm_output_token_mismatch sample in k6
// and its record's audit) and in the summary's token audit; the same run's
// honest model is not. The mock echoes a prompt of words that are one
// cl100k_base token each, so its true count is the tokenizer's.
func TestTokenAuditOverReportingMock(t *testing.T) {
	t.Parallel()
	honest := fixedModel(time.Millisecond, time.Millisecond, 30)
	honest.Echo = true
	over := honest
	over.UsageOverReport = 0.1
	mockURL := startMock(t, mockllm.Config{Seed: 3, Default: honest, Models: map[string]mockllm.ModelConfig{"over": over}})
	recFile := filepath.Join(t.TempDir(), "audit.records.jsonl")
	rw, err := helper.CreateRecords(recFile)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := helper.Start("127.0.0.1:0", helper.WithRecords(rw))
	if err != nil {
		t.Fatal(err)
	}
	path := script(t, `
const mk = (model) => new Client({ baseURL: __ENV.LLM_BASE_URL, apiKey: __ENV.KEY, model: model,
  tokenAudit: { tokenizer: 'cl100k_base' }, tags: { which: model } });
const honest = mk('honest');
const over = mk('over');
export default function () {
  const p = { messages: [{ role: 'user', content: 'the cat sat on a mat and then the dog ran to the park' }], max_tokens: 30 };
  honest.chat(p);
  over.chat(p);
}
`)
	res := run(t, path, map[string]string{"LLMSTREAM_HELPER": hs.URL(), "LLM_BASE_URL": mockURL, "KEY": testKey}, k6sim.Config{VUs: 2, Iterations: 6}, false)
	if err := hs.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := helper.CloseRecords(rw); err != nil {
		t.Fatal(err)
	}
	// Per request, in k6: every over-reporting request 1, every honest one 0.
	n := map[string][2]int{}
	for _, s := range res.Samples {
		if s.Metric != metrics.OutputTokenMismatch {
			continue
		}
		c := n[s.Tags["which"]]
		c[int(s.Value)]++
		n[s.Tags["which"]] = c
	}
	if n["honest"] != [2]int{6, 0} || n["over"] != [2]int{0, 6} {
		t.Fatalf("llm_output_token_mismatch samples by model [0s, 1s]: %v; want honest [6 0], over [0 6]", n)
	}
	// Per request, in the records, and the summary's section.
	f, err := input.Open(recFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := definitions.New(nil)
	over33 := 0
	if _, err := records.ScanWith(f, records.ScanOptions{}, func(r *records.Record) error {
		if r.TokenAudit == nil || r.TokenAudit.Counted != 30 {
			t.Errorf("record %s: audit %+v, want 30 tokens counted", r.ID, r.TokenAudit)
		}
		if r.OutputTokens == 33 {
			over33++
		}
		c.Add(r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a := c.Audit()
	if over33 != 6 || a == nil || a.Judged != 12 || a.Mismatched != 6 || a.Reported != 6*30+6*33 || a.Counted != 12*30 {
		t.Fatalf("records reporting 33 tokens: %d; audit %+v", over33, a)
	}
	_ = os.Remove(recFile)
}
