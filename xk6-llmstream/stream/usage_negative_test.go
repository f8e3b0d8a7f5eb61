package stream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A usage report with a negative token count is kept as 0, the figure k6
// gets (metrics.FromRecord), and flagged (NegativeUsage), for a stream and
// for a rerank call alike; a sane report is not flagged.
func TestNegativeUsageIsClampedAndFlagged(t *testing.T) {
	t.Parallel()
	negUsage := `data: {"object":"chat.completion.chunk","model":"served-model","choices":[],"usage":{"prompt_tokens":-7000000,"completion_tokens":3,"total_tokens":10}}` + "\n\n"
	for _, c := range []struct {
		name, body string
		flagged    bool
	}{
		{"negative", roleEvent + chatEvent("a") + chatEvent("b") + chatEvent("c") + finishEvent + negUsage + doneEvent, true},
		{"sane", goodStream, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sseHeaders(w)
			writeFlush(w, c.body)
		}))
		rec := NewClient().Do(context.Background(), chatRequest(srv.URL))
		srv.Close()
		if rec.Err != nil {
			t.Fatalf("%s: %v", c.name, rec.Err)
		}
		if rec.InputTokens < 0 || rec.NegativeUsage != c.flagged || rec.OutputTokens != 3 {
			t.Errorf("%s: input %d, output %d, flagged %v", c.name, rec.InputTokens, rec.OutputTokens, rec.NegativeUsage)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"usage":{"total_tokens":-5},"results":[{"index":0,"relevance_score":0.5}]}`))
	}))
	defer srv.Close()
	rec := NewClient().Do(context.Background(), &Request{URL: srv.URL + "/v1/rerank", Body: []byte(`{"model":"m","query":"q","documents":["a"]}`)})
	if rec.Err != nil || rec.InputTokens != 0 || !rec.NegativeUsage {
		t.Errorf("rerank: err %v, input %d, flagged %v", rec.Err, rec.InputTokens, rec.NegativeUsage)
	}
}
