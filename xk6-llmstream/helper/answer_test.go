package helper

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/truncate"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// answerOf is the Answer of rec built field by field: the reference the fast
// encoder is checked against.
func answerOf(rec *stream.Record, o *encodeOptions) Answer {
	ms := func(d time.Duration, happened bool) *float64 {
		if !happened {
			return nil
		}
		v := float64(d.Round(time.Microsecond)/time.Microsecond) / 1000
		return &v
	}
	a := Answer{
		Version: AnswerVersion, OK: rec.Err == nil, API: string(rec.Dialect), Model: o.red.String(rec.Model), Status: rec.Status,
		HeadersMS: ms(rec.Headers, rec.Status != 0), FirstEventMS: ms(rec.FirstEvent, rec.Events > 0),
		TTFTMS: ms(rec.TTFT, rec.HasTTFT), TTFTAnswerMS: ms(rec.TTFTAnswer, rec.HasTTFTAnswer), TPOTMS: ms(rec.TPOT, rec.HasTPOT),
		E2EMS:        ms(rec.E2E, !rec.Start.IsZero()),
		OutputTokens: rec.OutputTokens, InputTokens: rec.InputTokens, ReasoningTokens: rec.ReasoningTokens,
		TokenSource: string(rec.TokenSource), Events: rec.Events, TextEvents: rec.TextEvents, Bytes: rec.Bytes,
		ToolCalls: rec.ToolCalls, HasReasoning: rec.HasReasoning, ClientLagMS: ms(o.lag, o.hasLag),
	}
	for _, g := range rec.ITL {
		if g == 0 {
			a.ITLZeroGaps++
		}
	}
	if a.API == "" {
		a.API = string(o.api)
	}
	a.CachedInputTokens, a.CacheCreationInputTokens = rec.CachedInputTokens, rec.CacheCreationInputTokens
	if st := rec.ServerTimings; st != nil {
		a.ServerPrefillMS, a.ServerDecodeMS = ms(st.Prefill, st.Prefill != 0), ms(st.Decode, st.Decode != 0)
		a.ServerTotalMS, a.ServerLoadMS = ms(st.Total, st.Total != 0), ms(st.Load, st.Load != 0)
		tpot, ok := st.TPOT()
		a.ServerTPOTMS = ms(tpot, ok)
		prompt, output := st.PromptTokens, st.OutputTokens
		a.ServerPromptTokens, a.ServerOutputTokens = &prompt, &output
	}
	st := &rec.Stages
	a.StageConnectMS, a.StageSendMS = ms(st.Connect, rec.HasTTFT), ms(st.Send, rec.HasTTFT)
	a.StageWaitMS, a.StageFirstEventMS = ms(st.Wait, rec.HasTTFT), ms(st.FirstEvent, rec.HasTTFT)
	a.StageFirstTokenMS, a.ConnReused = ms(st.FirstToken, rec.HasTTFT), st.Reused
	if rec.Err != nil {
		a.Error = &AnswerError{Kind: string(rec.Err.Kind), Message: o.red.String(rec.Err.Message)}
	}
	if !rec.Start.IsZero() {
		ns := rec.Start.UnixNano()
		a.StartUnixNS = &ns
	}
	if o.itl {
		a.ITLMS = []float64{}
		for _, d := range rec.ITL {
			a.ITLMS = append(a.ITLMS, *ms(d, true))
		}
		if rec.ITLTokens != nil {
			a.ITLTokens = append([]int{}, rec.ITLTokens...)
		}
	}
	if rec.FinishReason != "" {
		f := o.red.String(rec.FinishReason)
		a.FinishReason = &f
	}
	if o.keepText {
		text, cutText := truncate.UTF8(o.red.String(rec.Text), o.maxText)
		reasoning, cutReasoning := truncate.UTF8(o.red.String(rec.Reasoning), o.maxText)
		cut := cutText || cutReasoning
		a.Text, a.Reasoning, a.TextTruncated = &text, &reasoning, &cut
	}
	if o.keepTimeline {
		a.Timeline = []EventTime{}
		for _, e := range rec.Timeline {
			a.Timeline = append(a.Timeline, EventTime{AtMS: *ms(e.At, true), AtNS: int64(e.At), Text: e.Text, Tokens: e.Tokens, ServerNS: e.ServerNS})
		}
	}
	return a
}

