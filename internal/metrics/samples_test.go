package metrics

import (
	"math"
	"reflect"
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

func ns(ms float64) *int64 { v := int64(math.Round(ms * 1e6)); return &v }

func byMetric(ss []Series) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range ss {
		out[s.Metric] = append(out[s.Metric], s.Values...)
	}
	return out
}

// okRecord: 5 text events (TTFT 20.25 ms, gaps 8, 8.5, 0, 12), usage tokens,
// server timings, stages.
func okRecord() *records.Record {
	return &records.Record{V: records.Version, ID: "abc-1-1", API: "openai-chat", Model: "m", Status: 200,
		StartNS: 1, TTFTNS: ns(20.25), TPOTNS: ns(7.125), E2ENS: *ns(48.75),
		TextNS:       []int64{*ns(20.25), *ns(8), *ns(8.5), 0, *ns(12)},
		OutputTokens: 5, InputTokens: 12, CachedInputTokens: 4, TokenSource: "usage",
		Server: &records.Server{PrefillNS: *ns(10), DecodeNS: *ns(30), OutputTokens: 4},
		Stages: &records.Stages{ConnectNS: *ns(1), SendNS: *ns(0.25), WaitNS: *ns(15), FirstEventNS: *ns(3), FirstTokenNS: *ns(1)},
	}
}

func TestFromRecordDefinitions(t *testing.T) {
	t.Parallel()
	lag := *ns(0.083)
	rec := okRecord()
	rec.ClientLagNS = &lag
	got := byMetric(FromRecord(rec, &Options{Stages: true}))
	want := map[string][]float64{
		TTFT: {20.25}, TPOT: {7.125}, E2E: {48.75}, ITL: {8, 8.5, 0, 12}, ITLMax: {12}, ITLZeroGaps: {1},
		OutputTokens: {5}, InputTokens: {12}, CachedInputTokens: {4}, ServerPrefill: {10}, ServerTPOT: {7.5},
		RequestsFailed: {0}, StageConnect: {1}, StageSend: {0.25}, StageWait: {15}, StageFirstEvent: {3}, StageFirstToken: {1},
		ClientLag: {0.083},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples\n got %v\nwant %v", got, want)
	}
	// In Builtin's order.
	last := -1
	for _, s := range FromRecord(rec, &Options{Stages: true}) {
		i := builtinIndex(s.Metric)
		if i <= last {
			t.Errorf("%s out of Builtin's order", s.Metric)
		}
		last = i
	}
}

func builtinIndex(name string) int {
	for i, m := range Builtin {
		if m.Name == name {
			return i
		}
	}
	return -1
}

func TestFromRecordRules(t *testing.T) {
	t.Parallel()
	// A gap closed by an event of k tokens is k samples of gap/k; the
	// longest gap is the raw one.
	rec := okRecord()
	rec.TextTokens = []int{1, 1, 3, 1, 2}
	got := byMetric(FromRecord(rec, nil))
	if want := []float64{8, 8.5 / 3, 8.5 / 3, 8.5 / 3, 0, 6, 6}; !reflect.DeepEqual(got[ITL], want) || got[ITLMax][0] != 12 {
		t.Errorf("itl %v max %v, want %v and 12", got[ITL], got[ITLMax], want)
	}
	// A failed request has no TPOT even when the engine computed one.
	rec = okRecord()
	rec.Error = &records.Error{Kind: "reset_midstream"}
	if got := byMetric(FromRecord(rec, nil)); got[TPOT] != nil || got[RequestsFailed][0] != 1 {
		t.Errorf("failed request: tpot %v failed %v", got[TPOT], got[RequestsFailed])
	}
	// One token: no TPOT; one text event: no gap, no itl_max, zero gaps 0.
	rec = okRecord()
	rec.OutputTokens, rec.TextNS = 1, rec.TextNS[:1]
	got = byMetric(FromRecord(rec, nil))
	if got[TPOT] != nil || got[ITL] != nil || got[ITLMax] != nil || !reflect.DeepEqual(got[ITLZeroGaps], []float64{0}) {
		t.Errorf("one token: %v", got)
	}
	// itl off and records: no llm_itl, no zero gaps, but the longest gap.
	for _, m := range []ITLMode{ITLOff, ITLRecords} {
		got = byMetric(FromRecord(okRecord(), &Options{ITL: m}))
		if got[ITL] != nil || got[ITLZeroGaps] != nil || got[ITLMax][0] != 12 {
			t.Errorf("itl %s: %v", m, got)
		}
	}
	// Cost and length mismatch as asked.
	got = byMetric(FromRecord(okRecord(), &Options{Prices: &Prices{Input: 1, Output: 2, CachedInput: 0.5}, ExpectOutputTokens: 6}))
	if want := (8*1 + 4*0.5 + 5*2) / 1e6; got[Cost][0] != want || got[OutputLengthMismatch][0] != 1 {
		t.Errorf("cost %v want %v, mismatch %v", got[Cost], want, got[OutputLengthMismatch])
	}
	if got = byMetric(FromRecord(okRecord(), &Options{ExpectOutputTokens: 5})); got[OutputLengthMismatch] != nil {
		t.Errorf("matching length flagged: %v", got[OutputLengthMismatch])
	}
}

