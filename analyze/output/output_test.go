package output

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/result"
)

func TestNumber(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{
		0: "0", 24491: "24491", -3: "-3", 1788.1232092495234: "1788.12", 0.0329153: "0.03292",
		0.5: "0.5", 1e-7: "1e-07", math.Inf(1): "∞", math.Inf(-1): "-∞", 12.005: "12.01", 1e20: "100000000000000000000.00",
	} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
	if Number(math.NaN()) != "—" {
		t.Error("NaN")
	}
}

func TestTableText(t *testing.T) {
	t.Parallel()
	tb := &table{title: "T", header: []string{"name", "n", "note"}, right: []bool{false, true, false}}
	tb.add("a", "1", "")
	tb.add("long name", "12345", "∞ wide")
	var b bytes.Buffer
	w := &errWriter{w: &b}
	tb.text(w)
	want := "T\nname           n  note\na              1\nlong name  12345  ∞ wide\n"
	if b.String() != want || w.err != nil {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	tb.rows[0][0] = "a|b"
	tb.markdown(w)
	if !strings.Contains(b.String(), "| a\\|b | 1 |  |\n") || !strings.Contains(b.String(), "|---|---:|---|\n") {
		t.Errorf("markdown:\n%s", b.String())
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteErrorsAreKept(t *testing.T) {
	t.Parallel()
	v := 1.0
	s := &result.Summary{Schema: result.SummarySchema, Metrics: []result.Metric{{Name: "m", Type: "trend", Groups: []result.Group{{Label: "all", Count: 1, Min: &v, Mean: &v, Max: &v}}}}}
	r := &result.CheckReport{Schema: result.CheckSchema, Checks: []result.CheckResult{{Check: "m: avg<1", Observed: &v, Aggregate: "avg", Operator: "<", Limit: 1}}, Failed: 1}
	for _, n := range []int{0, 2} {
		for _, f := range []string{Text, Markdown, JSON} {
			if err := WriteSummary(&failWriter{n: n}, f, s); (err == nil || err.Error() != "disk full") && (n == 0 || f != JSON) {
				t.Errorf("summary %s after %d writes: %v", f, n, err)
			}
		}
		for _, f := range []string{Text, Markdown, JSON, JUnit} {
			if err := WriteCheck(&failWriter{n: n}, f, r); err == nil && (n == 0 || f != JSON) {
				t.Errorf("check %s after %d writes: no error", f, n)
			}
		}
	}
	if err := WriteSummary(&bytes.Buffer{}, JUnit, s); err == nil {
		t.Error("summary as junit accepted")
	}
	if err := WriteCheck(&bytes.Buffer{}, "html", r); err == nil {
		t.Error("check as html accepted")
	}
}

func TestCIText(t *testing.T) {
	t.Parallel()
	lo, hi := 1.5, 2.0
	for _, c := range []struct {
		ci   result.CI
		want string
	}{
		{result.CI{Low: &lo, High: &hi}, "[1.50, 2]"},
		{result.CI{Low: &lo}, "[1.50, ∞)"},
		{result.CI{High: &hi}, "(-∞, 2]"},
		{result.CI{}, "(-∞, ∞)"},
	} {
		if got := ciText(c.ci); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
