package mockllm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"
)

// DefaultOutputTokens is the answer length, in tokens, when a model has no
// OutputTokens distribution and the request sets no max_tokens.
const DefaultOutputTokens = 16

// DefaultModelName is the model listed by GET /v1/models, and named in answers
// to requests that name none, when Config.Models is empty.
const DefaultModelName = "mock"

// DefaultRetryAfter is the Retry-After of 429 answers when Config.RetryAfter is 0.
const DefaultRetryAfter = time.Second

// DefaultStatus5xx is the status of the injected 5xx fault when
// Faults.Status5xx is 0.
const DefaultStatus5xx = 503

// maxOutputTokens bounds any answer's length, whatever the request or the
// distributions say, so a typo cannot make a stream run for hours.
const maxOutputTokens = 1 << 20

// Config configures a Server. The zero Config is valid: an instant server (no
// latency, unlimited slots, no faults) whose answers are DefaultOutputTokens
// long unless the request sets max_tokens.
type Config struct {
	// Seed derives every request's random source (with the request's arrival
	// sequence number).
	Seed uint64 `json:"seed" flag:"seed" usage:"random {SEED} of the latency model and faults"`
	// Slots is how many streams decode at once; the others wait FIFO. 0 means
	// unlimited.
	Slots int `json:"slots" flag:"slots" usage:"at most {N} streams decode at once, others wait FIFO (0: unlimited)"`
	// SlotsPerModel gives each model its own pool of Slots (and its own queue)
	// instead of one pool shared by all models.
	SlotsPerModel bool `json:"slots_per_model" flag:"slots-per-model" usage:"give each model its own slots and queue"`
	// QueueLimit is how many requests may wait for a slot; the next ones are
	// answered 429 with Retry-After. 0 means no limit.
	QueueLimit int `json:"queue_limit" flag:"queue-limit" usage:"answer 429 when {N} requests already wait for a slot (0: no limit)"`
	// RetryAfter is the Retry-After of 429 answers (rounded up to whole
	// seconds); 0 means DefaultRetryAfter.
	RetryAfter time.Duration `json:"retry_after" flag:"retry-after" usage:"Retry-After of 429 answers"`
	// APIKey, when set, is required on every /v1/ request as
	// "Authorization: Bearer KEY" or "x-api-key: KEY"; others get 401. It never
	// appears in any answer or log.
	APIKey string `json:"api_key" flag:"api-key" usage:"require this {KEY} (Authorization: Bearer or x-api-key); answer 401 otherwise"`
	// Default is the behaviour of every model not named in Models.
	Default ModelConfig `json:"default"`
	// Models holds per-model behaviour, by the name requests use. When not
	// empty, GET /v1/models lists these names. A request for a model not listed
	// here is served with Default.
	Models map[string]ModelConfig `json:"models"`
	// Tokenizer counts prompt tokens (usage's prompt_tokens, the prefill time,
	// the prefix cache): "" or "words" counts whitespace-separated words; a
	// built-in encoding of the workload package (cl100k_base, o200k_base) or
	// the path of a Hugging Face tokenizer.json counts that tokenizer's tokens
	// of each text alone (system, message contents, or the prompt) — no chat
	// template — exactly as `xk6-llmstream dataset` counts input_tokens.
	Tokenizer string `json:"tokenizer" flag:"tokenizer" usage:"count prompt tokens with {TOKENIZER} (cl100k_base, o200k_base, a tokenizer.json path, or words), as {xk6-llmstream dataset} does"`
	// PrefixCache, when PrefixCache.Blocks > 0, serves the leading blocks of
	// prompts seen recently from a cache: cheaper prefill, reported as cached
	// prompt tokens in usage.
	PrefixCache PrefixCache `json:"prefix_cache"`
	// Burst, when Burst.Delay > 0, slows every request that arrives in a
	// window of the run: a stall burst at a known time (a backend hiccup, a
	// GC pause), whose requests' first token comes Burst.Delay later.
	Burst Burst `json:"burst"`
	// Calls is the latency model of the embeddings and rerank endpoints.
	Calls CallLatency `json:"calls"`
	// GPUs is how many GPUs the DCGM-like page (GET /dcgm/metrics) shows
	// (0: 1).
	GPUs int `json:"gpus" flag:"gpus" usage:"the DCGM-like page GET /dcgm/metrics lists {N} GPUs (0: 1)"`
	// Log, when not nil, receives one JSON line per generation request (see
	// RequestLog). It is written by one goroutine through a buffer that
	// Server.Close flushes; the Server does not close it.
	Log io.Writer `json:"-"`
}

