package stream

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestStagesSumToTTFT fuzzes the moments a trace and a record can report —
// in order, out of order, missing, equal — and checks that the stages are
// never negative and add up to TTFT to the nanosecond.
func TestStagesSumToTTFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	moment := func() int64 {
		switch rng.IntN(5) {
		case 0:
			return 0 // not seen
		case 1:
			return 1
		default:
			return rng.Int64N(int64(2 * time.Second))
		}
	}
	for i := range 200000 {
		tr := &connTrace{}
		tr.gotConn.Store(moment())
		tr.wrote.Store(moment())
		tr.reused.Store(rng.IntN(2) == 0)
		tr.dnsStart.Store(moment())
		tr.dnsDone.Store(moment())
		r := &Record{Status: 200, Headers: time.Duration(moment())}
		r.Events = rng.IntN(3)
		r.FirstEvent = r.Headers + time.Duration(rng.Int64N(int64(time.Second)))
		if r.Events > 0 && rng.IntN(4) > 0 {
			r.TTFT, r.HasTTFT = r.FirstEvent+time.Duration(rng.Int64N(int64(time.Second))), true
		}
		s := tr.stages(r)
		for _, d := range []time.Duration{s.Connect, s.Send, s.Wait, s.FirstEvent, s.FirstToken, s.DNS} {
			if d < 0 {
				t.Fatalf("case %d: a negative stage: %+v", i, s)
			}
		}
		if s.Reused && s.Connect != 0 {
			t.Fatalf("case %d: a reused connection has Connect %v", i, s.Connect)
		}
		want := r.FirstEvent
		switch {
		case r.HasTTFT:
			want = r.TTFT
		case r.Events == 0:
			want = r.Headers
		}
		if got := s.Sum(); got != want {
			t.Fatalf("case %d: stages %+v sum to %v, want %v", i, s, got, want)
		}
	}
}

// TestStagesOfRealRequests checks the stages of requests to a real server: a
// new connection's set-up is measured, a reused one's is zero, and the
// stages add up to TTFT.
func TestStagesOfRealRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		writeFlush(w, roleEvent)
		writeFlush(w, goodStream)
	}))
	defer srv.Close()
	c := NewClient()
	defer c.CloseIdleConnections()
	for i := range 3 {
		rec := c.Do(context.Background(), chatRequest(srv.URL))
		if rec.Err != nil {
			t.Fatalf("request %d: %v", i, rec.Err)
		}
		s := rec.Stages
		if s.Sum() != rec.TTFT {
			t.Errorf("request %d: stages %+v sum to %v, TTFT is %v", i, s, s.Sum(), rec.TTFT)
		}
		if i == 0 && (s.Reused || s.Connect <= 0) {
			t.Errorf("request 0: want a new connection with a Connect stage, got %+v", s)
		}
		if i > 0 && (!s.Reused || s.Connect != 0) {
			t.Errorf("request %d: want a reused connection and Connect 0, got %+v", i, s)
		}
		if s.Wait <= 0 {
			t.Errorf("request %d: Wait %v, want > 0", i, s.Wait)
		}
	}
}
