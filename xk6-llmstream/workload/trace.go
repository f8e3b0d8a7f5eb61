package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// TraceFormat names a public request-trace format that ReadTrace reads.
type TraceFormat string

// The trace formats.
const (
	// Mooncake is the Mooncake traces' JSONL: one request a line, "timestamp"
	// (ms from the trace's start), "input_length", "output_length" (tokens)
	// and "hash_ids", one id per 512-token block of the prompt; equal ids are
	// equal blocks with equal prefixes.
	Mooncake TraceFormat = "mooncake"
	// Bailian is Alibaba Bailian's (Qwen) JSONL: the Mooncake fields with
	// "timestamp" in seconds, 16-token hash blocks, and sessions: "chat_id",
	// "parent_chat_id" (-1 for a session's first request) and "turn".
	Bailian TraceFormat = "bailian"
	// BurstGPT is the BurstGPT CSV: "Timestamp" (seconds from the trace's
	// start), "Model", "Request tokens", "Response tokens", "Log Type".
	BurstGPT TraceFormat = "burstgpt"
	// Azure is the Azure LLM inference trace CSV: "TIMESTAMP" (a date and
	// time), "ContextTokens", "GeneratedTokens".
	Azure TraceFormat = "azure"
)

// TraceFormats lists the formats ReadTrace knows.
func TraceFormats() []TraceFormat { return []TraceFormat{Mooncake, Bailian, BurstGPT, Azure} }

// DefaultBlockTokens is the tokens of one hash block of a trace format that
// has them (0: none).
func (f TraceFormat) DefaultBlockTokens() int {
	switch f {
	case Mooncake:
		return 512
	case Bailian:
		return 16
	}
	return 0
}

// TraceRequest is one request of a trace.
type TraceRequest struct {
	Line int // 1-based line of the file (a CSV row's first line)
	// AtMS is the send time in ms from the trace's first request.
	AtMS          float64
	Input, Output int // tokens
	// HashIDs name the prompt's blocks (BlockTokens each, the last one may
	// be partial); nil when the format has none.
	HashIDs []int64
	// Session names the request's conversation (the first request's id)
	// and Turn its place in it, when the trace says.
	Session string
	Turn    int
	// Tags are the trace's other columns worth keeping (model, log type).
	Tags map[string]string
}

// TraceSkip is a request ReadTrace passed over, and why.
type TraceSkip struct {
	Line   int
	Reason string
}

// TraceStats is what ReadTrace read.
type TraceStats struct {
	Requests int // passed to emit
	Skipped  int // passed to skip
	// OutOfOrder counts the requests whose time is before an earlier line's
	// (a trace concatenated from several collectors): ReadTrace sorts them
	// into place.
	OutOfOrder int
}

// ReadTrace reads a trace file of the format and calls emit with each request
// in time order, skip with each request that cannot be sent (no input or no
// output tokens: BurstGPT logs failures with 0 response tokens). A trace out
// of time order is sorted, stably (requests of equal time keep the file's
// order), and its stats count the requests that were out of order; AtMS
// counts from the earliest request. Errors name the file and line.
func ReadTrace(r io.Reader, name string, format TraceFormat, emit func(TraceRequest) error, skip func(TraceSkip)) (TraceStats, error) {
	t := &traceReader{name: name, skip: skip, latest: math.Inf(-1)}
	var err error
	switch format {
	case Mooncake, Bailian:
		err = t.jsonl(r, format)
	case BurstGPT, Azure:
		err = t.csv(r, format)
	default:
		return TraceStats{}, fmt.Errorf("unknown trace format %q (want one of mooncake, bailian, burstgpt, azure)", format)
	}
	if err != nil {
		return t.stats, err
	}
	return t.stats, t.flush(emit)
}

type traceReader struct {
	name     string
	skip     func(TraceSkip)
	pending  []pendingRequest
	latest   float64 // the latest time read so far, ms
	stats    TraceStats
	epoch    time.Time // Azure: the first row's time (hasEpoch: read; year 1 is a time too)
	hasEpoch bool
}