// TestFractionKeepsItsShare: with itl a fraction f, each request keeps every
// 1/f-th gap from a start drawn from its id: in all, the share f of the
// gaps, and the same ones for the same id.
func TestFractionKeepsItsShare(t *testing.T) {
	t.Parallel()
	total, kept := 0, 0
	for i := range 2000 {
		rec := okRecord()
		rec.ID = "p-1-" + itoa(i)
		n := 1 + i%7
		rec.TextNS = make([]int64, n+1)
		for j := range rec.TextNS {
			rec.TextNS[j] = *ns(float64(j + 1))
		}
		total += n
		a := byMetric(FromRecord(rec, &Options{ITL: ITLFraction, Fraction: 0.25}))[ITL]
		b := byMetric(FromRecord(rec, &Options{ITL: ITLFraction, Fraction: 0.25}))[ITL]
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("request %s: %v then %v", rec.ID, a, b)
		}
		kept += len(a)
	}
	if share := float64(kept) / float64(total); math.Abs(share-0.25) > 0.02 {
		t.Errorf("kept %d of %d gaps (%.3f), want 0.25 ± 0.02", kept, total, share)
	}
}

func TestMSRoundsOnceToTheMicrosecond(t *testing.T) {
	t.Parallel()
	for ns, want := range map[int64]float64{20512345: 20.512, 20512500: 20.513, 21000000: 21, 4000: 0.004, 499: 0} {
		if got := MS(ns); got != want {
			t.Errorf("MS(%d) = %v, want %v", ns, got, want)
		}
	}
}

// llm_output_invalid: a checked successful answer gets one sample, 1 with
// its reason tag when invalid; unchecked or failed requests get none.
func TestOutputInvalidSample(t *testing.T) {
	ok := &records.Record{StartNS: 1, OutputCheck: &records.OutputCheck{Schema: true}}
	bad := &records.Record{StartNS: 1, OutputCheck: &records.OutputCheck{Invalid: "schema"}}
	failed := &records.Record{StartNS: 1, Error: &records.Error{Kind: "timeout"}, OutputCheck: &records.OutputCheck{Invalid: "not_json"}}
	find := func(rec *records.Record) *Series {
		for _, s := range FromRecord(rec, nil) {
			if s.Metric == OutputInvalid {
				return &s
			}
		}
		return nil
	}
	if s := find(ok); s == nil || s.Values[0] != 0 || s.Tags != nil {
		t.Errorf("valid: %+v", s)
	}
	if s := find(bad); s == nil || s.Values[0] != 1 || s.Tags[TagReason] != "schema" {
		t.Errorf("invalid: %+v", s)
	}
	if s := find(failed); s != nil {
		t.Errorf("failed request: %+v", s)
	}
	if s := find(&records.Record{StartNS: 1}); s != nil {
		t.Errorf("unchecked request: %+v", s)
	}
}
