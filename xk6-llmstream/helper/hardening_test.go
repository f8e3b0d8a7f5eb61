package helper

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmstream/xk6-llmstream/internal/headroom"
	"github.com/llmstream/xk6-llmstream/internal/metrics"
	"github.com/llmstream/xk6-llmstream/xk6-llmstream/stream"
)

// Tests of issue 11 (hardening): each reproduces a defect found when the
// helper was attacked.

// nested is a request to helperURL whose body nests the same request depth
// times: the shape of the request that drove a helper to 10,212 descriptors.
func nested(helperURL string, depth int) string {
	body := `{"model":"m"}`
	for range depth {
		body = fmt.Sprintf(`{"url":%q,"body":%s}`, helperURL+StreamPath, body)
	}
	return body
}

func TestNoHelperLoops(t *testing.T) {
	t.Parallel()
	t.Run("upstream is the helper itself", func(t *testing.T) {
		fs := okStreamer()
		h := startHelper(t, WithStreamer(fs))
		for _, u := range []string{h.URL(), strings.Replace(h.URL(), "127.0.0.1", "localhost", 1),
			strings.Replace(h.URL(), "127.0.0.1", "127.0.0.2", 1), strings.Replace(h.URL(), "127.0.0.1", "[::ffff:127.0.0.1]", 1)} {
			resp, err := http.Post(h.URL()+StreamPath, "application/json", strings.NewReader(nested(u, 50)))
			if err != nil {
				t.Fatal(err)
			}
			var ref Refusal
			_ = json.NewDecoder(resp.Body).Decode(&ref)
			resp.Body.Close()
			if resp.StatusCode != http.StatusLoopDetected || ref.Error.Kind != KindLoop {
				t.Errorf("upstream %s: %d %+v, want 508 %s", u, resp.StatusCode, ref.Error, KindLoop)
			}
		}
		if n := fs.count(); n != 0 {
			t.Errorf("the engine ran %d times for looping requests", n)
		}
	})
	t.Run("upstream is another helper", func(t *testing.T) {
		innerEngine := okStreamer()
		inner := startHelper(t, WithStreamer(innerEngine))
		outer := startHelper(t) // the real engine: it sends the hop header
		code, a, raw := streamVia(t, outer.URL(), map[string]any{
			"url": inner.URL() + StreamPath, "body": json.RawMessage(nested(outer.URL(), 20)),
		})
		if code != http.StatusLoopDetected || a.Error == nil || a.Error.Kind != string(stream.KindHTTP5xx) || a.Status != http.StatusLoopDetected || !strings.Contains(raw, HopHeader) {
			t.Errorf("outer answered %d %s; want 508 with an http_5xx record (status 508) quoting %s", code, raw, HopHeader)
		}
		if n := innerEngine.count(); n != 0 {
			t.Errorf("the second helper streamed %d requests from a helper", n)
		}
	})
}

// rawExchange sends head and body on a new connection to addr and returns
// everything the helper sent until it closed the connection. The deadline is
// a failsafe against the defect (a connection held open forever), not a timing
// assertion.
func rawExchange(t *testing.T, addr, head, body string) (string, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := io.WriteString(c, head+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(bufio.NewReader(c))
	return string(got), err
}

func TestPartialBodyIsAnsweredAndClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, status string
		opts         []Option
		auth         bool
	}{
		{"body stops arriving", "HTTP/1.1 400 ", []Option{WithBodyReadTimeout(100 * time.Millisecond)}, true},
		{"missing token", "HTTP/1.1 401 ", []Option{WithToken("tok-0123456789")}, false},
		{"wrong token", "HTTP/1.1 401 ", []Option{WithToken("tok-0123456789")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startHelper(t, append(tc.opts, WithStreamer(okStreamer()))...)
			head := "POST " + StreamPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
			if tc.name == "wrong token" {
				head += "Authorization: Bearer nope\r\n"
			}
			got, err := rawExchange(t, s.Addr().String(), head, `{"url":"`)
			if err != nil {
				t.Fatalf("reading the answer: %v (got %q): the helper held the connection open", err, got)
			}
			if !strings.HasPrefix(got, tc.status) || !strings.Contains(got, "Connection: close") {
				t.Errorf("got %q, want %q… with Connection: close", got, tc.status)
			}
		})
	}
}

