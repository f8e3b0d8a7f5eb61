package deploy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestScaleOutExecutionSegments does on one machine what k6-operator does over
// pods: 3 k6 processes, each with its own share of one shared-iterations plan
// (--execution-segment / --execution-segment-sequence), its own helper (each
// `xk6-llmstream run` starts one) and its own JSON file, against one mock. The
// request total must be the plan's, and analyze's merged summary of the 3 files
// must equal its summary of their concatenation, exactly.
func TestScaleOutExecutionSegments(t *testing.T) {
	k6 := k6Binary(t)
	xk6, analyze := bins(t)
	dir := t.TempDir()
	if out, err := exec.Command(xk6, "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}

	// One mock for all instances.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mock := exec.CommandContext(ctx, xk6, "mock", "--addr", "127.0.0.1:0", "--seed", "3")
	stdout, err := mock.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var mockLog bytes.Buffer
	mock.Stderr = &mockLog
	if err := mock.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = mock.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("mock did not print its URL: %v\n%s", err, mockLog.String())
	}
	mockURL := strings.TrimSpace(line)

	const n, iterations, vus = 3, 30, 3
	sequence := "0,1/3,2/3,1"
	segments := []string{"0:1/3", "1/3:2/3", "2/3:1"}
	files := make([]string, n)
	outs := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		files[i] = filepath.Join(dir, fmt.Sprintf("instance-%d.json", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			runCtx, runCancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer runCancel()
			cmd := exec.CommandContext(runCtx, xk6, "run", filepath.Join(dir, "script.js"),
				"--quiet", "--no-usage-report",
				"--execution-segment", segments[i], "--execution-segment-sequence", sequence,
				"--tag", fmt.Sprintf("instance_id=%d", i),
				"-e", fmt.Sprintf("LLM_ITERATIONS=%d", iterations), "-e", fmt.Sprintf("LLM_VUS=%d", vus),
				"--out", "json="+files[i])
			cmd.Env = append(os.Environ(), "K6_BIN="+k6, "LLM_BASE_URL="+mockURL, "LLM_API_KEY="+testKey)
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("instance %d: %v\n%s", i, errs[i], outs[i])
		}
		if bytes.Contains(outs[i], []byte(testKey)) {
			t.Errorf("instance %d: the API key appears in the output", i)
		}
	}

	// The plan: each segment runs its third of the iterations, one request each.
	total := 0
	var all []byte
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, raw...)
		requests, instances := countRequests(t, raw)
		if requests != iterations/n {
			t.Errorf("instance %d made %d requests, want %d (its segment of %d)", i, requests, iterations/n, iterations)
		}
		if len(instances) != 1 || !instances[fmt.Sprint(i)] {
			t.Errorf("instance %d: instance_id tags %v", i, instances)
		}
		total += requests
	}
	if total != iterations {
		t.Errorf("%d requests in all, want the plan's %d", total, iterations)
	}
	concat := filepath.Join(dir, "all.json")
	if err := os.WriteFile(concat, all, 0o644); err != nil {
		t.Fatal(err)
	}

	merged := summary(t, analyze, files...)
	union := summary(t, analyze, concat)
	// A counter's per_second divides by the time span analyze takes, which is
	// not the same for three inputs as for one file; everything else must match.
	dropPerSecond(merged)
	dropPerSecond(union)
	if !reflect.DeepEqual(merged["metrics"], union["metrics"]) {
		t.Errorf("analyze summary of the 3 files differs from that of their concatenation:\nmerged %v\nunion  %v", merged["metrics"], union["metrics"])
	}
	if !reflect.DeepEqual(merged["warnings"], union["warnings"]) {
		t.Errorf("warnings differ:\nmerged %v\nunion  %v", merged["warnings"], union["warnings"])
	}
	// The merged population holds every request once.
	for _, m := range merged["metrics"].([]any) {
		mm := m.(map[string]any)
		if mm["name"] == "llm_e2e" {
			if c := mm["groups"].([]any)[0].(map[string]any)["count"]; c != float64(iterations) {
				t.Errorf("merged llm_e2e count %v, want %d", c, iterations)
			}
		}
	}
}

// dropPerSecond removes the per_second figure of every group.
func dropPerSecond(v map[string]any) {
	for _, m := range v["metrics"].([]any) {
		for _, g := range m.(map[string]any)["groups"].([]any) {
			delete(g.(map[string]any), "per_second")
		}
	}
}

// countRequests counts llm_e2e samples (one per request) and the instance_id tags.
func countRequests(t *testing.T, raw []byte) (int, map[string]bool) {
	t.Helper()
	n, ids := 0, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type, Metric string
			Data         struct{ Tags map[string]string }
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Type == "Point" && line.Metric == "llm_e2e" {
			n++
			ids[line.Data.Tags["instance_id"]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n, ids
}

// summary runs `analyze summary --format json` and decodes its output.
func summary(t *testing.T, analyze string, files ...string) map[string]any {
	t.Helper()
	out, err := exec.Command(analyze, append([]string{"summary", "--format", "json"}, files...)...).Output()
	if err != nil {
		t.Fatalf("analyze summary %v: %v", files, err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
