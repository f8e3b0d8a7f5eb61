package tail

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
)

// TestRead: two files (one gzipped) are one population; failed and warm-up
// records are left out and counted on warn, per file.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := recordstest.SlowInstance(30)
	recs[3].Error = &records.Error{Kind: "http_500"}
	recs[4].Warmup = true
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.gz")
	recordstest.Write(t, a, recs[:10])
	recordstest.Write(t, b, recs[10:])
	var warn strings.Builder
	reqs, err := Read([]string{a, b}, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 28 || reqs[0].Instance != "0" || reqs[27].TTFT != *recs[29].TTFTNS {
		t.Errorf("%d requests, want 28 in order", len(reqs))
	}
	if w := warn.String(); !strings.Contains(w, a+": 2 record(s) without a TTFT") || strings.Contains(w, b) {
		t.Errorf("warnings %q: want 2 records left out of %s, nothing on %s", w, a, b)
	}
}

// TestReadBadInput: every error names the file and is an input error; a
// file cut short is read up to the damage, with a warning.
func TestReadBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k6 := filepath.Join(dir, "k6.json")
	if err := os.WriteFile(k6, []byte(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.jsonl")
	recordstest.Write(t, good, recordstest.SlowInstance(5))
	corrupt := filepath.Join(dir, "corrupt.jsonl")
	body, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(body), "\n")
	if err := os.WriteFile(corrupt, []byte(lines[0]+lines[1]+"{not json\n"+strings.Join(lines[2:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{k6, k6 + ": not a records file"},
		{filepath.Join(dir, "missing.jsonl"), filepath.Join(dir, "missing.jsonl") + ": not a records file"},
		{corrupt, corrupt + ": line 3"},
	} {
		_, err := Read([]string{good, c.path}, &strings.Builder{})
		var ie *rundata.InputError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ie) {
			t.Errorf("%s: error %v, want an input error containing %q", c.path, err, c.want)
		}
	}
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:4], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	reqs, err := Read([]string{cut}, &warn)
	if err != nil || len(reqs) != 3 || !strings.Contains(warn.String(), "analyze: warning: "+cut+": ") {
		t.Errorf("cut short: %d requests, err %v, warnings %q; want 3 and a warning naming the file", len(reqs), err, warn.String())
	}
}