// pendingRequest is a request read, waiting for the sort: its raw time and,
// for Bailian, its chat ids (sessions are resolved in time order).
type pendingRequest struct {
	q              TraceRequest
	ms             float64
	chat, parent   int64
	hasChat, hasPa bool
}

// add checks the time and the lengths and keeps the request for the sort.
func (t *traceReader) add(p pendingRequest) error {
	q := p.q
	if math.IsNaN(p.ms) || math.IsInf(p.ms, 0) {
		return fmt.Errorf("%s:%d: the time is not a number", t.name, q.Line)
	}
	switch {
	case q.Input < 0 || q.Output < 0:
		return fmt.Errorf("%s:%d: negative token count (input %d, output %d)", t.name, q.Line, q.Input, q.Output)
	case q.Input > MaxTokens:
		return fmt.Errorf("%s:%d: input length %s", t.name, q.Line, overMaxTokens(q.Input))
	case q.Output > MaxTokens:
		return fmt.Errorf("%s:%d: output length %s", t.name, q.Line, overMaxTokens(q.Output))
	case q.Input == 0 || q.Output == 0:
		t.stats.Skipped++
		if t.skip != nil {
			t.skip(TraceSkip{Line: q.Line, Reason: fmt.Sprintf("input %d, output %d tokens: nothing to send", q.Input, q.Output)})
		}
		return nil
	}
	if p.ms < t.latest {
		t.stats.OutOfOrder++
	}
	t.latest = max(t.latest, p.ms)
	t.pending = append(t.pending, p)
	return nil
}

// flush sorts the requests by time (stably), resolves Bailian's sessions
// in that order, and emits them with AtMS from the earliest.
func (t *traceReader) flush(emit func(TraceRequest) error) error {
	ps := t.pending
	t.pending = nil
	if t.stats.OutOfOrder > 0 {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].ms < ps[j].ms })
	}
	var roots map[int64]int64 // Bailian: chat id → its session's first chat id
	for _, p := range ps {
		q := p.q
		q.AtMS = p.ms - ps[0].ms
		if p.hasChat {
			if roots == nil {
				roots = map[int64]int64{}
			}
			root := p.chat
			if p.hasPa && p.parent >= 0 {
				root = p.parent
				if pr, ok := roots[p.parent]; ok {
					root = pr
				}
			}
			roots[p.chat] = root
			q.Session = strconv.FormatInt(root, 10)
		}
		t.stats.Requests++
		if err := emit(q); err != nil {
			return err
		}
	}
	return nil
}

// traceLine is one line of the Mooncake and Bailian JSONL traces.
type traceLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
	ChatID       *int64   `json:"chat_id"`
	ParentChatID *int64   `json:"parent_chat_id"`
	Turn         int      `json:"turn"`
	Type         string   `json:"type"`
}

func (t *traceReader) jsonl(r io.Reader, format TraceFormat) error {
	sc := bufio.NewScanner(newCheckedReader(r, 0))
	sc.Buffer(make([]byte, 64<<10), int(MaxEntryBytes))
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l traceLine
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("%s:%d: bad JSON line: %w", t.name, line, err)
		}
		var missing []string
		if l.Timestamp == nil {
			missing = append(missing, `"timestamp"`)
		}
		if l.InputLength == nil {
			missing = append(missing, `"input_length"`)
		}
		if l.OutputLength == nil {
			missing = append(missing, `"output_length"`)
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s:%d: no %s (a %s trace line has timestamp, input_length, output_length and hash_ids)",
				t.name, line, strings.Join(missing, ", "), format)
		}
		ms := *l.Timestamp
		if format == Bailian {
			ms *= 1000
		}
		p := pendingRequest{q: TraceRequest{Line: line, Input: *l.InputLength, Output: *l.OutputLength, HashIDs: l.HashIDs}, ms: ms}
		if l.ChatID != nil {
			p.chat, p.hasChat, p.q.Turn = *l.ChatID, true, l.Turn
			if l.ParentChatID != nil {
				p.parent, p.hasPa = *l.ParentChatID, true
			}
		}
		if l.Type != "" {
			p.q.Tags = map[string]string{"type": l.Type}
		}
		if err := t.add(p); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		var ie *inputError
		switch {
		case errors.Is(err, bufio.ErrTooLong):
			return fmt.Errorf("%s:%d: %s", t.name, line+1, tooLong(MaxEntryBytes))
		case errors.As(err, &ie):
			return fmt.Errorf("%s:%d: %s", t.name, ie.line, ie.msg)
		}
		return fmt.Errorf("%s: %w", t.name, err)
	}
	return nil
}

