package output

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/numfmt"
	"github.com/llmstream/xk6-llmstream/internal/result"
)

// Formats of a summary.
const (
	Text     = "text"
	Markdown = "markdown"
	JSON     = "json"
	JUnit    = "junit"
)

// WriteSummary writes a summary in a format: text, markdown or json.
func WriteSummary(w io.Writer, format string, s *result.Summary) error {
	switch format {
	case JSON:
		return writeJSON(w, s)
	case Text, Markdown:
		ew := &errWriter{w: w}
		summaryTables(ew, format, s)
		return ew.err
	}
	return fmt.Errorf("output: a summary cannot be written as %q", format)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func summaryTables(w *errWriter, format string, s *result.Summary) {
	md := format == Markdown
	render := func(t *table) {
		if md {
			t.markdown(w)
		} else {
			t.text(w)
		}
		w.printf("\n")
	}
	if md {
		w.printf("## analyze summary\n\n")
	}
	w.printf("%s\n\n", inputsLine(s.Inputs, s.Selection, md))
	calls := false
	for _, m := range s.Metrics {
		if metrics.IsCall(m.Name) {
			calls = true
			continue
		}
		metricTables(w, md, m, s.Confidence, render)
	}
	if calls {
		if md {
			w.printf("### Embeddings and rerank\n\n")
		} else {
			w.printf("Embeddings and rerank (their own metrics, apart from generation's):\n\n")
		}
		for _, m := range s.Metrics {
			if metrics.IsCall(m.Name) {
				metricTables(w, md, m, s.Confidence, render)
			}
		}
	}
	if len(s.Metrics) == 0 {
		w.printf("No samples of the selected metrics.\n\n")
	}
	throughputTables(w, md, s, render)
	healthTables(w, md, s, render)
	costTable(w, md, s, render)
	if len(s.Warnings) > 0 {
		if md {
			w.printf("### Warnings\n\n")
		} else {
			w.printf("Warnings:\n")
		}
		for _, warn := range s.Warnings {
			w.printf("- %s\n", escaper(md)(warn))
		}
		w.printf("\n")
	}
}

// metricTables writes one metric's table(s) by its type.
func metricTables(w *errWriter, md bool, m result.Metric, confidence float64, render func(*table)) {
	title := m.Name + " (" + m.Type
	if m.Unit != "" {
		title += ", " + m.Unit
	}
	title += ")"
	if md {
		title = "### " + title
	}
	switch m.Type {
	case "trend":
		trendTables(w, md, m, title, confidence, render)
	case "rate":
		t := &table{title: title, header: []string{"group", "count", "non-zero", "rate", "error kinds"}, right: []bool{false, true, true, true, false}}
		for _, g := range m.Groups {
			t.add(g.Label, Number(float64(g.Count)), Number(float64(deref64(g.NonZero))), numfmt.Percent(derefF(g.Rate)), kindsList(g.ErrorKinds))
		}
		render(t)
	case "counter":
		t := &table{title: title, header: []string{"group", "samples", "sum", "per second"}, right: []bool{false, true, true, true}}
		for _, g := range m.Groups {
			ps := "—"
			if g.PerSecond != nil {
				ps = Number(*g.PerSecond)
			}
			t.add(g.Label, Number(float64(g.Count)), Number(derefF(g.Sum)), ps)
		}
		render(t)
	case "gauge":
		t := &table{title: title, header: []string{"group", "samples", "value", "min", "max"}, right: []bool{false, true, true, true, true}}
		for _, g := range m.Groups {
			t.add(g.Label, Number(float64(g.Count)), Number(derefF(g.Value)), Number(derefF(g.Min)), Number(derefF(g.Max)))
		}
		render(t)
	}
}

func trendTables(w *errWriter, md bool, m result.Metric, title string, confidence float64, render func(*table)) {
	t := &table{title: title, header: []string{"group", "count", "min", "mean", "max"}, right: []bool{false, true, true, true, true}}
	for _, g := range m.Groups {
		t.add(g.Label, Number(float64(g.Count)), Number(derefF(g.Min)), Number(derefF(g.Mean)), Number(derefF(g.Max)))
	}
	render(t)
	ciHead := fmt.Sprintf("%g%% CI", 100*confidence)
	p := &table{header: []string{"group", "percentile", "k6 value", "nearest rank", ciHead, "notes"}, right: []bool{false, false, true, true, false, false}}
	for _, g := range m.Groups {
		label := g.Label
		for _, pc := range g.Percentiles {
			var notes []string
			if pc.TooFew {
				notes = append(notes, fmt.Sprintf("few samples (%d < %d)", g.Count, pc.MinSamples))
			}
			if pc.CI.Low == nil || pc.CI.High == nil {
				notes = append(notes, "CI unbounded")
			} else if pc.Wide {
				notes = append(notes, fmt.Sprintf("CI %.0f%% wide", 100*derefF(pc.RelWidth)))
			}
			p.add(label, pc.Name, Number(pc.Value), Number(pc.NearestRank), ciText(pc.CI), strings.Join(notes, "; "))
			label = ""
		}
	}
	render(p)
	var tails []string
	for _, g := range m.Groups {
		if g.Tail != nil {
			tails = append(tails, g.Tail.Sentence)
		}
	}
	if len(tails) > 0 {
		w.printf("Tail diagnosis:\n")
		if md {
			w.printf("\n")
		}
		for _, t := range tails {
			w.printf("- %s\n", escaper(md)(t))
		}
		w.printf("\n")
	}
}

func ciText(ci result.CI) string {
	lo, hi := "-∞", "∞"
	if ci.Low != nil {
		lo = Number(*ci.Low)
	}
	if ci.High != nil {
		hi = Number(*ci.High)
	}
	open, close := "[", "]"
	if ci.Low == nil {
		open = "("
	}
	if ci.High == nil {
		close = ")"
	}
	return open + lo + ", " + hi + close
}

func inputsLine(ins []result.Input, sel result.Selection, md bool) string {
	esc := escaper(md)
	var parts []string
	for _, in := range ins {
		s := esc(in.Label)
		if in.Label != in.Path {
			s += " (" + esc(in.Path) + ")"
		}
		s += fmt.Sprintf(": %d samples", in.Points)
		if in.Damage != "" {
			s += ", cut short"
		}
		if in.Skipped > 0 {
			s += fmt.Sprintf(", %d corrupt lines skipped", in.Skipped)
		}
		parts = append(parts, s)
	}
	line := "Inputs: " + strings.Join(parts, "; ")
	var sel2 []string
	if len(sel.Where) > 0 {
		sel2 = append(sel2, "where "+esc(strings.Join(sel.Where, " and ")))
	}
	if len(sel.By) > 0 {
		sel2 = append(sel2, "by "+esc(strings.Join(sel.By, ", ")))
	}
	if sel.From != "" {
		sel2 = append(sel2, "from "+esc(sel.From))
	}
	if sel.To != "" {
		sel2 = append(sel2, "to "+esc(sel.To))
	}
	if len(sel2) > 0 {
		line += "\nSelection: " + strings.Join(sel2, "; ")
	}
	if md {
		line = strings.ReplaceAll(line, "\n", "  \n")
	}
	return line
}

func kindsList(k map[string]int64) string {
	type kv struct {
		k string
		n int64
	}
	var l []kv
	for key, n := range k {
		l = append(l, kv{key, n})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].n != l[j].n {
			return l[i].n > l[j].n
		}
		return l[i].k < l[j].k
	})
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = fmt.Sprintf("%s %d", e.k, e.n)
	}
	return strings.Join(parts, ", ")
}

func derefF(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
