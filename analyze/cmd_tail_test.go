package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/attribution"
	"github.com/llmstream/xk6-llmstream/analyze/internal/recordstest"
)

func TestTailCommand(t *testing.T) {
	t.Parallel()
	path := recordstest.WriteSlowInstance(t, 4000)
	var out, errb strings.Builder
	if code := realMain([]string{"tail", path, "--tail", "p95"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	head := strings.SplitN(out.String(), "\n", 4)[2]
	for _, want := range []string{"P95 TTFT", "(stage wait)", "concentrated in instance_id 3"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline %q lacks %q", head, want)
		}
	}
	out.Reset()
	if code := realMain([]string{"tail", "--format", "json", path}, nil, &out, &errb); code != exitOK {
		t.Fatalf("json: exit %d: %s", code, errb.String())
	}
	var res attribution.Result
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatal(err)
	}
	if res.Schema != attribution.Schema || res.Tail != 99 || res.Requests != 4000 || res.Top().Name != "wait" {
		t.Errorf("json: schema %q tail %v requests %d top %s", res.Schema, res.Tail, res.Requests, res.Top().Name)
	}
}

func TestTailCommandBadInput(t *testing.T) {
	t.Parallel()
	k6 := filepath.Join(t.TempDir(), "k6.json")
	if err := os.WriteFile(k6, []byte(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tail", k6}, k6 + ": not a records file"},
		{[]string{"tail", "--tail", "p100", k6}, `--tail "p100"`},
		{[]string{"tail"}, "no input"},
	} {
		var out, errb strings.Builder
		if code := realMain(c.args, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", c.args, code, errb.String(), exitUsage, c.want)
		}
	}
	few := recordstest.WriteSlowInstance(t, 50)
	var out, errb strings.Builder
	if code := realMain([]string{"tail", few}, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), few) {
		t.Errorf("50 requests: exit %d, stderr %q; want exit 2 naming the file", code, errb.String())
	}
}
