package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestReadRefusesNegativeCounts: a count below zero (or more non-zero
// samples than samples) cannot come from a summary; Read refuses the line,
// naming the file, the line and the field.
func TestReadRefusesNegativeCounts(t *testing.T) {
	good := mockRun{seed: 1, n: 300, medianMs: 400, sigma: 0.5, scale: 1, failRate: 0.1}.record(t, "v1")
	if len(good.Groups) == 0 || len(good.Groups[0].Trends) == 0 || len(good.Groups[0].Rates) == 0 {
		t.Fatalf("the fixture has no trend or rate: %+v", good)
	}
	for _, tt := range []struct {
		name  string
		spoil func(r *Record)
		field string
	}{
		{"trend count", func(r *Record) { r.Groups[0].Trends[0].Count = -5 }, "groups[0].trends[0].count (llm_ttft) is -5"},
		{"percentile min_samples", func(r *Record) { r.Groups[0].Trends[0].Percentiles[1].MinSamples = -1 },
			"groups[0].trends[0].percentiles[1].min_samples (llm_ttft p(90)) is -1"},
		{"percentile rank", func(r *Record) { r.Groups[0].Trends[0].Percentiles[0].Rank = -2 },
			"groups[0].trends[0].percentiles[0].rank (llm_ttft p(50)) is -2"},
		{"rate count", func(r *Record) { r.Groups[0].Rates[0].Count = -1 }, "groups[0].rates[0].count (llm_requests_failed) is -1"},
		{"rate non_zero", func(r *Record) { r.Groups[0].Rates[0].NonZero = -3 }, "groups[0].rates[0].non_zero (llm_requests_failed) is -3"},
		{"non_zero above count", func(r *Record) { r.Groups[0].Rates[0].NonZero = r.Groups[0].Rates[0].Count + 1 },
			"groups[0].rates[0].non_zero (llm_requests_failed) is above its count"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := cloneRecord(t, good)
			tt.spoil(&bad)
			var file bytes.Buffer
			for _, r := range []Record{good, bad} {
				line, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				file.Write(append(line, '\n'))
			}
			_, err := Read(&file, "runs.jsonl", ReadOptions{})
			if err == nil {
				t.Fatalf("read a record with %s", tt.field)
			}
			if msg := err.Error(); !strings.Contains(msg, "runs.jsonl:2") || !strings.Contains(msg, tt.field) {
				t.Errorf("error %q: want it to name runs.jsonl:2 and say %q", msg, tt.field)
			}
		})
	}
}

func cloneRecord(t *testing.T, r Record) Record {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var c Record
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}
