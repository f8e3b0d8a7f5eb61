package rundata

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

type testItem struct{ r records.Record }

func (it *testItem) AppendRecord(b []byte) []byte { return records.AppendJSON(b, &it.r) }
func (it *testItem) Size() int                    { return 100 }

// TestRecordsCutFile reads a records file cut in its last line: the records
// before the cut are read and the damage is reported.
func TestRecordsCutFile(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := records.NewWriter(&buf, false, records.Options{})
	for i := range 10 {
		ttft := int64(1000000 * (i + 1))
		w.Submit(&testItem{records.Record{V: records.Version, ID: "1-1", StartNS: 1e18, E2ENS: 2e7, TTFTNS: &ttft,
			TextNS: []int64{ttft, 2e6, 3e6}, OutputTokens: 3, TokenSource: "events", Model: "m", API: "openai-chat", Status: 200}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	cut := bytes.LastIndex(data[:bytes.LastIndex(data, []byte(`{"end"`))-1], []byte("\n")) + 20
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	r := NewReader(Selection{Metrics: []string{"llm_ttft", "llm_itl"}}, []Input{{Path: path, Label: "cut"}}, Options{Warn: &warn})
	d, err := Collect(r, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ttft, itl := d.Series("llm_ttft"), d.Series("llm_itl")
	if len(ttft) != 1 || ttft[0].Trend.Count() != 9 || itl[0].Trend.Count() != 18 {
		t.Fatalf("read %v ttft series, want 9 requests before the cut", ttft)
	}
	if !strings.Contains(warn.String(), "cut short") {
		t.Fatalf("no damage warning: %q", warn.String())
	}
	if got := ttft[0].Trend.Sorted(); got[0] != 1 || got[8] != 9 {
		t.Fatalf("TTFT values %v", got)
	}
}
