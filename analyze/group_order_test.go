package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTagged writes a k6 JSON file with llm_ttft samples tagged concurrency
// with each of values in turn (an empty value: no tag).
func writeTagged(t *testing.T, path string, values []string, n int) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"type":"Metric","data":{"name":"llm_ttft","type":"trend","contains":"time"},"metric":"llm_ttft"}` + "\n")
	for i := range n {
		v := values[i%len(values)]
		tags := `{"concurrency":"` + v + `"}`
		if v == "" {
			tags = `{}`
		}
		fmt.Fprintf(&b, `{"metric":"llm_ttft","type":"Point","data":{"time":"2026-01-01T00:00:%02dZ","value":%d,"tags":%s}}`+"\n", i%60, 100+i, tags)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGroupOrder: tables, legends and comparisons list groups by concurrency
// numerically, files in the order given, and a missing tag last.
func TestGroupOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep.json")
	writeTagged(t, sweep, []string{"16", "", "1", "8", "4"}, 50)
	labels := func(s []string) string { return strings.Join(s, " ") }

	s := summaryJSON(t, "--by", "concurrency", sweep)
	var got []string
	for _, g := range s.Metrics[0].Groups {
		got = append(got, g.Label)
	}
	if want := "concurrency=1 concurrency=4 concurrency=8 concurrency=16 concurrency="; labels(got) != want {
		t.Errorf("summary groups %q, want %q", labels(got), want)
	}

	// --by file: the inputs' order, whatever their labels.
	z, a := filepath.Join(dir, "z.json"), filepath.Join(dir, "a.json")
	writeTagged(t, z, []string{"1"}, 10)
	writeTagged(t, a, []string{"1"}, 10)
	s = summaryJSON(t, "--by", "file", "--labels", "run-10,run-9", z, a)
	got = nil
	for _, g := range s.Metrics[0].Groups {
		got = append(got, g.Label)
	}
	if want := "file=run-10 file=run-9"; labels(got) != want {
		t.Errorf("summary --by file groups %q, want %q", labels(got), want)
	}

	// The plot's legend, top to bottom.
	svg := filepath.Join(dir, "sweep.svg")
	if code, _, errs := run(t, nil, "plot", sweep, "--by", "concurrency", "-o", svg); code != exitOK {
		t.Fatalf("plot: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, v := range []string{"1", "4", "8", "16"} {
		i := bytes.Index(page, []byte(">concurrency="+v+" (n=10)<"))
		if i < last {
			t.Errorf("legend entry concurrency=%s comes before the previous one", v)
		}
		last = i
	}

	// compare lists its groups in the same order.
	r := compareJSON(t, exitOK, sweep, sweep, "--by", "concurrency")
	got = nil
	for _, g := range r.Metrics[0].Groups {
		got = append(got, g.Label)
	}
	if want := "concurrency=1 concurrency=4 concurrency=8 concurrency=16 concurrency="; labels(got) != want {
		t.Errorf("compare groups %q, want %q", labels(got), want)
	}
}
