package result_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/result"
	"github.com/llmstream/xk6-llmstream/internal/rundata"
)

// lateRun writes k6 JSON with one llm_arrival_lateness sample per value.
func lateRun(t *testing.T, values []float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"Metric","data":{"name":"llm_arrival_lateness","type":"trend","contains":"time"},"metric":"llm_arrival_lateness"}` + "\n")
	for i, v := range values {
		fmt.Fprintf(&b, `{"metric":"llm_arrival_lateness","type":"Point","data":{"time":"2026-03-01T12:00:%02d.000Z","value":%g,"tags":{}}}`+"\n", i%60, v)
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSummaryFlagsADegradedReplay: the send lag's p50, p99 and max are k6's
// figures of llm_arrival_lateness, and a replay beyond the bounds is
// flagged (degraded, a warning); one within them is not.
func TestSummaryFlagsADegradedReplay(t *testing.T) {
	t.Parallel()
	punctual := make([]float64, 200)
	late := make([]float64, 200)
	for i := range punctual {
		punctual[i] = float64(i % 3)                // 0, 1, 2 ms
		late[i] = float64(i%3) + float64(i/190)*900 // the last 10: 900 ms more
	}
	for _, c := range []struct {
		name     string
		values   []float64
		degraded bool
		max      float64
	}{{"punctual", punctual, false, 2}, {"late", late, true, 902}} {
		r := rundata.NewReader(rundata.Selection{}, []rundata.Input{{Path: lateRun(t, c.values), Label: "run"}}, rundata.Options{})
		d, err := rundata.Collect(r, rundata.CollectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum := result.Summarize(d, result.DefaultOptions())
		if len(sum.SendLag) != 1 {
			t.Fatalf("%s: %d send lag groups", c.name, len(sum.SendLag))
		}
		g := sum.SendLag[0]
		warned := strings.Contains(strings.Join(sum.Warnings, "\n"), "the replay was degraded: send lag p99")
		if g.Degraded != c.degraded || warned != c.degraded || g.Count != 200 || *g.Max != c.max {
			t.Errorf("%s: %+v, warnings %q", c.name, g, sum.Warnings)
		}
	}
}
