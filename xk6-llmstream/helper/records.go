package helper

import (
	"fmt"

	"github.com/llmstream/xk6-llmstream/internal/records"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/serverstats"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// record hands a finished request to the records writer, if any. It never
// blocks: a full queue drops the record and the writer counts it.
func (h *Handler) record(rec *records.Record) {
	if h.cfg.records == nil {
		return
	}
	h.cfg.records.Submit(recordItem{rec})
}

// recordItem is a request waiting for the records writer. The record is
// shared with the request's answer and never modified once made.
type recordItem struct{ rec *records.Record }

// Size estimates the memory the waiting item holds.
func (it recordItem) Size() int {
	r := it.rec
	return 1024 + 8*cap(r.TextNS) + 8*cap(r.TextTokens) + len(r.ID) + 64*len(r.Tags)
}

// AppendRecord appends the request's record line.
func (it recordItem) AppendRecord(b []byte) []byte { return records.AppendJSON(b, it.rec) }

// toRecord is the engine's record of a request in the records format, the
// one form both its answer and its records line are made from. Strings that
// came from the server or the script are redacted. server is the sampler's
// latest scrape at the request's start (nil: none); unanswered is true when
// the caller went away before the answer.
func toRecord(r *stream.Record, p *parsed, unanswered bool, server *serverstats.Sample) *records.Record {
	red := p.redactor
	ns := func(d int64, happened bool) *int64 {
		if !happened {
			return nil
		}
		return &d
	}
	out := &records.Record{V: records.Version, ID: red.String(p.id), Warmup: p.warmup, Unanswered: unanswered,
		API: string(r.Dialect), Model: red.String(r.Model), Status: r.Status,
		Finish: red.String(r.FinishReason), Kind: r.Kind, Batch: r.Batch,
		HeadersNS: ns(int64(r.Headers), r.Status != 0), FirstEventNS: ns(int64(r.FirstEvent), r.Events > 0),
		TTFTNS: ns(int64(r.TTFT), r.HasTTFT), TTFTAnswerNS: ns(int64(r.TTFTAnswer), r.HasTTFTAnswer),
		TPOTNS: ns(int64(r.TPOT), r.HasTPOT), E2ENS: int64(r.E2E),
		OutputTokens: r.OutputTokens, InputTokens: r.InputTokens, ReasoningTokens: r.ReasoningTokens,
		CachedInputTokens: r.CachedInputTokens, CacheCreationInputTokens: r.CacheCreationInputTokens,
		TokenSource: string(r.TokenSource), NegativeUsage: r.NegativeUsage, Events: r.Events, Bytes: r.Bytes, TextTokens: r.TextTokens}
	if out.API == "" {
		out.API = string(p.req.Dialect)
	}
	if !r.Start.IsZero() {
		out.StartNS = r.Start.UnixNano()
	}
	out.ScheduledNS = p.scheduledNS
	if a := r.Abandoned; a != nil {
		out.Abandoned = &records.Abandoned{AtNS: int64(a.At), Tokens: a.Tokens}
	}
	if r.Err != nil {
		out.Error = &records.Error{Kind: string(r.Err.Kind), Message: red.String(r.Err.Message)}
	}
	if r.Status != 0 {
		s := &r.Stages
		out.Stages = &records.Stages{ConnectNS: int64(s.Connect), SendNS: int64(s.Send), WaitNS: int64(s.Wait),
			FirstEventNS: int64(s.FirstEvent), FirstTokenNS: int64(s.FirstToken), Reused: s.Reused,
			DNSNS: int64(s.DNS), TLSNS: int64(s.TLS)}
	}
	if r.HasTTFT {
		out.TextNS = make([]int64, 0, 1+len(r.ITL))
		out.TextNS = append(out.TextNS, int64(r.TTFT))
		for _, d := range r.ITL {
			out.TextNS = append(out.TextNS, int64(d))
		}
	}
	if st := r.ServerTimings; st != nil {
		out.Server = &records.Server{PrefillNS: int64(st.Prefill), DecodeNS: int64(st.Decode), TotalNS: int64(st.Total),
			LoadNS: int64(st.Load), PromptTokens: st.PromptTokens, OutputTokens: st.OutputTokens}
	}
	if server != nil {
		out.ServerWaiting, out.ServerRunning = server.Waiting, server.Running
	}
	if len(r.Tools) > 0 {
		out.Tools = make([]records.ToolCall, len(r.Tools))
		for i, t := range r.Tools {
			out.Tools[i] = records.ToolCall{ID: red.String(t.ID), Name: red.String(t.Name),
				FirstArgNS: ns(int64(t.FirstArg), t.HasFirstArg), ParseError: t.ParseError, Truncated: t.Truncated}
		}
	}
	out.ToolsDropped = r.ToolCallsDropped
	if len(p.tags) > 0 {
		out.Tags = make(map[string]string, len(p.tags))
		for k, v := range p.tags {
			out.Tags[red.String(k)] = red.String(v)
		}
	}
	return out
}

// CreateRecords is OpenRecords with the default options: a file that is
// not a records file is refused, a write error is returned at close.
func CreateRecords(path string) (*records.Writer, error) { return OpenRecords(path, RecordsOptions{}) }

// CloseRecords closes w and says what it wrote, for the helper's last log
// line; it is nil-safe.
func CloseRecords(w *records.Writer) (string, error) {
	if w == nil {
		return "", nil
	}
	err := w.Close()
	st := w.Stats()
	msg := fmt.Sprintf("%d record(s) written, %d dropped (queue full)", st.Written, st.Dropped)
	if st.Lost > 0 {
		msg += fmt.Sprintf(", %d lost to a write error", st.Lost)
	}
	return msg, err
}
