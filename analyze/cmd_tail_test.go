package main

import (
	"bytes"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/tail"
	"github.com/llmstream/xk6-llmstream/internal/testkit/recordstest"
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
	var res tail.Result
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatal(err)
	}
	if res.Schema != tail.Schema || res.Tail != 99 || res.Requests != 4000 || res.Top().Name != "wait" {
		t.Errorf("json: schema %q tail %v requests %d top %s", res.Schema, res.Tail, res.Requests, res.Top().Name)
	}
	if p := res.Profile; p.Tail.Requests != res.TailCount || p.Median.Requests < 350 || p.Median.Requests > 450 || p.Tail.StageMeanMS[tail.Wait] < 3*p.Median.StageMeanMS[tail.Wait] {
		t.Errorf("json: profile %+v: want the tail's %d requests, about 400 median ones, the tail's wait far longer", p, res.TailCount)
	}
}

// TestTailPlot: --plot writes the stage profile as SVG or PNG, by the
// file's extension, besides the findings.
func TestTailPlot(t *testing.T) {
	t.Parallel()
	path := recordstest.WriteSlowInstance(t, 4000)
	dir := t.TempDir()
	for _, name := range []string{"stages.svg", "stages.png"} {
		fig := filepath.Join(dir, name)
		var out, errb strings.Builder
		if code := realMain([]string{"tail", "--plot", fig, path}, nil, &out, &errb); code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errb.String())
		}
		if !strings.Contains(out.String(), "Mean time per stage: median requests") || !strings.Contains(errb.String(), "wrote "+fig) {
			t.Errorf("%s: stdout %q, stderr %q", name, out.String(), errb.String())
		}
		b, err := os.ReadFile(fig)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".svg") {
			page := html.UnescapeString(string(b))
			for _, want := range []string{"median requests (p45–p55), n=", "tail requests (> p99), n=40<", ">first_event<"} {
				if !strings.Contains(page, want) {
					t.Errorf("%s lacks %q", name, want)
				}
			}
		} else if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var out, errb strings.Builder
	if code := realMain([]string{"tail", "--plot", filepath.Join(dir, "x.pdf"), path}, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "--plot") {
		t.Errorf("--plot x.pdf: exit %d, stderr %q; want a usage error naming --plot", code, errb.String())
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
