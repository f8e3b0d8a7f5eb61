package metrics

import (
	"hash/fnv"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

// Series is a metric's samples of one request, in milliseconds for time
// Trends.
type Series struct {
	Metric string    `json:"metric"`
	Values []float64 `json:"values"`
	// Tags are added to the request's tags for these samples only (the
	// reason of llm_output_invalid and of llm_tool_call_parse_failures);
	// absent for most series.
	Tags map[string]string `json:"tags,omitempty"`
}

// ITLMode says which llm_itl samples a request gets (the Client's itl option).
type ITLMode string

// The ITL modes.
const (
	ITLAll      ITLMode = "all"      // one sample per token gap
	ITLFraction ITLMode = "fraction" // a share of them (Options.Fraction)
	ITLOff      ITLMode = "off"      // none
	ITLRecords  ITLMode = "records"  // none in k6: the records file keeps them
)

// Options are the choices of the Client that shape a request's samples.
type Options struct {
	ITL      ITLMode // "" is ITLAll
	Fraction float64 // with ITLFraction: the share of ITL samples kept, in (0, 1)
	Stages   bool    // add the stages of TTFT
	// SLO, when set, adds llm_slo_met: whether the request met it.
	SLO *SLO
	// Deadline, when set, judges the request on it (llm_fluidity,
	// llm_deadline_met) whether or not SLO is set; SLO.Deadline wins
	// (analyze's --slo deadline on records).
	Deadline *Deadline
	// Prices, when set, adds llm_cost.
	Prices *Prices
	// ExpectOutputTokens, when > 0, adds llm_output_length_mismatch for a
	// successful request whose output token count differs.
	ExpectOutputTokens int
	// Abandonment adds llm_requests_abandoned to every request (0 unless
	// abandoned): the Client abandons some of its requests. An abandoned
	// request has the sample whatever this says.
	Abandonment bool
}

// deadline is the deadline a request is judged on: the SLO's, else Deadline.
func (o *Options) deadline() *Deadline {
	if o.SLO != nil && o.SLO.Deadline != nil {
		return o.SLO.Deadline
	}
	return o.Deadline
}

// MS is a duration in milliseconds rounded to the microsecond: every time
// sample's value (20512345 ns → 20.512).
func MS(ns int64) float64 {
	return float64(time.Duration(ns).Round(time.Microsecond)/time.Microsecond) / 1000
}

// Recorded reports whether k6 records the request at all: warm-up requests
// and requests whose caller went away have no samples.
func Recorded(rec *records.Record) bool { return !rec.Warmup && !rec.Unanswered }

// FromRecord is the one definition of a request's samples: the metrics and
// values llmstream.js adds for the request, in Builtin's order (for a
// request k6 does not record, see Recorded, what it would have added).
//
//   - llm_ttft, llm_ttft_answer: when the moment happened.
//   - llm_tpot: a successful request with ≥ 2 output tokens.
//   - llm_e2e: a request that was sent and not abandoned (an abandoned
//     request's end is when its client left, not the answer's end).
//   - llm_ttft_scheduled, llm_e2e_scheduled: with the record's ScheduledNS
//     (open-loop load), TTFT and e2e measured from the intended send time:
//     the send lag (StartNS − ScheduledNS, never below 0) plus llm_ttft or
//     llm_e2e.
//   - llm_itl: one sample per gap between text events; a gap that closed
//     with an event of k > 1 tokens (when the server said so) is k samples of
//     gap/k, so the distribution is per token; thinned by Options.
//   - llm_itl_max: the longest gap between text events (≥ 2 text events).
//   - llm_itl_zero_gaps: how many of the llm_itl samples are 0 (one sample).
//   - token counters, the server's own timings, stages (Options.Stages), the
//     client's lag, llm_requests_failed (0 for an abandoned request: it did
//     not fail), llm_requests_abandoned (an abandoned request, or every
//     request with Options.Abandonment), then llm_slo_met (never met when
//     abandoned: SLO.Met), llm_cost and llm_output_length_mismatch (not
//     for an abandoned request) as Options ask.
//   - llm_output_token_mismatch: a successful request with a token audit
//     that could judge it (TokenMismatch).
//   - llm_output_invalid: a successful request whose structured answer the
//     helper checked (records.OutputCheck): 1 with the tag reason when
//     invalid, else 0.
//   - llm_tool_calls, llm_tool_call_first_arg, llm_tool_call_parse_failures:
//     for a request whose answer made tool calls: how many, request start →
//     the first argument piece of the first call that had one, and one
//     series per reason (tag reason) of the calls whose arguments did not
//     parse.
//
// An embeddings or rerank call (rec.Kind) has its own metrics instead, see
// fromCall.
// long: one sample per metric in FromRecord's order, read straight down; split, the order would be spread over files
func FromRecord(rec *records.Record, o *Options) []Series {
	if o == nil {
		o = &Options{}
	}
	if rec.Kind != "" {
		return fromCall(rec)
	}
	b := builder{out: make([]Series, 0, 16), singles: make([]float64, 0, 24)}
	if rec.TTFTNS != nil {
		b.one(TTFT, MS(*rec.TTFTNS))
	}
	if rec.TTFTAnswerNS != nil {
		b.one(TTFTAnswer, MS(*rec.TTFTAnswerNS))
	}
	if rec.TPOTNS != nil && rec.OK() && rec.OutputTokens >= 2 {
		b.one(TPOT, MS(*rec.TPOTNS))
	}
	abandoned := rec.Abandoned != nil
	if rec.StartNS != 0 && !abandoned {
		b.one(E2E, MS(rec.E2ENS))
	}
	if lag, ok := SendLagNS(rec); ok {
		if rec.TTFTNS != nil {
			b.one(TTFTScheduled, MS(lag+*rec.TTFTNS))
		}
		if !abandoned {
			b.one(E2EScheduled, MS(lag+rec.E2ENS))
		}
	}
	b.gaps(rec, o)
	b.one(OutputTokens, float64(max(rec.OutputTokens, 0)))
	b.one(InputTokens, float64(max(rec.InputTokens, 0)))
	if rec.CachedInputTokens > 0 {
		b.one(CachedInputTokens, float64(rec.CachedInputTokens))
	}
	if sv := rec.Server; sv != nil {
		if sv.PrefillNS != 0 {
			b.one(ServerPrefill, MS(sv.PrefillNS))
		}
		if tpot, ok := ServerTPOTNS(sv); ok {
			b.one(ServerTPOT, MS(tpot))
		}
	}
	b.one(RequestsFailed, boolValue(!rec.OK()))
	if abandoned || o.Abandonment {
		b.one(RequestsAbandoned, boolValue(abandoned))
	}
	if s := rec.Stages; o.Stages && s != nil && rec.TTFTNS != nil {
		b.one(StageConnect, MS(s.ConnectNS))
		b.one(StageSend, MS(s.SendNS))
		b.one(StageWait, MS(s.WaitNS))
		b.one(StageFirstEvent, MS(s.FirstEventNS))
		b.one(StageFirstToken, MS(s.FirstTokenNS))
	}
	if rec.ClientLagNS != nil {
		b.one(ClientLag, MS(*rec.ClientLagNS))
	}
	if rec.CPUIdle != nil {
		b.one(ClientCPUIdle, *rec.CPUIdle)
	}
	if d := o.deadline(); d != nil {
		r, ok := d.Judge(rec)
		if ok {
			b.one(Fluidity, r.Fluidity)
		}
		b.one(DeadlineMet, boolValue(ok && r.Met))
	}
	if o.SLO != nil {
		b.one(SLOMet, boolValue(o.SLO.Met(OutcomeOf(b.out, o.SLO))))
	}
	if o.Prices != nil {
		b.one(Cost, o.Prices.Cost(rec.InputTokens, rec.CachedInputTokens, rec.OutputTokens))
	}
	if o.ExpectOutputTokens > 0 && rec.OK() && !abandoned && rec.OutputTokens != o.ExpectOutputTokens {
		b.one(OutputLengthMismatch, 1)
	}
	if mismatch, ok := TokenMismatch(rec); ok {
		b.one(OutputTokenMismatch, boolValue(mismatch))
	}
	if c := rec.OutputCheck; c != nil && rec.OK() && !abandoned {
		b.one(OutputInvalid, boolValue(c.Invalid != ""))
		if c.Invalid != "" {
			b.out[len(b.out)-1].Tags = map[string]string{TagReason: c.Invalid}
		}
	}
	b.tools(rec)
	return b.out
}

// fromCall is an embeddings or rerank call's samples, apart from
// generation's: llm_embed_duration (a call that was sent), the input tokens
// the server reported (a successful call), llm_embed_batch_size (the
// request's inputs) and llm_embed_failed; for rerank the llm_rerank_*
// equivalents, with llm_rerank_documents as the batch. Tags and error kinds
// are generation's.
func fromCall(rec *records.Record) []Series {
	b := builder{out: make([]Series, 0, 4), singles: make([]float64, 0, 4)}
	duration, tokens, batch, failed := EmbedDuration, EmbedInputTokens, EmbedBatchSize, EmbedFailed
	if rec.Kind == "rerank" {
		duration, tokens, batch, failed = RerankDuration, RerankInputTokens, RerankDocuments, RerankFailed
	}
	if rec.StartNS != 0 {
		b.one(duration, MS(rec.E2ENS))
	}
	if rec.OK() && rec.TokenSource == "usage" {
		b.one(tokens, float64(max(rec.InputTokens, 0)))
	}
	if rec.Batch > 0 {
		b.one(batch, float64(rec.Batch))
	}
	b.one(failed, boolValue(!rec.OK()))
	return b.out
}

// SendLagNS is how late a request of open-loop load was sent: its start
// minus the time it was scheduled for, never below 0 (the scheduler's clock
// has whole milliseconds, so a start can read a little before its schedule).
// ok is false when the record has no scheduled time or was never sent.
func SendLagNS(rec *records.Record) (int64, bool) {
	if rec.ScheduledNS <= 0 || rec.StartNS == 0 {
		return 0, false
	}
	return max(0, rec.StartNS-rec.ScheduledNS), true
}

// ServerTPOTNS is the server's own time per output token: its decode time
// over its output tokens, when it reported both.
func ServerTPOTNS(sv *records.Server) (int64, bool) {
	if sv == nil || sv.OutputTokens <= 0 || sv.DecodeNS <= 0 {
		return 0, false
	}
	return sv.DecodeNS / int64(sv.OutputTokens), true
}

// Tags are the module's own tags of a request's samples (ModuleTags' order).
func Tags(rec *records.Record) [5]string {
	return [5]string{rec.Model, rec.API, itoa(rec.Status), rec.ErrorKind(), rec.TokenSource}
}

func itoa(n int) string {
	if n >= 0 && n < 1000 {
		return statusText[n]
	}
	return formatInt(n)
}

// builder collects the series; single values share one backing array.
type builder struct {
	out     []Series
	singles []float64
}

// one adds a metric with one sample.
func (b *builder) one(metric string, v float64) {
	b.singles = append(b.singles, v)
	n := len(b.singles)
	b.out = append(b.out, Series{Metric: metric, Values: b.singles[n-1 : n : n]})
}

// gaps adds llm_itl (as the mode asks), llm_itl_max and llm_itl_zero_gaps.
func (b *builder) gaps(rec *records.Record, o *Options) {
	if len(rec.TextNS) < 2 {
		if o.ITL == "" || o.ITL == ITLAll || o.ITL == ITLFraction {
			b.one(ITLZeroGaps, 0)
		}
		return
	}
	mode := o.ITL
	if mode == "" {
		mode = ITLAll
	}
	var worst int64
	for _, g := range rec.TextNS[1:] {
		worst = max(worst, g)
	}
	if mode == ITLOff || mode == ITLRecords {
		b.one(ITLMax, MS(worst))
		return
	}
	thin := mode == ITLFraction && o.Fraction > 0 && o.Fraction < 1
	acc := 0.0
	if thin {
		acc = offset(rec.ID)
	}
	itl := make([]float64, 0, len(rec.TextNS)-1)
	zeros := 0
	for i := 1; i < len(rec.TextNS); i++ {
		gap := MS(rec.TextNS[i])
		k := 1
		if i < len(rec.TextTokens) && rec.TextTokens[i] > 1 {
			k = rec.TextTokens[i]
		}
		v := gap / float64(k)
		for range k {
			if thin {
				acc += o.Fraction
				if acc < 1-1e-9 {
					continue
				}
				acc--
			}
			itl = append(itl, v)
			if rec.TextNS[i] == 0 {
				zeros++
			}
		}
	}
	if len(itl) > 0 {
		b.out = append(b.out, Series{Metric: ITL, Values: itl})
	}
	b.one(ITLMax, MS(worst))
	b.one(ITLZeroGaps, float64(zeros))
}

// tools adds the tool-call samples of a request whose answer made calls.
func (b *builder) tools(rec *records.Record) {
	if len(rec.Tools) == 0 && rec.ToolsDropped == 0 {
		return
	}
	b.one(ToolCalls, float64(len(rec.Tools)+rec.ToolsDropped))
	for _, t := range rec.Tools {
		if t.FirstArgNS != nil {
			b.one(ToolCallFirstArg, MS(*t.FirstArgNS))
			break
		}
	}
	var reasons []string
	counts := map[string]int{}
	for _, t := range rec.Tools {
		if t.ParseError == "" {
			continue
		}
		if counts[t.ParseError] == 0 {
			reasons = append(reasons, t.ParseError)
		}
		counts[t.ParseError]++
	}
	for _, r := range reasons {
		b.out = append(b.out, Series{Metric: ToolCallParseFailures, Values: []float64{float64(counts[r])},
			Tags: map[string]string{TagReason: r}})
	}
}

// offset is where a request's thinning accumulator starts, in [0, 1): a
// hash of its id, so that every request keeps its share of samples in
// expectation, short ones included, and the choice is reproducible.
func offset(id string) float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return float64(h.Sum64()>>11) / (1 << 53)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
