package tail

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Top is the stage with the largest share.
func (r *Result) Top() Stage {
	top := r.Stages[0]
	for _, s := range r.Stages[1:] {
		if s.Share > top.Share {
			top = s
		}
	}
	return top
}

// Apart are the attributes that set the tail apart, largest effect first.
func (r *Result) Apart() []Attribute {
	var out []Attribute
	for _, a := range r.Attributes {
		if a.SetsApart {
			out = append(out, a)
		}
	}
	return out
}

func stageIndex(name string) int {
	for i, n := range StageNames {
		if n == name {
			return i
		}
	}
	return 0
}

// findings are the sentences: the headline, then one per stage with a share
// of at least 10% after the top one, then one per attribute that sets the
// tail apart.
func findings(r *Result, o Options) []string {
	top := r.Top()
	head := fmt.Sprintf("P%s TTFT is %.1f× the median (%s vs %s, %d of %d requests above it); %.0f%% of the tail's excess is %s (stage %s)",
		pct(r.Tail), r.Ratio, msText(r.Threshold), msText(r.MedianTTFT), r.TailCount, r.Requests,
		100*top.Share, stageWords[stageIndex(top.Name)], top.Name)
	apart := r.Apart()
	if len(apart) > 0 {
		head += ", " + where(apart[0])
	}
	out := []string{head + "."}
	for _, s := range r.Stages {
		if s.Name != top.Name && s.Share >= 0.10 {
			out = append(out, fmt.Sprintf("%.0f%% (%.0f–%.0f%%) is %s (stage %s: median %s in the tail vs %s).",
				100*s.Share, 100*s.ShareLo, 100*s.ShareHi, stageWords[stageIndex(s.Name)], s.Name,
				msText(s.TailMedianMS), msText(s.BodyMedianMS)))
		}
	}
	for _, a := range apart {
		out = append(out, sentence(a, o))
	}
	if len(apart) == 0 {
		out = append(out, fmt.Sprintf("No request attribute sets the tail apart (none has an effect of at least %.2f with a %.0f%% interval excluding 0).", o.MinEffect, 100*o.Confidence))
	}
	return out
}

// where is the short form of an attribute for the headline.
func where(a Attribute) string {
	switch {
	case a.Name == AttrTime:
		return fmt.Sprintf("concentrated in the %s tenth of the test%s", ordinal(a.Value), phase(a.Value))
	case a.Kind == "categorical":
		return fmt.Sprintf("concentrated in %s %s", a.Name, a.Value)
	case a.Effect > 0:
		return fmt.Sprintf("with a higher %s", words(a.Name))
	}
	return fmt.Sprintf("with a lower %s", words(a.Name))
}

func sentence(a Attribute, o Options) string {
	ci := fmt.Sprintf("%.0f%% CI", 100*o.Confidence)
	if a.Kind == "categorical" {
		what := fmt.Sprintf("%s %s", a.Name, a.Value)
		if a.Name == AttrTime {
			what = fmt.Sprintf("the %s tenth of the test%s", ordinal(a.Value), phase(a.Value))
		}
		return fmt.Sprintf("%s holds %.0f%% of the tail vs %.0f%% of the other requests (concentration %.2f, %s %.2f…%.2f).",
			upper(what), 100*a.TailShare, 100*a.BodyShare, a.Effect, ci, a.EffectLo, a.EffectHi)
	}
	dir := "higher"
	if a.Effect < 0 {
		dir = "lower"
	}
	return fmt.Sprintf("The tail's %s is %s: median %s vs %s (Cliff's δ %+.2f, %s %+.2f…%+.2f).",
		words(a.Name), dir, num(a.TailMedian), num(a.BodyMedian), a.Effect, ci, a.EffectLo, a.EffectHi)
}

func words(name string) string {
	switch name {
	case AttrInput:
		return "input length (tokens)"
	case AttrOutput:
		return "output length (tokens)"
	case AttrCache:
		return "cache-hit share of the input"
	case AttrConcurrent:
		return "number of concurrent streams at start"
	case AttrServerQueue:
		return "server queue depth at start (requests waiting, as last scraped)"
	}
	return name
}

func phase(v string) string {
	switch v {
	case "1/10":
		return " (warm-up)"
	case "10/10":
		return " (the end: drift)"
	}
	return ""
}

func ordinal(v string) string {
	n := strings.TrimSuffix(v, "/10")
	switch n {
	case "1":
		return "first"
	case "2":
		return "second"
	case "3":
		return "third"
	case "10":
		return "last"
	}
	return n + "th"
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func pct(p float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", p), ".0") }

func msText(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.3g ms", v)
}

func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// WriteText writes the findings, the stage table, the attribute table and
// the stage profile of the median and the tail requests.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Tail attribution: %s\n\n", r.Heading())
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	fmt.Fprintf(&b, "\n%-12s %12s %12s %8s %16s\n", "stage", "tail median", "body median", "share", "interval")
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "%-12s %12s %12s %7.1f%% %7.1f…%5.1f%%\n", s.Name, msText(s.TailMedianMS), msText(s.BodyMedianMS), 100*s.Share, 100*s.ShareLo, 100*s.ShareHi)
	}
	fmt.Fprintf(&b, "\n%-20s %-12s %8s %16s  %s\n", "attribute", "kind", "effect", "interval", "tail vs body")
	for _, a := range r.Attributes {
		fmt.Fprintf(&b, "%-20s %-12s %+8.2f %+7.2f…%+6.2f  %s\n", a.Name, a.Kind, a.Effect, a.EffectLo, a.EffectHi, versus(a))
	}
	r.writeProfileText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// Heading says what the tail is: "TTFT above p(99) = 134 ms, 200 of 20000
// requests".
func (r *Result) Heading() string {
	return fmt.Sprintf("TTFT above p(%s) = %s, %d of %d requests", pct(r.Tail), msText(r.Threshold), r.TailCount, r.Requests)
}

// Contrast is the attribute in the tail against the body: "median 153 vs
// 149" (numeric), "3: 100% vs 24%" (categorical: the value and its shares).
func (a Attribute) Contrast() string {
	if a.Kind == "categorical" {
		return fmt.Sprintf("%s: %.0f%% vs %.0f%%", a.Value, 100*a.TailShare, 100*a.BodyShare)
	}
	return fmt.Sprintf("median %s vs %s", num(a.TailMedian), num(a.BodyMedian))
}

func versus(a Attribute) string {
	s := a.Contrast()
	if a.SetsApart {
		s += "  (sets the tail apart)"
	}
	return s
}

// WriteMarkdown writes the same as WriteText as Markdown.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Tail attribution: %s\n\n", r.Heading())
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	b.WriteString("\n| stage | tail median | body median | share | interval |\n|---|---:|---:|---:|---:|\n")
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f%% | %.1f–%.1f%% |\n", s.Name, msText(s.TailMedianMS), msText(s.BodyMedianMS), 100*s.Share, 100*s.ShareLo, 100*s.ShareHi)
	}
	b.WriteString("\n| attribute | kind | effect | interval | tail vs body |\n|---|---|---:|---:|---|\n")
	for _, a := range r.Attributes {
		fmt.Fprintf(&b, "| %s | %s | %+.2f | %+.2f…%+.2f | %s |\n", a.Name, a.Kind, a.Effect, a.EffectLo, a.EffectHi, versus(a))
	}
	r.writeProfileMarkdown(&b)
	_, err := io.WriteString(w, b.String())
	return err
}
