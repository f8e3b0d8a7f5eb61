package docs

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/testkit/doctable"
)

// docType reads a k6 type cell of metrics.md: "Trend (ms)", "Trend", "Counter"
// or "Rate" as the metric's Type and whether it is a time.
func docType(cell string) (metrics.Metric, error) {
	cell = strings.TrimSpace(cell)
	switch cell {
	case "Trend (ms)":
		return metrics.Metric{Type: metrics.Trend, Time: true}, nil
	case "Trend":
		return metrics.Metric{Type: metrics.Trend}, nil
	case "Counter":
		return metrics.Metric{Type: metrics.Counter}, nil
	case "Rate":
		return metrics.Metric{Type: metrics.Rate}, nil
	}
	return metrics.Metric{}, fmt.Errorf("unknown k6 type %q", cell)
}

// TestMetricTableMatchesBuiltin: the metric contract table of metrics.md lists
// exactly metrics.Builtin, each with its k6 type (and "(ms)" exactly for the
// time Trends): a metric missing, extra, listed twice or of another type fails.
func TestMetricTableMatchesBuiltin(t *testing.T) {
	tb, err := doctable.TableWith("metrics.md", "the-metric-contract", "metric")
	if err != nil {
		t.Fatal(err)
	}
	tc := tb.Column("k6 type")
	if tc < 0 {
		t.Fatalf("metrics.md's contract table has no k6 type column: %v", tb.Header)
	}
	var docs, code []string
	for _, r := range tb.Rows {
		names := doctable.Code(r.Cells[0])
		types := strings.Split(r.Cells[tc], ", ")
		if len(types) != 1 && len(types) != len(names) {
			t.Errorf("metrics.md:%d: %d metrics and %d types", r.Line, len(names), len(types))
			continue
		}
		for i, n := range names {
			m, err := docType(types[min(i, len(types)-1)])
			if err != nil {
				t.Errorf("metrics.md:%d: %s: %v", r.Line, n, err)
				continue
			}
			docs = append(docs, fmt.Sprintf("%s %s time=%v", n, m.Type, m.Time))
		}
	}
	for _, m := range metrics.Builtin {
		code = append(code, fmt.Sprintf("%s %s time=%v", m.Name, m.Type, m.Time))
	}
	if d := doctable.Duplicates(docs); len(d) > 0 {
		t.Errorf("metrics.md's contract table lists twice: %v", d)
	}
	missing, extra := doctable.Diff(docs, code)
	for _, m := range missing {
		t.Errorf("metrics.md's contract table lacks %s (metrics.Builtin)", m)
	}
	for _, e := range extra {
		t.Errorf("metrics.md's contract table lists %s, which metrics.Builtin lacks", e)
	}
}

// TestREADMEListsEveryScript: the README's scripts table links every
// scripts/*.js, and no script that does not exist.
func TestREADMEListsEveryScript(t *testing.T) {
	tb, err := doctable.TableWith("../README.md", "scripts", "script")
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, r := range tb.Rows {
		for _, m := range scriptLink.FindAllStringSubmatch(r.Cells[0], -1) {
			docs = append(docs, m[1])
		}
	}
	files, err := filepath.Glob("../scripts/*.js")
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, f := range files {
		code = append(code, filepath.Base(f))
	}
	sort.Strings(code)
	if len(code) < 10 {
		t.Fatalf("only %d scripts found in ../scripts", len(code))
	}
	if d := doctable.Duplicates(docs); len(d) > 0 {
		t.Errorf("README.md's scripts table lists twice: %v", d)
	}
	missing, extra := doctable.Diff(docs, code)
	if len(missing) > 0 {
		t.Errorf("README.md's scripts table lacks %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("README.md's scripts table lists %v, which are not in scripts/", extra)
	}
}
