package definitions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Tool is a set of definitions.
type Tool string

// The tools whose definitions are computed.
const (
	Ours     Tool = "llmstream"
	VLLM     Tool = "vllm"
	AIPerf   Tool = "aiperf"
	GuideLLM Tool = "guidellm"
	LLMPerf  Tool = "llmperf"
	SGLang   Tool = "sglang"
)

// Tools lists every tool, ours first.
var Tools = []Tool{Ours, VLLM, AIPerf, GuideLLM, LLMPerf, SGLang}

// The quantities.
const (
	TTFT = "ttft"
	ITL  = "itl"
	TPOT = "tpot"
)

// Parse reads a comma-separated list of tools ("all" is every tool). Ours
// is always included, first.
func Parse(list string) ([]Tool, error) {
	out := []Tool{Ours}
	for _, f := range strings.Split(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch {
		case f == "":
			continue
		case f == "all":
			return slices.Clone(Tools), nil
		case f == "ours":
			f = string(Ours)
		}
		t := Tool(f)
		if !slices.Contains(Tools, t) {
			names := make([]string, len(Tools))
			for i, t := range Tools {
				names[i] = string(t)
			}
			return nil, fmt.Errorf("unknown tool %q: want a comma-separated list of %s, or all", f, strings.Join(names, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Definition says in one line how a tool defines a quantity ("" when the
// tool reports no such quantity).
func Definition(t Tool, quantity string) string {
	return definitions[t][quantity]
}

var definitions = map[Tool]map[string]string{
	Ours: {
		TTFT: "first text-bearing event",
		ITL:  "every gap between text events; a k-token event's gap is k samples of gap/k (pooled)",
		TPOT: "(e2e − ttft) / (output tokens − 1), per request",
	},
	VLLM: {
		TTFT: "first chunk with choices, even a role-only one (first event)",
		ITL:  "every chunk gap after the first chunk, unsplit (pooled)",
		TPOT: "(last text chunk − ttft) / (output tokens − 1), per request",
	},
	AIPerf: {
		TTFT: "first text-bearing response",
		ITL:  "(e2e − ttft) / (output tokens − 1), per request",
	},
	GuideLLM: {
		TTFT: "first text-bearing chunk",
		ITL:  "(last token − first token) / (output tokens − 1), per request",
		TPOT: "(last token − first token) / output tokens, per request",
	},
	LLMPerf: {
		TTFT: "first chunk with content",
		ITL:  "last content chunk / output tokens (tokenizer count), per request",
	},
	SGLang: {
		TTFT: "first chunk with content",
		ITL:  "every gap between content chunks, unsplit (pooled)",
		TPOT: "(e2e − ttft) / (output tokens − 1), per request",
	},
}

// Values are one request's values under one tool, in milliseconds.
type Values struct {
	TTFT *float64
	ITL  []float64
	TPOT *float64
}

const nsPerMS = 1e6

func ms(ns int64) float64 { return float64(ns) / nsPerMS }

func ptr(v float64) *float64 { return &v }

// Compute is one successful request's values under a tool's definitions
// (nil TTFT: the request had no text, and counts under no tool).
func Compute(t Tool, rec *records.Record) Values {
	var v Values
	if !rec.OK() || rec.TTFTNS == nil || len(rec.TextNS) == 0 {
		return v
	}
	ttft := *rec.TTFTNS
	last := int64(0) // the last text event, from the start
	for _, g := range rec.TextNS {
		last += g
	}
	n := rec.OutputTokens
	switch t {
	case Ours:
		for _, s := range metrics.FromRecord(rec, &metrics.Options{ITL: metrics.ITLAll}) {
			switch s.Metric {
			case metrics.TTFT:
				v.TTFT = ptr(s.Values[0])
			case metrics.ITL:
				v.ITL = s.Values
			case metrics.TPOT:
				v.TPOT = ptr(s.Values[0])
			}
		}
	case VLLM:
		first := ttft
		if rec.FirstEventNS != nil && *rec.FirstEventNS < ttft {
			first = *rec.FirstEventNS
			v.ITL = append(v.ITL, ms(ttft-first))
		}
		v.TTFT = ptr(ms(first))
		for _, g := range rec.TextNS[1:] {
			v.ITL = append(v.ITL, ms(g))
		}
		if n > 1 {
			v.TPOT = ptr(ms(last-first) / float64(n-1))
		}
	case AIPerf:
		v.TTFT = ptr(ms(ttft))
		if n > 1 {
			v.ITL = []float64{ms(rec.E2ENS-ttft) / float64(n-1)}
		}
	case GuideLLM:
		v.TTFT = ptr(ms(ttft))
		if n > 1 {
			v.ITL = []float64{ms(last-ttft) / float64(n-1)}
		}
		if n > 0 {
			v.TPOT = ptr(ms(last-ttft) / float64(n))
		}
	case LLMPerf:
		v.TTFT = ptr(ms(ttft))
		if a := rec.TokenAudit; a != nil && a.Error == "" && a.Counted > 0 {
			n = a.Counted // LLMPerf counts the text with a tokenizer
		}
		if n > 0 {
			v.ITL = []float64{ms(last) / float64(n)}
		}
	case SGLang:
		v.TTFT = ptr(ms(ttft))
		for _, g := range rec.TextNS[1:] {
			v.ITL = append(v.ITL, ms(g))
		}
		if n > 1 {
			v.TPOT = ptr(ms(rec.E2ENS-ttft) / float64(n-1))
		}
	}
	return v
}

// Row is one tool's distribution of one quantity over the run.
type Row struct {
	Tool       Tool     `json:"tool"`
	Quantity   string   `json:"quantity"`
	Definition string   `json:"definition"`
	Count      int      `json:"count"`
	Mean       *float64 `json:"mean_ms"`
	P50        *float64 `json:"p50_ms"`
	P90        *float64 `json:"p90_ms"`
	P99        *float64 `json:"p99_ms"`
}

// Report is every tool's TTFT, ITL and TPOT of a run.
type Report struct {
	// Requests are the successful requests with text; Skipped the others
	// (failed, no text), which no tool's latencies count.
	Requests int `json:"requests"`
	Skipped  int `json:"skipped"`
	// TextEventsPerToken is text events over output tokens of the
	// successful requests: 1 when every event carries one token, below 1
	// with multi-token chunks (where pooled per-chunk ITL and per-token ITL
	// part ways).
	TextEventsPerToken *float64 `json:"text_events_per_token"`
	// FirstEventBeforeText counts the requests whose first event carried no
	// text (a role-only chunk): there vLLM's TTFT is earlier than the others'.
	FirstEventBeforeText int   `json:"first_event_before_text"`
	Rows                 []Row `json:"rows"`
}

// Collector gathers a run's records.
type Collector struct {
	tools          []Tool
	vals           map[Tool]map[string][]float64
	requests, skip int
	events, tokens int64
	roleFirst      int
	audit          Audit
}

// New is a collector of the tools' definitions.
func New(tools []Tool) *Collector {
	c := &Collector{tools: tools, vals: map[Tool]map[string][]float64{}}
	for _, t := range tools {
		c.vals[t] = map[string][]float64{}
	}
	c.audit.NotCounted = map[string]int{}
	return c
}

// Add counts one record (warm-up and unanswered requests are left out, as
// k6 records nothing of them).
func (c *Collector) Add(rec *records.Record) {
	if !metrics.Recorded(rec) {
		return
	}
	c.addAudit(rec)
	if !rec.OK() || rec.TTFTNS == nil || len(rec.TextNS) == 0 {
		c.skip++
		return
	}
	c.requests++
	c.events += int64(len(rec.TextNS))
	c.tokens += int64(rec.OutputTokens)
	if rec.FirstEventNS != nil && *rec.FirstEventNS < *rec.TTFTNS {
		c.roleFirst++
	}
	for _, t := range c.tools {
		v := Compute(t, rec)
		m := c.vals[t]
		if v.TTFT != nil {
			m[TTFT] = append(m[TTFT], *v.TTFT)
		}
		m[ITL] = append(m[ITL], v.ITL...)
		if v.TPOT != nil {
			m[TPOT] = append(m[TPOT], *v.TPOT)
		}
	}
}

// Report is the run's distributions, tool by tool.
func (c *Collector) Report() *Report {
	r := &Report{Requests: c.requests, Skipped: c.skip, FirstEventBeforeText: c.roleFirst}
	if c.tokens > 0 {
		r.TextEventsPerToken = ptr(float64(c.events) / float64(c.tokens))
	}
	for _, t := range c.tools {
		for _, q := range []string{TTFT, ITL, TPOT} {
			def := Definition(t, q)
			if def == "" {
				continue
			}
			xs := slices.Clone(c.vals[t][q])
			slices.Sort(xs)
			row := Row{Tool: t, Quantity: q, Definition: def, Count: len(xs)}
			if len(xs) > 0 {
				sum := 0.0
				for _, x := range xs {
					sum += x
				}
				row.Mean = ptr(sum / float64(len(xs)))
				row.P50 = pct(xs, 50)
				row.P90 = pct(xs, 90)
				row.P99 = pct(xs, 99)
			}
			r.Rows = append(r.Rows, row)
		}
	}
	return r
}

func pct(sorted []float64, n float64) *float64 {
	v, ok := stats.Percentile(sorted, n)
	if !ok {
		return nil
	}
	return &v
}