// Burst adds Delay to the prefill of every generation request arriving
// between Start and Start+Duration after the Server was created (Duration 0:
// until the end).
type Burst struct {
	Start    time.Duration `json:"start" flag:"burst-start" usage:"a stall burst begins {DURATION} after the mock starts (with --burst-delay)"`
	Duration time.Duration `json:"duration" flag:"burst-duration" usage:"the stall burst lasts {DURATION} (0: to the end)"`
	Delay    time.Duration `json:"delay" flag:"burst-delay" usage:"requests arriving in the burst get their first token {DURATION} later (0: no burst)"`
}

// covers reports whether a request arriving at offset since the Server's
// creation falls in the burst.
func (b Burst) covers(offset time.Duration) bool {
	return b.Delay > 0 && offset >= b.Start && (b.Duration == 0 || offset < b.Start+b.Duration)
}

func (b Burst) validate() error {
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"burst.start", b.Start}, {"burst.duration", b.Duration}, {"burst.delay", b.Delay}} {
		if err := nonNegative(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// ModelConfig is how one model behaves.
type ModelConfig struct {
	// Prefill is the time from getting a slot to the first generated token.
	Prefill Prefill `json:"prefill"`
	// ITL is the gap between consecutive token events (one decode step; an
	// event may carry several tokens, see TokensPerEvent).
	ITL ITL `json:"itl"`
	// Stall adds, before each token event after the first, with probability
	// Stall.Prob, a gap of Stall.Duration: the long tail.
	Stall Stall `json:"stall"`
	// DecodeSlowdown models batching: every ITL draw is multiplied by
	// 1 + DecodeSlowdown × (active − 1), where active is the number of streams
	// holding a slot of the same pool when the event is scheduled.
	DecodeSlowdown float64 `json:"decode_slowdown" flag:"slowdown" usage:"decode slowdown {F}: ITL × (1 + F × (active streams − 1))"`
	// OutputTokens is the answer length distribution. Unset, the answer fills
	// the request's max_tokens, else is DefaultOutputTokens long. max_tokens
	// (or max_completion_tokens) caps reasoning plus answer, and the finish
	// reason is "length" ("max_tokens" for Anthropic) exactly when they reach
	// it; vLLM's ignore_eos makes them reach it.
	OutputTokens Count `json:"output_tokens" flag:"output-tokens" usage:"answer length {N} in tokens (0: fill max_tokens, else 16; default: lognormal, median 120)"`
	// ReasoningTokens, when set, gives the model a reasoning phase of that many
	// tokens before the answer (OpenAI chat: delta.reasoning_content; Anthropic:
	// a thinking block). max_tokens caps reasoning plus answer.
	ReasoningTokens Count `json:"reasoning_tokens" flag:"reasoning-tokens" usage:"reasoning tokens {N} before the answer (0: none)"`
	// TokensPerEvent is how many tokens each event carries, drawn uniformly in
	// [Min, Max] per event (speculative decoding). Zero means 1.
	TokensPerEvent TokensPerEvent `json:"tokens_per_event" flag:"tokens-per-event" usage:"tokens per event {N} (speculative decoding; 0: 1)"`
	// Echo makes the answer repeat the prompt's words instead of filler text.
	Echo bool `json:"echo" flag:"echo" usage:"answer with the prompt's words instead of filler text"`
	// UsageOverReport makes the usage report claim this share more output
	// tokens than were streamed (0.1: 10 % more, rounded), as a miscounting
	// server or gateway would; for testing the token audit. The request log
	// keeps the true count. OpenAI (final usage), Anthropic and Ollama.
	UsageOverReport float64 `json:"usage_over_report"`
	// ToolRounds is how many answers in a row are tool calls when the
	// request offers tools: the mock calls a tool while the conversation holds
	// fewer than ToolRounds tool results, then answers with text, so an agent
	// loop ends after ToolRounds+1 steps. 0 means 1. See tools.go.
	ToolRounds int `json:"tool_rounds" flag:"tool-rounds" usage:"answer {N} requests in a row with a tool call when they offer tools, then with text (0 means 1)"`
	// ReasoningField is the OpenAI chat delta field of reasoning text:
	// "reasoning_content" (DeepSeek, the default) or "reasoning" (newer vLLM).
	ReasoningField string `json:"reasoning_field"`
	// InvalidJSON is the share of structured-output answers (a request with
	// response_format, text.format, output_config.format, responseMimeType
	// application/json or ollama's format) that are made invalid on purpose:
	// cut short (not JSON) or, with a schema, half of them with a value of the
	// wrong type. Drawn per request from the seed.
	InvalidJSON float64 `json:"invalid_json" flag:"invalid-json" usage:"make this share (0…1) of structured-output answers invalid on purpose: cut short or, with a schema, one value of the wrong type"`
	// Faults are the injected failure rates.
	Faults Faults `json:"faults"`
}

// Prefill is the prefill time: (Base + PerInputToken × uncached input tokens
// + PerCachedToken × input tokens served from the prefix cache) with Jitter
// applied, capped at Max when Max > 0.
type Prefill struct {
	Base           time.Duration `json:"base" flag:"prefill" usage:"prefill base {DURATION} (time from slot to first token)"`
	PerInputToken  time.Duration `json:"per_input_token" flag:"prefill-per-token" usage:"prefill {DURATION} added per input token"`
	PerCachedToken time.Duration `json:"per_cached_token" flag:"prefill-per-cached-token" usage:"prefill {DURATION} per input token served from the prefix cache"`
	Jitter         Jitter        `json:"jitter" flag:"prefill-sigma" usage:"lognormal jitter {SIGMA} of prefill (0: none)"`
	Max            time.Duration `json:"max"`
}

// ITL is the inter-token latency: Base with Jitter applied, capped at Max when
// Max > 0.
type ITL struct {
	Base   time.Duration `json:"base" flag:"itl" usage:"inter-token latency base {DURATION}"`
	Jitter Jitter        `json:"jitter" flag:"itl-sigma" usage:"lognormal jitter {SIGMA} of the inter-token latency (0: none)"`
	Max    time.Duration `json:"max"`
}

// Stall is a rare long gap: with probability Prob before each token event after
// the first, Duration (with Jitter applied) is added to the gap.
type Stall struct {
	Prob     float64       `json:"prob" flag:"stall-prob" usage:"probability {P} of a stall before each token event"`
	Duration time.Duration `json:"duration" flag:"stall" usage:"stall {DURATION}"`
	Jitter   Jitter        `json:"jitter"`
}

// JitterDist names a jitter distribution.
type JitterDist string

// The jitter distributions. Each turns a base value v into a random value,
// never below 0.
const (
	// JitterNone returns v.
	JitterNone JitterDist = "none"
	// JitterLognormal returns v × exp(Sigma × Z), Z standard normal: the median
	// is v, the right tail long.
	JitterLognormal JitterDist = "lognormal"
	// JitterNormal returns v + Stddev × Z, clamped at 0.
	JitterNormal JitterDist = "normal"
	// JitterUniform returns v + U(−Spread, +Spread), clamped at 0.
	JitterUniform JitterDist = "uniform"
	// JitterExponential returns v + Exp(Mean): never below v.
	JitterExponential JitterDist = "exponential"
)

// Jitter is random variation around a base duration. The zero Jitter is none.
type Jitter struct {
	Dist   JitterDist    `json:"dist"`
	Sigma  float64       `json:"sigma"`  // lognormal shape
	Stddev time.Duration `json:"stddev"` // normal
	Spread time.Duration `json:"spread"` // uniform half-width
	Mean   time.Duration `json:"mean"`   // exponential mean
}

// CountDist names a token-count distribution.
type CountDist string

// The token-count distributions.
const (
	// CountFixed is always Value.
	CountFixed CountDist = "fixed"
	// CountUniform is uniform on [Min, Max].
	CountUniform CountDist = "uniform"
	// CountLognormal is round(Median × exp(Sigma × Z)).
	CountLognormal CountDist = "lognormal"
	// CountNormal is round(Mean + Stddev × Z).
	CountNormal CountDist = "normal"
)

// Count is a token-count distribution. The zero Count is unset. Min and Max,
// when > 0, clamp every draw (for CountUniform they are the bounds).
type Count struct {
	Dist   CountDist `json:"dist"`
	Value  int       `json:"value"`
	Min    int       `json:"min"`
	Max    int       `json:"max"`
	Median float64   `json:"median"`
	Sigma  float64   `json:"sigma"`
	Mean   float64   `json:"mean"`
	Stddev float64   `json:"stddev"`
}

// IsSet reports whether the distribution was configured.
func (c Count) IsSet() bool { return c.Dist != "" }

// FixedCount returns the distribution that is always n.
func FixedCount(n int) Count { return Count{Dist: CountFixed, Value: n} }

// TokensPerEvent is the range of tokens one event carries.
type TokensPerEvent struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Faults are the rates (probabilities in [0, 1], summing to at most 1) of the
// injected failures. At most one fault is injected per request.
type Faults struct {
	// HTTP429 answers 429 with Retry-After at once.
	HTTP429 float64 `json:"http_429" flag:"fault-429" usage:"{RATE} of injected 429 answers"`
	// HTTP5xx answers Status5xx at once.
	HTTP5xx float64 `json:"http_5xx" flag:"fault-5xx" usage:"{RATE} of injected 5xx answers"`
	// Status5xx is the status of the 5xx fault; 0 means DefaultStatus5xx.
	Status5xx int `json:"status_5xx"`
	// Disconnect breaks the connection mid-stream, after at least one token.
	// This and the other stream faults (Malformed, ErrorEvent, NotStreamed)
	// spare requests that did not ask for a stream.
	Disconnect float64 `json:"disconnect" flag:"fault-disconnect" usage:"{RATE} of connections broken mid-stream"`
	// Malformed sends one event whose data is not valid JSON, mid-stream, then
	// goes on.
	Malformed float64 `json:"malformed" flag:"fault-malformed" usage:"{RATE} of streams with one malformed event"`
	// ErrorEvent ends the stream mid-way with an error event in the dialect's
	// own shape.
	ErrorEvent float64 `json:"error_event" flag:"fault-error-event" usage:"{RATE} of streams ended by an error event"`
	// NotStreamed answers a streamed request with the whole non-streamed JSON
	// answer (Content-Type application/json), when it would have ended.
	NotStreamed float64 `json:"not_streamed" flag:"fault-not-streamed" usage:"{RATE} of streamed requests answered with one JSON document"`
	// Pause makes one long pause of PauseDuration mid-answer (where a
	// mid-stream fault would strike, after at least one token and before the
	// last), then the stream goes on to its normal end: a stall of a seeded
	// share of requests. Answers of one token have no gap to pause in.
	Pause         float64       `json:"pause" flag:"fault-pause" usage:"{RATE} of answers with one long pause mid-answer (--fault-pause-duration)"`
	PauseDuration time.Duration `json:"pause_duration" flag:"fault-pause-duration" usage:"how long the --fault-pause pause is ({DURATION})"`
	// PauseAt places the pause: after this share of the answer's tokens
	// (reasoning included), before the event of token 1 + ⌊PauseAt × (N −
	// 1)⌋, never before the second token nor after the last's event; 0 (the
	// default) lets the fault's draw place it. Early and late pauses give
	// the same gaps and different fluidity (docs/deadlines.md).
	PauseAt float64 `json:"pause_at" flag:"fault-pause-at" usage:"place the --fault-pause pause after this {SHARE} of the answer's tokens, in (0, 1) (0: drawn, where a mid-stream fault strikes)"`
}

// DefaultConfig returns the behaviour of `xk6-llmstream mock` without a
// profile: a plausible chat model (about 150 ms to the first token and 50
// tokens/s with mild lognormal jitter), unlimited slots and no faults.
func DefaultConfig() Config {
	return Config{
		Seed:        1,
		RetryAfter:  DefaultRetryAfter,
		Tokenizer:   DefaultTokenizer,
		PrefixCache: PrefixCache{Blocks: DefaultPrefixCacheBlocks, BlockTokens: DefaultBlockTokens},
		Default: ModelConfig{
			Prefill: Prefill{
				Base:          150 * time.Millisecond,
				PerInputToken: 100 * time.Microsecond,
				Jitter:        Jitter{Dist: JitterLognormal, Sigma: 0.3},
			},
			ITL: ITL{
				Base:   20 * time.Millisecond,
				Jitter: Jitter{Dist: JitterLognormal, Sigma: 0.15},
			},
			OutputTokens: Count{Dist: CountLognormal, Median: 120, Sigma: 0.5, Min: 1, Max: 1024},
		},
	}
}

// DefaultPrefixCacheBlocks is DefaultConfig's prefix cache capacity: 65,536
// blocks of 16 tokens, about a million tokens.
const DefaultPrefixCacheBlocks = 1 << 16

// model returns the configuration for a model name.
func (c *Config) model(name string) ModelConfig {
	if m, ok := c.Models[name]; ok {
		return m
	}
	return c.Default
}

// ModelNames returns the names listed by GET /v1/models, sorted.
func (c *Config) ModelNames() []string {
	if len(c.Models) == 0 {
		return []string{DefaultModelName}
	}
	names := make([]string, 0, len(c.Models))
	for n := range c.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Validate reports the first thing wrong with c, naming the field.
func (c *Config) Validate() error {
	if c.Slots < 0 {
		return fmt.Errorf("slots: %d is negative", c.Slots)
	}
	if c.QueueLimit < 0 {
		return fmt.Errorf("queue_limit: %d is negative", c.QueueLimit)
	}
	if c.RetryAfter < 0 {
		return fmt.Errorf("retry_after: %v is negative", c.RetryAfter)
	}
	if err := c.PrefixCache.validate(); err != nil {
		return err
	}
	if err := c.Burst.validate(); err != nil {
		return err
	}
	if err := c.Calls.validate(); err != nil {
		return err
	}
	if c.GPUs < 0 || c.GPUs > MaxGPUs {
		return fmt.Errorf("gpus: %d is not in [0, %d]", c.GPUs, MaxGPUs)
	}
	if err := c.Default.Validate(); err != nil {
		return fmt.Errorf("default: %w", err)
	}
	for _, name := range c.ModelNames() {
		m, ok := c.Models[name]
		if !ok {
			continue
		}
		if name == "" {
			return errors.New("models: empty model name")
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("models.%q: %w", name, err)
		}
	}
	return nil
}

// Validate reports the first thing wrong with m, naming the field.
func (m *ModelConfig) Validate() error {
	if m.ToolRounds < 0 || m.ToolRounds > maxToolRounds {
		return fmt.Errorf("tool_rounds: %d is outside 0…%d", m.ToolRounds, maxToolRounds)
	}
	if err := nonNegative("prefill.base", m.Prefill.Base); err != nil {
		return err
	}
	if err := nonNegative("prefill.per_input_token", m.Prefill.PerInputToken); err != nil {
		return err
	}
	if err := nonNegative("prefill.per_cached_token", m.Prefill.PerCachedToken); err != nil {
		return err
	}
	if err := nonNegative("prefill.max", m.Prefill.Max); err != nil {
		return err
	}
	if err := m.Prefill.Jitter.validate("prefill.jitter"); err != nil {
		return err
	}
	if err := nonNegative("itl.base", m.ITL.Base); err != nil {
		return err
	}
	if err := nonNegative("itl.max", m.ITL.Max); err != nil {
		return err
	}
	if err := m.ITL.Jitter.validate("itl.jitter"); err != nil {
		return err
	}
	if err := probability("stall.prob", m.Stall.Prob); err != nil {
		return err
	}
	if err := nonNegative("stall.duration", m.Stall.Duration); err != nil {
		return err
	}
	if err := m.Stall.Jitter.validate("stall.jitter"); err != nil {
		return err
	}
	if m.DecodeSlowdown < 0 || math.IsNaN(m.DecodeSlowdown) || math.IsInf(m.DecodeSlowdown, 0) {
		return fmt.Errorf("decode_slowdown: %v is not a finite number ≥ 0", m.DecodeSlowdown)
	}
	if err := m.OutputTokens.validate("output_tokens"); err != nil {
		return err
	}
	if err := m.ReasoningTokens.validate("reasoning_tokens"); err != nil {
		return err
	}
	t := m.TokensPerEvent
	if t.Min < 0 || t.Max < 0 || (t.Max > 0 && t.Max < t.Min) {
		return fmt.Errorf("tokens_per_event: min %d, max %d: want 0 ≤ min ≤ max", t.Min, t.Max)
	}
	if v := m.InvalidJSON; !(v >= 0 && v <= 1) {
		return fmt.Errorf("invalid_json: %v is not a share between 0 and 1", v)
	}
	if u := m.UsageOverReport; !(u >= 0 && u <= 10) {
		return fmt.Errorf("usage_over_report: %v is not a share between 0 and 10", u)
	}
	switch m.ReasoningField {
	case "", "reasoning_content", "reasoning":
	default:
		return fmt.Errorf("reasoning_field: %q is neither \"reasoning_content\" nor \"reasoning\"", m.ReasoningField)
	}
	return m.Faults.validate()
}

func (f *Faults) validate() error {
	sum := 0.0
	for _, r := range []struct {
		name string
		rate float64
	}{
		{"faults.http_429", f.HTTP429},
		{"faults.http_5xx", f.HTTP5xx},
		{"faults.disconnect", f.Disconnect},
		{"faults.malformed", f.Malformed},
		{"faults.error_event", f.ErrorEvent},
		{"faults.not_streamed", f.NotStreamed},
		{"faults.pause", f.Pause},
	} {
		if err := probability(r.name, r.rate); err != nil {
			return err
		}
		sum += r.rate
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("faults: rates sum to %v, more than 1", sum)
	}
	if err := nonNegative("faults.pause_duration", f.PauseDuration); err != nil {
		return err
	}
	if !(f.PauseAt >= 0 && f.PauseAt < 1) {
		return fmt.Errorf("faults.pause_at: %v is not a share of the answer in [0, 1) (0: drawn)", f.PauseAt)
	}
	if f.Pause > 0 && f.PauseDuration == 0 {
		return fmt.Errorf("faults.pause: a rate of %v needs faults.pause_duration > 0 (how long the pause is)", f.Pause)
	}
	if f.Status5xx != 0 && (f.Status5xx < 500 || f.Status5xx > 599) {
		return fmt.Errorf("faults.status_5xx: %d is not a 5xx status", f.Status5xx)
	}
	return nil
}

func (j *Jitter) validate(name string) error {
	switch j.Dist {
	case "", JitterNone:
		return nil
	case JitterLognormal:
		if j.Sigma < 0 || math.IsNaN(j.Sigma) || j.Sigma > 10 {
			return fmt.Errorf("%s.sigma: %v is not in [0, 10]", name, j.Sigma)
		}
	case JitterNormal:
		return nonNegative(name+".stddev", j.Stddev)
	case JitterUniform:
		return nonNegative(name+".spread", j.Spread)
	case JitterExponential:
		return nonNegative(name+".mean", j.Mean)
	default:
		return fmt.Errorf("%s.dist: unknown distribution %q (want none, lognormal, normal, uniform or exponential)", name, j.Dist)
	}
	return nil
}

func (c *Count) validate(name string) error {
	if c.Min < 0 || c.Max < 0 || (c.Max > 0 && c.Max < c.Min) {
		return fmt.Errorf("%s: min %d, max %d: want 0 ≤ min ≤ max", name, c.Min, c.Max)
	}
	switch c.Dist {
	case "":
		return nil
	case CountFixed:
		if c.Value < 0 {
			return fmt.Errorf("%s.value: %d is negative", name, c.Value)
		}
	case CountUniform:
		if c.Max == 0 {
			return fmt.Errorf("%s: uniform needs max > 0", name)
		}
	case CountLognormal:
		if !(c.Median > 0) || math.IsInf(c.Median, 0) {
			return fmt.Errorf("%s.median: %v is not a finite number > 0", name, c.Median)
		}
		if c.Sigma < 0 || math.IsNaN(c.Sigma) || c.Sigma > 10 {
			return fmt.Errorf("%s.sigma: %v is not in [0, 10]", name, c.Sigma)
		}
	case CountNormal:
		if c.Mean < 0 || math.IsNaN(c.Mean) || math.IsInf(c.Mean, 0) {
			return fmt.Errorf("%s.mean: %v is not a finite number ≥ 0", name, c.Mean)
		}
		if c.Stddev < 0 || math.IsNaN(c.Stddev) || math.IsInf(c.Stddev, 0) {
			return fmt.Errorf("%s.stddev: %v is not a finite number ≥ 0", name, c.Stddev)
		}
	default:
		return fmt.Errorf("%s.dist: unknown distribution %q (want fixed, uniform, lognormal or normal)", name, c.Dist)
	}
	return nil
}

func nonNegative(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s: %v is negative", name, d)
	}
	return nil
}

func probability(name string, p float64) error {
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("%s: %v is not a probability in [0, 1]", name, p)
	}
	return nil
}