// randomRecord draws a record with any field set or not.
func randomRecord(r *rand.Rand, text, other string) *stream.Record {
	dur := func() time.Duration { return time.Duration(r.Int64N(int64(1000 * time.Hour))) }
	rec := &stream.Record{
		Dialect: stream.Dialect(pick(r, "", "openai-chat", "anthropic-messages")), Model: pick(r, "", text, "gpt-4o-mini"),
		Status: pickInt(r, 0, 200, 429), Headers: dur(), FirstEvent: dur(), TTFT: dur(), HasTTFT: r.IntN(2) == 0,
		TTFTAnswer: dur(), HasTTFTAnswer: r.IntN(2) == 0, TPOT: dur(), HasTPOT: r.IntN(2) == 0, E2E: dur(),
		OutputTokens: r.IntN(5000), InputTokens: r.IntN(5000), ReasoningTokens: r.IntN(50), TokenSource: stream.TokenSource(pick(r, "", "usage", "events")),
		Events: r.IntN(3), TextEvents: r.IntN(100), Bytes: r.Int64N(1 << 40), FinishReason: pick(r, "", "stop", other),
		ToolCalls: r.IntN(3), HasReasoning: r.IntN(2) == 0, Text: text, Reasoning: other,
	}
	if r.IntN(4) > 0 {
		rec.Start = time.Unix(0, r.Int64N(1<<62))
	}
	rec.CachedInputTokens, rec.CacheCreationInputTokens = r.IntN(3)*r.IntN(5000), r.IntN(2)*r.IntN(5000)
	if r.IntN(2) == 0 {
		zeroOr := func() time.Duration { return time.Duration(r.IntN(2)) * dur() }
		rec.ServerTimings = &stream.ServerTimings{Prefill: zeroOr(), Decode: zeroOr(), Total: zeroOr(), Load: zeroOr(),
			PromptTokens: r.IntN(3) * r.IntN(5000), OutputTokens: r.IntN(3) * r.IntN(5000)}
	}
	rec.Stages = stream.Stages{Connect: dur(), Send: dur(), Wait: dur(), FirstEvent: dur(), FirstToken: dur(), Reused: r.IntN(2) == 0}
	if r.IntN(3) == 0 {
		rec.Err = &stream.Error{Kind: stream.ErrorKind(pick(r, "connect", "http_5xx")), Message: other + " " + text}
	}
	for range r.IntN(20) {
		rec.ITL = append(rec.ITL, dur())
	}
	if r.IntN(2) == 0 {
		rec.ITLTokens = []int{}
		for range rec.ITL {
			rec.ITLTokens = append(rec.ITLTokens, r.IntN(8))
		}
	}
	for range r.IntN(5) {
		rec.Timeline = append(rec.Timeline, stream.EventTime{At: dur(), Text: r.IntN(2) == 0, Tokens: r.IntN(4), ServerNS: r.Int64N(1 << 62)})
	}
	return rec
}

func pick(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }
func pickInt(r *rand.Rand, n ...int) int    { return n[r.IntN(len(n))] }

// checkAnswer checks that the fast encoder's bytes for rec are one JSON
// document with the Answer's fields and no other, that decode to what
// json.Marshal of the reference Answer decodes to: number for number (as
// written), null for null, string for string (both write invalid UTF-8 as
// U+FFFD).
func checkAnswer(t *testing.T, rec *stream.Record, o *encodeOptions) {
	t.Helper()
	fast := appendRecord(nil, rec, o)
	var a Answer
	dec := json.NewDecoder(bytes.NewReader(fast))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("answer does not decode into Answer: %v\n%s", err, fast)
	}
	want, err := json.Marshal(answerOf(rec, o))
	if err != nil {
		t.Fatal(err)
	}
	var wantA Answer
	if err := json.Unmarshal(want, &wantA); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, wantA) {
		t.Fatalf("fast encoder and json.Marshal(Answer) differ:\nfast    %s\nMarshal %s", fast, want)
	}
	// The same, literally: every value as written, keys and nulls included.
	if g, w := generic(t, fast), generic(t, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("fast encoder writes other values than json.Marshal:\nfast    %s\nMarshal %s", fast, want)
	}
}