// The columns of the CSV traces: time, input and output tokens, and the
// columns kept as tags (by the tag's name).
var traceColumns = map[TraceFormat]struct {
	at, in, out string
	tags        map[string]string
}{
	BurstGPT: {"Timestamp", "Request tokens", "Response tokens", map[string]string{"Model": "trace_model", "Log Type": "log_type"}},
	Azure:    {"TIMESTAMP", "ContextTokens", "GeneratedTokens", nil},
}

// azureTimeLayouts are the TIMESTAMP forms of the Azure traces (fractions of
// any length are accepted by the parser).
var azureTimeLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00"}

func (t *traceReader) csv(r io.Reader, format TraceFormat) error {
	cols := traceColumns[format]
	cr := newCSVReader(r, t.name)
	header, err := cr.Header()
	if err != nil {
		return err
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	idx := func(c string) (int, error) {
		i, ok := col[c]
		if !ok {
			return 0, fmt.Errorf("%s:1: the header has no %q column (a %s trace has %s, %s and %s; this one has %s)",
				t.name, c, format, cols.at, cols.in, cols.out, strings.Join(header, ", "))
		}
		return i, nil
	}
	at, err := idx(cols.at)
	if err != nil {
		return err
	}
	in, err := idx(cols.in)
	if err != nil {
		return err
	}
	out, err := idx(cols.out)
	if err != nil {
		return err
	}
	for {
		rec, line, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		q := TraceRequest{Line: line}
		num := func(i int) (int, error) {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
			if err != nil || v != math.Trunc(v) || v < 0 {
				return 0, fmt.Errorf("%s:%d: %s %q is not a whole number of tokens ≥ 0", t.name, line, header[i], rec[i])
			}
			if v > float64(MaxTokens) {
				return 0, fmt.Errorf("%s:%d: %s %s", t.name, line, header[i], overMaxTokens(v))
			}
			return int(v), nil
		}
		if q.Input, err = num(in); err != nil {
			return err
		}
		if q.Output, err = num(out); err != nil {
			return err
		}
		ms, err := t.rowTime(format, rec[at], header[at], line)
		if err != nil {
			return err
		}
		for c, tag := range cols.tags {
			if i, ok := col[c]; ok && rec[i] != "" {
				if q.Tags == nil {
					q.Tags = map[string]string{}
				}
				q.Tags[tag] = rec[i]
			}
		}
		if err := t.add(pendingRequest{q: q, ms: ms}); err != nil {
			return err
		}
	}
}

// rowTime reads a row's time column v (named name, on line) in ms: an
// Azure trace's date and time from its first row's, a BurstGPT trace's
// seconds.
func (t *traceReader) rowTime(format TraceFormat, v, name string, line int) (float64, error) {
	if format == Azure {
		ts, ok := parseAzureTime(v)
		if !ok {
			return 0, fmt.Errorf("%s:%d: %s %q is not a date and time like 2023-11-16 18:15:46.6805900", t.name, line, name, v)
		}
		if !t.hasEpoch {
			t.epoch, t.hasEpoch = ts, true
		}
		d := ts.Sub(t.epoch)
		if d == math.MaxInt64 || d == math.MinInt64 { // Sub saturates: the span is not a time.Duration
			return 0, fmt.Errorf("%s:%d: %s %q is more than 292 years (Go's longest duration) from the first row's %s",
				t.name, line, name, v, t.epoch.Format(azureTimeLayouts[0]))
		}
		return float64(d.Nanoseconds()) / 1e6, nil // from the first row: exact to the ns
	}
	s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%s:%d: %s %q is not a number of seconds", t.name, line, name, v)
	}
	return s * 1000, nil
}

func parseAzureTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range azureTimeLayouts {
		if ts, err := time.Parse(l, s); err == nil {
			return ts, true
		}
	}
	return time.Time{}, false
}
