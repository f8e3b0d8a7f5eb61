package metrics

import (
	"testing"

	"github.com/llmstream/xk6-llmstream/internal/records"
)

func TestTokenMismatch(t *testing.T) {
	t.Parallel()
	audit := func(counted int, errMsg string) *records.TokenAudit {
		return &records.TokenAudit{Tokenizer: "cl100k_base", Counted: counted, Tolerance: 0.05, Error: errMsg}
	}
	for _, tt := range []struct {
		name         string
		rec          records.Record
		mismatch, ok bool
	}{
		{"equal", records.Record{OutputTokens: 100, TokenSource: "usage", TokenAudit: audit(100, "")}, false, true},
		{"within 5%", records.Record{OutputTokens: 105, TokenSource: "usage", TokenAudit: audit(100, "")}, false, true},
		{"over 5%", records.Record{OutputTokens: 106, TokenSource: "usage", TokenAudit: audit(100, "")}, true, true},
		{"under 5%", records.Record{OutputTokens: 94, TokenSource: "usage", TokenAudit: audit(100, "")}, true, true},
		{"one token (eos) on a short answer", records.Record{OutputTokens: 5, TokenSource: "usage", TokenAudit: audit(4, "")}, false, true},
		{"two tokens on a short answer", records.Record{OutputTokens: 6, TokenSource: "usage", TokenAudit: audit(4, "")}, true, true},
		{"no audit", records.Record{OutputTokens: 6, TokenSource: "usage"}, false, false},
		{"audit error", records.Record{OutputTokens: 6, TokenSource: "usage", TokenAudit: audit(0, "too long")}, false, false},
		{"no usage", records.Record{OutputTokens: 60, TokenSource: "events", TokenAudit: audit(4, "")}, false, false},
		{"failed", records.Record{OutputTokens: 60, TokenSource: "usage", Error: &records.Error{Kind: "x"}, TokenAudit: audit(4, "")}, false, false},
	} {
		m, ok := TokenMismatch(&tt.rec)
		if m != tt.mismatch || ok != tt.ok {
			t.Errorf("%s: mismatch %v ok %v, want %v %v", tt.name, m, ok, tt.mismatch, tt.ok)
		}
		has := false
		for _, s := range FromRecord(&tt.rec, nil) {
			if s.Metric == OutputTokenMismatch {
				has = true
				if want := boolValue(tt.mismatch); s.Values[0] != want {
					t.Errorf("%s: sample %v, want %v", tt.name, s.Values[0], want)
				}
			}
		}
		if has != tt.ok {
			t.Errorf("%s: FromRecord has a mismatch sample: %v, want %v", tt.name, has, tt.ok)
		}
	}
}
