package helper

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/llmstream/xk6-llmstream/internal/redact"
	"github.com/llmstream/xk6-llmstream/internal/truncate"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// This file writes the answer of POST /v1/stream (the Answer type) by
// appending to a byte slice: the record is flat, an ITL list can hold thousands
// of numbers, and the helper answers thousands of streams, so it avoids
// reflection. The tests check, on fuzzed records, that its bytes decode to
// exactly what encoding/json writes for the Answer, and fuzz the string
// escaping.

// encodeOptions are the per-request choices that shape the answer.
type encodeOptions struct {
	api          stream.Dialect // the requested dialect, used when the record has none
	itl          bool
	keepText     bool
	keepTimeline bool
	maxText      int
	red          *redact.Redactor
	lag          time.Duration // the canary's worst lateness while the stream ran
	hasLag       bool
}

// appendRecord appends rec as the JSON answer of POST /v1/stream.
func appendRecord(b []byte, rec *stream.Record, o *encodeOptions) []byte {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, AnswerVersion, 10)
	b = appendOutcome(b, rec, o)
	b = appendTimings(b, rec)
	b = appendGaps(b, rec, o.itl)
	b = appendCounts(b, rec, o)
	b = appendServer(b, rec)
	b = appendStages(b, rec)
	if o.keepText {
		b = appendText(b, rec, o)
	}
	if o.keepTimeline {
		b = appendTimeline(b, rec.Timeline)
	}
	return append(b, "}\n"...)
}

// appendOutcome appends ok, api, model, status and error.
func appendOutcome(b []byte, rec *stream.Record, o *encodeOptions) []byte {
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, rec.Err == nil)
	api := rec.Dialect
	if api == "" {
		api = o.api
	}
	b = append(b, `,"api":`...)
	b = appendString(b, string(api))
	b = append(b, `,"model":`...)
	b = appendString(b, o.red.String(rec.Model))
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(rec.Status), 10)
	b = append(b, `,"error":`...)
	if rec.Err == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"kind":`...)
	b = appendString(b, string(rec.Err.Kind))
	b = append(b, `,"message":`...)
	b = appendString(b, o.red.String(rec.Err.Message))
	return append(b, '}')
}

// appendTimings appends the start time and the durations from it, each null
// when its moment did not happen.
func appendTimings(b []byte, rec *stream.Record) []byte {
	started := !rec.Start.IsZero()
	b = append(b, `,"start_unix_ns":`...)
	if started {
		b = strconv.AppendInt(b, rec.Start.UnixNano(), 10)
	} else {
		b = append(b, "null"...)
	}
	b = appendMSField(b, "headers_ms", rec.Headers, rec.Status != 0)
	b = appendMSField(b, "first_event_ms", rec.FirstEvent, rec.Events > 0)
	b = appendMSField(b, "ttft_ms", rec.TTFT, rec.HasTTFT)
	b = appendMSField(b, "ttft_answer_ms", rec.TTFTAnswer, rec.HasTTFTAnswer)
	b = appendMSField(b, "tpot_ms", rec.TPOT, rec.HasTPOT)
	return appendMSField(b, "e2e_ms", rec.E2E, started)
}

// appendGaps appends itl_ms and itl_tokens, both null when the request asked
// for no ITL (itl_tokens also when the server reported no token counts).
func appendGaps(b []byte, rec *stream.Record, itl bool) []byte {
	b = append(b, `,"itl_ms":`...)
	if itl {
		b = append(b, '[')
		for i, d := range rec.ITL {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMS(b, d)
		}
		b = append(b, ']')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"itl_tokens":`...)
	if !itl || rec.ITLTokens == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, n := range rec.ITLTokens {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

// appendCounts appends the token, event and byte counts, the finish reason,
// tool calls and has_reasoning.
func appendCounts(b []byte, rec *stream.Record, o *encodeOptions) []byte {
	b = appendIntField(b, "output_tokens", rec.OutputTokens)
	b = appendIntField(b, "input_tokens", rec.InputTokens)
	b = appendIntField(b, "reasoning_tokens", rec.ReasoningTokens)
	b = append(b, `,"token_source":`...)
	b = appendString(b, string(rec.TokenSource))
	b = appendIntField(b, "events", rec.Events)
	b = appendIntField(b, "text_events", rec.TextEvents)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, rec.Bytes, 10)
	b = append(b, `,"finish_reason":`...)
	if rec.FinishReason == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, o.red.String(rec.FinishReason))
	}
	b = appendIntField(b, "tool_calls", rec.ToolCalls)
	b = append(b, `,"has_reasoning":`...)
	b = strconv.AppendBool(b, rec.HasReasoning)
	b = appendMSField(b, "client_lag_ms", o.lag, o.hasLag)
	return appendIntField(b, "itl_zero_gaps", zeroGaps(rec.ITL))
}

