package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/analyze/k6json"
)

func TestValueCompare(t *testing.T) {
	t.Parallel()
	// Each list is in the order groupCompare gives.
	for _, want := range [][]string{
		{"1", "4", "8", "16", "100"},
		{"-1", "0.5", "2", "10"},
		{"2", "10", "a", "b"}, // numbers first
		{"c2", "c4", "c16", "c100"},
		{"gpt-4o", "gpt-4o-mini", "gpt-5"},
		{"model-a", "model-b", ""}, // a missing tag last
		{"v1.2", "v1.10"},
	} {
		got := slices.Clone(want)
		slices.Reverse(got)
		slices.SortStableFunc(got, valueCompare)
		if !slices.Equal(got, want) {
			t.Errorf("sorted %v, want %v", got, want)
		}
		for i := range want {
			if valueCompare(want[i], want[i]) != 0 {
				t.Errorf("%q ≠ itself", want[i])
			}
			for j := i + 1; j < len(want); j++ {
				if valueCompare(want[i], want[j]) != -1 || valueCompare(want[j], want[i]) != 1 {
					t.Errorf("%q and %q are not ordered consistently", want[i], want[j])
				}
			}
		}
	}
	// Different spellings of one number are distinct groups, in a fixed order.
	if c := valueCompare("1", "1.0"); c == 0 || c != -valueCompare("1.0", "1") {
		t.Errorf("1 vs 1.0: %d", c)
	}
	if c := valueCompare("07", "7"); c == 0 || c != -valueCompare("7", "07") {
		t.Errorf("07 vs 7: %d", c)
	}
	if c := naturalCompare("x07", "x7"); c == 0 || c != -naturalCompare("x7", "x07") {
		t.Errorf("x07 vs x7: %d", c)
	}
}

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

func TestGroupCompareByFileAndTag(t *testing.T) {
	t.Parallel()
	g := func(file int, conc string) *group {
		return &group{file: file, labels: []k6json.Tag{{Key: "file", Value: fmt.Sprint("f", 9-file)}, {Key: "concurrency", Value: conc}},
			key: fmt.Sprintf("file=f%d,concurrency=%s", 9-file, conc)}
	}
	gs := []*group{g(1, "8"), g(0, "16"), g(1, "2"), g(0, "4")}
	slices.SortFunc(gs, groupCompare)
	var keys []string
	for _, x := range gs {
		keys = append(keys, x.key)
	}
	if want := "file=f9,concurrency=4 file=f9,concurrency=16 file=f8,concurrency=2 file=f8,concurrency=8"; strings.Join(keys, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(keys, " "), want)
	}
}
