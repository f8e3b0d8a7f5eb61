package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const defsRecords = "definitions/testdata/run.records.jsonl"

// summary --definitions adds every tool's rows to text, markdown and JSON.
func TestSummaryDefinitions(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, nil, "summary", "--definitions", "vllm,aiperf,guidellm,llmperf,sglang", defsRecords)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	vllmRow := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		vllmRow = vllmRow || len(f) > 4 && f[0] == "vllm" && f[1] == "ttft" && f[2] == "2" && f[3] == "90" && f[4] == "90"
	}
	if !vllmRow || !strings.Contains(out, "vllm main@") {
		t.Errorf("text output lacks vLLM's TTFT row (n 2, mean 90, p50 90) or its release:\n%s", out)
	}
	for _, want := range []string{"definitions: every tool's TTFT, ITL, TPOT and e2e of the same 2 requests",
		"1 of 2 requests had a first event without text",
		"text events per token: 0.6364"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = run(t, nil, "summary", "--format", "markdown", "--definitions", "all", defsRecords)
	if code != 0 || !strings.Contains(out, "### definitions:") || !strings.Contains(out, "| guidellm | tpot |") {
		t.Errorf("markdown: exit %d %s\n%s", code, errOut, out)
	}
	code, out, errOut = run(t, nil, "summary", "--format", "json", "--definitions", "all", defsRecords)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var doc struct {
		Metrics     []json.RawMessage `json:"metrics"`
		Definitions struct {
			Requests int `json:"requests"`
			Rows     []struct {
				Tool     string   `json:"tool"`
				Quantity string   `json:"quantity"`
				P50      *float64 `json:"p50_ms"`
			} `json:"rows"`
		} `json:"definitions"`
		TokenAudit *struct {
			Judged int `json:"judged"`
		} `json:"token_audit"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(doc.Metrics) == 0 || doc.Definitions.Requests != 2 || len(doc.Definitions.Rows) != 28 || doc.TokenAudit == nil || doc.TokenAudit.Judged != 2 {
		t.Errorf("json: %d metrics, definitions %+v, audit %+v", len(doc.Metrics), doc.Definitions, doc.TokenAudit)
	}
	for _, r := range doc.Definitions.Rows {
		if r.Tool == "vllm" && r.Quantity == "ttft" && (r.P50 == nil || *r.P50 != 90) {
			t.Errorf("json vllm ttft p50 %v, want 90", r.P50)
		}
	}
}

// --definitions without a records file, or with an unknown tool, is a usage
// error that says what is missing.
func TestSummaryDefinitionsRefusals(t *testing.T) {
	t.Parallel()
	k6File := filepath.Join(t.TempDir(), "k6.json")
	if err := os.WriteFile(k6File, []byte(`{"type":"Metric","metric":"llm_ttft","data":{"name":"llm_ttft","type":"trend","contains":"time","thresholds":[]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, nil, "summary", "--definitions", "vllm", k6File)
	if code != 2 || !strings.Contains(errOut, "needs a records file") {
		t.Errorf("k6 JSON only: exit %d, %s", code, errOut)
	}
	code, _, errOut = run(t, nil, "summary", "--definitions", "vllm,genai-perf", defsRecords)
	if code != 2 || !strings.Contains(errOut, `unknown tool "genai-perf"`) {
		t.Errorf("unknown tool: exit %d, %s", code, errOut)
	}
}

// A run whose server over-reports usage is flagged in the summary: the
// llm_output_token_mismatch rate and the token audit's MISMATCH line, naming
// the request.
func TestSummaryFlagsOverReportedUsage(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(defsRecords)
	if err != nil {
		t.Fatal(err)
	}
	// Request b's server now says 33 tokens of a text the tokenizer counts as 30.
	s := strings.Replace(string(raw), `"output_tokens":3,"input_tokens":5,"token_source":"usage","events":5,"bytes":600,"token_audit":{"tokenizer":"cl100k_base","counted":3`,
		`"output_tokens":33,"input_tokens":5,"token_source":"usage","events":5,"bytes":600,"token_audit":{"tokenizer":"cl100k_base","counted":30`, 1)
	if s == string(raw) {
		t.Fatal("the test's edit of the records did not apply")
	}
	path := filepath.Join(t.TempDir(), "over.records.jsonl")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, nil, "summary", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"llm_output_token_mismatch (rate)", "all        2         1  50.00%",
		"MISMATCH: 50.00% of judged requests report usage that differs from the tokenizer's count (llm_output_token_mismatch); first: b"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
