package tail

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/internal/stats"
)

// Schema is the version of the JSON form of a Result.
const Schema = "xk6-llmstream/analyze-tail/v1"

// The stages of TTFT, in order; Request.Stages is indexed by them.
const (
	Connect = iota
	Send
	Wait
	FirstEvent
	FirstToken
	NumStages
)

// StageNames are the stages' names (as in the llm_stage_* metrics).
var StageNames = [NumStages]string{"connect", "send", "wait", "first_event", "first_token"}

// stageWords say what each stage is, for the sentences.
var stageWords = [NumStages]string{
	"setting up the connection", "sending the request", "waiting for response headers",
	"waiting from headers to the first event", "waiting from the first event to the first token",
}

// Request is what attribution needs of one request.
type Request struct {
	TTFT           int64 // ns; the stages sum to it
	Stages         [NumStages]int64
	StartNS, EndNS int64 // unix ns
	InputTokens    int
	OutputTokens   int
	CachedShare    float64 // cached input tokens / input tokens; NaN when unknown
	ServerWaiting  float64 // the server's queue depth at start, as last scraped; NaN when unknown
	Model          string
	Instance       string // the instance_id tag
	Scenario       string // the scenario tag
}

// FromRecord is the Request of a record; ok is false for a record without a
// TTFT or stages (failed before its first token, warm-up, unanswered).
func FromRecord(r *records.Record) (q Request, ok bool) {
	if r.Warmup || r.Unanswered || r.TTFTNS == nil || r.Stages == nil || !r.OK() {
		return q, false
	}
	s := r.Stages
	q = Request{
		TTFT:    *r.TTFTNS,
		Stages:  [NumStages]int64{s.ConnectNS, s.SendNS, s.WaitNS, s.FirstEventNS, s.FirstTokenNS},
		StartNS: r.StartNS, EndNS: r.StartNS + r.E2ENS,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		CachedShare: math.NaN(), ServerWaiting: math.NaN(),
		Model: r.Model, Instance: r.Tags["instance_id"], Scenario: r.Tags["scenario"],
	}
	if r.ServerWaiting != nil {
		q.ServerWaiting = *r.ServerWaiting
	}
	if r.InputTokens > 0 {
		q.CachedShare = float64(r.CachedInputTokens) / float64(r.InputTokens)
	}
	return q, true
}

// Options set the analysis.
type Options struct {
	Tail       float64 // percentile of TTFT above which a request is in the tail (99)
	Confidence float64 // level of the intervals (0.95)
	MinEffect  float64 // smallest |effect| named as setting the tail apart (0.25)
	Resamples  int     // bootstrap replicates (1000)
	Seed       uint64  // of the bootstrap and the body sample (fixed: reproducible)
	BodySample int     // body requests the numeric effects are measured on (20000)
}

// DefaultOptions are P99, 95% intervals, effects of at least 0.25.
func DefaultOptions() Options {
	return Options{Tail: 99, Confidence: 0.95, MinEffect: 0.25, Resamples: 1000, Seed: 1, BodySample: 20000}
}

// Result is the attribution of a tail; its JSON form is versioned (Schema).
type Result struct {
	Schema     string      `json:"schema"`
	Tail       float64     `json:"tail_percentile"`
	Confidence float64     `json:"confidence"`
	Requests   int         `json:"requests"`
	TailCount  int         `json:"tail_requests"`
	Threshold  float64     `json:"threshold_ms"` // p(Tail) of TTFT
	MedianTTFT float64     `json:"median_ttft_ms"`
	Ratio      float64     `json:"ratio"`      // Threshold / MedianTTFT
	ExcessMS   float64     `json:"excess_ms"`  // mean TTFT of the tail − of the body
	Stages     []Stage     `json:"stages"`     // in stage order
	Attributes []Attribute `json:"attributes"` // by |effect|, largest first
	Findings   []string    `json:"findings"`   // the sentences, headline first
	// Profile is the mean of each stage in the median requests and in the
	// tail (added within v1).
	Profile Profile `json:"profile"`
}

// Stage is one stage's part of the tail's excess.
type Stage struct {
	Name         string  `json:"name"`
	TailMedianMS float64 `json:"tail_median_ms"`
	BodyMedianMS float64 `json:"body_median_ms"`
	TailMeanMS   float64 `json:"tail_mean_ms"`
	BodyMeanMS   float64 `json:"body_mean_ms"`
	Share        float64 `json:"share"` // of ExcessMS; the shares sum to 1
	ShareLo      float64 `json:"share_lo"`
	ShareHi      float64 `json:"share_hi"`
}

// Analyze attributes the tail of reqs (reqs is not modified).
func Analyze(reqs []Request, o Options) (*Result, error) {
	if !(o.Tail > 0 && o.Tail < 100) {
		return nil, fmt.Errorf("tail percentile %v: want one between 0 and 100, e.g. 99", o.Tail)
	}
	if need := int(math.Ceil(2 / (1 - o.Tail/100))); len(reqs) < need {
		return nil, fmt.Errorf("%d requests with a TTFT: the tail above p(%v) needs at least %d", len(reqs), o.Tail, need)
	}
	ttft := make([]float64, len(reqs))
	for i := range reqs {
		ttft[i] = ms(reqs[i].TTFT)
	}
	slices.Sort(ttft)
	thr, _ := stats.Percentile(ttft, o.Tail)
	med, _ := stats.Percentile(ttft, 50)
	inTail := make([]bool, len(reqs))
	var tail, body []int
	for i := range reqs {
		if inTail[i] = ms(reqs[i].TTFT) > thr; inTail[i] {
			tail = append(tail, i)
		} else {
			body = append(body, i)
		}
	}
	if len(tail) == 0 {
		return nil, fmt.Errorf("no request's TTFT is above p(%v) = %.3f ms (ties): no tail to attribute", o.Tail, thr)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x7a11))
	res := &Result{Schema: Schema, Tail: o.Tail, Confidence: o.Confidence, Requests: len(reqs),
		TailCount: len(tail), Threshold: thr, MedianTTFT: med, Ratio: thr / med}
	res.Stages, res.ExcessMS = stageShares(reqs, tail, body, o, rng)
	res.Attributes = attributes(reqs, inTail, tail, body, o, rng)
	res.Findings = findings(res, o)
	res.Profile = profile(reqs, ttft, tail)
	return res, nil
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
