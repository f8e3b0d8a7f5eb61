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
	// InferencePerf is kubernetes-sigs/inference-perf.
	InferencePerf Tool = "inference-perf"
)

// Tools lists every tool, ours first.
var Tools = []Tool{Ours, VLLM, AIPerf, GuideLLM, InferencePerf, LLMPerf, SGLang}

// The quantities. Each tool defines some of them (Definitions lists which).
const (
	TTFT = "ttft"
	ITL  = "itl"
	TPOT = "tpot"
	E2E  = "e2e"
	// ICL is AIPerf's inter-chunk latency: every gap between content chunks.
	ICL = "icl"
	// TTFO is AIPerf's time to first output token: the first non-reasoning
	// content.
	TTFO = "ttfo"
	// NTPOT is inference-perf's normalized time per output token: e2e / N.
	NTPOT = "ntpot"
	// E2EQueue is vLLM's e2el_including_client_queue: E2EL plus the time the
	// request waited in the client between its scheduled arrival and its send.
	E2EQueue = "e2el_incl_queue"
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

// Def is how one tool defines one quantity, and where that was read: the
// release (tag or version, else the commit) and the source file.
type Def struct {
	Quantity string
	Text     string
	Source   string
}

// Definition says in one line how a tool defines a quantity ("" when the
// tool reports no such quantity).
func Definition(t Tool, quantity string) string {
	d, _ := lookup(t, quantity)
	return d.Text
}

// Source names the release and the file a tool's definition of a quantity
// was read from ("" when the tool reports no such quantity).
func Source(t Tool, quantity string) string {
	d, _ := lookup(t, quantity)
	return d.Source
}

// Definitions are a tool's quantities, in the order the summary shows them.
func Definitions(t Tool) []Def { return slices.Clone(definitions[t]) }

func lookup(t Tool, quantity string) (Def, bool) {
	for _, d := range definitions[t] {
		if d.Quantity == quantity {
			return d, true
		}
	}
	return Def{}, false
}

// Where each tool's rows were read. docs/definitions.md says how to re-read
// them when a tool releases.
const (
	srcVLLMServe   = "vllm main@009e6d4a: vllm/benchmarks/serve.py (calculate_metrics, benchmark)"
	srcVLLMRequest = "vllm main@02cfb534: vllm/benchmarks/lib/endpoint_request_func.py (async_request_openai_chat_completions)"
	srcAIPerf      = "aiperf 0.8.0: src/aiperf/metrics/types/"
	srcGuideLLM    = "guidellm v0.7.3: src/guidellm/schemas/request_stats.py, src/guidellm/backends/openai/http.py"
	srcInfPerf     = "inference-perf v0.6.1: inference_perf/reportgen/base.py (summarize_requests), inference_perf/apis/streaming_parser.py"
	srcLLMPerf     = "llmperf v2.0 (archived): src/llmperf/ray_clients/openai_chat_completions_client.py"
	srcSGLang      = "sglang (release not re-read): python/sglang/bench_serving.py (async_request_openai_chat_completions, calculate_metrics)"
	srcOurs        = "this repository: internal/metrics (FromRecord), docs/metrics.md"
)

var definitions = map[Tool][]Def{
	Ours: {
		{TTFT, "first text-bearing event", srcOurs},
		{ITL, "every gap between text events; a k-token event's gap is k samples of gap/k (pooled)", srcOurs},
		{TPOT, "(e2e − ttft) / (output tokens − 1), per request", srcOurs},
		{E2E, "start to the end of the stream", srcOurs},
	},
	VLLM: {
		{TTFT, "first chunk with choices, even a role-only one (first event)", srcVLLMRequest},
		{ITL, "every chunk gap after the first chunk, unsplit (pooled)", srcVLLMRequest},
		{TPOT, "(latency − ttft) / (output tokens − 1), latency at the last chunk with choices, per request", srcVLLMServe},
		{E2E, "E2EL: start to the last chunk with choices (the last text event)", srcVLLMRequest},
		{E2EQueue, "e2el_including_client_queue: E2EL + (send − scheduled arrival); open-loop records only", srcVLLMServe},
	},
	AIPerf: {
		{TTFT, "first content response (text or reasoning)", srcAIPerf + "ttft_metric.py"},
		{TTFO, "first non-reasoning content response", srcAIPerf + "time_to_first_output_token_metric.py"},
		{ITL, "(request latency − ttft) / (output tokens − 1), request latency at the last content response, per request", srcAIPerf + "inter_token_latency_metric.py"},
		{ICL, "every gap between content responses, unsplit (pooled)", srcAIPerf + "inter_chunk_latency_metric.py"},
		{E2E, "request latency: start to the last content response", srcAIPerf + "request_latency_metric.py"},
	},
	GuideLLM: {
		{TTFT, "first token iteration (first chunk with content)", srcGuideLLM},
		{ITL, "(last token − first token) / (output tokens − 1), per request", srcGuideLLM},
		{TPOT, "(last token − request start) / output tokens, per request (includes the TTFT)", srcGuideLLM},
		{E2E, "request latency: request start to request end", srcGuideLLM},
	},
	InferencePerf: {
		{TTFT, "first content chunk", srcInfPerf},
		{ITL, "every gap between output-token times, each token at its chunk's time (k-token chunk: its gap, then k − 1 zeros; pooled)", srcInfPerf},
		{TPOT, "(last token − first token) / (output tokens − 1), per request", srcInfPerf},
		{NTPOT, "(end − start) / output tokens, per request", srcInfPerf},
		{E2E, "request latency: end − start", srcInfPerf},
	},
	LLMPerf: {
		{TTFT, "first chunk with content", srcLLMPerf},
		{ITL, "last content chunk / output tokens (tokenizer count), per request", srcLLMPerf},
	},
	SGLang: {
		{TTFT, "first chunk with content", srcSGLang},
		{ITL, "every gap between content chunks, unsplit (pooled)", srcSGLang},
		{TPOT, "(e2e − ttft) / (output tokens − 1), per request", srcSGLang},
	},
}

// Values are one request's values under one tool, in milliseconds, by
// quantity (a per-request quantity has one value, a pooled one several).
type Values map[string][]float64

const nsPerMS = 1e6

func ms(ns int64) float64 { return float64(ns) / nsPerMS }

func ptr(v float64) *float64 { return &v }

// tokenizerCount is N as a tool that re-tokenizes the text counts it: the
// record's token audit when there is one, else the output tokens.
func tokenizerCount(rec *records.Record) int {
	if a := rec.TokenAudit; a != nil && a.Error == "" && a.Counted > 0 {
		return a.Counted
	}
	return rec.OutputTokens
}

// Compute is one successful request's values under a tool's definitions
// (empty: the request had no text, and counts under no tool).
func Compute(t Tool, rec *records.Record) Values {
	v := Values{}
	if !rec.OK() || rec.TTFTNS == nil || len(rec.TextNS) == 0 {
		return v
	}
	switch t {
	case Ours:
		for _, s := range metrics.FromRecord(rec, &metrics.Options{ITL: metrics.ITLAll}) {
			switch s.Metric {
			case metrics.TTFT:
				v[TTFT] = s.Values[:1]
			case metrics.ITL:
				v[ITL] = s.Values
			case metrics.TPOT:
				v[TPOT] = s.Values[:1]
			}
		}
		v[E2E] = []float64{ms(rec.E2ENS)}
	case VLLM:
		computeVLLM(rec, v)
	case AIPerf:
		computeAIPerf(rec, v)
	case GuideLLM:
		computeGuideLLM(rec, v)
	case InferencePerf:
		computeInferencePerf(rec, v)
	case LLMPerf:
		v[TTFT] = []float64{ms(*rec.TTFTNS)}
		if n := tokenizerCount(rec); n > 0 { // LLMPerf counts the text with a tokenizer
			v[ITL] = []float64{ms(lastText(rec)) / float64(n)}
		}
	case SGLang:
		ttft := *rec.TTFTNS
		v[TTFT] = []float64{ms(ttft)}
		for _, g := range rec.TextNS[1:] {
			v[ITL] = append(v[ITL], ms(g))
		}
		if n := rec.OutputTokens; n > 1 {
			v[TPOT] = []float64{ms(rec.E2ENS-ttft) / float64(n-1)}
		}
	}
	return v
}

// lastText is the last text event's time from the start.
func lastText(rec *records.Record) int64 {
	last := int64(0)
	for _, g := range rec.TextNS {
		last += g
	}
	return last
}

// computeVLLM: vllm bench serve. Its chunks are those with choices: a
// role-only first chunk is its TTFT, and the gap from it to the first text
// its first ITL sample. N is the usage, else its tokenizer's count.
func computeVLLM(rec *records.Record, v Values) {
	ttft := *rec.TTFTNS
	first := ttft
	if rec.FirstEventNS != nil && *rec.FirstEventNS < ttft {
		first = *rec.FirstEventNS
		v[ITL] = append(v[ITL], ms(ttft-first))
	}
	v[TTFT] = []float64{ms(first)}
	for _, g := range rec.TextNS[1:] {
		v[ITL] = append(v[ITL], ms(g))
	}
	last := lastText(rec)
	n := rec.OutputTokens
	if rec.TokenSource != "usage" {
		n = tokenizerCount(rec)
	}
	if n > 1 {
		v[TPOT] = []float64{ms(last-first) / float64(n-1)}
	}
	v[E2E] = []float64{ms(last)}
	if rec.ScheduledNS > 0 {
		v[E2EQueue] = []float64{ms(last + rec.StartNS - rec.ScheduledNS)}
	}
}

// computeAIPerf: AIPerf's content responses are the text events (reasoning
// included); its request latency ends at the last one. The ITL divisor is
// N − 1 (AIPerf's default, without --per-chunk-usage).
func computeAIPerf(rec *records.Record, v Values) {
	ttft := *rec.TTFTNS
	last := lastText(rec)
	v[TTFT] = []float64{ms(ttft)}
	ttfo := ttft
	if rec.TTFTAnswerNS != nil {
		ttfo = *rec.TTFTAnswerNS
	}
	v[TTFO] = []float64{ms(ttfo)}
	if n := rec.OutputTokens; n > 1 {
		v[ITL] = []float64{ms(last-ttft) / float64(n-1)}
	}
	if len(rec.TextNS) > 1 {
		for _, g := range rec.TextNS[1:] {
			v[ICL] = append(v[ICL], ms(g))
		}
	}
	v[E2E] = []float64{ms(last)}
}

// computeGuideLLM: GuideLLM v0.7.3's request_stats.py.
func computeGuideLLM(rec *records.Record, v Values) {
	ttft := *rec.TTFTNS
	last := lastText(rec)
	n := rec.OutputTokens
	v[TTFT] = []float64{ms(ttft)}
	if n > 1 {
		v[ITL] = []float64{ms(last-ttft) / float64(n-1)}
	}
	if n > 0 {
		v[TPOT] = []float64{ms(last) / float64(n)}
	}
	v[E2E] = []float64{ms(rec.E2ENS)}
}

// computeInferencePerf: inference-perf v0.6.1 gives each token of a chunk
// the chunk's time (the chunk's tokens are the record's per-event counts,
// text_tokens; without them each chunk is one time, its fallback when it
// cannot re-tokenize). N is its tokenizer's count of the text.
func computeInferencePerf(rec *records.Record, v Values) {
	var times []int64 // output-token times from the start
	at := int64(0)
	perEvent := len(rec.TextTokens) == len(rec.TextNS)
	for i, g := range rec.TextNS {
		at += g
		k := 1
		if perEvent {
			k = rec.TextTokens[i]
		}
		for range k {
			times = append(times, at)
		}
	}
	n := tokenizerCount(rec)
	if n > 0 {
		v[NTPOT] = []float64{ms(rec.E2ENS) / float64(n)}
	}
	v[E2E] = []float64{ms(rec.E2ENS)}
	if len(times) < 2 { // not streamable: no TTFT, TPOT or ITL
		return
	}
	v[TTFT] = []float64{ms(times[0])}
	if n > 1 {
		v[TPOT] = []float64{ms(times[len(times)-1]-times[0]) / float64(n-1)}
	}
	for i := 1; i < len(times); i++ {
		v[ITL] = append(v[ITL], ms(times[i]-times[i-1]))
	}
}

// Row is one tool's distribution of one quantity over the run.
type Row struct {
	Tool       Tool   `json:"tool"`
	Quantity   string `json:"quantity"`
	Definition string `json:"definition"`
	// Source is the tool's release and the source file the definition was
	// read from (added in this version; optional for readers).
	Source string   `json:"source,omitempty"`
	Count  int      `json:"count"`
	Mean   *float64 `json:"mean_ms"`
	P50    *float64 `json:"p50_ms"`
	P90    *float64 `json:"p90_ms"`
	P99    *float64 `json:"p99_ms"`
}

// Report is every tool's quantities (TTFT, ITL, TPOT, e2e, ...) of a run.
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
		m := c.vals[t]
		for q, xs := range Compute(t, rec) {
			m[q] = append(m[q], xs...)
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
		for _, d := range definitions[t] {
			xs := slices.Clone(c.vals[t][d.Quantity])
			slices.Sort(xs)
			row := Row{Tool: t, Quantity: d.Quantity, Definition: d.Text, Source: d.Source, Count: len(xs)}
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