func TestAllowListRefusesEverything(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"*", "0.0.0.0/0", "::/0", "::0/0", "api.openai.com,0.0.0.0/0"} {
		if _, err := ParseAllowList(e); err == nil || !strings.Contains(err.Error(), "open proxy") {
			t.Errorf("ParseAllowList(%q) = %v, want an open-proxy refusal", e, err)
		}
	}
	if _, err := ParseAllowList("10.0.0.0/8", "::1/128"); err != nil {
		t.Errorf("narrow prefixes refused: %v", err)
	}
}

func TestStartNeverResolvesAddr(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0x7f000001:0", "localhost.:0", "2130706433:0", "helper.invalid:0", "127.1:0"} {
		s, err := Start(addr, WithToken("tok-0123456789"))
		if err == nil {
			s.Shutdown(context.Background())
			t.Errorf("Start(%q) listened on %s; want a refusal (no name resolution)", addr, s.Addr())
			continue
		}
		if !strings.Contains(err.Error(), "not an IP address or localhost") {
			t.Errorf("Start(%q) = %v, want it to say the host is not an IP address or localhost", addr, err)
		}
	}
	s := startHelper(t, WithStreamer(okStreamer()))
	_ = s
	l, err := Start("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Shutdown(context.Background())
	if ap := listenAddrPort(l.Addr()); ap.Addr().String() != "127.0.0.1" {
		t.Errorf("localhost bound %s, want 127.0.0.1", l.Addr())
	}
}

func TestAbsurdTimeoutsRefused(t *testing.T) {
	t.Parallel()
	fs := okStreamer()
	h := NewHandler(WithStreamer(fs))
	for _, field := range []string{"timeout_ms", "idle_timeout_ms"} {
		for _, v := range []string{"1e-300", "5e-324", "0.5", "1e300"} {
			code, m := post(t, h, `{"url":"http://127.0.0.1/x","body":{},"`+field+`":`+v+`}`, nil)
			kind, msg := errorKind(m)
			if code != 400 || kind != KindBadRequest || !strings.Contains(msg, field) {
				t.Errorf("%s %s: %d %s %q, want 400 naming %s", field, v, code, kind, msg, field)
			}
		}
	}
	if n := fs.count(); n != 0 {
		t.Errorf("absurd timeouts reached the engine %d times", n)
	}
}

func TestAnswerStatusFollowsTheLLM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind   stream.ErrorKind
		status int
		want   int
	}{
		{"", 200, 200},
		{"http_429", 429, 429},
		{"http_401", 401, 401},
		{stream.KindHTTP5xx, 503, 503},
		{"http_302", 302, 502},
		{stream.KindConnect, 0, 502},
		{stream.KindResetMidstream, 200, 502},
		{stream.KindMalformed, 200, 502},
		{stream.KindStreamError, 200, 502},
		{stream.KindNotStreamed, 200, 502},
		{stream.KindEmptyOutput, 200, 502},
		{stream.KindTimeout, 0, 504},
		{stream.KindTimeoutMidstream, 200, 504},
		{stream.KindCanceled, 200, 503},
	} {
		rec := &stream.Record{Status: tc.status, Dialect: stream.OpenAIChat}
		if tc.kind != "" {
			rec.Err = &stream.Error{Kind: tc.kind, Message: "x"}
		}
		w := &recorderStreamer{rec: rec}
		h := NewHandler(WithStreamer(w))
		code, m := post(t, h, `{"url":"http://127.0.0.1/x","body":{}}`, nil)
		if code != tc.want {
			t.Errorf("kind %q status %d: helper answered %d, want %d", tc.kind, tc.status, code, tc.want)
		}
		if _, ok := m["ok"].(bool); !ok {
			t.Errorf("kind %q: the %d answer is not a record: %v", tc.kind, code, m)
		}
	}
}

type recorderStreamer struct{ rec *stream.Record }

func (r *recorderStreamer) Do(context.Context, *stream.Request) *stream.Record {
	c := *r.rec
	return &c
}

// fakeClock drives a canary without sleeping or a socket: each tick records
// one probe read lag later than it was written (the injected scheduling
// delay).
type fakeClock struct {
	t   time.Time
	lag time.Duration
}

func (f *fakeClock) now() time.Time        { return f.t }
func (f *fakeClock) sleep(d time.Duration) { f.t = f.t.Add(d + f.lag) }
func (f *fakeClock) install(c *canary)     { c.now, c.sleep = f.now, f.sleep }
func (f *fakeClock) ticks(c *canary, n int) {
	for range n {
		f.t = f.t.Add(c.interval + f.lag)
		c.record(f.lag)
	}
}

