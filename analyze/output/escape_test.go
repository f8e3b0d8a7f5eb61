package output

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/analyze/history"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// hostile is a tag value (and so a group label), a metric name, a path and
// a run label as an attacker (or an accident) could write them into a k6
// output: HTML, a table's |, a newline that would start a line of its own,
// a terminal escape, a character reference and a leading >.
const hostile = "> <script>alert(1)</script> <img src=x onerror=alert(2)>|x `code` &amp; \x1b[31m\nnext-line"

// hostileOutputs renders every writer that prints such strings, in a
// format.
func hostileOutputs(t *testing.T, format string) map[string]string {
	t.Helper()
	v, lo, hi := 1.0, 0.5, 2.0
	nz := int64(1)
	sum := &result.Summary{Schema: result.SummarySchema,
		Inputs:    []result.Input{{Path: "runs/" + hostile + ".json", Label: hostile, Points: 3}},
		Selection: result.Selection{Where: []string{"model=" + hostile}, By: []string{"model"}},
		Metrics: []result.Metric{
			{Name: "llm_ttft" + hostile, Type: "trend", Unit: "ms", Groups: []result.Group{{Label: "model=" + hostile, Count: 3, Min: &v, Mean: &v, Max: &v,
				Percentiles: []result.Percentile{{Name: "p(50)", P: 50, Value: v, NearestRank: v, CI: result.CI{Low: &lo, High: &hi}}},
				Tail:        &result.Tail{Sentence: "llm_ttft (model=" + hostile + "): no long tail"}}}},
			{Name: "llm_requests_failed", Type: "rate", Groups: []result.Group{{Label: "model=" + hostile, Count: 3, NonZero: &nz, Rate: &v,
				ErrorKinds: map[string]int64{hostile: 1}}}},
		},
		Warnings: []string{"llm_ttft (model=" + hostile + "): few samples"},
	}
	chk := &result.CheckReport{Schema: result.CheckSchema, Inputs: sum.Inputs, Failed: 1,
		Checks: []result.CheckResult{{Check: "llm_ttft{model:" + hostile + "}: p(99)<2000", Observed: &v, Aggregate: "p(99)", Operator: "<", Limit: 0.5, Count: 3}}}
	cmp := &result.Comparison{Schema: result.CompareSchema, Baseline: sum.Inputs[0], Candidate: sum.Inputs[0],
		BaselineFiles: sum.Inputs, CandidateFiles: sum.Inputs,
		Metrics: []result.CompareMetric{{Name: "llm_ttft" + hostile, Unit: "ms", Groups: []result.CompareGroup{{Label: "model=" + hostile, Verdict: hostile,
			Changes: []result.Change{{Stat: "p99", Baseline: &v, Candidate: &v, Verdict: hostile}}}}}},
		Rates:    []result.CompareRate{{Name: "llm_requests_failed" + hostile, Groups: []result.RateGroup{{Label: "model=" + hostile, Verdict: hostile}}}},
		Limits:   []result.LimitResult{{Limit: "p99=10%" + hostile, Metric: "llm_ttft" + hostile, Group: "model=" + hostile, Change: &v, Low: &lo, High: &hi}},
		Warnings: []string{hostile},
	}
	vd := history.Verdict{Series: "model=" + hostile, Metric: "llm_ttft" + hostile, Stat: "P99", Label: hostile, Status: history.Regression, Reason: hostile}
	hist := &history.Report{Schema: history.ReportSchema, File: hostile + ".jsonl", Records: 1, Limits: []string{"p99=10%"}, Percentiles: []float64{50},
		Series: []history.SeriesReport{{Key: "model=" + hostile, Runs: []history.RunRow{{Label: hostile, Start: time.Unix(0, 0), Status: hostile,
			Metrics: []history.RunMetric{{Metric: "llm_ttft" + hostile, Unit: "ms", Count: 3, Percentiles: []history.RunPercentile{{Name: "P50", P: 50, Value: &v, Low: &lo, High: &hi}}}}}}}},
		Alerts: []history.Verdict{vd}, Latest: []history.Verdict{vd}, Damage: hostile}

	out := map[string]string{}
	var b bytes.Buffer
	for name, write := range map[string]func() error{
		"summary": func() error { return WriteSummary(&b, format, sum) },
		"check":   func() error { return WriteCheck(&b, format, chk) },
		"compare": func() error { return WriteCompare(&b, format, cmp) },
		"history": func() error { return WriteHistory(&b, format, hist) },
	} {
		b.Reset()
		if err := write(); err != nil {
			t.Fatalf("%s %s: %v", name, format, err)
		}
		out[name] = b.String()
	}
	return out
}

