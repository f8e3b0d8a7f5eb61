package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetFromTraces: every trace format through the command gives
// entries with their send times; skipped requests are named; trace-only
// flags are refused elsewhere.
func TestDatasetFromTraces(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, format string
		n            int
		note         string
	}{
		{"mooncake.jsonl", "mooncake", 5, ""},
		{"bailian.jsonl", "bailian", 4, ""},
		{"burstgpt.csv", "burstgpt", 3, "skipped 1 trace requests with no input or no output tokens, first: workload/testdata/trace/burstgpt.csv:3"},
		{"azure.csv", "azure", 3, ""},
	} {
		out, stderr, err := runDatasetT(t, "--input", "workload/testdata/trace/"+c.file, "--format", c.format)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		es := readEntries(t, out)
		if len(es) != c.n || !strings.Contains(stderr, c.note) {
			t.Errorf("%s: %d entries, stderr %q; want %d and %q", c.file, len(es), stderr, c.n, c.note)
		}
		for i, e := range es {
			if e.AtMS == nil || (i > 0 && *e.AtMS < *es[i-1].AtMS) {
				t.Errorf("%s: entry %d at_ms %v", c.file, i+1, e.AtMS)
			}
		}
	}
	// Only the first --requests; --block-tokens 0 ignores hash_ids.
	out, _, err := runDatasetT(t, "--input", "workload/testdata/trace/mooncake.jsonl", "--format", "mooncake", "--requests", "2", "--block-tokens", "0")
	if err != nil {
		t.Fatal(err)
	}
	if es := readEntries(t, out); len(es) != 2 || es[0].PrefixTokens != 0 {
		t.Errorf("--requests 2 --block-tokens 0: %d entries, prefix %d", len(es), es[0].PrefixTokens)
	}
	if _, _, err := runDatasetT(t, "--input", "workload/testdata/trace/burstgpt.csv", "--format", "csv", "--block-tokens", "16"); err == nil || !strings.Contains(err.Error(), "--block-tokens applies to request traces") {
		t.Errorf("--block-tokens without a trace: %v", err)
	}
}

// TestDatasetSortsUnsortedTrace: a trace concatenated from two collectors
// is sorted by time, and the summary says how many requests were out of
// order.
func TestDatasetSortsUnsortedTrace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "two.jsonl")
	in := `{"timestamp": 0, "input_length": 10, "output_length": 2}
{"timestamp": 300, "input_length": 11, "output_length": 2}
{"timestamp": 100, "input_length": 12, "output_length": 2}
{"timestamp": 400, "input_length": 13, "output_length": 2}
`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runDatasetT(t, "--input", path, "--format", "mooncake")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range readEntries(t, out) {
		got = append(got, fmt.Sprint(e.InputTokens, "@", *e.AtMS))
	}
	if strings.Join(got, " ") != "10@0 12@100 11@300 13@400" {
		t.Errorf("entries %v, want 10@0 12@100 11@300 13@400", got)
	}
	if !strings.Contains(stderr, "sorted the trace by time: 1 of 4 requests were out of time order") {
		t.Errorf("stderr %q: no note of the sort", stderr)
	}
}

// TestDatasetFromAgentTrace: --format otlp-genai builds the sample agent
// trace (scripts/data/agent-trace.otlp.jsonl) into one entry per model call
// with its session and step and the calls it waits for; --requests cannot
// cut an agent trace; a bad span names the file and line.
func TestDatasetFromAgentTrace(t *testing.T) {
	t.Parallel()
	out, _, err := runDatasetT(t, "--input", "../scripts/data/agent-trace.otlp.jsonl", "--format", "otlp-genai")
	if err != nil {
		t.Fatal(err)
	}
	es := readEntries(t, out)
	sessions, waits := map[string]bool{}, 0
	for _, e := range es {
		sessions[e.Tags["agent_session"]] = true
		waits += len(e.After)
		if e.AtMS == nil || e.Tags["agent_step"] == "" {
			t.Errorf("%s: at_ms %v, tags %v", e.ID, e.AtMS, e.Tags)
		}
	}
	if len(es) != 101 || len(sessions) != 24 || waits != 85 {
		t.Errorf("%d entries, %d sessions, %d dependencies; want 101, 24, 85", len(es), len(sessions), waits)
	}
	if _, _, err := runDatasetT(t, "--input", "../scripts/data/agent-trace.otlp.jsonl", "--format", "otlp-genai", "--requests", "5"); err == nil || !strings.Contains(err.Error(), "built whole") {
		t.Errorf("--requests 5: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.otlp.jsonl")
	if err := os.WriteFile(bad, []byte("\n{\"resourceSpans\": 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runDatasetT(t, "--input", bad, "--format", "otlp-genai"); err == nil || !strings.Contains(err.Error(), bad+":2:") {
		t.Errorf("bad file: %v", err)
	}
}