func TestHealthReportsInjectedLag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		lag     time.Duration
		itl     time.Duration
		limited bool
		reason  string
	}{
		{"punctual", 20 * time.Microsecond, 10 * time.Millisecond, false, ""},
		{"late beyond 0.15 ms", 3 * time.Millisecond, 100 * time.Millisecond, true, "above 0.15 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := &fakeClock{t: time.Unix(0, 0), lag: tc.lag}
			gaps := []time.Duration{tc.itl, 0, tc.itl, tc.itl}
			var h *Handler
			st := &tickingStreamer{ticks: 50, clk: clk, rec: &stream.Record{Status: 200, HasTTFT: true, TTFT: tc.itl, ITL: gaps, TextEvents: 5}}
			h = NewHandler(WithStreamer(st))
			st.h = h
			clk.install(h.canary)
			for i := range headroom.MinSamples {
				code, m := post(t, h, `{"url":"http://127.0.0.1/x","body":{}}`, nil)
				if code != 200 {
					t.Fatalf("answer %d: %v", code, m)
				}
				got := samplesOf(t, m)
				if lag := got[metrics.ClientLag]; len(lag) != 1 || lag[0] != msFloat(tc.lag) {
					t.Errorf("llm_client_lag %v, want the injected %v", lag, msFloat(tc.lag))
				}
				if z := got[metrics.ITLZeroGaps]; len(z) != 1 || z[0] != 1 {
					t.Errorf("llm_itl_zero_gaps %v, want [1]", z)
				}
				if i == 0 { // one request: no verdict, and the reason says so
					if hs := h.Health(); hs.Limited || !strings.Contains(hs.Reason, "1 client lag sample(s)") {
						t.Errorf("Health after one request: limited %v %q, want no verdict on 1 sample", hs.Limited, hs.Reason)
					}
				}
			}
			hs := h.Health()
			if hs.Limited != tc.limited || !strings.Contains(hs.Reason, tc.reason) {
				t.Errorf("Health limited %v %q, want %v %q", hs.Limited, hs.Reason, tc.limited, tc.reason)
			}
			n := int64(headroom.MinSamples)
			if hs.LagSamples != n || hs.ITLGaps != 4*n || hs.ITLZeroGaps != n || *hs.ITLZeroShare != 0.25 {
				t.Errorf("Health %+v: want %d lag samples, %d gaps, %d zeros (25%%)", hs, n, 4*n, n)
			}
			if *hs.LagP99MS != msFloat(tc.lag) {
				t.Errorf("lag p99 %v, want the injected %v (every request saw it)", *hs.LagP99MS, msFloat(tc.lag))
			}
		})
	}
}

// samplesOf is an answer's samples by metric.
func samplesOf(t *testing.T, m map[string]any) map[string][]float64 {
	t.Helper()
	obj, ok := m["samples"].(map[string]any)
	if !ok {
		t.Fatalf("answer without a samples object: %v", m)
	}
	out := map[string][]float64{}
	for metric, x := range obj {
		switch v := x.(type) {
		case float64:
			out[metric] = []float64{v}
		case []any:
			for _, e := range v {
				out[metric] = append(out[metric], e.(float64))
			}
		default:
			t.Fatalf("sample %s is %T, want a number or an array", metric, x)
		}
	}
	return out
}

// tickingStreamer runs the canary for ticks ticks while "streaming" (streams
// are active then, so the samples count).
type tickingStreamer struct {
	h     *Handler
	clk   *fakeClock
	ticks int
	rec   *stream.Record
}

func (s *tickingStreamer) Do(context.Context, *stream.Request) *stream.Record {
	s.clk.ticks(s.h.canary, s.ticks)
	c := *s.rec
	return &c
}

func TestHealthEndpoint(t *testing.T) {
	t.Parallel()
	s := startHelper(t, WithStreamer(okStreamer()))
	resp, err := http.Get(s.URL() + HealthSummaryPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var hs Health
	if err := json.NewDecoder(resp.Body).Decode(&hs); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", HealthSummaryPath, resp.StatusCode, err)
	}
	if hs.CanaryIntervalMS != msFloat(CanaryInterval) || hs.Limited {
		t.Errorf("idle helper health %+v", hs)
	}
}