// generic decodes JSON keeping numbers as written.
func generic(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// FuzzAnswerMatchesType: for fuzzed records and options, the fast encoder
// writes exactly the Answer that json.Marshal writes.
func FuzzAnswerMatchesType(f *testing.F) {
	f.Add(uint64(1), "Hello \"world\"\n", "thinking…", uint8(0xff))
	f.Add(uint64(2), "日本語 \u2028 <b>&amp;</b>", "a\xffb", uint8(0))
	f.Add(uint64(3), "key sk-abcdefghijklmnop here", "Bearer sk-test-0123456789", uint8(0x0f))
	f.Fuzz(func(t *testing.T, seed uint64, text, other string, flags uint8) {
		r := rand.New(rand.NewPCG(seed, uint64(flags)))
		rec := randomRecord(r, text, other)
		h := map[string][]string{"Authorization": {"Bearer sk-test-0123456789"}}
		o := &encodeOptions{
			api: stream.Dialect(pick(r, "openai-chat", "auto")), itl: flags&1 != 0, keepText: flags&2 != 0,
			keepTimeline: flags&4 != 0, maxText: int(flags >> 3), red: redact.New(h, nil),
			lag: time.Duration(r.Int64N(1e9)), hasLag: r.IntN(2) == 0,
		}
		checkAnswer(t, rec, o)
	})
}

func TestAnswerMatchesTypeOnFixedRecords(t *testing.T) {
	t.Parallel()
	for _, o := range []*encodeOptions{
		{itl: true, keepText: true, keepTimeline: true, maxText: 1 << 20, lag: 1234567 * time.Nanosecond, hasLag: true},
		{api: stream.AnthropicMessages},
		{itl: true, keepText: true, maxText: 3},
	} {
		checkAnswer(t, fullRecord(), o)
		checkAnswer(t, &stream.Record{Err: &stream.Error{Kind: stream.KindInvalidRequest, Message: "x"}}, o)
		checkAnswer(t, &stream.Record{}, o)
	}
}

// TestDocumentedFields checks that docs/helper-api.md documents exactly the
// Answer's fields, and that its example answer decodes into Answer.
func TestDocumentedFields(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/helper-api.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start := strings.Index(section, "### Answer 200: the record")
	if start < 0 {
		t.Fatal(`docs/helper-api.md has no "### Answer 200: the record" section`)
	}
	section = section[start:]
	if end := strings.Index(section[1:], "\n### "); end >= 0 {
		section = section[:end+1]
	}
	var documented []string
	firstCell := regexp.MustCompile("(?m)^\\| (`[^|]*`) \\|")
	for _, m := range firstCell.FindAllStringSubmatch(section, -1) {
		for _, name := range regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(m[1], -1) {
			documented = append(documented, name[1])
		}
	}
	var fields []string
	typ := reflect.TypeFor[Answer]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
	}
	if !slices.Equal(documented, fields) {
		t.Errorf("docs/helper-api.md documents the answer fields\n  %v\nthe Answer type has, in order,\n  %v", documented, fields)
	}

	example := section[strings.Index(section, "```json\n")+len("```json\n"):]
	example = example[:strings.Index(example, "```")]
	dec := json.NewDecoder(strings.NewReader(example))
	dec.DisallowUnknownFields()
	var a Answer
	if err := dec.Decode(&a); err != nil {
		t.Errorf("the example answer of docs/helper-api.md does not decode into Answer: %v", err)
	}
	if a.Version != AnswerVersion {
		t.Errorf("the example answer has version %d, want %d", a.Version, AnswerVersion)
	}
}