// appendServer appends the prompt-cache counts and the server's own timings
// (null when it reported none; a zero duration is null: not reported).
func appendServer(b []byte, rec *stream.Record) []byte {
	b = appendIntField(b, "cached_input_tokens", rec.CachedInputTokens)
	b = appendIntField(b, "cache_creation_input_tokens", rec.CacheCreationInputTokens)
	st := rec.ServerTimings
	if st == nil {
		return append(b, `,"server_prefill_ms":null,"server_decode_ms":null,"server_total_ms":null,"server_load_ms":null,"server_tpot_ms":null,"server_prompt_tokens":null,"server_output_tokens":null`...)
	}
	b = appendMSField(b, "server_prefill_ms", st.Prefill, st.Prefill != 0)
	b = appendMSField(b, "server_decode_ms", st.Decode, st.Decode != 0)
	b = appendMSField(b, "server_total_ms", st.Total, st.Total != 0)
	b = appendMSField(b, "server_load_ms", st.Load, st.Load != 0)
	tpot, ok := st.TPOT()
	b = appendMSField(b, "server_tpot_ms", tpot, ok)
	b = appendIntField(b, "server_prompt_tokens", st.PromptTokens)
	return appendIntField(b, "server_output_tokens", st.OutputTokens)
}

// appendStages appends the stages of TTFT (null without a TTFT) and whether
// the connection was reused.
func appendStages(b []byte, rec *stream.Record) []byte {
	s, has := &rec.Stages, rec.HasTTFT
	b = appendMSField(b, "stage_connect_ms", s.Connect, has)
	b = appendMSField(b, "stage_send_ms", s.Send, has)
	b = appendMSField(b, "stage_wait_ms", s.Wait, has)
	b = appendMSField(b, "stage_first_event_ms", s.FirstEvent, has)
	b = appendMSField(b, "stage_first_token_ms", s.FirstToken, has)
	b = append(b, `,"conn_reused":`...)
	return strconv.AppendBool(b, s.Reused)
}

// appendText appends text and reasoning, redacted then cut to maxText, and
// whether either was cut.
func appendText(b []byte, rec *stream.Record, o *encodeOptions) []byte {
	text, cutText := truncate.UTF8(o.red.String(rec.Text), o.maxText)
	reasoning, cutReasoning := truncate.UTF8(o.red.String(rec.Reasoning), o.maxText)
	b = append(b, `,"text":`...)
	b = appendString(b, text)
	b = append(b, `,"reasoning":`...)
	b = appendString(b, reasoning)
	b = append(b, `,"text_truncated":`...)
	return strconv.AppendBool(b, cutText || cutReasoning)
}

// appendTimeline appends one object per SSE event.
func appendTimeline(b []byte, tl []stream.EventTime) []byte {
	b = append(b, `,"timeline":[`...)
	for i, e := range tl {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"at_ms":`...)
		b = appendMS(b, e.At)
		b = append(b, `,"at_ns":`...)
		b = strconv.AppendInt(b, int64(e.At), 10)
		b = append(b, `,"text":`...)
		b = strconv.AppendBool(b, e.Text)
		b = append(b, `,"tokens":`...)
		b = strconv.AppendInt(b, int64(e.Tokens), 10)
		b = append(b, `,"server_ns":`...)
		b = strconv.AppendInt(b, e.ServerNS, 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendHelperError appends a helper-level refusal: {"error":{"kind","message"}}.
func appendHelperError(b []byte, kind, msg string) []byte {
	b = append(b, `{"error":{"kind":`...)
	b = appendString(b, kind)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	return append(b, "}}\n"...)
}

func appendIntField(b []byte, name string, v int) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

// appendMSField appends ,"name":<ms> or ,"name":null when the duration did not happen.
func appendMSField(b []byte, name string, d time.Duration, happened bool) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	if !happened {
		return append(b, "null"...)
	}
	return appendMS(b, d)
}

// appendMS appends d in milliseconds rounded to the microsecond, exactly (no
// binary floating point on the way): 20512345ns → 20.512, 21ms → 21.
func appendMS(b []byte, d time.Duration) []byte {
	us := int64(d.Round(time.Microsecond) / time.Microsecond)
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// MS formats d as the helper's answers do: milliseconds rounded to the
// microsecond, without trailing zeros.
func MS(d time.Duration) string { return string(appendMS(nil, d)) }

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD; control
// characters, U+2028 and U+2029 are escaped, so the output is valid JSON and valid
// JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// zeroGaps counts the gaps of exactly zero: events completed by one read.
func zeroGaps(itl []time.Duration) int {
	n := 0
	for _, g := range itl {
		if g == 0 {
			n++
		}
	}
	return n
}