// rawHTML is what a Markdown viewer would take for HTML or an autolink.
var rawHTML = regexp.MustCompile(`<[A-Za-z/!?]`)

// TestMarkdownEscapesHostileStrings: in the Markdown of every writer, a
// hostile string renders as text: no raw HTML, no line that the newline
// started, no terminal escape, and every table row has its header's cells.
func TestMarkdownEscapesHostileStrings(t *testing.T) {
	t.Parallel()
	for name, md := range hostileOutputs(t, Markdown) {
		// A code span shows its content as it is (no HTML in it renders).
		if loc := rawHTML.FindStringIndex(withoutCodeSpans(md)); loc != nil {
			t.Errorf("%s: raw HTML %q in the Markdown:\n%s", name, withoutCodeSpans(md)[loc[0]:min(len(withoutCodeSpans(md)), loc[0]+20)], md)
		}
		if strings.Contains(md, "\x1b") {
			t.Errorf("%s: a raw ESC in the Markdown", name)
		}
		if !strings.Contains(md, "&lt;script") || !strings.Contains(md, `\\n`) {
			t.Errorf("%s: the hostile string is not shown escaped (&lt;script, \\\\n):\n%s", name, md)
		}
		lines := strings.Split(md, "\n")
		cells := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "next-line") || (strings.HasPrefix(l, ">") && !strings.HasPrefix(l, "> warning: ")) {
				t.Errorf("%s line %d: %q was started or quoted by the input", name, i+1, l)
			}
			if !strings.HasPrefix(l, "|") {
				if cells >= 0 && l != "" {
					t.Errorf("%s line %d: %q follows a table row without a blank line", name, i+1, l)
				}
				cells = -1
				continue
			}
			n := unescapedPipes(l)
			if cells >= 0 && n != cells {
				t.Errorf("%s line %d: %d cell separators, the table's header has %d: %q", name, i+1, n, cells, l)
			}
			if cells < 0 {
				cells = n
			}
		}
	}
}

// TestTextEscapesHostileStrings: in the text output a hostile string stays
// on its line, and a terminal escape is shown, not obeyed.
func TestTextEscapesHostileStrings(t *testing.T) {
	t.Parallel()
	for name, txt := range hostileOutputs(t, Text) {
		if strings.Contains(txt, "\x1b") {
			t.Errorf("%s: a raw ESC in the text", name)
		}
		for i, l := range strings.Split(txt, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "next-line") {
				t.Errorf("%s line %d: %q was started by the input", name, i+1, l)
			}
		}
		if !strings.Contains(txt, `\nnext-line`) || !strings.Contains(txt, `\x1b[31m`) {
			t.Errorf("%s: the control characters are not shown escaped:\n%s", name, txt)
		}
	}
}

// unescapedPipes counts the | of a table row that separate cells.
func unescapedPipes(l string) int {
	n := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// TestMarkdownEscapeKeepsPlainText: the strings analyze writes for valid
// input are unchanged (the goldens hold them): a < or > between numbers, &
// alone, braces and colons of a check.
func TestMarkdownEscapeKeepsPlainText(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"llm_ttft{model:model-b}: p(95)<1500", "count>1000", "a & b", "model=gpt-4o", "1,788.12 ms", "[1.50, ∞)"} {
		if got := mdText(s); got != s {
			t.Errorf("mdText(%q) = %q, want it unchanged", s, got)
		}
		if got := plainText(s); got != s {
			t.Errorf("plainText(%q) = %q, want it unchanged", s, got)
		}
	}
	for s, want := range map[string]string{
		"a`b":  "``a`b``",
		"`a":   "`` `a ``",
		"a|b":  "`a|b`",
		"a\nb": "`a\\nb`",
	} {
		if got := mdCode(s, false); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", s, got, want)
		}
	}
}

// withoutCodeSpans removes the code spans of Markdown text: a run of n
// backticks up to the next run of exactly n.
func withoutCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := -1
		for j := i + n; j < len(s); {
			k := strings.Index(s[j:], fence)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			b.WriteString(s[i:])
			break
		}
		i = end + n
	}
	return b.String()
}
